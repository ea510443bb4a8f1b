// What savekit-server parses itself (server/routes.hpp, server/header_grammar.hpp, server/auth.hpp): request
// targets and slot names, tokens, preconditions, Savekit-Meta and write ids. Input: the
// parts separated by '\n'. Nothing may crash, and what is accepted must hold its promise.
#include <savekit/document.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "auth.hpp"
#include "fuzz/fuzz_common.hpp"
#include "header_grammar.hpp"
#include "routes.hpp"

using namespace savekit::server;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  for (std::size_t i = 0; i < 5; ++i) {
    const std::size_t nl = in.find('\n');
    parts.push_back(in.substr(0, nl));
    in = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
  }
  static const token_secret secret = *token_secret::from_bytes(std::string(32, 'f'));
  const auto now = std::chrono::system_clock::time_point{} + std::chrono::seconds(1'767'225'600);

  if (auto route = parse_target(parts[0]); route && !route->name.empty()) {
    FUZZ_CHECK(check_slot_name(route->name));
    FUZZ_CHECK(*percent_decode(percent_encode(route->name)) == route->name);
    FUZZ_CHECK(route->kind != route_kind::version || route->version > 0);
  }
  if (auto claims = verify_token(secret, parts[1], now); claims) {
    FUZZ_CHECK(check_player_id(claims->player));
    FUZZ_CHECK(claims->expires > 1'767'225'600);
  }
  // A token made here always verifies, for any player id that is valid.
  if (check_player_id(parts[1])) {
    auto token = issue_token(secret, parts[1], now + std::chrono::hours(1));
    FUZZ_CHECK(token);
    auto back = verify_token(secret, *token, now);
    FUZZ_CHECK(back && back->player == parts[1]);
  }
  if (auto meta = decode_meta(std::string{parts[2]}, 4096); meta) {
    auto parsed = savekit::document::from_json(*meta);
    FUZZ_CHECK(parsed && parsed->is_object());
    FUZZ_CHECK(meta->size() <= 4096);
  }
  auto condition = parse_write_precondition(std::string{parts[3]}, std::nullopt);
  if (condition) FUZZ_CHECK(condition->version && *condition->version > 0);
  (void)if_none_match_names(parts[3], 7);
  if (check_write_id(parts[4])) FUZZ_CHECK(!parts[4].empty() && parts[4].size() <= 64);
  return 0;
}
