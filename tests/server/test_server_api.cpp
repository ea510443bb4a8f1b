// The conformance suite: every behaviour of the HTTP contract (docs/server.md), through a
// real savekit-server process, against SQLite and against a real PostgreSQL.
#include <savekit/json.hpp>

#include <sqlite3.h>

#include <chrono>
#include <random>
#include <thread>

#include "server_fixture.hpp"

namespace {

using namespace test_server;

class ServerApi : public server_test {};

struct listed_slot {
  std::string name;
  std::int64_t version = 0;
  std::int64_t bytes = 0;
  std::string saved_at;
  savekit::raw_json meta;
  std::optional<std::string> write_id;
  std::optional<bool> deleted;
};
struct listed_slots {
  std::vector<listed_slot> slots;
};
struct listed_with_deleted {
  std::vector<listed_slot> slots;
  std::vector<listed_slot> deleted;
};
struct kept_version {
  std::int64_t version = 0;
  std::int64_t bytes = 0;
  std::string saved_at;
  savekit::raw_json meta;
  std::optional<std::string> write_id;
};
struct kept_versions {
  std::vector<kept_version> versions;
};
struct error_detail {
  std::string code;
  std::string message;
  std::optional<listed_slot> slot;
};
struct error_document {
  error_detail error;
};

error_document error_of(const reply& r) {
  auto e = savekit::from_json<error_document>(r.body, {.error_on_missing_keys = false});
  EXPECT_TRUE(e) << "not an error document: " << r.body;
  return e ? *e : error_document{};
}

const header_list create_only = {{"If-None-Match", "*"}};
header_list replacing(std::int64_t version) { return {{"If-Match", "\"" + std::to_string(version) + "\""}}; }

TEST_P(ServerApi, HealthAndMetricsNeedNoToken) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  reply health = c.request("GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_NE(health.body.find("\"status\":\"ok\""), std::string::npos) << health.body;
  EXPECT_NE(health.body.find(GetParam()), std::string::npos) << health.body;
  // PostgreSQL names the node it reached (on a replicated one, the primary); one SQLite
  // file has nothing to name.
  EXPECT_EQ(health.body.find("\"database\":\"") != std::string::npos, std::string{GetParam()} == "postgresql")
      << health.body;
  reply metrics = c.request("GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.header("content-type").rfind("text/plain", 0), 0u);
  EXPECT_NE(metrics.body.find("savekit_requests_total{route=\"/healthz\",method=\"GET\",status=\"200\"} 1"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("savekit_db_pool_connections"), std::string::npos);
  EXPECT_EQ(c.request("PUT", "/healthz", {}, "x").status, 405);
}

TEST_P(ServerApi, WritesNeedAPreconditionAndNameTheVersionTheyReplace) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  EXPECT_EQ(c.request("PUT", "/v1/slots/hero", me, "v1").status, 428);
  EXPECT_EQ(error_of(c.request("PUT", "/v1/slots/hero", me, "v1")).error.code, "precondition_required");

  reply created = c.request("PUT", "/v1/slots/hero", with(me, create_only), "v1");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.header("etag"), "\"1\"");
  EXPECT_EQ(created.header("location"), "/v1/slots/hero");
  auto entry = savekit::from_json<listed_slot>(created.body);
  ASSERT_TRUE(entry) << created.body;
  EXPECT_EQ(entry->name, "hero");
  EXPECT_EQ(entry->version, 1);
  EXPECT_EQ(entry->bytes, 2);

  reply again = c.request("PUT", "/v1/slots/hero", with(me, create_only), "other");
  EXPECT_EQ(again.status, 412);
  auto moved = error_of(again);
  EXPECT_EQ(moved.error.code, "precondition_failed");
  ASSERT_TRUE(moved.error.slot);
  EXPECT_EQ(moved.error.slot->version, 1);

  reply replaced = c.request("PUT", "/v1/slots/hero", with(me, replacing(1)), "v2");
  EXPECT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(replaced.header("etag"), "\"2\"");
  // A second device still holding version 1 cannot overwrite version 2.
  reply stale = c.request("PUT", "/v1/slots/hero", with(me, replacing(1)), "lost?");
  EXPECT_EQ(stale.status, 412);
  ASSERT_TRUE(error_of(stale).error.slot);
  EXPECT_EQ(error_of(stale).error.slot->version, 2);
  EXPECT_EQ(stale.header("etag"), "\"2\"");
  reply read = c.request("GET", "/v1/slots/hero", me);
  EXPECT_EQ(read.status, 200);
  EXPECT_EQ(read.body, "v2");
  EXPECT_EQ(read.header("etag"), "\"2\"");
  EXPECT_EQ(read.header("content-type"), "application/octet-stream");
  EXPECT_FALSE(read.header("last-modified").empty());

  // Preconditions the contract refuses.
  EXPECT_EQ(c.request("PUT", "/v1/slots/hero", with(me, {{"If-Match", "*"}}), "x").status, 428);
  EXPECT_EQ(c.request("PUT", "/v1/slots/hero", with(me, {{"If-Match", "W/\"2\""}}), "x").status, 400);
  EXPECT_EQ(c.request("PUT", "/v1/slots/hero", with(me, {{"If-Match", "\"1\", \"2\""}}), "x").status, 400);
  EXPECT_EQ(c.request("PUT", "/v1/slots/hero", with(me, {{"If-Match", "2"}}), "x").status, 400);
  EXPECT_EQ(c.request("PUT", "/v1/slots/hero", with(me, {{"If-Match", "\"2\""}, {"If-None-Match", "*"}}), "x").status,
            400);
  EXPECT_EQ(c.request("PUT", "/v1/slots/hero", with(me, {{"If-None-Match", "\"2\""}}), "x").status, 400);
  EXPECT_EQ(c.request("GET", "/v1/slots/hero", me).body, "v2") << "nothing refused was written";
}

