// msgpack-cxx (Debian libmsgpack-cxx-dev): pack into a reused sbuffer, unpack + convert.
// msgpack-cxx needs its macros inside the type, so it works on mirrors of the seed types
// holding the same data.
#pragma once

#include <msgpack.hpp>

#include <string>
#include <vector>

#include "../bench_objects.hpp"

namespace bench::ways {

struct msgpack_mirror {
  struct Item {
    int Id = 0, Quantity = 0;
    MSGPACK_DEFINE_MAP(Id, Quantity)
  };
  struct Save {
    std::string Name;
    int HighScore = 0;
    std::vector<Item> Inventory;
    MSGPACK_DEFINE_MAP(Name, HighScore, Inventory)
  };
  struct Equip {
    std::string name;
    int atk = 0, def = 0, spd = 0;
    MSGPACK_DEFINE_MAP(name, atk, def, spd)
  };
  struct Status {
    int lv = 0, exp = 0, hp = 0, max_hp = 0, atk = 0, def = 0, spd = 0;
    Equip equip;
    MSGPACK_DEFINE_MAP(lv, exp, hp, max_hp, atk, def, spd, equip)
  };

  static Save to_mirror(const SaveGame& s) {
    Save m{s.Name, s.HighScore, {}};
    for (const auto& i : s.Inventory) m.Inventory.push_back({i.Id, i.Quantity});
    return m;
  }
  static Status to_mirror(const seeds::Status& s) {
    return {s.lv, s.exp, s.hp, s.max_hp, s.atk, s.def, s.spd, {s.equip.name, s.equip.atk, s.equip.def, s.equip.spd}};
  }
  static SaveGame from_mirror(const Save& m) {
    SaveGame s{m.Name, m.HighScore, {}};
    for (const auto& i : m.Inventory) s.Inventory.push_back({i.Id, i.Quantity});
    return s;
  }
  static seeds::Status from_mirror(const Status& m) {
    return {m.lv, m.exp, m.hp, m.max_hp, m.atk, m.def, m.spd, {m.equip.name, m.equip.atk, m.equip.def, m.equip.spd}};
  }
};

// Timed on the mirror types: value is converted once, outside the timing, by the harness.
struct msgpack_cxx {
  using buffer = msgpack::sbuffer;
  static constexpr const char* name = "msgpack-cxx (map)";
  template <class Mirror>
  static void write(const Mirror& value, buffer& out) {
    out.clear();
    msgpack::pack(out, value);
  }
  template <class Mirror>
  static bool read(const buffer& in, Mirror& value) {
    msgpack::object_handle handle = msgpack::unpack(in.data(), in.size());
    handle.get().convert(value);
    return true;
  }
};

}  // namespace bench::ways
