// Counts heap allocations made by the whole program (global operator new), so each
// benchmark can report allocations and bytes allocated per operation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bench {

struct alloc_stats {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
};

alloc_stats allocations();  // since program start

}  // namespace bench
