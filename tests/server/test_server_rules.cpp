// What the server reads out of requests itself — tokens, slot names, preconditions,
// metadata, write ids — and the API over a SQLite store in-process (with a clock the tests
// move), without sockets.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include "api.hpp"
#include "auth.hpp"

#include "header_grammar.hpp"
#include "routes.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace savekit::server;
using namespace std::chrono_literals;

token_secret secret_of(char fill) { return *token_secret::from_bytes(std::string(32, fill)); }

TEST(ServerTokens, ASignedTokenNamesItsPlayerUntilItExpires) {
  const auto secret = secret_of('s');
  const auto now = std::chrono::system_clock::now();
  auto token = issue_token(secret, "player-1", now + 1h);
  ASSERT_TRUE(token);
  EXPECT_EQ(token->rfind("sk1.", 0), 0u);
  auto claims = verify_token(secret, *token, now);
  ASSERT_TRUE(claims) << claims.error().to_string();
  EXPECT_EQ(claims->player, "player-1");
  auto expired = verify_token(secret, *token, now + 2h);
  ASSERT_FALSE(expired);
  EXPECT_EQ(expired.error().code(), savekit::errc::invalid_value);
  EXPECT_FALSE(verify_token(secret_of('t'), *token, now)) << "another secret";
  EXPECT_FALSE(token_secret::from_bytes(std::string(31, 's'))) << "a secret is 32 bytes at least";
}

TEST(ServerTokens, EveryChangedCharacterIsRefused) {
  const auto secret = secret_of('s');
  const auto now = std::chrono::system_clock::now();
  const std::string token = *issue_token(secret, "p", now + 1h);
  for (std::size_t i = 0; i < token.size(); ++i) {
    for (char replacement : {'A', '_', '.', '='}) {
      if (token[i] == replacement) continue;
      std::string changed = token;
      changed[i] = replacement;
      auto verified = verify_token(secret, changed, now);
      // Base64 can spell the same bytes twice only in its last character's unused bits, which
      // savekit's decoder refuses: every change is an error.
      EXPECT_FALSE(verified) << "character " << i << " as " << replacement;
    }
  }
  EXPECT_FALSE(verify_token(secret, token.substr(0, token.size() - 1), now));
  EXPECT_FALSE(verify_token(secret, token + "=", now)) << "one spelling per token: no padding";
  EXPECT_FALSE(verify_token(secret, token + "A", now));
  EXPECT_FALSE(verify_token(secret, std::string(2000, 'a'), now));
  EXPECT_FALSE(verify_token(secret, "", now));
}

TEST(ServerTokens, PlayerIdsFollowTheSlotNameRule) {
  const auto secret = secret_of('s');
  const auto later = std::chrono::system_clock::now() + 1h;
  EXPECT_TRUE(issue_token(secret, std::string(128, 'p'), later));
  EXPECT_FALSE(issue_token(secret, std::string(129, 'p'), later));
  EXPECT_FALSE(issue_token(secret, "", later));
  EXPECT_FALSE(issue_token(secret, "a\nb", later));
  EXPECT_FALSE(issue_token(secret, "\xff", later));
}

TEST(ServerTokens, DurationsHaveAUnit) {
  EXPECT_EQ(*parse_duration("30d"), std::chrono::seconds(30 * 86400));
  EXPECT_EQ(*parse_duration("12h"), 12h);
  EXPECT_EQ(*parse_duration("15m"), 15min);
  EXPECT_EQ(*parse_duration("90s"), 90s);
  EXPECT_EQ(*parse_duration("90"), 90s);
  for (const char* bad : {"", "0d", "-1d", "d", "3w", "1.5h", "99999999999d"}) EXPECT_FALSE(parse_duration(bad)) << bad;
}

