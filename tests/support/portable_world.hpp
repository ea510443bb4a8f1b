// What the portability tests build on both sides, natively and in WebAssembly (under node
// and in a browser page): a world whose types differ in width between the targets, and the
// key and context its sealed copies are bound to.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#if SAVEKIT_PORTABILITY_SEAL
#include "savekit/seal.hpp"
#endif

namespace portable {

enum class Biome { plains, desert, tundra };

struct Tile {
  std::int16_t height = 0;
  Biome biome = Biome::plains;
  std::optional<std::string> label;
  bool operator==(const Tile&) const = default;
};

// Types whose width differs between the two targets (long, size_t) next to fixed ones.
struct World {
  std::string name;
  std::int64_t seed = 0;
  std::uint64_t ticks = 0;
  long population = 0;         // 64-bit natively, 32-bit in wasm32: values that fit both
  std::size_t tile_count = 0;  // likewise
  double gravity = 0;
  float wind = 0;
  std::vector<bool> discovered;
  std::vector<Tile> tiles;
  std::map<std::string, std::int32_t> counters;
  std::variant<std::monostate, int, std::string> quest;
  bool operator==(const World&) const = default;
};

struct BigCount {
  std::size_t count = 0;
};

inline World make_world() {
  World w;
  w.name = "Ünïcödé ワールド \xF0\x9F\x8C\x8D";
  w.seed = std::numeric_limits<std::int64_t>::min();
  w.ticks = std::numeric_limits<std::uint64_t>::max();
  w.population = std::numeric_limits<std::int32_t>::max();
  w.tile_count = std::numeric_limits<std::uint32_t>::max();
  w.gravity = 9.80665;
  w.wind = 1e-7f;
  w.discovered = {true, false, true, true, false, false, false, true, true};
  for (int i = 0; i < 40; ++i)
    w.tiles.push_back(Tile{static_cast<std::int16_t>(i * 997 % 65536 - 32768), static_cast<Biome>(i % 3),
                           i % 5 ? std::nullopt : std::optional<std::string>("tile " + std::to_string(i))});
  w.counters = {{"kills", -7}, {"deaths", 2147483647}, {"", 0}};
  w.quest = std::string{"find the \"lost\" key\n"};
  return w;
}

#if SAVEKIT_PORTABILITY_SEAL
// Both builds hold the same key: the writer's envelopes open in the reader.
inline savekit::keyring keys() {
  std::array<std::byte, savekit::seal_key_bytes> bytes;
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 29 + 3);
  return savekit::keyring{savekit::seal_key::from_bytes(41, bytes).value()};
}
inline const savekit::seal_context sealed_context{.name = "world", .schema_version = 3, .player = "player-7"};
#endif

}  // namespace portable
