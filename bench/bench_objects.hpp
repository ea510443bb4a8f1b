// The objects the benchmarks save and load: the seeds' two, and a large save.
#pragma once

#include <string>
#include <vector>

#include "seed_types.hpp"

namespace bench {

using seeds::Equip;
using seeds::InventoryItem;
using seeds::SaveGame;
using seeds::Status;

// SaveGame with 10,000 items and a 1 KiB name: throughput in MB/s.
inline SaveGame large_save_game() {
  SaveGame save{std::string(1024, 'n'), 123456789, {}};
  save.Inventory.reserve(10000);
  for (int i = 0; i < 10000; ++i) save.Inventory.push_back({i * 7 + 100, i % 99 + 1});
  return save;
}

}  // namespace bench
