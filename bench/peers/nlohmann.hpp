// nlohmann/json (Debian nlohmann-json3-dev) with its non-intrusive type macros.
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_NLOHMANN_JSON

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "../bench_objects.hpp"
#include "../world.hpp"

namespace seeds {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(InventoryItem, Id, Quantity)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SaveGame, Name, HighScore, Inventory)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Equip, name, atk, def, spd)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Status, lv, exp, hp, max_hp, atk, def, spd, equip)
}  // namespace seeds

// nlohmann/json has no std::optional support of its own: null or the value.
NLOHMANN_JSON_NAMESPACE_BEGIN
template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    if (value)
      j = *value;
    else
      j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& value) {
    if (j.is_null())
      value.reset();
    else
      value = j.get<T>();
  }
};
NLOHMANN_JSON_NAMESPACE_END

namespace bench {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Vec3, x, y, z)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Npc, name, title, position, hp, dialogue, flags)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Chunk, x, y, heights, npcs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(World, name, chunks, log)
}  // namespace bench

namespace bench::ways {

struct nlohmann_json {
  static constexpr bool found = true;
  static constexpr const char* library = "nlohmann/json";
  static std::string version() {
    return std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
           std::to_string(NLOHMANN_JSON_VERSION_PATCH);
  }
  using buffer = std::string;
  static constexpr const char* name = "nlohmann/json";
  template <class T>
  static void write(const T& value, buffer& out) {
    out = nlohmann::json(value).dump();
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    auto document = nlohmann::json::parse(in, nullptr, false);
    if (document.is_discarded()) return false;
    document.get_to(value);
    return true;
  }
};

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(nlohmann_json, "nlohmann/json", "nlohmann/json")
#endif
