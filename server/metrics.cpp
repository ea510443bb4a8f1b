#include "metrics.hpp"

#include <cstdio>

namespace savekit::server {

void metrics::request_done(std::string_view route, std::string_view method, int status, double seconds) {
  std::lock_guard lock(mutex_);
  ++requests_[{std::string{route}, std::string{method}, status}];
  auto it = latencies_.find(route);
  if (it == latencies_.end()) it = latencies_.emplace(std::string{route}, latency{}).first;
  latency& l = it->second;
  for (std::size_t i = 0; i < latency_buckets.size(); ++i)
    if (seconds <= latency_buckets[i]) {
      ++l.buckets[i];
      break;
    }
  ++l.count;
  l.sum += seconds;
}

std::string metrics::render(const pool_stats& pool, std::string_view driver) const {
  std::string out;
  char line[512];
  auto add = [&](const char* format, auto... args) {
    std::snprintf(line, sizeof line, format, args...);
    out += line;
  };
  std::lock_guard lock(mutex_);
  out += "# HELP savekit_requests_total Requests answered, by route, method and status.\n";
  out += "# TYPE savekit_requests_total counter\n";
  for (const auto& [key, count] : requests_) {
    const auto& [route, method, status] = key;
    add("savekit_requests_total{route=\"%s\",method=\"%s\",status=\"%d\"} %llu\n", route.c_str(), method.c_str(),
        status, static_cast<unsigned long long>(count));
  }
  out += "# HELP savekit_request_duration_seconds Time from a request's last byte to its answer, by route.\n";
  out += "# TYPE savekit_request_duration_seconds histogram\n";
  for (const auto& [route, l] : latencies_) {
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < latency_buckets.size(); ++i) {
      cumulative += l.buckets[i];
      add("savekit_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n", route.c_str(), latency_buckets[i],
          static_cast<unsigned long long>(cumulative));
    }
    add("savekit_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n", route.c_str(),
        static_cast<unsigned long long>(l.count));
    add("savekit_request_duration_seconds_sum{route=\"%s\"} %.6f\n", route.c_str(), l.sum);
    add("savekit_request_duration_seconds_count{route=\"%s\"} %llu\n", route.c_str(),
        static_cast<unsigned long long>(l.count));
  }
  out += "# HELP savekit_store_failures_total Requests the database did not answer (503 or 500).\n";
  out += "# TYPE savekit_store_failures_total counter\n";
  add("savekit_store_failures_total %llu\n", static_cast<unsigned long long>(store_failures_.load()));
  out += "# HELP savekit_connections_open Client connections open now.\n# TYPE savekit_connections_open gauge\n";
  add("savekit_connections_open %lld\n", static_cast<long long>(connections_.load()));
  out += "# HELP savekit_connections_refused_total Connections closed at once: too many were open.\n";
  out += "# TYPE savekit_connections_refused_total counter\n";
  add("savekit_connections_refused_total %llu\n", static_cast<unsigned long long>(refused_.load()));
  out += "# HELP savekit_connections_evicted_total Kept-alive idle connections closed to make room for new ones.\n";
  out += "# TYPE savekit_connections_evicted_total counter\n";
  add("savekit_connections_evicted_total %llu\n", static_cast<unsigned long long>(evicted_.load()));
  out += "# HELP savekit_timeouts_total Connections closed because a request or an idle wait took too long.\n";
  out += "# TYPE savekit_timeouts_total counter\n";
  add("savekit_timeouts_total %llu\n", static_cast<unsigned long long>(timeouts_.load()));
  const std::string d{driver};
  out += "# HELP savekit_db_pool_connections Database connections in the pool.\n";
  out += "# TYPE savekit_db_pool_connections gauge\n";
  add("savekit_db_pool_connections{driver=\"%s\"} %u\n", d.c_str(), pool.size);
  out += "# HELP savekit_db_pool_in_use Database connections serving a request now.\n";
  out += "# TYPE savekit_db_pool_in_use gauge\n";
  add("savekit_db_pool_in_use{driver=\"%s\"} %u\n", d.c_str(), pool.in_use);
  out += "# HELP savekit_db_pool_waits_total Requests that waited for a free database connection.\n";
  out += "# TYPE savekit_db_pool_waits_total counter\n";
  add("savekit_db_pool_waits_total{driver=\"%s\"} %llu\n", d.c_str(), static_cast<unsigned long long>(pool.waits));
  out += "# HELP savekit_db_reconnects_total Database connections opened again after a failure.\n";
  out += "# TYPE savekit_db_reconnects_total counter\n";
  add("savekit_db_reconnects_total{driver=\"%s\"} %llu\n", d.c_str(), static_cast<unsigned long long>(pool.reconnects));
  return out;
}

}  // namespace savekit::server
