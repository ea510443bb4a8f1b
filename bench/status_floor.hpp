// The hand-written codec of the seed's Status in savekit's compact MessagePack form: the
// least code that still checks every byte, for values that are positive fixints and a name
// shorter than 32 bytes (the seed's). What the engine makes of the simplest code for the
// job: wasm_gap times it beside savekit's codec, study A through the same store.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "seed_types.hpp"

namespace bench::status_floor {

using seeds::Status;

// The hand-written codec of Status's compact form for values that are positive fixints
// and a name shorter than 32 bytes (the seed's), every byte and length checked on reading.
inline bool floor_read(const unsigned char* p, const unsigned char* end, Status& s) {
  auto fixint = [&](int& v) {
    if (p == end || *p > 0x7f) return false;
    v = *p++;
    return true;
  };
  if (p == end || *p++ != 0x98) return false;
  if (!fixint(s.lv) || !fixint(s.exp) || !fixint(s.hp) || !fixint(s.max_hp) || !fixint(s.atk) || !fixint(s.def) ||
      !fixint(s.spd))
    return false;
  if (p == end || *p++ != 0x94 || p == end || (*p & 0xe0) != 0xa0) return false;
  const std::size_t n = *p++ & 0x1fu;
  if (static_cast<std::size_t>(end - p) < n) return false;
  if (s.equip.name.size() == n)
    std::memcpy(s.equip.name.data(), p, n);
  else
    s.equip.name.assign(reinterpret_cast<const char*>(p), n);
  p += n;
  return fixint(s.equip.atk) && fixint(s.equip.def) && fixint(s.equip.spd) && p == end;
}

inline void floor_write(const Status& s, std::vector<std::byte>& out) {
  const std::size_t n = s.equip.name.size();
  out.resize(1 + 7 + 1 + 1 + n + 3);
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  *p++ = 0x98;
  for (int v : {s.lv, s.exp, s.hp, s.max_hp, s.atk, s.def, s.spd}) *p++ = static_cast<unsigned char>(v);
  *p++ = 0x94;
  *p++ = static_cast<unsigned char>(0xa0 | n);
  std::memcpy(p, s.equip.name.data(), n);
  p += n;
  for (int v : {s.equip.atk, s.equip.def, s.equip.spd}) *p++ = static_cast<unsigned char>(v);
}

}  // namespace bench::status_floor
