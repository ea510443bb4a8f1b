// The two objects of the seed studies, exactly as the seeds define them.
#pragma once

#include <string>
#include <vector>

namespace seeds {

// 001_d5e3661d5f46bbe1.txt: SaveGame / InventoryItem.
struct InventoryItem {
  int Id = 0;
  int Quantity = 0;
  bool operator==(const InventoryItem&) const = default;
};

struct SaveGame {
  std::string Name;
  int HighScore = 0;
  std::vector<InventoryItem> Inventory;
  bool operator==(const SaveGame&) const = default;
};

inline SaveGame seed_save_game() { return {"Speed Run", 10000, {{100, 5}, {200, 20}}}; }

// 000_ff233063f927945e.txt: Status / Equip.
struct Equip {
  std::string name;
  int atk = 0;
  int def = 0;
  int spd = 0;
  bool operator==(const Equip&) const = default;
};

struct Status {
  int lv = 0;
  int exp = 0;
  int hp = 0;
  int max_hp = 0;
  int atk = 0;
  int def = 0;
  int spd = 0;
  Equip equip;
  bool operator==(const Status&) const = default;
};

inline Status seed_status() { return {1, 0, 10, 10, 1, 1, 1, {"ぬののふく", 0, 1, 0}}; }

}  // namespace seeds
