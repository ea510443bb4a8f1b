// Shared by the fuzz targets: a check that aborts (so libFuzzer reports it) and the
// types decoded into.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "seed_types.hpp"

#define FUZZ_CHECK(condition)                                                            \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace fuzz {

// A wider target than the seeds, so the fuzzer reaches every reader.
struct World {
  seeds::SaveGame save;
  seeds::Status status;
  std::map<std::string, std::vector<double>> tables;
  std::map<int, std::optional<float>> sparse;
  std::variant<int, std::string, seeds::Equip> either;
  std::vector<std::byte> blob;
  std::vector<bool> flags;
  bool operator==(const World&) const = default;
};

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace fuzz
