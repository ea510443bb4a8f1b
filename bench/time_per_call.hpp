// The harness of the benchmarks built both natively and as WebAssembly (Google Benchmark is
// not built for WebAssembly): an operation repeated until it has run for a while.
#pragma once

#include <chrono>
#include <cstddef>

namespace bench {

// Runs `op` until min_ms have passed (at least 3 times); nanoseconds per call.
template <class Op>
double time_per_call(double min_ms, Op op) {
  using clock = std::chrono::steady_clock;
  op();  // warm
  std::size_t calls = 1;
  for (;;) {
    const auto start = clock::now();
    for (std::size_t i = 0; i < calls; ++i) op();
    const double ns = std::chrono::duration<double, std::nano>(clock::now() - start).count();
    if (ns >= min_ms * 1e6 && calls >= 3) return ns / static_cast<double>(calls);
    calls *= ns < min_ms * 1e5 ? 10 : 2;
  }
}

}  // namespace bench
