// A large save: a nested "world" of a few MB with maps, strings, floats, nested vectors
// and an optional.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench {

struct Vec3 {
  float x = 0, y = 0, z = 0;
  bool operator==(const Vec3&) const = default;
};

struct Npc {
  std::string name;
  std::optional<std::string> title;  // most have none
  Vec3 position;
  int hp = 0;
  std::vector<std::string> dialogue;
  std::map<std::string, int> flags;
  bool operator==(const Npc&) const = default;
};

struct Chunk {
  int x = 0, y = 0;
  std::vector<float> heights;
  std::vector<Npc> npcs;
  bool operator==(const Chunk&) const = default;
};

struct World {
  std::string name;
  std::map<std::string, Chunk> chunks;
  std::vector<std::string> log;
  bool operator==(const World&) const = default;
};

// width × height chunks (8 × 8: a few MB; more for a larger world).
inline World make_world(int width = 8, int height = 8) {
  World world{"Ardentia", {}, {}};
  unsigned seed = 7;
  auto next = [&] { return seed = seed * 1103515245u + 12345u; };
  for (int cx = 0; cx < width; ++cx) {
    for (int cy = 0; cy < height; ++cy) {
      Chunk chunk{cx, cy, {}, {}};
      for (int h = 0; h < 1024; ++h) chunk.heights.push_back(static_cast<float>(next() % 100000) / 97.0f);
      for (int n = 0; n < 12; ++n) {
        Npc npc{"npc-" + std::to_string(cx) + "-" + std::to_string(cy) + "-" + std::to_string(n),
                n % 4 == 0 ? std::optional<std::string>("Keeper of the north gate") : std::nullopt,
                {static_cast<float>(next() % 1000) / 3.0f, static_cast<float>(next() % 1000) / 7.0f, 1.5f},
                static_cast<int>(next() % 500),
                {},
                {}};
        for (int d = 0; d < 4; ++d)
          npc.dialogue.push_back("Line " + std::to_string(d) + ": the road to the north is closed, traveller.");
        npc.flags["met"] = static_cast<int>(next() % 2);
        npc.flags["quest_stage"] = static_cast<int>(next() % 9);
        chunk.npcs.push_back(std::move(npc));
      }
      world.chunks["chunk_" + std::to_string(cx) + "_" + std::to_string(cy)] = std::move(chunk);
    }
  }
  for (int i = 0; i < 2000; ++i) world.log.push_back("day " + std::to_string(i) + ": nothing of note ぬののふく");
  return world;
}

}  // namespace bench
