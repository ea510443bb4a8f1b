#include "slot_store.hpp"

#include <cstdlib>
#include <stdexcept>

namespace savekit::server {

void fail_here_if_asked(std::string_view slot_name) {
  static const char* const asked = std::getenv("SAVEKIT_SERVER_TEST_FAULT_SLOT");
  if (asked && *asked && slot_name == asked) throw std::runtime_error("a fault injected by the tests");
}

store_result<std::unique_ptr<slot_store>> open_slot_store(std::string_view url, const store_options& options) {
  std::string problem;
  if (url.substr(0, 7) == "sqlite:") {
    auto store = open_sqlite_store(std::string{url.substr(7)}, problem);
    if (!store) return store_failure{store_failure::internal, problem};
    return std::unique_ptr<slot_store>{std::move(store)};
  }
  if (url.substr(0, 13) == "postgresql://" || url.substr(0, 11) == "postgres://") {
    bool unavailable = false;
    auto store = open_postgres_store(std::string{url}, options, problem, unavailable);
    if (!store) return store_failure{unavailable ? store_failure::unavailable : store_failure::internal, problem};
    return std::unique_ptr<slot_store>{std::move(store)};
  }
  return store_failure{store_failure::internal,
                       "--db is sqlite:PATH or postgresql://… (a libpq connection URI), not " + std::string{url}};
}

}  // namespace savekit::server
