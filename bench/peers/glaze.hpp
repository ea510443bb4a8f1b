// glaze (not packaged by Debian): found only through SAVEKIT_GLAZE_INCLUDE_DIR, and needs
// C++23. The bench types get glz::meta objects: glaze writes a plain aggregate's
// MessagePack as an array, and only a meta object as a map; with the meta, each form is a
// choice of options (structs_as_arrays), as savekit's is. JSON is the same either way.
// glaze validates less than savekit does (UTF-8 in strings, values it skips): tables that
// put them side by side say so.
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_GLAZE
#include <glaze/glaze.hpp>

#include <string>

#include "../bench_objects.hpp"
#include "../world.hpp"

template <>
struct glz::meta<seeds::InventoryItem> {
  using T = seeds::InventoryItem;
  static constexpr auto value = object("Id", &T::Id, "Quantity", &T::Quantity);
};
template <>
struct glz::meta<seeds::SaveGame> {
  using T = seeds::SaveGame;
  static constexpr auto value = object("Name", &T::Name, "HighScore", &T::HighScore, "Inventory", &T::Inventory);
};
template <>
struct glz::meta<seeds::Equip> {
  using T = seeds::Equip;
  static constexpr auto value = object("name", &T::name, "atk", &T::atk, "def", &T::def, "spd", &T::spd);
};
template <>
struct glz::meta<seeds::Status> {
  using T = seeds::Status;
  static constexpr auto value = object("lv", &T::lv, "exp", &T::exp, "hp", &T::hp, "max_hp", &T::max_hp, "atk", &T::atk,
                                       "def", &T::def, "spd", &T::spd, "equip", &T::equip);
};
template <>
struct glz::meta<bench::Vec3> {
  using T = bench::Vec3;
  static constexpr auto value = object("x", &T::x, "y", &T::y, "z", &T::z);
};
template <>
struct glz::meta<bench::Npc> {
  using T = bench::Npc;
  static constexpr auto value = object("name", &T::name, "title", &T::title, "position", &T::position, "hp", &T::hp,
                                       "dialogue", &T::dialogue, "flags", &T::flags);
};
template <>
struct glz::meta<bench::Chunk> {
  using T = bench::Chunk;
  static constexpr auto value = object("x", &T::x, "y", &T::y, "heights", &T::heights, "npcs", &T::npcs);
};
template <>
struct glz::meta<bench::World> {
  using T = bench::World;
  static constexpr auto value = object("name", &T::name, "chunks", &T::chunks, "log", &T::log);
};

namespace bench::ways {

template <glz::opts Options>
struct glaze_way {
  using buffer = std::string;
  static constexpr bool found = true;
  static constexpr const char* library = "glaze";
  static std::string version() {
    return std::to_string(glz::version.major) + "." + std::to_string(glz::version.minor) + "." +
           std::to_string(glz::version.patch);
  }
  template <class T>
  static void write(const T& value, buffer& out) {
    if (glz::write<Options>(value, out)) out.clear();  // an error: nothing that reads back
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    return !glz::read<Options>(value, in);
  }
};

struct glaze_json : glaze_way<glz::opts{}> {
  static constexpr const char* name = "glaze JSON";
};
struct glaze_msgpack_array : glaze_way<glz::opts{.format = glz::MSGPACK, .structs_as_arrays = true}> {
  static constexpr const char* name = "glaze MessagePack array";
};
struct glaze_msgpack_map : glaze_way<glz::opts{.format = glz::MSGPACK}> {
  static constexpr const char* name = "glaze MessagePack map";
};
struct glaze_beve : glaze_way<glz::opts{.format = glz::BEVE}> {
  static constexpr const char* name = "glaze BEVE";
};

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(glaze_json, "glaze JSON", "glaze")
SAVEKIT_BENCH_PEER_NOT_FOUND(glaze_msgpack_array, "glaze MessagePack array", "glaze")
SAVEKIT_BENCH_PEER_NOT_FOUND(glaze_msgpack_map, "glaze MessagePack map", "glaze")
SAVEKIT_BENCH_PEER_NOT_FOUND(glaze_beve, "glaze BEVE", "glaze")
#endif
