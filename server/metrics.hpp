// What GET /metrics shows, in Prometheus' text format: requests by route, method and status,
// their latencies as a histogram, open connections, and the database pool.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "slot_store.hpp"

namespace savekit::server {

class metrics {
 public:
  static constexpr std::array<double, 12> latency_buckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                             0.1,   0.25,   0.5,   1,    2.5,   10};

  void request_done(std::string_view route, std::string_view method, int status, double seconds);
  void store_failed() { store_failures_.fetch_add(1, std::memory_order_relaxed); }
  void connection_opened() { connections_.fetch_add(1, std::memory_order_relaxed); }
  void connection_closed() { connections_.fetch_sub(1, std::memory_order_relaxed); }
  void connection_refused() { refused_.fetch_add(1, std::memory_order_relaxed); }
  void connection_evicted() { evicted_.fetch_add(1, std::memory_order_relaxed); }
  void timed_out() { timeouts_.fetch_add(1, std::memory_order_relaxed); }

  std::string render(const pool_stats& pool, std::string_view driver) const;

 private:
  struct latency {
    std::array<std::uint64_t, latency_buckets.size()> buckets{};  // cumulative when rendered
    std::uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, int>, std::uint64_t> requests_;
  std::map<std::string, latency, std::less<>> latencies_;
  std::atomic<std::uint64_t> store_failures_{0}, refused_{0}, evicted_{0}, timeouts_{0};
  std::atomic<std::int64_t> connections_{0};
};

}  // namespace savekit::server