TEST_P(ServerApi, AGetNamingTheCurrentVersionIsNotModified) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, create_only), "abc").status, 201);
  reply same = c.request("GET", "/v1/slots/s", with(me, {{"If-None-Match", "\"1\""}}));
  EXPECT_EQ(same.status, 304);
  EXPECT_EQ(same.header("etag"), "\"1\"");
  EXPECT_TRUE(same.body.empty());
  EXPECT_EQ(c.request("GET", "/v1/slots/s", with(me, {{"If-None-Match", "W/\"1\""}})).status, 304);
  EXPECT_EQ(c.request("GET", "/v1/slots/s", with(me, {{"If-None-Match", "\"7\", \"1\""}})).status, 304);
  EXPECT_EQ(c.request("GET", "/v1/slots/s", with(me, {{"If-None-Match", "\"2\""}})).status, 200);
}

TEST_P(ServerApi, TheListShowsLiveSlotsByNameWithTheirMetadata) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  EXPECT_EQ(c.request("GET", "/v1/slots", me).body, "{\"slots\":[]}");
  const std::string meta = R"({"title":"Chapter 2","playtime":11520,"tags":["boss"]})";
  ASSERT_EQ(c.request("PUT", "/v1/slots/zeta", with(me, {{"If-None-Match", "*"}, {"Savekit-Meta", meta_header(meta)}}),
                      "12345")
                .status,
            201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/alpha", with(me, create_only), "1").status, 201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/gone", with(me, create_only), "1").status, 201);
  ASSERT_EQ(c.request("DELETE", "/v1/slots/gone", with(me, replacing(1))).status, 204);
  reply listed = c.request("GET", "/v1/slots", me);
  ASSERT_EQ(listed.status, 200);
  auto slots = savekit::from_json<listed_slots>(listed.body);
  ASSERT_TRUE(slots) << listed.body;
  ASSERT_EQ(slots->slots.size(), 2u);
  EXPECT_EQ(slots->slots[0].name, "alpha");
  EXPECT_EQ(slots->slots[0].meta.text, "{}");
  EXPECT_EQ(slots->slots[1].name, "zeta");
  EXPECT_EQ(slots->slots[1].bytes, 5);
  EXPECT_EQ(slots->slots[1].meta.text, meta);
  EXPECT_EQ(slots->slots[1].saved_at.size(), std::string("2026-12-01T20:00:00.000Z").size())
      << slots->slots[1].saved_at;
  // The metadata comes back with the bytes too.
  reply read = c.request("GET", "/v1/slots/zeta", me);
  auto decoded = savekit::base64_decode(read.header("savekit-meta"), savekit::base64_alphabet::url);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(decoded->data()), decoded->size()), meta);
}

TEST_P(ServerApi, ListWithDeletedShowsTombstonesWithVersionAndWriteId) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  ASSERT_EQ(c.request("PUT", "/v1/slots/kept", with(me, create_only), "1").status, 201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/gone", with(me, create_only), "1").status, 201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/gone", with(me, replacing(1)), "2").status, 200);
  ASSERT_EQ(c.request("DELETE", "/v1/slots/gone", with(me, with(replacing(2), {{"Savekit-Write-Id", "del-1"}}))).status,
            204);
  reply listed = c.request("GET", "/v1/slots?deleted=true", me);
  ASSERT_EQ(listed.status, 200);
  auto both = savekit::from_json<listed_with_deleted>(listed.body);
  ASSERT_TRUE(both) << listed.body;
  ASSERT_EQ(both->slots.size(), 1u);
  EXPECT_EQ(both->slots[0].name, "kept");
  EXPECT_EQ(both->slots[0].deleted, std::nullopt);
  ASSERT_EQ(both->deleted.size(), 1u) << listed.body;
  EXPECT_EQ(both->deleted[0].name, "gone");
  EXPECT_EQ(both->deleted[0].version, 3);
  EXPECT_EQ(both->deleted[0].write_id, std::optional<std::string>{"del-1"});
  EXPECT_EQ(both->deleted[0].deleted, std::optional<bool>{true});
  // Recreated, it leaves the tombstones and is listed live again.
  ASSERT_EQ(c.request("PUT", "/v1/slots/gone", with(me, create_only), "3").status, 201);
  both = savekit::from_json<listed_with_deleted>(c.request("GET", "/v1/slots?deleted=true", me).body);
  ASSERT_TRUE(both);
  EXPECT_EQ(both->slots.size(), 2u);
  EXPECT_TRUE(both->deleted.empty());
}

TEST_P(ServerApi, ListWithoutTheQueryIsUnchanged) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  ASSERT_EQ(c.request("PUT", "/v1/slots/gone", with(me, create_only), "1").status, 201);
  ASSERT_EQ(c.request("DELETE", "/v1/slots/gone", with(me, replacing(1))).status, 204);
  EXPECT_EQ(c.request("GET", "/v1/slots", me).body, "{\"slots\":[]}");
  EXPECT_EQ(c.request("GET", "/v1/slots?deleted=false", me).body, "{\"slots\":[]}");
  EXPECT_EQ(c.request("GET", "/v1/slots?other=1", me).body, "{\"slots\":[]}");
  EXPECT_EQ(c.request("GET", "/v1/slots?deleted=yes", me).status, 400);
}