TEST(ServerRules, TargetsAreRoutesWithOneDecodedName) {
  auto r = parse_target("/v1/slots/a%2Fb%20c/versions/12?x=y");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, route_kind::version);
  EXPECT_EQ(r->name, "a/b c");
  EXPECT_EQ(r->version, 12);
  EXPECT_EQ(parse_target("/v1/slots")->kind, route_kind::list);
  EXPECT_EQ(parse_target("/healthz")->kind, route_kind::health);
  EXPECT_EQ(parse_target("/v1/slots/x/versions")->kind, route_kind::versions);
  EXPECT_EQ(parse_target("/nope").error().code(), savekit::errc::not_found);
  EXPECT_EQ(parse_target("/v1/slots/x/other").error().code(), savekit::errc::not_found);
  EXPECT_EQ(parse_target("/v1/slots/%2e%2e").error().code(), savekit::errc::invalid_name);
  EXPECT_EQ(parse_target("/v1/slots/x/versions/0").error().code(), savekit::errc::invalid_value);
  EXPECT_EQ(parse_target("").error().code(), savekit::errc::not_found);
  // Longer than every route: not found, whatever its fifth segment; a bad name is said first.
  EXPECT_EQ(parse_target("/v1/slots/a/versions/abc/x").error().code(), savekit::errc::not_found);
  EXPECT_EQ(parse_target("/v1/slots/a/versions/5/x").error().code(), savekit::errc::not_found);
  EXPECT_EQ(parse_target("/v1/slots/%2e%2e/a/b/c").error().code(), savekit::errc::invalid_name);
  EXPECT_EQ(parse_target("/v1/slots/%2e%2e/other").error().code(), savekit::errc::invalid_name);
  EXPECT_EQ(percent_encode("a/b ぬ"), "a%2Fb%20%E3%81%AC");
  EXPECT_EQ(*percent_decode(percent_encode("a/b ぬ%")), "a/b ぬ%");
}

// The route table is the one place a route is declared: each row's own pattern, filled
// in, is that route, with what it answers; and nothing of the table is answered twice.
TEST(ServerRules, EveryRowOfTheRouteTableIsReachedByItsOwnPattern) {
  std::set<route_kind> seen;
  for (const route_row& row : route_table) {
    EXPECT_TRUE(seen.insert(row.kind).second) << row.pattern;
    EXPECT_EQ(row_of(row.kind).pattern, row.pattern);
    std::string target{row.pattern};
    for (auto [placeholder, value] : {std::pair{"{name}", "my%20save"}, std::pair{"{version}", "3"}})
      if (auto at = target.find(placeholder); at != std::string::npos) target.replace(at, strlen(placeholder), value);
    auto r = parse_target(target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->kind, row.kind) << target;
    EXPECT_EQ(r->pattern(), row.pattern);
    EXPECT_TRUE(answers(row, "GET")) << row.pattern;
    EXPECT_FALSE(answers(row, "GE")) << row.pattern;
    EXPECT_FALSE(answers(row, "POST")) << row.pattern;
  }
  EXPECT_TRUE(answers(row_of(route_kind::slot), "DELETE"));
  EXPECT_FALSE(answers(row_of(route_kind::list), "PUT"));
  EXPECT_EQ(player_route_methods(), "GET, HEAD, PUT, DELETE");
}

TEST(ServerRules, PreconditionsNameOneVersionOrCreateOnly) {
  EXPECT_EQ(parse_write_precondition("\"7\"", std::nullopt)->version, 7);
  EXPECT_EQ(parse_write_precondition(" \"7\" ", std::nullopt)->version, 7);
  EXPECT_FALSE(parse_write_precondition(std::nullopt, "*")->version);
  EXPECT_EQ(parse_write_precondition(std::nullopt, std::nullopt).error().code(), savekit::errc::missing_key);
  EXPECT_EQ(parse_write_precondition("*", std::nullopt).error().code(), savekit::errc::missing_key);
  for (const char* bad : {"7", "W/\"7\"", "\"07\"", "\"-1\"", "\"\"", "\"7\",\"8\"", "\"1234567890123456\""})
    EXPECT_EQ(parse_write_precondition(bad, std::nullopt).error().code(), savekit::errc::invalid_value) << bad;
  EXPECT_TRUE(if_none_match_names("\"3\", W/\"4\"", 4));
  EXPECT_TRUE(if_none_match_names("*", 9));
  EXPECT_FALSE(if_none_match_names("\"3\"", 4));
}

