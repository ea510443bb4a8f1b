// RapidJSON (Debian rapidjson-dev): Writer into a reused StringBuffer; DOM read.
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_RAPIDJSON

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "../bench_objects.hpp"

namespace bench::ways {

struct rapidjson_dom {
  static constexpr bool found = true;
  static constexpr const char* library = "RapidJSON";
  static std::string version() { return RAPIDJSON_VERSION_STRING; }
  using buffer = rapidjson::StringBuffer;
  static constexpr const char* name = "RapidJSON";

  using writer = rapidjson::Writer<rapidjson::StringBuffer>;
  static void put(writer& w, const InventoryItem& item) {
    w.StartObject();
    w.Key("Id");
    w.Int(item.Id);
    w.Key("Quantity");
    w.Int(item.Quantity);
    w.EndObject();
  }
  static void put(writer& w, const SaveGame& save) {
    w.StartObject();
    w.Key("Name");
    w.String(save.Name.data(), static_cast<rapidjson::SizeType>(save.Name.size()));
    w.Key("HighScore");
    w.Int(save.HighScore);
    w.Key("Inventory");
    w.StartArray();
    for (const auto& item : save.Inventory) put(w, item);
    w.EndArray();
    w.EndObject();
  }
  static void put(writer& w, const Equip& e) {
    w.StartObject();
    w.Key("name");
    w.String(e.name.data(), static_cast<rapidjson::SizeType>(e.name.size()));
    w.Key("atk");
    w.Int(e.atk);
    w.Key("def");
    w.Int(e.def);
    w.Key("spd");
    w.Int(e.spd);
    w.EndObject();
  }
  static void put(writer& w, const Status& s) {
    w.StartObject();
    const std::pair<const char*, int> ints[] = {{"lv", s.lv},   {"exp", s.exp}, {"hp", s.hp},  {"max_hp", s.max_hp},
                                                {"atk", s.atk}, {"def", s.def}, {"spd", s.spd}};
    for (auto [key, value] : ints) {
      w.Key(key);
      w.Int(value);
    }
    w.Key("equip");
    put(w, s.equip);
    w.EndObject();
  }

  template <class T>
  static void write(const T& value, buffer& out) {
    out.Clear();
    writer w(out);
    put(w, value);
  }

  static bool get_int(const rapidjson::Value& object, const char* key, int& out) {
    auto it = object.FindMember(key);
    if (it == object.MemberEnd() || !it->value.IsInt()) return false;
    out = it->value.GetInt();
    return true;
  }
  static bool get_string(const rapidjson::Value& object, const char* key, std::string& out) {
    auto it = object.FindMember(key);
    if (it == object.MemberEnd() || !it->value.IsString()) return false;
    out.assign(it->value.GetString(), it->value.GetStringLength());
    return true;
  }
  static bool get(const rapidjson::Value& v, SaveGame& save) {
    if (!v.IsObject() || !get_string(v, "Name", save.Name) || !get_int(v, "HighScore", save.HighScore)) return false;
    auto it = v.FindMember("Inventory");
    if (it == v.MemberEnd() || !it->value.IsArray()) return false;
    save.Inventory.clear();
    for (const auto& element : it->value.GetArray()) {
      InventoryItem item;
      if (!element.IsObject() || !get_int(element, "Id", item.Id) || !get_int(element, "Quantity", item.Quantity))
        return false;
      save.Inventory.push_back(item);
    }
    return true;
  }
  static bool get(const rapidjson::Value& v, Status& s) {
    if (!v.IsObject()) return false;
    bool ok = get_int(v, "lv", s.lv) && get_int(v, "exp", s.exp) && get_int(v, "hp", s.hp) &&
              get_int(v, "max_hp", s.max_hp) && get_int(v, "atk", s.atk) && get_int(v, "def", s.def) &&
              get_int(v, "spd", s.spd);
    auto it = v.FindMember("equip");
    if (!ok || it == v.MemberEnd() || !it->value.IsObject()) return false;
    const auto& e = it->value;
    return get_string(e, "name", s.equip.name) && get_int(e, "atk", s.equip.atk) && get_int(e, "def", s.equip.def) &&
           get_int(e, "spd", s.equip.spd);
  }

  template <class T>
  static bool read(std::string_view in, T& value) {
    rapidjson::Document document;
    document.Parse(in.data(), in.size());
    return !document.HasParseError() && get(document, value);
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    return read(std::string_view(in.GetString(), in.GetSize()), value);
  }
  static std::size_t size(const buffer& b) { return b.GetSize(); }
};

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(rapidjson_dom, "RapidJSON", "RapidJSON")
#endif