TEST_P(ServerApi, ADeletionIsAVersionAndKeepsWhatCanBeRestored) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, create_only), "first").status, 201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, replacing(1)), "second").status, 200);
  EXPECT_EQ(c.request("DELETE", "/v1/slots/s", me).status, 428);
  EXPECT_EQ(c.request("DELETE", "/v1/slots/s", with(me, create_only)).status, 400);
  EXPECT_EQ(c.request("DELETE", "/v1/slots/s", with(me, replacing(1))).status, 412);
  reply deleted = c.request("DELETE", "/v1/slots/s", with(me, replacing(2)));
  EXPECT_EQ(deleted.status, 204);
  EXPECT_EQ(deleted.header("etag"), "\"3\"");
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).status, 404);
  EXPECT_EQ(c.request("DELETE", "/v1/slots/s", with(me, replacing(3))).status, 412);
  // An old tag never matches the deleted slot.
  reply stale = c.request("PUT", "/v1/slots/s", with(me, replacing(2)), "x");
  EXPECT_EQ(stale.status, 412);
  ASSERT_TRUE(error_of(stale).error.slot);
  EXPECT_EQ(error_of(stale).error.slot->deleted, std::optional<bool>{true});
  // What was kept is still there for a restore.
  auto kept = savekit::from_json<kept_versions>(c.request("GET", "/v1/slots/s/versions", me).body);
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->versions.size(), 2u);
  EXPECT_EQ(kept->versions[0].version, 2);
  EXPECT_EQ(c.request("GET", "/v1/slots/s/versions/2", me).body, "second");
  // Created again, it goes on from the deletion's version.
  reply again = c.request("PUT", "/v1/slots/s", with(me, create_only), "third");
  EXPECT_EQ(again.status, 201);
  EXPECT_EQ(again.header("etag"), "\"4\"");
}

TEST_P(ServerApi, TheLastVersionsAreKeptNewestFirst) {
  auto server = start_server({"--keep-versions", "3"});
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, create_only), "body 1").status, 201);
  for (int v = 1; v < 7; ++v)
    ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, replacing(v)), "body " + std::to_string(v + 1)).status, 200);
  auto kept = savekit::from_json<kept_versions>(c.request("GET", "/v1/slots/s/versions", me).body);
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->versions.size(), 3u);
  EXPECT_EQ(kept->versions[0].version, 7);
  EXPECT_EQ(kept->versions[2].version, 5);
  EXPECT_EQ(kept->versions[2].bytes, 6);
  reply five = c.request("GET", "/v1/slots/s/versions/5", me);
  EXPECT_EQ(five.status, 200);
  EXPECT_EQ(five.body, "body 5");
  EXPECT_EQ(five.header("etag"), "\"5\"");
  EXPECT_EQ(c.request("GET", "/v1/slots/s/versions/4", me).status, 404);
  EXPECT_EQ(c.request("GET", "/v1/slots/s/versions/x", me).status, 400);
  EXPECT_EQ(c.request("GET", "/v1/slots/s/versions/07", me).status, 400);
  EXPECT_EQ(c.request("GET", "/v1/slots/none/versions", me).status, 404);
}

TEST_P(ServerApi, TokensNameOnePlayerAndNoOneElse) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const std::string alice = unique_player("alice"), bob = unique_player("bob");
  ASSERT_EQ(c.request("PUT", "/v1/slots/secret", with(auth(alice), create_only), "alice's").status, 201);
  EXPECT_EQ(c.request("GET", "/v1/slots/secret", auth(bob)).status, 404) << "another player's slot does not exist";
  EXPECT_EQ(c.request("PUT", "/v1/slots/secret", with(auth(bob), replacing(1)), "bob's").status, 412);
  EXPECT_EQ(c.request("GET", "/v1/slots", auth(bob)).body, "{\"slots\":[]}");
  EXPECT_EQ(c.request("GET", "/v1/slots/secret", auth(alice)).body, "alice's");

  reply none = c.request("GET", "/v1/slots");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.header("www-authenticate"), "Bearer realm=\"savekit\"");
  const std::string token = creds_.token(alice);
  EXPECT_EQ(c.request("GET", "/v1/slots", {{"Authorization", "bearer " + token}}).status, 200);
  EXPECT_EQ(c.request("GET", "/v1/slots", {{"Authorization", "Basic " + token}}).status, 401);
  EXPECT_EQ(c.request("GET", "/v1/slots", {{"Authorization", "Bearer"}}).status, 401);
  EXPECT_EQ(c.request("GET", "/v1/slots", {{"Authorization", "Bearer not-a-token"}}).status, 401);
  std::string flipped = token;
  flipped[10] = flipped[10] == 'A' ? 'B' : 'A';
  EXPECT_EQ(c.request("GET", "/v1/slots", {{"Authorization", "Bearer " + flipped}}).status, 401);
  // Signed with another secret.
  auto elsewhere = credentials::make(dir_.path(), "other.secret");
  EXPECT_EQ(c.request("GET", "/v1/slots", {{"Authorization", "Bearer " + elsewhere.token(alice)}}).status, 401);
  // Another player's payload under this token's signature.
  const std::string bob_token = creds_.token(bob);
  const std::string spliced = bob_token.substr(0, bob_token.rfind('.')) + token.substr(token.rfind('.'));
  EXPECT_EQ(c.request("GET", "/v1/slots", {{"Authorization", "Bearer " + spliced}}).status, 401);
  // Expired: a token valid for one second, a little later.
  const std::string short_lived = creds_.token(alice, "1s");
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  reply expired = c.request("GET", "/v1/slots", {{"Authorization", "Bearer " + short_lived}});
  EXPECT_EQ(expired.status, 401);
  EXPECT_NE(error_of(expired).error.message.find("expired"), std::string::npos);
  EXPECT_EQ(error_of(expired).error.message.find(short_lived), std::string::npos) << "never repeat a token";
}

