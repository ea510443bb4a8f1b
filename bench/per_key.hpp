// The seed's baseline ("non Serialize"): Status saved and loaded as eleven separate keys.
#pragma once

#include <savekit/prefs.hpp>

#include "bench_objects.hpp"

namespace bench {

// The first failed set, or success.
inline savekit::status set_per_key(savekit::prefs& p, const seeds::Status& s) {
  const std::pair<const char*, int> ints[] = {{"Status1.lv", s.lv},
                                              {"Status1.exp", s.exp},
                                              {"Status1.hp", s.hp},
                                              {"Status1.max_hp", s.max_hp},
                                              {"Status1.atk", s.atk},
                                              {"Status1.def", s.def},
                                              {"Status1.spd", s.spd},
                                              {"Status1.equip.atk", s.equip.atk},
                                              {"Status1.equip.def", s.equip.def},
                                              {"Status1.equip.spd", s.equip.spd}};
  for (auto [key, value] : ints)
    if (savekit::status set = p.set_int(key, value); !set) return set;
  return p.set_string("Status1.equip.name", s.equip.name);
}

inline void get_per_key(const savekit::prefs& p, seeds::Status& s) {
  auto get = [&](const char* key) { return static_cast<int>(p.get_int(key)); };
  s.lv = get("Status1.lv");
  s.exp = get("Status1.exp");
  s.hp = get("Status1.hp");
  s.max_hp = get("Status1.max_hp");
  s.atk = get("Status1.atk");
  s.def = get("Status1.def");
  s.spd = get("Status1.spd");
  s.equip.name = p.get_string("Status1.equip.name");
  s.equip.atk = get("Status1.equip.atk");
  s.equip.def = get("Status1.equip.def");
  s.equip.spd = get("Status1.equip.spd");
}

}  // namespace bench
