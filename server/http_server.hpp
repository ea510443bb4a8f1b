// The HTTP/1.1 side of savekit-server, on Boost.Beast and Asio: connections (plain or TLS
// through OpenSSL), limits decided before bytes are buffered (headers, then the body from
// Content-Length or as a chunked body arrives), deadlines that follow a transfer's progress, and
// a graceful stop on SIGTERM or SIGINT (no new connections; requests in flight answered;
// then the process exits). Requests go to api::handle on a pool of worker threads, so a
// slow database never stalls the connections.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "api.hpp"
#include "log.hpp"
#include "metrics.hpp"

namespace savekit::server {

struct http_options {
  std::string listen = "127.0.0.1:8080";  // HOST:PORT; port 0 picks a free one (see port_file)
  std::string port_file;                  // written with the bound port once listening
  std::uint32_t io_threads = 2;
  std::uint32_t worker_threads = 8;
  std::uint64_t max_body_bytes = std::uint64_t{16} << 20;
  std::uint32_t max_header_bytes = 32 * 1024;
  // A connection's first request has header_timeout from the connection's opening to its
  // last header; a later one idle_timeout to its first byte, then header_timeout.
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds body_timeout{60'000};  // no byte of a body, or of an answer, for this long: cut
  std::chrono::milliseconds idle_timeout{30'000};
  std::chrono::milliseconds shutdown_timeout{20'000};
  std::uint32_t max_connections = 1024;
  // Bytes of request and response bodies held in memory at once, over all connections: a
  // request that would pass it is 503 (Retry-After) before its body is read.
  std::uint64_t max_inflight_bytes = std::uint64_t{256} << 20;
  // What one player's bodies may hold of it at once (at least one body always goes): one
  // token cannot take the whole allowance. Past it 429 with Retry-After.
  std::uint64_t max_player_inflight_bytes = std::uint64_t{32} << 20;
  // The slowest a body may come or go (after body_timeout of grace), checked as it moves:
  // at any moment, (elapsed - body_timeout) x min_rate bytes have moved, or it is cut.
  std::uint64_t min_rate = 16 * 1024;  // bytes per second
  // Origins whose pages may call the API from a browser (CORS), or "*"; none: no CORS.
  std::vector<std::string> cors_origins;
  std::string tls_cert, tls_key;  // PEM files: TLS on every connection when given
};

// Serves until SIGTERM or SIGINT: 0 after a clean stop, 1 if it could not start (the
// reason logged).
int serve(const http_options& options, api& handler, metrics& counters, logger& log);

}  // namespace savekit::server
