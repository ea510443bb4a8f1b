// simdjson On-Demand (Debian libsimdjson-dev): read only (no write); the input is padded
// once, into its buffer type.
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_SIMDJSON

#include <simdjson.h>

#include <string>

#include "../bench_objects.hpp"

namespace bench::ways {

struct simdjson_ondemand {
  static constexpr bool found = true;
  static constexpr const char* library = "simdjson";
  static std::string version() { return SIMDJSON_STRINGIFY(SIMDJSON_VERSION); }
  static constexpr const char* name = "simdjson On-Demand";
  using buffer = simdjson::padded_string;

  static bool get(simdjson::ondemand::object object, InventoryItem& item) {
    int64_t id, quantity;
    if (object["Id"].get_int64().get(id) || object["Quantity"].get_int64().get(quantity)) return false;
    item = {static_cast<int>(id), static_cast<int>(quantity)};
    return true;
  }
  static bool get(simdjson::ondemand::object object, SaveGame& save) {
    std::string_view name;
    int64_t score;
    simdjson::ondemand::array inventory;
    if (object["Name"].get_string().get(name) || object["HighScore"].get_int64().get(score) ||
        object["Inventory"].get_array().get(inventory))
      return false;
    save.Name.assign(name);
    save.HighScore = static_cast<int>(score);
    save.Inventory.clear();
    for (auto element : inventory) {
      simdjson::ondemand::object item_object;
      InventoryItem item;
      if (element.get_object().get(item_object) || !get(item_object, item)) return false;
      save.Inventory.push_back(item);
    }
    return true;
  }
  static bool get(simdjson::ondemand::object object, Status& s) {
    int64_t v[7];
    const char* keys[] = {"lv", "exp", "hp", "max_hp", "atk", "def", "spd"};
    for (int i = 0; i < 7; ++i)
      if (object[keys[i]].get_int64().get(v[i])) return false;
    s = {int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4]), int(v[5]), int(v[6]), std::move(s.equip)};
    simdjson::ondemand::object equip;
    std::string_view name;
    int64_t atk, def, spd;
    if (object["equip"].get_object().get(equip) || equip["name"].get_string().get(name) ||
        equip["atk"].get_int64().get(atk) || equip["def"].get_int64().get(def) || equip["spd"].get_int64().get(spd))
      return false;
    s.equip.name.assign(name);
    s.equip.atk = int(atk);
    s.equip.def = int(def);
    s.equip.spd = int(spd);
    return true;
  }

  template <class T>
  static bool read(const buffer& in, T& value) {
    thread_local simdjson::ondemand::parser parser;
    simdjson::ondemand::document document;
    simdjson::ondemand::object object;
    if (parser.iterate(in).get(document) || document.get_object().get(object)) return false;
    return get(object, value);
  }
};

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(simdjson_ondemand, "simdjson On-Demand", "simdjson")
#endif