TEST_P(ServerApi, NamesAreOnePathSegmentCheckedAsSlotNames) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  // An encoded slash is part of the name; SQL metacharacters are only characters.
  const std::string sql = "x'; DROP TABLE slots; --";
  ASSERT_EQ(c.request("PUT", "/v1/slots/a%2Fb", with(me, create_only), "slash").status, 201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/x%27%3B%20DROP%20TABLE%20slots%3B%20--", with(me, create_only), "sql").status,
            201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/%E3%81%AC%E3%81%AE", with(me, create_only), "utf8").status, 201);
  auto slots = savekit::from_json<listed_slots>(c.request("GET", "/v1/slots", me).body);
  ASSERT_TRUE(slots);
  ASSERT_EQ(slots->slots.size(), 3u);
  EXPECT_EQ(slots->slots[0].name, "a/b");
  EXPECT_EQ(slots->slots[1].name, sql);
  EXPECT_EQ(slots->slots[2].name, "ぬの");
  EXPECT_EQ(c.request("GET", "/v1/slots/a%2Fb", me).body, "slash");
  EXPECT_EQ(c.request("GET", "/v1/slots/a/b", me).status, 404) << "a real slash is a separator";
  for (std::string bad : std::vector<std::string>{"..", "%2E%2E", ".", "%FF", "%C3%28", "%00", "a%01b", "%E2%80%AEevil",
                                                  "%", "%4", "%G1", "%20%20", std::string(129, 'n')}) {
    reply r = c.request("PUT", "/v1/slots/" + bad, with(me, create_only), "x");
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(error_of(r).error.code, "bad_name") << bad;
  }
  EXPECT_EQ(c.request("PUT", "/v1/slots/" + std::string(128, 'n'), with(me, create_only), "x").status, 201);
  EXPECT_EQ(c.request("GET", "/v1/slots/", me).status, 400) << "an empty name";
  EXPECT_EQ(c.request("GET", "/v2/slots", me).status, 404);
  EXPECT_EQ(c.request("GET", "/v1/slots/a/versions/1/more", me).status, 404);
  EXPECT_EQ(c.request("POST", "/v1/slots/x", me, "x").status, 405);
  EXPECT_EQ(c.request("POST", "/v1/slots/x", me, "x").header("allow"), "GET, HEAD, PUT, DELETE");
  // The tables are all there.
  EXPECT_EQ(c.request("GET", "/v1/slots/x%27%3B%20DROP%20TABLE%20slots%3B%20--", me).body, "sql");
}

TEST_P(ServerApi, BytesComeBackExactlyAndLimitsAreKept) {
  auto server = start_server({"--max-save-bytes", "1048576", "--max-slots", "3", "--max-meta-bytes", "64"});
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  std::string bytes(1048576, '\0');
  std::mt19937 random(7);
  for (char& b : bytes) b = static_cast<char>(random());
  ASSERT_EQ(c.request("PUT", "/v1/slots/big", with(me, create_only), bytes).status, 201);
  reply back = c.request("GET", "/v1/slots/big", me);
  EXPECT_EQ(back.status, 200);
  EXPECT_TRUE(back.body == bytes) << "1 MiB of random bytes, NULs included";
  reply too_big = c.request("PUT", "/v1/slots/bigger", with(me, create_only), bytes + "!");
  EXPECT_EQ(too_big.status, 413);
  EXPECT_EQ(c.request("GET", "/v1/slots/bigger", me).status, 404);
  // Metadata: base64url of a JSON object, at most --max-meta-bytes.
  auto put_meta = [&](const std::string& header) {
    return c.request("PUT", "/v1/slots/m", with(me, {{"If-None-Match", "*"}, {"Savekit-Meta", header}}), "x").status;
  };
  EXPECT_EQ(put_meta(meta_header(R"({"a":")" + std::string(60, 'x') + "\"}")), 413);
  EXPECT_EQ(put_meta("not base64!"), 400);
  EXPECT_EQ(put_meta(meta_header("[1,2]")), 400);
  EXPECT_EQ(put_meta(meta_header("{\"a\":")), 400);
  EXPECT_EQ(put_meta(meta_header("{\"a\":\"\xff\"}")), 400);
  EXPECT_EQ(put_meta(meta_header("{\"ok\":true}")), 201);
  // Slots per player.
  ASSERT_EQ(c.request("PUT", "/v1/slots/third", with(me, create_only), "3").status, 201);
  reply fourth = c.request("PUT", "/v1/slots/fourth", with(me, create_only), "4");
  EXPECT_EQ(fourth.status, 409);
  EXPECT_EQ(error_of(fourth).error.code, "too_many_slots");
  ASSERT_EQ(c.request("DELETE", "/v1/slots/third", with(me, replacing(1))).status, 204);
  EXPECT_EQ(c.request("PUT", "/v1/slots/fourth", with(me, create_only), "4").status, 201);
  // Replacing is not creating: allowed at the limit.
  EXPECT_EQ(c.request("PUT", "/v1/slots/m", with(me, replacing(1)), "y").status, 200);
}

