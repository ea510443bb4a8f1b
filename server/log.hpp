// Structured log lines: one JSON object per line on standard error (or a file), written
// whole under a lock. What is logged never holds a token, a secret or a save's bytes.
#pragma once

#include <savekit/json.hpp>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace savekit::server {

struct request_log {
  std::string time;  // RFC 3339
  std::string level = "info";
  std::string event = "request";
  std::string method;
  std::string route;  // the pattern: /v1/slots/{name}
  std::optional<std::string> slot;
  std::optional<std::string> player;
  int status = 0;
  double ms = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::string remote;
  std::optional<std::string> error;  // the error code of the answer, or what the database said
};

struct event_log {
  std::string time;
  std::string level = "info";
  std::string event;  // listening, stopping, stopped, database, ...
  std::string message;
  std::optional<std::string> address;
  std::optional<std::string> driver;
};

class logger {
 public:
  explicit logger(std::FILE* out = stderr) : out_(out) {}
  template <class Line>
  void write(const Line& line) {
    std::string text = to_json(line, {.skip_null_members = true});
    text += '\n';
    std::lock_guard lock(mutex_);
    // A line that cannot be written (its reader gone: main ignores SIGPIPE) is dropped,
    // and the server goes on.
    std::fwrite(text.data(), 1, text.size(), out_);
    std::fflush(out_);
  }
  void event(std::string level, std::string event, std::string message, std::optional<std::string> address = {});

 private:
  std::FILE* out_;
  std::mutex mutex_;
};

std::string now_rfc3339();

}  // namespace savekit::server
