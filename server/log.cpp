#include "log.hpp"

#include "header_grammar.hpp"

namespace savekit::server {

std::string now_rfc3339() {
  return rfc3339_of(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

void logger::event(std::string level, std::string event, std::string message, std::optional<std::string> address) {
  write(event_log{now_rfc3339(), std::move(level), std::move(event), std::move(message), std::move(address), {}});
}

}  // namespace savekit::server