TEST_P(ServerApi, APlayersQuotaCountsTheVersionsKeptOfTheirLiveSlots) {
  auto server = start_server({"--max-player-bytes", "10000", "--keep-versions", "2"});
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  const std::string save(4000, 's');
  ASSERT_EQ(c.request("PUT", "/v1/slots/a", with(me, create_only), save).status, 201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/b", with(me, create_only), save).status, 201);  // 8000 kept
  reply third = c.request("PUT", "/v1/slots/c", with(me, create_only), save);
  EXPECT_EQ(third.status, 409);
  EXPECT_EQ(error_of(third).error.code, "over_quota");
  EXPECT_EQ(c.request("GET", "/v1/slots/c", me).status, 404) << "nothing of the refused write is kept";
  // A replace keeps the version it replaces (--keep-versions 2): 12000, refused...
  reply replace = c.request("PUT", "/v1/slots/b", with(me, replacing(1)), save);
  EXPECT_EQ(replace.status, 409);
  EXPECT_EQ(error_of(replace).error.code, "over_quota");
  // ...and a smaller one fits: 4000 + 4000 + 1000.
  EXPECT_EQ(c.request("PUT", "/v1/slots/b", with(me, replacing(1)), std::string(1000, 't')).status, 200);
  // A save larger than the whole quota could never fit: 413, as for --max-save-bytes.
  EXPECT_EQ(c.request("PUT", "/v1/slots/d", with(me, create_only), std::string(10001, 'x')).status, 413);
  // With a quota, a deletion frees its slot's bytes: its versions are not kept (kept and
  // not counted, a player could fill the disk by creating and deleting slots).
  ASSERT_EQ(c.request("DELETE", "/v1/slots/a", with(me, replacing(1))).status, 204);
  EXPECT_EQ(c.request("PUT", "/v1/slots/c", with(me, create_only), save).status, 201);
  EXPECT_EQ(c.request("GET", "/v1/slots/a/versions/1", me).status, 404);
  // Another player's saves are theirs.
  const auto other = auth(unique_player());
  EXPECT_EQ(c.request("PUT", "/v1/slots/a", with(other, create_only), save).status, 201);
}

TEST_P(ServerApi, AWriteRepeatedWithItsWriteIdIsAnsweredAsTheFirstTime) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  auto put = [&](const header_list& condition, const std::string& id, const std::string& body) {
    header_list headers = with(me, condition);
    headers.push_back({"Savekit-Write-Id", id});
    return c.request("PUT", "/v1/slots/s", headers, body);
  };
  ASSERT_EQ(put(create_only, "w-1", "a").status, 201);
  // The answer was lost; the client sends the same write again: the first answer, 201.
  reply repeated = put(create_only, "w-1", "a");
  EXPECT_EQ(repeated.status, 201);
  EXPECT_EQ(repeated.header("etag"), "\"1\"");
  EXPECT_EQ(put(replacing(1), "w-2", "b").status, 200);
  reply again = put(replacing(1), "w-2", "b");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.header("etag"), "\"2\"");
  // Another write that read version 1 lost the race: 412.
  EXPECT_EQ(put(replacing(1), "w-3", "c").status, 412);
  // Newer writes since: the retry of w-2 still gets its own answer, not 412.
  ASSERT_EQ(put(replacing(2), "w-4", "d").status, 200);
  reply late = put(replacing(1), "w-2", "b");
  EXPECT_EQ(late.status, 200);
  EXPECT_EQ(late.header("etag"), "\"2\"");
  // The same id for another write (other bytes, other metadata, another precondition) is refused,
  // and nothing of it is stored: a device must never believe the server has what it does not.
  reply other_bytes = put(replacing(1), "w-2", "other progress");
  EXPECT_EQ(other_bytes.status, 409);
  EXPECT_EQ(error_of(other_bytes).error.code, "write_id_reused");
  EXPECT_EQ(put(replacing(3), "w-2", "b").status, 409);
  EXPECT_EQ(
      c.request(
           "PUT", "/v1/slots/s",
           with(me, {{"If-Match", "\"1\""}, {"Savekit-Write-Id", "w-2"}, {"Savekit-Meta", meta_header("{\"x\":1}")}}),
           "b")
          .status,
      409);
  EXPECT_EQ(put(replacing(3), "bad id", "x").status, 400);
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).body, "d");
  // A create sent again after another device deleted the slot does not bring it back.
  ASSERT_EQ(c.request("DELETE", "/v1/slots/s", with(me, replacing(3))).status, 204);
  reply after_delete = put(create_only, "w-1", "a");
  EXPECT_EQ(after_delete.status, 201) << "the first answer";
  EXPECT_EQ(after_delete.header("etag"), "\"1\"");
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).status, 404) << "still deleted";
  // A deletion sent again is answered as the first time too.
  ASSERT_EQ(put(create_only, "w-5", "e").status, 201);
  const header_list delete_once = with(me, {{"If-Match", "\"5\""}, {"Savekit-Write-Id", "d-1"}});
  EXPECT_EQ(c.request("DELETE", "/v1/slots/s", delete_once).status, 204);
  reply deleted_again = c.request("DELETE", "/v1/slots/s", delete_once);
  EXPECT_EQ(deleted_again.status, 204);
  EXPECT_EQ(deleted_again.header("etag"), "\"6\"");
}

TEST_P(ServerApi, AWriteIdIsRememberedLongerThanItsVersionIsKept) {
  auto server = start_server({"--keep-versions", "2"});
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  auto send = [&](const std::string& method, const header_list& condition, const std::string& id,
                  const std::string& body = {}) {
    return c.request(method, "/v1/slots/s", with(with(me, condition), {{"Savekit-Write-Id", id}}), body);
  };
  ASSERT_EQ(send("PUT", create_only, "w-1", "a").status, 201);
  ASSERT_EQ(send("PUT", replacing(1), "w-2", "b").status, 200);
  ASSERT_EQ(send("PUT", replacing(2), "w-3", "c").status, 200);
  ASSERT_EQ(send("DELETE", replacing(3), "d-1").status, 204);  // version 4; versions 2 and 3 kept
  // A device wakes up and sends its creation again, long after: the first answer, and the
  // deletion another device made stays.
  reply create_again = send("PUT", create_only, "w-1", "a");
  EXPECT_EQ(create_again.status, 201);
  EXPECT_EQ(create_again.header("etag"), "\"1\"");
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).status, 404) << "still deleted";
  reply replace_again = send("PUT", replacing(1), "w-2", "b");
  EXPECT_EQ(replace_again.status, 200) << "its own write, not a conflict";
  EXPECT_EQ(replace_again.header("etag"), "\"2\"");
  // The 409 for an id reused for another write names the version that id made.
  reply reused = send("PUT", replacing(3), "w-1", "other");
  EXPECT_EQ(reused.status, 409);
  const error_document why = error_of(reused);
  EXPECT_EQ(why.error.code, "write_id_reused");
  ASSERT_TRUE(why.error.slot);
  EXPECT_EQ(why.error.slot->version, 1);
  EXPECT_EQ(why.error.slot->write_id, "w-1");
  // A deletion's id names that deletion: sent again, the first answer; for a write, 409.
  reply delete_again = send("DELETE", replacing(3), "d-1");
  EXPECT_EQ(delete_again.status, 204);
  EXPECT_EQ(delete_again.header("etag"), "\"4\"");
  EXPECT_EQ(send("PUT", replacing(4), "d-1", "x").status, 409);
  // Every entry says which write made it.
  ASSERT_EQ(send("PUT", create_only, "w-9", "z").status, 201);
  auto listed = savekit::from_json<listed_slots>(c.request("GET", "/v1/slots", me).body);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->slots.size(), 1u);
  EXPECT_EQ(listed->slots[0].write_id, "w-9");
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).header("savekit-write-id"), "w-9");
  auto kept = savekit::from_json<kept_versions>(c.request("GET", "/v1/slots/s/versions", me).body);
  ASSERT_TRUE(kept);
  ASSERT_FALSE(kept->versions.empty());
  EXPECT_EQ(kept->versions[0].write_id, "w-9");
}

