// The floor: what a hand-written SaveGame codec costs — each field copied in a fixed
// layout (length-prefixed name, then the integers, then the items), every read bounds-
// checked. No format, no names, no schema evolution: what savekit's compact form must
// come close to. SaveGame only.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "../bench_objects.hpp"

namespace bench::ways {

struct hand_written_floor {
  using buffer = std::string;
  static constexpr bool found = true;
  static constexpr const char* name = "hand-written floor";
  static constexpr const char* library = "hand-written";
  static std::string version() { return "-"; }

  static void write(const SaveGame& save, buffer& out) {
    auto name_length = static_cast<std::uint32_t>(save.Name.size());
    auto count = static_cast<std::uint32_t>(save.Inventory.size());
    out.resize(4 + name_length + 4 + 4 + std::size_t{count} * 8);
    char* p = out.data();
    std::memcpy(p, &name_length, 4);
    std::memcpy(p + 4, save.Name.data(), name_length);
    p += 4 + name_length;
    std::memcpy(p, &save.HighScore, 4);
    std::memcpy(p + 4, &count, 4);
    p += 8;
    for (const InventoryItem& item : save.Inventory) {
      std::memcpy(p, &item.Id, 4);
      std::memcpy(p + 4, &item.Quantity, 4);
      p += 8;
    }
  }

  static bool read(const buffer& in, SaveGame& save) {
    const char* p = in.data();
    const char* end = p + in.size();
    std::uint32_t name_length = 0, count = 0;
    if (end - p < 4) return false;
    std::memcpy(&name_length, p, 4);
    p += 4;
    if (static_cast<std::size_t>(end - p) < std::size_t{name_length} + 8) return false;
    save.Name.assign(p, name_length);
    p += name_length;
    std::memcpy(&save.HighScore, p, 4);
    std::memcpy(&count, p + 4, 4);
    p += 8;
    if (static_cast<std::size_t>(end - p) / 8 < count) return false;
    save.Inventory.resize(count);
    for (InventoryItem& item : save.Inventory) {
      std::memcpy(&item.Id, p, 4);
      std::memcpy(&item.Quantity, p + 4, 4);
      p += 8;
    }
    return p == end;
  }
};

}  // namespace bench::ways
