// savekit-server's routes, in one table: each path pattern, the methods it answers and
// whether it is a player's (under /v1, a token) or the server's own (health, metrics).
// parse_target matches a request target against it; the API's admission (a 405 and its
// Allow), the CORS preflight's methods and the metrics' route labels all come from it, so
// a route is added here and answered in api.cpp, and nowhere else. Fuzzed with the header
// grammar (tests/fuzz/fuzz_server_rules.cpp).
#pragma once

#include <savekit/error.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace savekit::server {

enum class route_kind { health, metrics, list, slot, versions, version };

struct route_row {
  route_kind kind;
  // Literal segments, {name} (a slot name, percent-decoded and checked) and {version} (a
  // positive decimal number); also the route's label in logs and metrics.
  std::string_view pattern;
  std::string_view methods;  // as the Allow header lists them
  bool player_route;         // needs a token; the server's own routes answer anyone
};

inline constexpr std::array<route_row, 6> route_table{{
    {route_kind::health, "/healthz", "GET, HEAD", false},
    {route_kind::metrics, "/metrics", "GET, HEAD", false},
    {route_kind::list, "/v1/slots", "GET, HEAD", true},
    {route_kind::slot, "/v1/slots/{name}", "GET, HEAD, PUT, DELETE", true},
    {route_kind::versions, "/v1/slots/{name}/versions", "GET, HEAD", true},
    {route_kind::version, "/v1/slots/{name}/versions/{version}", "GET, HEAD", true},
}};

const route_row& row_of(route_kind kind);
// Whether the route answers the method (by its Allow list).
bool answers(const route_row& row, std::string_view method);
// Every method a player's route answers, for a CORS preflight's Access-Control-Allow-Methods.
std::string player_route_methods();

struct route {
  route_kind kind = route_kind::health;
  std::string name;          // the slot name, percent-decoded ({name})
  std::int64_t version = 0;  // {version}
  // The route's pattern, for logs and metrics (never the name itself there).
  std::string_view pattern() const { return row_of(kind).pattern; }
};

// The route of a request target (the query, if any, is ignored): errc::not_found when no
// route matches, errc::invalid_name when the slot name is not one (bad percent-encoding,
// not UTF-8, control characters, too long, "." or ".."), errc::invalid_value for a
// version that is not a positive decimal number. A placeholder is judged as soon as the
// segments before it match a route's, unless the target is longer than that route and the
// placeholder is its last segment.
result<route> parse_target(std::string_view target);

// A slot name: slots::check_name (1..128 bytes of UTF-8, no control, format or
// bidirectional characters, not only spaces), and not "." or "..".
status check_slot_name(std::string_view name);

// Percent-decoding of one path segment: "%2F" is a '/' inside the name, never a separator.
result<std::string> percent_decode(std::string_view segment);
std::string percent_encode(std::string_view name);  // what a client puts in a URL

// A decimal version: 1 to 15 digits (below 2^53, as JSON numbers stay exact), no sign, no
// leading zero.
std::optional<std::int64_t> parse_version(std::string_view text);

}  // namespace savekit::server