TEST_P(ServerApi, WriteIdsAreForgottenAfterKeepWriteIds) {
  auto server = start_server({"--keep-write-ids", "1s"});
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  ASSERT_EQ(
      c.request("PUT", "/v1/slots/s", with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-1"}}), "a").status,
      201);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  // The next write forgets the ids older than a second: w-1 is a new write now.
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, replacing(1)), "b").status, 200);
  EXPECT_EQ(
      c.request("PUT", "/v1/slots/s", with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-1"}}), "a").status,
      412);
}

TEST_P(ServerApi, ASlotRemembersAtMostWriteIdsPerSlot) {
  auto server = start_server({"--write-ids-per-slot", "2"});
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  auto put = [&](const header_list& condition, const std::string& id, const std::string& body) {
    return c.request("PUT", "/v1/slots/s", with(with(me, condition), {{"Savekit-Write-Id", id}}), body).status;
  };
  ASSERT_EQ(put(create_only, "w-1", "a"), 201);
  ASSERT_EQ(put(replacing(1), "w-2", "b"), 200);
  EXPECT_EQ(put(replacing(1), "w-2", "b"), 200) << "remembered";
  ASSERT_EQ(put(replacing(2), "w-3", "c"), 200);
  EXPECT_EQ(put(create_only, "w-1", "a"), 412) << "the oldest of three is forgotten";
  EXPECT_EQ(put(replacing(1), "w-2", "b"), 200) << "the newest two are not";
}

TEST_P(ServerApi, NoAnswerIsKeptByCaches) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  EXPECT_EQ(c.request("PUT", "/v1/slots/s", with(me, create_only), "a").header("cache-control"), "no-store");
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).header("cache-control"), "no-store");
  EXPECT_EQ(c.request("GET", "/v1/slots", me).header("cache-control"), "no-store");
  EXPECT_EQ(c.request("PUT", "/v1/slots/s", with(me, create_only), "a").header("cache-control"), "no-store");
}

std::string meta_of(const reply& r) {
  auto decoded = savekit::base64_decode(r.header("savekit-meta"), savekit::base64_alphabet::url);
  return decoded ? std::string(reinterpret_cast<const char*>(decoded->data()), decoded->size()) : "(not base64url)";
}

TEST_P(ServerApi, MetadataIsKeptAsTheClientSpelledItAndAKeyGivenTwiceIsRefused) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  const std::string spelled = " {\"a\" : 1E15,\n \"b\": [1.50, 2e-3] }\r\n";
  ASSERT_EQ(
      c.request("PUT", "/v1/slots/m",
                with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-1"}, {"Savekit-Meta", meta_header(spelled)}}),
                "x")
          .status,
      201);
  auto slots = savekit::from_json<listed_slots>(c.request("GET", "/v1/slots", me).body);
  ASSERT_TRUE(slots && slots->slots.size() == 1);
  EXPECT_EQ(slots->slots[0].meta.text, "{\"a\" : 1E15,\n \"b\": [1.50, 2e-3] }") << "its numbers as spelled";
  EXPECT_EQ(meta_of(c.request("GET", "/v1/slots/m", me)), spelled) << "byte for byte";
  // The same write sent again with its metadata spelled otherwise is still the same write.
  reply again = c.request("PUT", "/v1/slots/m",
                          with(me, {{"If-None-Match", "*"},
                                    {"Savekit-Write-Id", "w-1"},
                                    {"Savekit-Meta", meta_header(R"({"a":1e15,"b":[1.5,0.002]})")}}),
                          "x");
  EXPECT_EQ(again.status, 201) << again.body;
  EXPECT_EQ(again.header("etag"), "\"1\"");
  // A key given twice: what it holds would depend on the client's JSON reader.
  for (const std::string& twice : {std::string(R"({"a":1,"a":2})"), std::string(R"({"x":{"a":1,"\u0061":2}})")}) {
    reply refused =
        c.request("PUT", "/v1/slots/n", with(me, {{"If-None-Match", "*"}, {"Savekit-Meta", meta_header(twice)}}), "x");
    EXPECT_EQ(refused.status, 400) << twice;
    EXPECT_EQ(error_of(refused).error.code, "bad_meta") << twice;
  }
  EXPECT_EQ(c.request("PUT", "/v1/slots/n",
                      with(me, {{"If-None-Match", "*"},
                                {"Savekit-Meta", meta_header(R"({"a":{"k":1},"b":{"k":"\"k\":"}})")}}),
                      "x")
                .status,
            201)
      << "one key in two objects is two keys";
}

