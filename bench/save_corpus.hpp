// Generated game saves for the sealed saves' benchmarks (seal_bench natively, seal_costs
// natively and as WebAssembly): JSON as a game writes it, compressible as saves are.
#pragma once

#include <cstddef>
#include <random>
#include <string>

namespace bench {

// A game's save of about 1 KB as JSON: a character, an inventory, quests and settings —
// names from the game's own lists, numbers in the ranges a game uses.
inline std::string corpus_save(unsigned seed) {
  static const char* const names[] = {"Ayla", "Borin", "Cael", "Dara", "Eskil", "Fenna", "Garrick", "Hild"};
  static const char* const classes[] = {"warrior", "ranger", "mage", "cleric"};
  static const char* const items[] = {"iron sword", "oak bow", "healing potion", "mana potion", "leather armor",
                                      "torch",      "rope",    "lockpick",       "silver ring", "bread"};
  static const char* const quests[] = {"the_lost_ring", "wolves_at_the_mill", "the_north_gate", "a_letter_for_hild",
                                       "the_drowned_crypt"};
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string out = R"({"version":3,"player":{"name":")" + std::string{names[pick(8)]} + R"(","class":")" +
                    classes[pick(4)] + R"(","level":)" + std::to_string(1 + pick(40)) + R"(,"hp":)" +
                    std::to_string(20 + pick(200)) + R"(,"max_hp":)" + std::to_string(220) + R"(,"gold":)" +
                    std::to_string(pick(5000)) + R"(,"position":{"map":"overworld","x":)" + std::to_string(pick(512)) +
                    R"(,"y":)" + std::to_string(pick(512)) + R"(}},"inventory":[)";
  const int count = 6 + pick(6);
  for (int i = 0; i < count; ++i) {
    if (i) out += ',';
    out += R"({"item":")" + std::string{items[pick(10)]} + R"(","count":)" + std::to_string(1 + pick(9)) +
           R"(,"equipped":)" + (pick(4) == 0 ? "true" : "false") + "}";
  }
  out += R"(],"quests":{)";
  for (int q = 0; q < 5; ++q) {
    if (q) out += ',';
    out += '"' + std::string{quests[q]} + R"(":{"stage":)" + std::to_string(pick(6)) + R"(,"done":)" +
           (pick(3) == 0 ? "true" : "false") + "}";
  }
  out += R"(},"settings":{"music":)" + std::to_string(pick(11) * 10) + R"(,"sound":)" + std::to_string(pick(11) * 10) +
         R"(,"difficulty":")" + (pick(2) ? "normal" : "hard") + R"(","subtitles":true},"playtime_s":)" +
         std::to_string(pick(400000)) + "}";
  return out;
}

// A save of exactly `bytes` bytes: generated saves end to end, cut to size.
inline std::string payload_of(std::size_t bytes) {
  std::string out;
  for (unsigned i = 0; out.size() < bytes; ++i) out += corpus_save(i);
  out.resize(bytes);
  return out;
}

}  // namespace bench