TEST(ServerRules, MetadataIsABase64urlJsonObject) {
  EXPECT_EQ(*decode_meta(std::nullopt, 100), "{}");
  EXPECT_EQ(*decode_meta(encode_meta(R"({"t":"ぬ"})"), 100), R"({"t":"ぬ"})");
  EXPECT_EQ(decode_meta(encode_meta(std::string(101, ' ')), 100).error().code(), savekit::errc::value_too_large);
  EXPECT_EQ(decode_meta(std::string(200, 'A'), 100).error().code(), savekit::errc::value_too_large);
  EXPECT_FALSE(decode_meta(encode_meta("[]"), 100));
  EXPECT_FALSE(decode_meta(encode_meta("{} {}"), 100));
  EXPECT_FALSE(decode_meta("e30=!", 100));
  EXPECT_TRUE(decode_meta("e30=", 100)) << "padded base64url is accepted";
  // Nesting is bounded: 32 levels, the object itself the first.
  auto nested = [](int depth) {
    std::string deep;
    for (int i = 0; i < depth; ++i) deep += "{\"a\":";
    deep += "1";
    for (int i = 0; i < depth; ++i) deep += "}";
    return deep;
  };
  EXPECT_TRUE(decode_meta(encode_meta(nested(32)), 1000));
  EXPECT_FALSE(decode_meta(encode_meta(nested(33)), 1000)) << "nesting is bounded";
  // The client's bytes, as spelled: re-spelled, 1E15 grew to 1000000000000000.0.
  EXPECT_EQ(*decode_meta(encode_meta(" {\"n\" : [1E15, 1.50]}\n"), 100), " {\"n\" : [1E15, 1.50]}\n");
  EXPECT_EQ(compact_meta(" {\"n\" : [1, \"x\"]}\n"), "{\"n\":[1,\"x\"]}");
  // A key twice in one object is refused, however it is spelled; in two objects it is two keys.
  EXPECT_EQ(decode_meta(encode_meta(R"({"a":1,"a":2})"), 100).error().code(), savekit::errc::invalid_value);
  EXPECT_EQ(decode_meta(encode_meta(R"({"b":[{"a":1,"\u0061":2}]})"), 100).error().code(),
            savekit::errc::invalid_value);
  EXPECT_TRUE(decode_meta(encode_meta(R"({"a\"":{"a\"":1},"b":["\"a\":",{"a":2}]})"), 100));
  EXPECT_TRUE(check_write_id("a-Z_0.9~"));
  EXPECT_FALSE(check_write_id(""));
  EXPECT_FALSE(check_write_id(std::string(65, 'w')));
  EXPECT_FALSE(check_write_id("a b"));
  EXPECT_EQ(rfc3339_of(1'767'225'600'123'456), "2026-01-01T00:00:00.123Z");
  EXPECT_EQ(http_date_of(1'767'225'600'000'000), "Thu, 01 Jan 2026 00:00:00 GMT");
}

// The API in-process over SQLite: a clock the test moves.
class ServerApiInProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string problem;
    store_ = open_sqlite_store((dir_.path() / "saves.db").string(), problem);
    ASSERT_TRUE(store_) << problem;
    handler_ = std::make_unique<api>(*store_, secret_of('k'), api_limits{}, counters_);
    handler_->now = [this] { return clock_; };
  }
  api_response call(std::string method, std::string target, std::string token, std::string body = {},
                    std::optional<std::string> if_match = {}, std::optional<std::string> if_none_match = {}) {
    api_request r;
    r.method = method;
    r.target = target;
    if (!token.empty()) r.authorization = "Bearer " + token;
    r.if_match = if_match;
    r.if_none_match = if_none_match;
    r.body = body;
    return handler_->handle(r);
  }
  test_support::temp_dir dir_;
  std::unique_ptr<slot_store> store_;
  metrics counters_;
  std::unique_ptr<api> handler_;
  std::chrono::system_clock::time_point clock_ = std::chrono::system_clock::now();
};

TEST_F(ServerApiInProcess, ATokenStopsWorkingWhenItExpires) {
  const std::string token = *issue_token(secret_of('k'), "p", clock_ + 10min);
  auto created = call("PUT", "/v1/slots/s", token, "x", std::nullopt, "*");
  EXPECT_EQ(created.status, 201) << created.error.value_or("");
  clock_ += 9min;
  EXPECT_EQ(call("GET", "/v1/slots/s", token).status, 200);
  clock_ += 2min;
  auto expired = call("GET", "/v1/slots/s", token);
  EXPECT_EQ(expired.status, 401);
  EXPECT_NE(expired.body.find("expired"), std::string::npos);
}

TEST_F(ServerApiInProcess, SavedAtIsTheServersClockAtTheWrite) {
  clock_ = std::chrono::system_clock::time_point{} + std::chrono::seconds(1'767'225'600);
  const std::string later = *issue_token(secret_of('k'), "p", clock_ + 1h);
  ASSERT_EQ(call("PUT", "/v1/slots/s", later, "x", std::nullopt, "*").status, 201);
  auto listed = call("GET", "/v1/slots", later);
  EXPECT_NE(listed.body.find("\"saved_at\":\"2026-01-01T00:00:00.000Z\""), std::string::npos) << listed.body;
}

}  // namespace