// Metadata under --max-meta-bytes whose re-spelling grew past what a header carries (1E15
// as 1000000000000000.0, from Python's json or a .NET serializer) was acknowledged 201, then
// every GET, HEAD and version of that save closed the connection with no answer.
TEST_P(ServerApi, AWriteIsAcknowledgedOnlyIfItsMetadataCanBeReadBack) {
  auto server = start_server();
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  std::string meta = "{\"n\":[";
  while (meta.size() + 6 < 16 * 1024) meta += "1E15,";
  meta.back() = ']';
  meta += "}";
  reply created = c.request("PUT", "/v1/slots/numbers",
                            with(me, {{"If-None-Match", "*"}, {"Savekit-Meta", meta_header(meta)}}), "b");
  ASSERT_EQ(created.status, 201) << created.body.substr(0, 200);
  for (const std::string target : {"/v1/slots/numbers", "/v1/slots/numbers/versions/1"}) {
    for (const std::string method : {"GET", "HEAD"}) {
      reply read = c.request(method, target, me);
      EXPECT_EQ(read.status, 200) << method << " " << target << " (0: no answer at all)";
      EXPECT_TRUE(meta_of(read) == meta) << method << " " << target;
    }
  }
  auto listed = savekit::from_json<listed_slots>(c.request("GET", "/v1/slots", me).body);
  ASSERT_TRUE(listed && listed->slots.size() == 1);
  EXPECT_TRUE(listed->slots[0].meta.text == meta);
  // The largest metadata whose base64url fits one header (65,533 bytes) comes back too; a
  // --max-meta-bytes that would let larger metadata in is refused at start.
  auto widest = start_server({"--max-meta-bytes", "49149", "--max-header-bytes", "131072"});
  ASSERT_TRUE(widest);
  http_client w(widest->port());
  const std::string largest = "{\"s\":\"" + std::string(49149 - 8, 's') + "\"}";
  ASSERT_EQ(largest.size(), 49149u);
  ASSERT_EQ(w.request("PUT", "/v1/slots/wide",
                      with(me, {{"If-None-Match", "*"}, {"Savekit-Meta", meta_header(largest)}}), "b")
                .status,
            201);
  reply wide = w.request("GET", "/v1/slots/wide", me);
  EXPECT_EQ(wide.status, 200);
  EXPECT_TRUE(meta_of(wide) == largest);
  std::string refused;
  auto too_wide = server_process::start(dir_.path(), "too-wide", database(), creds_.secret_file.string(),
                                        {"--max-meta-bytes", "49150"}, refused);
  EXPECT_FALSE(too_wide) << "a server whose metadata could not be sent back must not start";
  EXPECT_NE(refused.find("--max-meta-bytes"), std::string::npos) << refused;
}

// An answer the server cannot make (here metadata too large for a header, stored behind its
// back as an older server could store it) is a 500 and a log line, and the connection goes
// on; before, the exception closed the connection with nothing said and nothing logged.
TEST_P(ServerApi, AnAnswerThatCannotBeMadeIsA500AndALogLine) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "edits the SQLite file behind the server";
  const std::string db = database();
  auto server = start_server({}, db);
  ASSERT_TRUE(server);
  http_client c(server->port());
  const std::string player = unique_player();
  const auto me = auth(player);
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, create_only), "bytes").status, 201);
  const std::string huge = "'{\"s\":\"" + std::string(70000, 'x') + "\"}'";
  const std::string edit = "UPDATE slots SET meta = " + huge + " WHERE player = '" + player +
                           "'; UPDATE slot_versions SET meta = " + huge + " WHERE player = '" + player + "'";
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.substr(7).c_str(), &handle), SQLITE_OK);
  sqlite3_busy_timeout(handle, 10000);
  EXPECT_EQ(sqlite3_exec(handle, edit.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(handle);
  sqlite3_close(handle);
  for (const std::string target : {"/v1/slots/s", "/v1/slots/s/versions/1"}) {
    for (const std::string method : {"GET", "HEAD"}) {
      reply r = c.request(method, target, me);
      EXPECT_EQ(r.status, 500) << method << " " << target << " (0: no answer at all)";
      if (method == "GET") {
        EXPECT_EQ(error_of(r).error.code, "internal");
      }
    }
  }
  EXPECT_EQ(c.request("GET", "/v1/slots", me).status, 200) << "the list carries metadata in its body";
  EXPECT_TRUE(server->log_shows("the answer could not be made")) << server->log();
  EXPECT_TRUE(server->log_shows("\"status\":500"));
}

TEST_P(ServerApi, APlayerSendingTooFastIsToldWhenToComeBack) {
  // A token back every 5 s (--rate 0.2): of six requests with a burst of 3, fewer than two
  // are refused only if the six take over 10 s, which no slow machine makes of them.
  auto server = start_server({"--rate", "0.2", "--burst", "3"});
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  int limited = 0;
  std::string retry_after;
  for (int i = 0; i < 6; ++i) {
    reply r = c.request("GET", "/v1/slots", me);
    if (r.status == 429) {
      ++limited;
      retry_after = r.header("retry-after");
    }
  }
  EXPECT_GE(limited, 2);
  // When the next token comes: within 1 / --rate (5 s), rounded up to a whole second.
  ASSERT_FALSE(retry_after.empty());
  EXPECT_GE(std::stoi(retry_after), 1) << retry_after;
  EXPECT_LE(std::stoi(retry_after), 5) << retry_after;
  EXPECT_EQ(c.request("GET", "/v1/slots", auth(unique_player())).status, 200) << "another player is not limited";
}

TEST_P(ServerApi, AHeaderGivenTwiceIsRefused) {
  auto server = start_server();
  ASSERT_TRUE(server);
  raw_connection raw(server->port());
  ASSERT_TRUE(raw.connected());
  const std::string token = creds_.token(unique_player());
  ASSERT_TRUE(raw.send("PUT /v1/slots/s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
                       "\r\nIf-Match: \"1\"\r\nIf-Match: \"2\"\r\nContent-Length: 1\r\n\r\nx"));
  bool closed = false;
  const std::string answer = raw.receive(std::chrono::seconds(60), closed);  // until the close
  EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << answer;
}

// The schema is created at the first start, kept at the next, and a database whose schema
// is newer than the server is refused (nothing of it touched).
TEST_P(ServerApi, TheSchemaIsCreatedKeptAndANewerOneRefused) {
  std::string db;
  std::string problem;
  test_postgres* pg = GetParam() == "postgresql" ? shared_postgres(problem) : nullptr;
  if (pg) {
    const std::string name = "schema_" + std::to_string(::getpid());
    ASSERT_TRUE(pg->create_database(name, problem)) << problem;
    db = pg->url(name);
  } else {
    db = database();
  }
  const std::string token = creds_.token(unique_player());
  {
    auto first = start_server({}, db);
    ASSERT_TRUE(first);
    http_client c(first->port());
    ASSERT_EQ(
        c.request("PUT", "/v1/slots/kept", {{"Authorization", "Bearer " + token}, {"If-None-Match", "*"}}, "x").status,
        201);
    EXPECT_EQ(first->stop(), 0);
  }
  {
    auto second = start_server({}, db);
    ASSERT_TRUE(second);
    EXPECT_EQ(http_client(second->port()).request("GET", "/v1/slots/kept", {{"Authorization", "Bearer " + token}}).body,
              "x");
    EXPECT_EQ(second->stop(), 0);
  }
  const std::string bump = "UPDATE savekit_schema SET version = 99 WHERE id = 1";
  if (pg) {
    pg->query(db.substr(db.rfind('/') + 1, db.find('?') - db.rfind('/') - 1), bump);
  } else {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.substr(7).c_str(), &handle), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(handle, bump.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(handle);
  }
  std::string refused;
  auto newer = server_process::start(dir_.path(), "newer", db, creds_.secret_file.string(), {}, refused);
  EXPECT_FALSE(newer) << "a server must not open a database of a newer schema";
  EXPECT_NE(refused.find("newer than this server"), std::string::npos) << refused;
}

TEST_P(ServerApi, AWriteThatFailsHalfWayCommitsNothingAndTheNextWriteIsItsOwn) {
  // The driver throws inside the write, after its compare-and-set (as std::bad_alloc could).
  ::setenv("SAVEKIT_SERVER_TEST_FAULT_SLOT", "boom", 1);
  auto server = start_server({"--db-pool", "1"});
  ::unsetenv("SAVEKIT_SERVER_TEST_FAULT_SLOT");
  ASSERT_TRUE(server);
  http_client c(server->port());
  const auto me = auth(unique_player());
  ASSERT_EQ(c.request("PUT", "/v1/slots/a", with(me, create_only), "a1").status, 201);
  ASSERT_EQ(c.request("PUT", "/v1/slots/boom", with(me, create_only), "x").status, 500);
  // The one connection's next write commits itself only, and is not refused.
  EXPECT_EQ(c.request("PUT", "/v1/slots/a", with(me, replacing(1)), "a2").status, 200);
  EXPECT_EQ(c.request("GET", "/v1/slots/a", me).body, "a2");
  auto listed = savekit::from_json<listed_slots>(c.request("GET", "/v1/slots", me).body);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->slots.size(), 1u) << "nothing of the failed write is there";
  EXPECT_EQ(listed->slots[0].name, "a");
  EXPECT_EQ(c.request("GET", "/v1/slots/boom", me).status, 404);
}

