// jsoncpp (Debian libjsoncpp-dev): Json::Value tree, StreamWriterBuilder / CharReader.
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_JSONCPP

#include <json/json.h>

#include <memory>
#include <string>

#include "../bench_objects.hpp"

namespace bench::ways {

struct jsoncpp_value {
  static constexpr bool found = true;
  static constexpr const char* library = "jsoncpp";
  static std::string version() { return JSONCPP_VERSION_STRING; }
  using buffer = std::string;
  static constexpr const char* name = "jsoncpp";

  static Json::Value tree(const InventoryItem& i) {
    Json::Value v(Json::objectValue);
    v["Id"] = i.Id;
    v["Quantity"] = i.Quantity;
    return v;
  }
  static Json::Value tree(const SaveGame& s) {
    Json::Value v(Json::objectValue);
    v["Name"] = s.Name;
    v["HighScore"] = s.HighScore;
    Json::Value items(Json::arrayValue);
    for (const auto& i : s.Inventory) items.append(tree(i));
    v["Inventory"] = std::move(items);
    return v;
  }
  static Json::Value tree(const Status& s) {
    Json::Value v(Json::objectValue);
    v["lv"] = s.lv;
    v["exp"] = s.exp;
    v["hp"] = s.hp;
    v["max_hp"] = s.max_hp;
    v["atk"] = s.atk;
    v["def"] = s.def;
    v["spd"] = s.spd;
    Json::Value e(Json::objectValue);
    e["name"] = s.equip.name;
    e["atk"] = s.equip.atk;
    e["def"] = s.equip.def;
    e["spd"] = s.equip.spd;
    v["equip"] = std::move(e);
    return v;
  }

  static const Json::StreamWriterBuilder& writer() {
    static const Json::StreamWriterBuilder builder = [] {
      Json::StreamWriterBuilder b;
      b["indentation"] = "";
      b["emitUTF8"] = true;
      return b;
    }();
    return builder;
  }

  template <class T>
  static void write(const T& value, buffer& out) {
    out = Json::writeString(writer(), tree(value));
  }

  static bool get(const Json::Value& v, SaveGame& s) {
    if (!v.isObject() || !v["Name"].isString() || !v["HighScore"].isInt() || !v["Inventory"].isArray()) return false;
    s.Name = v["Name"].asString();
    s.HighScore = v["HighScore"].asInt();
    s.Inventory.clear();
    for (const auto& i : v["Inventory"]) {
      if (!i["Id"].isInt() || !i["Quantity"].isInt()) return false;
      s.Inventory.push_back({i["Id"].asInt(), i["Quantity"].asInt()});
    }
    return true;
  }
  static bool get(const Json::Value& v, Status& s) {
    if (!v.isObject() || !v["equip"].isObject()) return false;
    s.lv = v["lv"].asInt();
    s.exp = v["exp"].asInt();
    s.hp = v["hp"].asInt();
    s.max_hp = v["max_hp"].asInt();
    s.atk = v["atk"].asInt();
    s.def = v["def"].asInt();
    s.spd = v["spd"].asInt();
    const Json::Value& e = v["equip"];
    s.equip.name = e["name"].asString();
    s.equip.atk = e["atk"].asInt();
    s.equip.def = e["def"].asInt();
    s.equip.spd = e["spd"].asInt();
    return true;
  }

  template <class T>
  static bool read(const buffer& in, T& value) {
    static const std::unique_ptr<Json::CharReader> reader(Json::CharReaderBuilder().newCharReader());
    Json::Value root;
    if (!reader->parse(in.data(), in.data() + in.size(), &root, nullptr)) return false;
    return get(root, value);
  }
};

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(jsoncpp_value, "jsoncpp", "jsoncpp")
#endif
