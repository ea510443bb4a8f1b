// What every way of saving in bench/peers/ has, found or not:
//   found    false when the peer library was not installed at configure time: the way then
//            has nothing else, and the benchmarks skip its rows (saying so);
//   name     the way, as the tables show it;   library  whose code it is;
// and when found: buffer, write(const T&, buffer&), read(const buffer&, T&) -> bool (a
// read-only way has no write), version().
#pragma once

#define SAVEKIT_BENCH_PEER_NOT_FOUND(way, way_name, library_name) \
  namespace bench::ways {                                         \
  struct way {                                                    \
    static constexpr bool found = false;                          \
    static constexpr const char* name = way_name;                 \
    static constexpr const char* library = library_name;          \
  };                                                              \
  }

#include <set>
#include <string>

namespace bench {

// The libraries whose rows a run skipped (not found at configure time), for its report.
inline std::set<std::string>& skipped_libraries() {
  static std::set<std::string> skipped;
  return skipped;
}

// Notes that Way's rows are skipped. Callers test `if constexpr (Way::found)` first: the
// rest of a way exists only when its library was found.
template <class Way>
void skip() {
  skipped_libraries().insert(Way::library);
}

}  // namespace bench