TEST_P(ServerApi, SchemaOneMovesToTwoKeepingWhatItsWriteIdsMade) {
  std::string db;
  std::string problem;
  test_postgres* pg = GetParam() == "postgresql" ? shared_postgres(problem) : nullptr;
  const std::string name = "migrate_" + std::to_string(::getpid());
  if (pg) {
    ASSERT_TRUE(pg->create_database(name, problem)) << problem;
    db = pg->url(name);
  } else {
    db = database();
  }
  const auto me = auth(unique_player());
  {
    auto first = start_server({}, db);
    ASSERT_TRUE(first);
    http_client c(first->port());
    ASSERT_EQ(
        c.request("PUT", "/v1/slots/s", with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-1"}}), "a").status,
        201);
    ASSERT_EQ(c.request("DELETE", "/v1/slots/s", with(me, {{"If-Match", "\"1\""}, {"Savekit-Write-Id", "d-1"}})).status,
              204);
    ASSERT_EQ(
        c.request("PUT", "/v1/slots/t", with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-7"}}), "t").status,
        201);
    ASSERT_EQ(
        c.request("PUT", "/v1/slots/t", with(me, {{"If-Match", "\"1\""}, {"Savekit-Write-Id", "w-8"}}), "u").status,
        200);
    EXPECT_EQ(first->stop(), 0);
  }
  // Back to schema 1 as it was: write ids only in the kept versions and the slots — one of
  // them twice, as schema 1 could end up with (two racing attempts).
  const std::string downgrade =
      "DROP TABLE slot_writes; CREATE INDEX slot_versions_by_write ON slot_versions (player, name, write_id); "
      "UPDATE slot_versions SET write_id = 'w-7' WHERE name = 't' AND version = 2; "
      "UPDATE savekit_schema SET version = 1 WHERE id = 1";
  if (pg) {
    pg->query(name, downgrade);
  } else {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.substr(7).c_str(), &handle), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(handle, downgrade.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(handle);
  }
  auto second = start_server({}, db);
  ASSERT_TRUE(second);
  http_client c(second->port());
  reply created = c.request("PUT", "/v1/slots/s", with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-1"}}), "a");
  EXPECT_EQ(created.status, 201);
  EXPECT_EQ(created.header("etag"), "\"1\"") << "the creation is known after the migration";
  reply deleted = c.request("DELETE", "/v1/slots/s", with(me, {{"If-Match", "\"1\""}, {"Savekit-Write-Id", "d-1"}}));
  EXPECT_EQ(deleted.status, 204);
  EXPECT_EQ(deleted.header("etag"), "\"2\"") << "so is the deletion";
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).status, 404);
}

INSTANTIATE_TEST_SUITE_P(Backends, ServerApi, ::testing::ValuesIn(backends()), backend_name);

}  // namespace
