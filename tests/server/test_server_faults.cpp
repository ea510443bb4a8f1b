// The server under faults and hostile input, as real processes: a stop with requests in
// flight, slow and idle connections, oversized and malformed requests, TLS, kill -9 of a
// server mid-write, 64 clients racing on one slot across 3 servers on one PostgreSQL, a
// server killed and PostgreSQL restarted under load. Every loop is bounded in count and time.
#include <savekit/json.hpp>

#include <libpq-fe.h>
#include <sys/resource.h>

#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "server_fixture.hpp"

namespace {

using namespace test_server;
using namespace std::chrono_literals;

class ServerFaults : public server_test {};

std::string put_request(const std::string& token, const std::string& name, std::size_t content_length,
                        const std::string& more_headers = {}) {
  return "PUT /v1/slots/" + name + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
         "\r\nIf-None-Match: *\r\n" + more_headers + "Content-Length: " + std::to_string(content_length) + "\r\n\r\n";
}

// Asks the server to say whether it takes a body before the body is sent (it has then
// admitted the request and taken the body's memory): a point the test can see the server
// reach, where a pause would only guess that it had.
const std::string waits_for_continue = "Expect: 100-continue\r\n";

// The head (status line and headers) of the next answer on the connection, or what came
// of it: it returns once the head is whole or the connection closes. The long bound is for
// an answer that never comes, not a timing.
std::string next_answer(raw_connection& raw, std::chrono::milliseconds within = 60s) {
  std::string out;
  raw.receive_until("\r\n\r\n", out, within);
  return out;
}

// Sends bytes, then returns the head of the next answer on the connection.
std::string first_answer(raw_connection& raw, const std::string& bytes) {
  return raw.send(bytes) ? next_answer(raw) : std::string{};
}

TEST_P(ServerFaults, AStopAnswersTheRequestsInFlightThenExits) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  // (A stop waits up to --shutdown-timeout for the upload: long, for a loaded machine.)
  auto server = start_server({"--shutdown-timeout", "120"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  raw_connection uploading(server->port()), idle(server->port());
  ASSERT_TRUE(uploading.connected() && idle.connected());
  // idle has answered one request and waits for the next; uploading is halfway through a
  // body, which the server is reading (its 100 Continue says it has taken the request in).
  ASSERT_TRUE(idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_NE(next_answer(idle).find("200 OK"), std::string::npos);
  const std::string body(100000, 'b');
  const std::string go_on = first_answer(uploading, put_request(token, "inflight", body.size(), waits_for_continue));
  ASSERT_EQ(go_on.rfind("HTTP/1.1 100 Continue", 0), 0u) << go_on;
  ASSERT_TRUE(uploading.send(body.substr(0, 50000)));
  ::kill(server->pid(), SIGTERM);
  // At once: before --idle-timeout (30 s by default) would have closed it. That it closed
  // also shows the stop under way when the rest of the body goes.
  EXPECT_TRUE(idle.closed_within(20s)) << "a connection waiting for a request is closed at once";
  ASSERT_TRUE(uploading.send(body.substr(50000)));
  bool closed = false;
  const std::string answer = uploading.receive(60s, closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 201", 0), 0u) << answer;
  EXPECT_EQ(server->wait(60s), 0) << server->log();
  EXPECT_NE(server->log().find("\"event\":\"stopped\""), std::string::npos);
  raw_connection after(server->port());
  EXPECT_FALSE(after.connected()) << "no new connections after the stop";
}

TEST_P(ServerFaults, SlowAndIdleConnectionsAreCutOffAndOthersAreServed) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--header-timeout", "1", "--idle-timeout", "1"});
  ASSERT_TRUE(server);
  // These timeouts must pass: the waits below are time for them to fire, not for progress.
  // What is asserted is that each connection was cut, and by its timeout of 1 s rather than
  // by the default (10 s for headers, 30 s idle): bounds a loaded machine does not reach.
  const auto started = std::chrono::steady_clock::now();
  // Slow loris: a byte of headers every 200 ms (its pace), never the end.
  raw_connection loris(server->port());
  ASSERT_TRUE(loris.send("GET /healthz HTTP/1.1\r\n"));
  bool cut = false;
  while (!cut && std::chrono::steady_clock::now() - started < 60s) {
    std::this_thread::sleep_for(200ms);
    cut = !loris.send("X");
    if (!cut) cut = loris.closed_within(1ms);
  }
  EXPECT_TRUE(cut) << "headers trickling in are cut off at --header-timeout";
  EXPECT_LT(std::chrono::steady_clock::now() - started, 9s) << "not at the default --header-timeout (10 s)";
  // Connected, silent.
  raw_connection silent(server->port());
  EXPECT_TRUE(silent.closed_within(9s)) << "not at the default --header-timeout (10 s)";
  // Kept alive after a request, then silent.
  raw_connection kept(server->port());
  ASSERT_TRUE(kept.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(next_answer(kept).find("200 OK"), std::string::npos);
  EXPECT_TRUE(kept.closed_within(25s)) << "an idle kept-alive connection is closed at --idle-timeout";
  // Each is counted just after its close (the close comes first, at the deadline): a bounded
  // wait for the count. Each question on a new connection: a kept-alive one left idle for a
  // second on a loaded machine would be a fourth.
  std::string metrics;
  EXPECT_TRUE(eventually([&] {
    metrics = http_client(server->port()).request("GET", "/metrics").body;
    return metrics.find("savekit_timeouts_total 3\n") != std::string::npos;
  })) << metrics;
  EXPECT_EQ(http_client(server->port()).request("GET", "/healthz").status, 200);
}

TEST_P(ServerFaults, OversizedAndMalformedRequestsAreRefusedEarlyAndTheServerGoesOn) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--max-save-bytes", "1000", "--max-header-bytes", "4096"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  auto answer_to = [&](const std::string& bytes) {
    raw_connection raw(server->port());
    return first_answer(raw, bytes);
  };
  // Content-Length over the limit: refused from the header, the body never read.
  EXPECT_EQ(answer_to(put_request(token, "big", std::size_t{10} << 30)).rfind("HTTP/1.1 413", 0), 0u);
  // A chunked body passing the limit as it arrives.
  std::string chunked = "PUT /v1/slots/chunks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
                        "\r\nIf-None-Match: *\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 5; ++i) chunked += "190\r\n" + std::string(400, 'c') + "\r\n";
  EXPECT_EQ(answer_to(chunked).rfind("HTTP/1.1 413", 0), 0u);
  // Headers over --max-header-bytes.
  EXPECT_EQ(answer_to("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(8000, 'h') + "\r\n\r\n")
                .rfind("HTTP/1.1 431", 0),
            0u);
  for (const std::string& bad :
       std::vector<std::string>{"GARBAGE\r\n\r\n", "GET /healthz HTTP/9.9\r\n\r\n", "GET\r\n\r\n",
                                "GET /healthz HTTP/1.1\r\nBad Header\r\n\r\n",
                                "PUT /v1/slots/x HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n12345",
                                "PUT /v1/slots/x HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                                std::string("GET /v1/slots/\x01 HTTP/1.1\r\n\r\n")}) {
    const std::string answer = answer_to(bad);
    EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << bad << " -> " << answer;
  }
  const std::string ok_chunked = "PUT /v1/slots/small HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
                                 "\r\nIf-None-Match: *\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
  EXPECT_EQ(answer_to(ok_chunked).rfind("HTTP/1.1 201", 0), 0u);
  http_client c(server->port());
  EXPECT_EQ(c.request("GET", "/v1/slots/small", {{"Authorization", "Bearer " + token}}).body, "hello");
  EXPECT_EQ(c.request("GET", "/healthz").status, 200);
}

TEST_P(ServerFaults, TlsServesHttpsToCurl) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  const auto cert = dir_.path() / "cert.pem", key = dir_.path() / "key.pem";
  std::string out;
  ASSERT_EQ(
      run_command({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.string(), "-out",
                   cert.string(), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"},
                  out),
      0);
  auto server = start_server({"--tls-cert", cert.string(), "--tls-key", key.string()});
  ASSERT_TRUE(server);
  const std::string base = "https://127.0.0.1:" + std::to_string(server->port());
  const std::string token = creds_.token(unique_player());
  const auto save = dir_.path() / "save.bin";
  {
    std::ofstream f(save, std::ios::binary);
    f << std::string("tls save\0bytes", 14);
  }
  ASSERT_EQ(run_command({"/usr/bin/curl", "-sS", "--cacert", cert.string(), "-o", "/dev/null", "-w", "%{http_code}",
                         "-X", "PUT", "-H", "Authorization: Bearer " + token, "-H", "If-None-Match: *", "--data-binary",
                         "@" + save.string(), base + "/v1/slots/tls"},
                        out),
            0);
  EXPECT_EQ(out, "201");
  ASSERT_EQ(run_command({"/usr/bin/curl", "-sS", "--cacert", cert.string(), "-H", "Authorization: Bearer " + token,
                         base + "/v1/slots/tls"},
                        out),
            0);
  EXPECT_EQ(out, std::string("tls save\0bytes", 14));
  // Plain HTTP to the TLS port gets nothing it can use.
  EXPECT_NE(
      run_command(
          {"/usr/bin/curl", "-sS", "-m", "5", "http://127.0.0.1:" + std::to_string(server->port()) + "/healthz"}, out),
      0);
  EXPECT_EQ(server->stop(), 0);
}

// Sends bytes on a new connection and returns what comes back until the server closes it
// (the wait is a bound for a server that does not, not a timing).
std::string exchange(int port, const std::string& bytes, std::chrono::milliseconds wait = 60s) {
  raw_connection raw(port);
  raw.send(bytes);
  raw.finish_sending();  // the answers come, then the close: no wait for a timeout
  bool closed = false;
  return raw.receive(wait, closed);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Status lines in what came back: how many answers.
std::size_t answers_in(const std::string& text) {
  static const std::regex status_line("HTTP/1\\.[01] [0-9]{3} ");
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), status_line), std::sregex_iterator()));
}

TEST_P(ServerFaults, FramingThatCannotBeReadReliablyIsRefusedAndNothingIsStored) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server();
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  const std::string auth = "Authorization: Bearer " + token + "\r\n";
  // A second, complete request as the body: it must never run.
  const std::string inner =
      "PUT /v1/slots/smuggled HTTP/1.1\r\nHost: x\r\n" + auth + "If-None-Match: *\r\nContent-Length: 3\r\n\r\nEVL";
  const std::string head = "PUT /v1/slots/framed HTTP/1.1\r\nHost: x\r\n" + auth + "If-None-Match: *\r\n";
  struct attempt {
    std::string bytes, status;
  };
  const std::vector<attempt> attempts = {
      {head + "Transfer-Encoding: gzip\r\n\r\n" + inner, "HTTP/1.1 400"},
      {head + "Transfer-Encoding: chunked, identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + inner, "HTTP/1.1 400"},
      {head + "Transfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + inner, "HTTP/1.1 501"},
      {"PUT /v1/slots/framed HTTP/1.0\r\nHost: x\r\n" + auth +
           "If-None-Match: *\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + inner,
       "HTTP/1.0 400"},
      {"PUT /v1/slots/framed HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n" + auth + "If-None-Match: *\r\n\r\n" +
           inner,
       "HTTP/1.0 411"},
      {"GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},  // no Host
      // An empty Transfer-Encoding before a Content-Length: a front end may frame it as chunked.
      {head + "Transfer-Encoding: \r\nContent-Length: 3\r\n\r\nabc", "HTTP/1.1 400"},
      // A folded line (obs-fold, RFC 9112 §5.2): Beast unfolded it to Transfer-Encoding:
      // chunked and stored the save, where another reader sees an empty field.
      {head + "Transfer-Encoding:\r\n chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + inner, "HTTP/1.1 400"},
      {head + "X-Note: a\r\n\tb\r\nContent-Length: 3\r\n\r\nabc" + inner, "HTTP/1.1 400"},
      // The last coding is not chunked (RFC 9112 §6.3: 400, the body's end is unknown):
      // "xchunked" ends in the letters of chunked, and was 501; chunked twice was 501 too.
      {head + "Transfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + inner, "HTTP/1.1 400"},
      {head + "Transfer-Encoding: chunked, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + inner, "HTTP/1.1 400"},
  };
  for (const attempt& a : attempts) {
    const std::string answer = exchange(server->port(), a.bytes);
    EXPECT_EQ(answer.rfind(a.status, 0), 0u) << a.bytes.substr(0, 120) << " -> " << answer;
    EXPECT_EQ(answers_in(answer), 1u) << "one answer: the body is not a request\n" << answer;
  }
  http_client c(server->port());
  const header_list me = {{"Authorization", "Bearer " + token}};
  EXPECT_EQ(c.request("GET", "/v1/slots/framed", me).status, 404) << "no empty save was stored";
  EXPECT_EQ(c.request("GET", "/v1/slots/smuggled", me).status, 404) << "the body did not run as a request";
  // An absolute-form target is served like its path.
  EXPECT_EQ(exchange(server->port(), "GET http://x/healthz HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
}

TEST_P(ServerFaults, ABodyIsReadOnlyForARequestTheHeadersAdmitAndOnlyWithinTheMemoryBudget) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--max-inflight-bytes", "1500000", "--max-save-bytes", "1000000"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  // No token: refused from the headers, no 100 Continue, the body never read.
  raw_connection stranger(server->port());
  ASSERT_TRUE(
      stranger.send("PUT /v1/slots/x HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\nExpect: 100-continue\r\n"
                    "Content-Length: 1000000\r\n\r\n"));
  bool closed = false;
  const std::string refused = stranger.receive(60s, closed);  // until the close
  EXPECT_EQ(refused.rfind("HTTP/1.1 401", 0), 0u) << refused;
  EXPECT_EQ(refused.find("100 Continue"), std::string::npos);
  EXPECT_TRUE(closed || stranger.closed_within(60s)) << "an unread body ends the connection";
  // Two bodies of 1 MB against a budget of 1.5 MB: the second is told to come back. (The
  // first one's 100 Continue: its megabyte is taken.)
  const std::string body(1000000, 'b');
  raw_connection first(server->port()), second(server->port());
  const std::string go_on = first_answer(first, put_request(token, "one", body.size(), waits_for_continue));
  ASSERT_EQ(go_on.rfind("HTTP/1.1 100 Continue", 0), 0u) << go_on;
  ASSERT_TRUE(first.send(body.substr(0, 1000)));
  const std::string busy = first_answer(second, put_request(token, "two", body.size()));
  EXPECT_EQ(busy.rfind("HTTP/1.1 503", 0), 0u) << busy;
  EXPECT_NE(busy.find("Retry-After: 1"), std::string::npos);
  EXPECT_EQ(first_answer(first, body.substr(1000)).rfind("HTTP/1.1 201", 0), 0u);
  // The budget is back: the same upload goes through now.
  http_client c(server->port());
  EXPECT_EQ(
      c.request("PUT", "/v1/slots/two", {{"Authorization", "Bearer " + token}, {"If-None-Match", "*"}}, body).status,
      201);
}

TEST_P(ServerFaults, AnAnswerOrABodyThatStopsMovingIsCutAndGivesItsMemoryBack) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  constexpr std::size_t save = std::size_t{8} << 20;
  // One thread for connections: a request's memory is given back just after its line is
  // logged, on that thread, so that a request after the line has been seen finds it back.
  // --body-timeout 3: Bob's transfers of 8 MiB below may pause that long on a loaded
  // machine; the stalled and trickling ones still pause longer, or fall behind --min-rate.
  auto server = start_server({"--max-inflight-bytes", std::to_string(2 * save), "--max-save-bytes",
                              std::to_string(save), "--max-player-inflight-bytes", std::to_string(2 * save),
                              "--body-timeout", "3", "--min-rate", "1024", "--rate", "0", "--io-threads", "1"});
  ASSERT_TRUE(server);
  const std::string alice_id = unique_player(), bob_id = unique_player();
  const std::string alice = creds_.token(alice_id), bob = creds_.token(bob_id);
  http_client c(server->port());
  const std::string bytes(save, 's');
  ASSERT_EQ(
      c.request("PUT", "/v1/slots/big", {{"Authorization", "Bearer " + alice}, {"If-None-Match", "*"}}, bytes).status,
      201);
  ASSERT_EQ(
      c.request("PUT", "/v1/slots/big", {{"Authorization", "Bearer " + bob}, {"If-None-Match", "*"}}, bytes).status,
      201);
  // Alice asks for her save twice and reads nothing: the answers stop moving.
  const std::string get = "GET /v1/slots/big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + alice + "\r\n\r\n";
  raw_connection stalled1(server->port(), 4096), stalled2(server->port(), 4096);
  ASSERT_TRUE(stalled1.send(get) && stalled2.send(get));
  // They are cut after 3 s without progress (time that must pass: --body-timeout), and
  // logged once cut, their memory given back. The bound is what a loaded machine does not
  // reach and the default --body-timeout (60 s) would.
  const std::string alices_get =
      R"("method":"GET","route":"/v1/slots/{name}","slot":"big","player":")" + alice_id + "\"";
  EXPECT_TRUE(server->log_shows_times(2, alices_get, 30s)) << server->log();
  // Bob's save goes out (before, their memory stayed taken for 60 s + 8 MiB at 1 KiB/s, and
  // Bob's answer was 503).
  reply bobs = c.request("GET", "/v1/slots/big", {{"Authorization", "Bearer " + bob}});
  EXPECT_EQ(bobs.status, 200) << bobs.body.substr(0, 200);
  EXPECT_EQ(bobs.body.size(), save);
  // Two uploads of a byte every half second (their pace): cut too, however large they say
  // they are, each logged as a 408 once cut (bounded as above).
  raw_connection trickle1(server->port()), trickle2(server->port());
  ASSERT_TRUE(trickle1.send(put_request(alice, "t1", save)) && trickle2.send(put_request(alice, "t2", save)));
  bool open1 = true, open2 = true;
  const auto trickling = std::chrono::steady_clock::now();
  while (server->log_count("\"status\":408") < 2 && std::chrono::steady_clock::now() - trickling < 30s) {
    std::this_thread::sleep_for(500ms);
    if (open1) open1 = trickle1.send("x");
    if (open2) open2 = trickle2.send("x");
  }
  EXPECT_EQ(server->log_count("\"status\":408"), 2u) << server->log();
  EXPECT_EQ(
      c.request("PUT", "/v1/slots/small", {{"Authorization", "Bearer " + bob}, {"If-None-Match", "*"}}, "ten bytes!")
          .status,
      201);
  EXPECT_TRUE(trickle1.closed_within(60s) && trickle2.closed_within(60s));
}

TEST_P(ServerFaults, OnePlayerCannotHoldTheWholeMemoryForBodies) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--max-player-inflight-bytes", "1500000", "--max-save-bytes", "1000000"});
  ASSERT_TRUE(server);
  const std::string alice = creds_.token(unique_player()), bob = creds_.token(unique_player());
  const std::string body(1000000, 'b');
  raw_connection first(server->port()), second(server->port());
  // The first upload's 100 Continue: its megabyte is taken.
  const std::string go_on = first_answer(first, put_request(alice, "one", body.size(), waits_for_continue));
  ASSERT_EQ(go_on.rfind("HTTP/1.1 100 Continue", 0), 0u) << go_on;
  ASSERT_TRUE(first.send(body.substr(0, 1000)));
  const std::string busy = first_answer(second, put_request(alice, "two", body.size()));
  EXPECT_EQ(busy.rfind("HTTP/1.1 429", 0), 0u) << busy;
  EXPECT_NE(busy.find("Retry-After: 1"), std::string::npos);
  // Another player is not held up by her.
  http_client c(server->port());
  EXPECT_EQ(
      c.request("PUT", "/v1/slots/two", {{"Authorization", "Bearer " + bob}, {"If-None-Match", "*"}}, body).status,
      201);
  EXPECT_EQ(first_answer(first, body.substr(1000)).rfind("HTTP/1.1 201", 0), 0u);
}

TEST_P(ServerFaults, ARefusedUploadHoldsNoMemoryWhileItsConnectionCloses) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--max-inflight-bytes", "2500000", "--max-player-inflight-bytes", "1500000",
                              "--max-save-bytes", "1000000", "--rate", "0"});
  ASSERT_TRUE(server);
  const std::string alice = creds_.token(unique_player()), bob = creds_.token(unique_player());
  const std::string body(1000000, 'b');
  raw_connection holding(server->port());
  const std::string go_on = first_answer(holding, put_request(alice, "one", body.size(), waits_for_continue));
  ASSERT_EQ(go_on.rfind("HTTP/1.1 100 Continue", 0), 0u) << go_on;  // its megabyte is taken
  ASSERT_TRUE(holding.send(body.substr(0, 1000)));
  // Alice's next uploads are past her share: refused, and their connections close slowly
  // (lingering), holding nothing meanwhile.
  std::vector<std::unique_ptr<raw_connection>> refused;
  for (int i = 0; i < 3; ++i) {
    refused.push_back(std::make_unique<raw_connection>(server->port()));
    EXPECT_EQ(first_answer(*refused.back(), put_request(alice, "more" + std::to_string(i), body.size()))
                  .rfind("HTTP/1.1 429", 0),
              0u);
  }
  http_client c(server->port());
  EXPECT_EQ(
      c.request("PUT", "/v1/slots/two", {{"Authorization", "Bearer " + bob}, {"If-None-Match", "*"}}, body).status,
      201);
}

TEST_P(ServerFaults, TheAnswerToAWriteIsNeverTakenBackForLackOfMemory) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--max-inflight-bytes", "1048576", "--max-save-bytes", "1048576"});
  ASSERT_TRUE(server);
  const std::string alice = creds_.token(unique_player()), bob = creds_.token(unique_player());
  // Alice's upload holds every byte of the allowance (its 100 Continue says so), and sends
  // nothing yet.
  raw_connection holding(server->port());
  const std::string go_on = first_answer(holding, put_request(alice, "all", 1048576, waits_for_continue));
  ASSERT_EQ(go_on.rfind("HTTP/1.1 100 Continue", 0), 0u) << go_on;
  // Bob's empty save is written: its answer says so (before: 503 on the wire, 201 in the log).
  http_client c(server->port());
  const header_list me = {{"Authorization", "Bearer " + bob}};
  reply created = c.request("PUT", "/v1/slots/empty", with(me, {{"If-None-Match", "*"}}), "");
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(c.request("GET", "/v1/slots/empty", me).status, 200) << "small answers always go";
  EXPECT_EQ(c.request("GET", "/v1/slots", me).status, 200);
  EXPECT_TRUE(server->log_shows("\"status\":201")) << server->log();
  EXPECT_EQ(server->log().find("\"status\":503"), std::string::npos) << "the log says what the wire said";
}

TEST_P(ServerFaults, AnUploadRefusedFromItsHeadersIsClosedSoThatItsAnswerIsRead) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server();
  ASSERT_TRUE(server);
  // An expired or wrong token, and no Expect: 100-continue: the body comes anyway, and the
  // client goes on sending it after the answer (as an uploader does until it reads).
  raw_connection upload(server->port());
  EXPECT_TRUE(
      upload.send("PUT /v1/slots/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk1.bad.token\r\n"
                  "If-None-Match: *\r\nContent-Length: 4194304\r\n\r\n" +
                  std::string(256 * 1024, 'b')));
  // The answer has gone (it is logged once sent) and the connection is closing: more of the
  // body comes all the same. (A reset would show in the send, or in was_reset below.)
  EXPECT_TRUE(server->log_shows("\"status\":401")) << server->log();
  EXPECT_TRUE(upload.send(std::string(256 * 1024, 'b'))) << "the connection was reset under the upload";
  bool closed = false;
  const std::string answer = upload.receive(60s, closed);  // until the close
  EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer.substr(0, 200);
  EXPECT_TRUE(closed);
  EXPECT_FALSE(upload.was_reset()) << "closed cleanly, not reset with the answer unread";
}

TEST_P(ServerFaults, AFullServerClosesTheIdleKeptAliveConnectionForANewOne) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--max-connections", "4"});
  ASSERT_TRUE(server);
  const std::string ping = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  std::vector<std::unique_ptr<raw_connection>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(std::make_unique<raw_connection>(server->port()));
    ASSERT_EQ(first_answer(*idle.back(), ping).rfind("HTTP/1.1 200", 0), 0u);
  }
  // Four kept-alive connections wait with nothing to do: a fifth client is served all the same.
  const std::string fifth = exchange(server->port(), ping);
  EXPECT_EQ(fifth.rfind("HTTP/1.1 200", 0), 0u) << fifth;
  // The one idle longest made room: it is closed (on its own strand, maybe a moment later;
  // the bound is below the default --idle-timeout, 30 s, which would close them all).
  int closed = 0;
  eventually(
      [&] {
        closed = 0;
        for (auto& c : idle) closed += c->closed_within(10ms) ? 1 : 0;
        return closed >= 1;
      },
      20s);
  EXPECT_GE(closed, 1) << "the one idle longest made room";
}

TEST_P(ServerFaults, APageOfAnAllowedOriginMayCallFromABrowser) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--cors-origin", "https://game.example"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  const std::string preflight =
      "OPTIONS /v1/slots/hero HTTP/1.1\r\nHost: x\r\nOrigin: https://game.example\r\n"
      "Access-Control-Request-Method: PUT\r\n"
      "Access-Control-Request-Headers: authorization,if-match,savekit-meta,savekit-write-id\r\n\r\n";
  const std::string allowed = exchange(server->port(), preflight);
  EXPECT_EQ(allowed.rfind("HTTP/1.1 204", 0), 0u) << allowed;
  EXPECT_NE(allowed.find("Access-Control-Allow-Origin: https://game.example"), std::string::npos) << allowed;
  EXPECT_NE(allowed.find("Access-Control-Allow-Methods: GET, HEAD, PUT, DELETE"), std::string::npos);
  EXPECT_NE(allowed.find("Savekit-Write-Id"), std::string::npos);
  EXPECT_NE(allowed.find("Content-Type"), std::string::npos);
  http_client c(server->port());
  reply page =
      c.request("GET", "/v1/slots", {{"Authorization", "Bearer " + token}, {"Origin", "https://game.example"}});
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.header("access-control-allow-origin"), "https://game.example");
  EXPECT_NE(page.header("access-control-expose-headers").find("ETag"), std::string::npos);
  // Another origin gets nothing of it, and its preflight is not answered.
  reply other =
      c.request("GET", "/v1/slots", {{"Authorization", "Bearer " + token}, {"Origin", "https://evil.example"}});
  EXPECT_EQ(other.header("access-control-allow-origin"), "");
  std::string evil = preflight;
  evil.replace(evil.find("game"), 4, "evil");
  EXPECT_EQ(exchange(server->port(), evil).rfind("HTTP/1.1 401", 0), 0u);
}

TEST_P(ServerFaults, ADatabaseThatCannotWriteNowIs503WithRetryAfter) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "locks and settings of PostgreSQL";
  std::string problem;
  test_postgres* pg = shared_postgres(problem);
  ASSERT_TRUE(pg) << problem;
  auto server = start_server({"--db-timeout", "3", "--rate", "0"});
  ASSERT_TRUE(server);
  const std::string player = unique_player();
  const header_list me = {{"Authorization", "Bearer " + creds_.token(player)}};
  http_client c(server->port());
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", with(me, {{"If-None-Match", "*"}}), "a").status, 201);
  {
    // Another session holds the slot's row: the write waits for it until PostgreSQL's own
    // statement timeout, a moment to try again, not a failure of the server.
    PGconn* holder = PQconnectdb(pg->url().c_str());
    ASSERT_EQ(PQstatus(holder), CONNECTION_OK);
    PQclear(PQexec(holder, "BEGIN"));
    PQclear(PQexec(holder, ("SELECT * FROM slots WHERE player = '" + player + "' FOR UPDATE").c_str()));
    reply waited = c.request("PUT", "/v1/slots/s", with(me, {{"If-Match", "\"1\""}}), "b", 20s);
    EXPECT_EQ(waited.status, 503) << waited.body;
    EXPECT_EQ(waited.header("retry-after"), "1");
    PQclear(PQexec(holder, "ROLLBACK"));
    PQfinish(holder);
  }
  {
    // A database that answers but takes no writes (a standby, a failover): 503, and so is /healthz.
    struct read_only {
      test_postgres* pg;
      explicit read_only(test_postgres* p) : pg(p) {
        pg->query("postgres", "ALTER SYSTEM SET default_transaction_read_only = on");
        pg->query("postgres", "SELECT pg_reload_conf()");
      }
      ~read_only() {
        pg->query("postgres", "ALTER SYSTEM RESET default_transaction_read_only");
        pg->query("postgres", "SELECT pg_reload_conf()");
      }
    } refusing(pg);
    // The monitor asks every second: /healthz says when it has seen the setting.
    EXPECT_TRUE(eventually([&] { return http_client(server->port()).request("GET", "/healthz").status == 503; }));
    reply refused = c.request("PUT", "/v1/slots/s", with(me, {{"If-Match", "\"1\""}}), "b");
    EXPECT_EQ(refused.status, 503) << refused.body;
    EXPECT_EQ(refused.header("retry-after"), "1");
    EXPECT_EQ(http_client(server->port()).request("GET", "/healthz").status, 503);
  }
  EXPECT_TRUE(eventually([&] { return http_client(server->port()).request("GET", "/healthz").status == 200; }));
  EXPECT_EQ(c.request("PUT", "/v1/slots/s", with(me, {{"If-Match", "\"1\""}}), "b").status, 200);
}

TEST_P(ServerFaults, TrailersCannotCarryOrChangeTheHeadersTheContractReads) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server();
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  const std::string chunked_head =
      "PUT /v1/slots/t HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\nTransfer-Encoding: chunked\r\n";
  // The token only in the trailer: the headers had none.
  EXPECT_EQ(exchange(server->port(), chunked_head + "\r\n1\r\nZ\r\n0\r\nAuthorization: Bearer " + token + "\r\n\r\n")
                .rfind("HTTP/1.1 401", 0),
            0u);
  // A trailer beside the token: refused.
  EXPECT_EQ(exchange(server->port(),
                     chunked_head + "Authorization: Bearer " + token + "\r\n\r\n1\r\nQ\r\n0\r\nIf-Match: \"7\"\r\n\r\n")
                .rfind("HTTP/1.1 400", 0),
            0u);
  http_client c(server->port());
  EXPECT_EQ(c.request("GET", "/v1/slots/t", {{"Authorization", "Bearer " + token}}).status, 404);
  // A malformed chunk is answered too.
  EXPECT_EQ(exchange(server->port(), chunked_head + "Authorization: Bearer " + token + "\r\n\r\nzz\r\nQ\r\n0\r\n\r\n")
                .rfind("HTTP/1.1 400", 0),
            0u);
}

TEST_P(ServerFaults, HeadAnswersTheHeadersOfAGetAndStalledBodiesAre408) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--body-timeout", "1", "--max-connections", "3"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  http_client c(server->port());
  ASSERT_EQ(
      c.request("PUT", "/v1/slots/h", {{"Authorization", "Bearer " + token}, {"If-None-Match", "*"}}, "twelve bytes")
          .status,
      201);
  // HEAD then GET on one connection: the HEAD's answer has the length and no content.
  const std::string both =
      exchange(server->port(), "HEAD /v1/slots/h HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
                                   "\r\n\r\nGET /v1/slots/h HTTP/1.1\r\nHost: x\r\n"
                                   "Authorization: Bearer " +
                                   token + "\r\n\r\n");
  EXPECT_EQ(count_of(both, "HTTP/1.1 200"), 2u) << both;
  EXPECT_EQ(count_of(both, "Content-Length: 12"), 2u) << both;
  EXPECT_EQ(count_of(both, "twelve bytes"), 1u) << both;
  const std::string head_refused = exchange(server->port(), "HEAD /v1/slots/h HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(head_refused.rfind("HTTP/1.1 401", 0), 0u);
  EXPECT_EQ(head_refused.find("{\"error\""), std::string::npos) << "a HEAD answer has no content";
  // A body that stops: cut off at --body-timeout, and logged as a 408.
  // (Time that must pass: the bound is below the default --body-timeout, 60 s.)
  raw_connection slow(server->port());
  ASSERT_TRUE(slow.send(put_request(token, "slow", 100) + "abc"));
  EXPECT_TRUE(slow.closed_within(30s));
  EXPECT_TRUE(server->log_shows("\"status\":408")) << server->log();
  // Past --max-connections: 503, said, once the three are taken in (a bounded wait for that).
  raw_connection a(server->port()), b(server->port()), d(server->port());
  ASSERT_TRUE(a.connected() && b.connected() && d.connected());
  std::string crowded;
  eventually(
      [&] {
        crowded = exchange(server->port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        return crowded.rfind("HTTP/1.1 503", 0) == 0;
      },
      60s, 100ms);
  EXPECT_EQ(crowded.rfind("HTTP/1.1 503", 0), 0u) << crowded;
  EXPECT_NE(crowded.find("Retry-After: 1"), std::string::npos);
}

TEST_P(ServerFaults, TheSecretAndTheDatabaseAreTheServersAloneAndListenIsChecked) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "files on this machine";
  // Issue 40, 4: `secret -o` replaced an existing secret, and every token signed with it
  // stopped working. It never replaces a file now; a new one is its owner's alone.
  const auto existing = dir_.path() / "shared.secret";
  { std::ofstream(existing) << "old"; }
  std::string out;
  EXPECT_NE(run_command({server_binary(), "secret", "-o", existing.string()}, out), 0);
  std::ifstream kept(existing);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "old");
  const auto secret = dir_.path() / "new.secret";
  ASSERT_EQ(run_command({server_binary(), "secret", "-o", secret.string()}, out), 0);
  EXPECT_EQ(std::filesystem::status(secret).permissions() & std::filesystem::perms::all, std::filesystem::perms(0600));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "new.secret.new"));
  const std::string db = database();
  auto server = start_server({}, db);
  ASSERT_TRUE(server);
  const auto db_path = std::filesystem::path(db.substr(7));
  EXPECT_EQ(std::filesystem::status(db_path).permissions() & std::filesystem::perms::all, std::filesystem::perms(0600));
  EXPECT_NE(run_command({server_binary(), "serve", "--listen", "127.0.0.1:http", "--db", database(), "--secret-file",
                         creds_.secret_file.string()},
                        out),
            0);
  // Options that cannot work are refused before the database is opened (or created).
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--max-connections", "0"},
                                              {"--body-timeout", "0"},
                                              {"--min-rate", "0"},
                                              {"--max-inflight-bytes", "1000", "--max-save-bytes", "2000"},
                                              {"--db", "sqlite::memory:"},
                                              {"--db", "sqlite:"}}) {
    const std::string fresh = database();
    std::vector<std::string> argv = {server_binary(), "serve",         "--db",
                                     fresh,           "--secret-file", creds_.secret_file.string()};
    argv.insert(argv.end(), bad.begin(), bad.end());
    EXPECT_NE(run_command(argv, out), 0) << bad[0];
    EXPECT_FALSE(std::filesystem::exists(fresh.substr(7))) << bad[0] << ": the database was opened";
  }
}

// A PostgreSQL that stops answering (SIGSTOP: no reset, no error, nothing) makes requests
// 503 within --db-timeout and /healthz 503 at once, and a stop still stops.
TEST_P(ServerFaults, APostgresThatHangsIs503AndTheServerStillStops) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "stops the PostgreSQL server's processes";
  std::string problem;
  test_postgres* pg = shared_postgres(problem);
  ASSERT_TRUE(pg) << problem;
  // --db-timeout 10: far from what /healthz may take (it never waits for the database), so
  // that a loaded machine cannot blur the two. Each bound below is one a hang would pass,
  // with room for a loaded machine.
  auto server = start_server({"--db-timeout", "10", "--shutdown-timeout", "3", "--rate", "0"});
  ASSERT_TRUE(server);
  const header_list me = {{"Authorization", "Bearer " + creds_.token(unique_player())}};
  http_client c(server->port());
  ASSERT_EQ(c.request("GET", "/v1/slots", me).status, 200);
  struct frozen {
    test_postgres* pg;
    explicit frozen(test_postgres* p) : pg(p) { pg->signal_all(SIGSTOP); }
    ~frozen() { pg->signal_all(SIGCONT); }
  };
  {
    frozen stopped(pg);
    const auto asked = std::chrono::steady_clock::now();
    reply r = c.request("GET", "/v1/slots", me, {}, 60s);
    EXPECT_EQ(r.status, 503);
    EXPECT_LT(std::chrono::steady_clock::now() - asked, 40s) << "at --db-timeout (10 s), not the request's 60 s";
    // The monitor's question has waited over 2 s: /healthz says so, from what the monitor
    // knows, without waiting for the database.
    http_client h(server->port());
    std::chrono::steady_clock::duration took{};
    EXPECT_TRUE(eventually([&] {
      const auto probed = std::chrono::steady_clock::now();
      const bool down = h.request("GET", "/healthz", {}, {}, 20s).status == 503;
      took = std::chrono::steady_clock::now() - probed;
      return down;
    }));
    EXPECT_LT(took, 5s) << "at once, not at --db-timeout (10 s)";
    ::kill(server->pid(), SIGTERM);
    EXPECT_GE(server->wait(60s), 0) << "it stopped";
  }
  // Resumed, a new server works on the same database.
  auto again = start_server();
  ASSERT_TRUE(again);
  EXPECT_EQ(http_client(again->port()).request("GET", "/v1/slots", me).status, 200);
}

// Writers that each keep their own slot and remember what the server acknowledged.
struct acknowledged {
  struct write {
    std::string slot;
    std::int64_t version;
    std::string body;
  };
  std::mutex mutex;
  std::vector<write> all;
  std::atomic<int> writes{0}, unavailable{0}, failures{0};
  // How many slots have an acknowledged write: how many writers are under way.
  std::size_t slots_written() {
    std::lock_guard lock(mutex);
    std::set<std::string> slots;
    for (const write& w : all) slots.insert(w.slot);
    return slots.size();
  }
};

// Writes version after version of one slot through the given ports (the next one on a
// connection failure) until stop, a write every 5 ms at most and 950 in all (the servers
// keep 1,000 versions, so every acknowledged one can be checked); a 503 or a lost
// connection is tried again with the same write id, every 20 ms until the deadline (an
// outage on a loaded machine may last seconds: a write given up would leave the next one
// a version behind).
void write_until(const std::vector<int>& ports, const std::string& token, const std::string& slot,
                 std::atomic<bool>& stop, acknowledged& acks, std::chrono::steady_clock::time_point deadline) {
  std::size_t at = 0;
  auto client = std::make_unique<http_client>(ports[0]);
  std::int64_t version = 0;
  for (int n = 0; !stop && std::chrono::steady_clock::now() < deadline && n < 950; ++n) {
    std::this_thread::sleep_for(5ms);
    const std::string body =
        slot + " write " + std::to_string(n) + std::string(static_cast<std::size_t>(n % 7) * 100, '.');
    const std::string write_id = slot + "-w" + std::to_string(n);
    for (int attempt = 0; attempt < 6000 && !stop && std::chrono::steady_clock::now() < deadline; ++attempt) {
      header_list headers = {{"Authorization", "Bearer " + token}, {"Savekit-Write-Id", write_id}};
      if (version == 0)
        headers.push_back({"If-None-Match", "*"});
      else
        headers.push_back({"If-Match", "\"" + std::to_string(version) + "\""});
      reply r = client->request("PUT", "/v1/slots/" + slot, headers, body, 30s);
      if (r.status == 200 || r.status == 201) {
        version = std::stoll(r.header("etag").substr(1));
        std::lock_guard lock(acks.mutex);
        acks.all.push_back({slot, version, body});
        ++acks.writes;
        break;
      }
      if (r.status == 503) {
        ++acks.unavailable;
        EXPECT_FALSE(r.header("retry-after").empty());
      } else if (r.status == 0) {  // the server is gone: the next one
        at = (at + 1) % ports.size();
        client = std::make_unique<http_client>(ports[at]);
      } else {
        ++acks.failures;
        ADD_FAILURE() << "unexpected answer " << r.status << ": " << r.body;
        return;
      }
      std::this_thread::sleep_for(20ms);
    }
  }
}

// Every acknowledged write is there, at its version, byte for byte (the servers keep 1,000
// versions), and no slot is older than its last acknowledged write.
void expect_every_acknowledged_write(int port, const std::string& token, acknowledged& acks) {
  http_client c(port);
  const header_list me = {{"Authorization", "Bearer " + token}};
  std::map<std::string, std::int64_t> newest;
  int missing = 0;
  for (const auto& w : acks.all) {
    reply kept = c.request("GET", "/v1/slots/" + w.slot + "/versions/" + std::to_string(w.version), me);
    if (kept.status != 200 || kept.body != w.body) {
      if (++missing <= 3)
        ADD_FAILURE() << w.slot << " version " << w.version << ": " << kept.status << " " << kept.body
                      << "\nkept: " << c.request("GET", "/v1/slots/" + w.slot + "/versions", me).body.substr(0, 400);
    }
    newest[w.slot] = std::max(newest[w.slot], w.version);
  }
  EXPECT_EQ(missing, 0) << "of " << acks.all.size() << " acknowledged writes";
  for (const auto& [slot, version] : newest) {
    reply now = c.request("GET", "/v1/slots/" + slot, me);
    ASSERT_EQ(now.status, 200);
    EXPECT_GE(std::stoll(now.header("etag").substr(1)), version);
  }
}

TEST_P(ServerFaults, AServerKilledMidWriteLosesNothingItAcknowledged) {
  const std::string db = database();
  for (int round = 0; round < 3; ++round) {
    auto server = start_server({"--keep-versions", "1000", "--rate", "0"}, db);
    ASSERT_TRUE(server);
    const std::string token = creds_.token(unique_player());
    acknowledged acks;
    std::atomic<bool> stop{false};
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    std::vector<std::thread> writers;
    for (int w = 0; w < 4; ++w)
      writers.emplace_back(
          [&, w] { write_until({server->port()}, token, "slot" + std::to_string(w), stop, acks, deadline); });
    // Killed with every writer under way, after more writes each round (counted, not timed:
    // a loaded machine may take seconds for the first).
    const int writes_before_kill = 40 + 40 * round;
    EXPECT_TRUE(eventually([&] { return acks.slots_written() == 4 && acks.writes >= writes_before_kill; }));
    server->kill9();
    stop = true;
    for (auto& t : writers) t.join();
    EXPECT_GT(acks.writes.load(), 0);
    auto again = start_server({"--keep-versions", "1000", "--rate", "0"}, db);
    ASSERT_TRUE(again);
    expect_every_acknowledged_write(again->port(), token, acks);
  }
}

TEST_P(ServerFaults, SixtyFourClientsRacingOnOneSlotAcrossThreeServersMakeOneChain) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "many server processes share one PostgreSQL";
  std::vector<std::unique_ptr<server_process>> servers;
  for (int i = 0; i < 3; ++i) {
    servers.push_back(start_server({"--keep-versions", "1000", "--rate", "0", "--workers", "8", "--db-pool", "8"}));
    ASSERT_TRUE(servers.back());
  }
  const std::string player = unique_player("racer");
  const std::string token = creds_.token(player);
  const header_list me = {{"Authorization", "Bearer " + token}};
  {
    http_client c(servers[0]->port());
    ASSERT_EQ(c.request("PUT", "/v1/slots/contested", with(me, {{"If-None-Match", "*"}}), "v1 by nobody").status, 201);
  }
  struct win {
    std::int64_t version, parent;
    std::string body;
  };
  std::mutex mutex;
  std::vector<win> wins;
  std::atomic<int> lost{0};
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  std::vector<std::thread> clients;
  for (int i = 0; i < 64; ++i)
    clients.emplace_back([&, i] {
      http_client c(servers[static_cast<std::size_t>(i) % 3]->port());
      for (int attempt = 0; attempt < 6 && std::chrono::steady_clock::now() < deadline; ++attempt) {
        reply now = c.request("GET", "/v1/slots/contested", me);
        if (now.status != 200) continue;
        const std::int64_t parent = std::stoll(now.header("etag").substr(1));
        const std::string body =
            "client " + std::to_string(i) + " attempt " + std::to_string(attempt) + " after " + std::to_string(parent);
        reply put = c.request("PUT", "/v1/slots/contested", with(me, {{"If-Match", now.header("etag")}}), body);
        if (put.status == 200) {
          std::lock_guard lock(mutex);
          wins.push_back({std::stoll(put.header("etag").substr(1)), parent, body});
        } else if (put.status == 412) {
          ++lost;
        } else {
          ADD_FAILURE() << "answer " << put.status << ": " << put.body;
        }
      }
    });
  for (auto& t : clients) t.join();
  ASSERT_FALSE(wins.empty());
  EXPECT_GT(lost.load(), 0) << "the clients did race";
  // One chain: every acknowledged write is the successor of the version its writer read,
  // no two writes have one version, and the history holds each one's bytes.
  std::set<std::int64_t> versions;
  for (const win& w : wins) {
    EXPECT_EQ(w.version, w.parent + 1) << w.body;
    EXPECT_TRUE(versions.insert(w.version).second) << "version " << w.version << " acknowledged twice";
  }
  http_client c(servers[1]->port());
  reply head = c.request("GET", "/v1/slots/contested", me);
  EXPECT_EQ(std::stoll(head.header("etag").substr(1)), static_cast<std::int64_t>(wins.size()) + 1);
  for (const win& w : wins)
    EXPECT_EQ(c.request("GET", "/v1/slots/contested/versions/" + std::to_string(w.version), me).body, w.body);
}

TEST_P(ServerFaults, AServerKilledUnderLoadLosesNothingAcknowledgedAndClientsGoOnElsewhere) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "many server processes share one PostgreSQL";
  std::vector<std::unique_ptr<server_process>> servers;
  std::vector<int> ports;
  for (int i = 0; i < 3; ++i) {
    servers.push_back(start_server({"--keep-versions", "1000", "--rate", "0"}));
    ASSERT_TRUE(servers.back());
    ports.push_back(servers.back()->port());
  }
  const std::string token = creds_.token(unique_player());
  acknowledged acks;
  std::atomic<bool> stop{false};
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  std::vector<std::thread> writers;
  for (int w = 0; w < 12; ++w)
    writers.emplace_back([&, w] {
      std::vector<int> order = ports;
      std::rotate(order.begin(), order.begin() + w % 3, order.end());
      write_until(order, token, "slot" + std::to_string(w), stop, acks, deadline);
    });
  // Killed once every writer is under way (a third of them on it), then the writes go on.
  EXPECT_TRUE(eventually([&] { return acks.slots_written() == 12 && acks.writes >= 100; }));
  const int before = acks.writes.load();
  servers[0]->kill9();
  EXPECT_TRUE(eventually([&] { return acks.writes >= before + 100; })) << "the clients went on on the other servers";
  stop = true;
  for (auto& t : writers) t.join();
  EXPECT_GT(acks.writes.load(), before) << "the clients went on on the other servers";
  expect_every_acknowledged_write(ports[1], token, acks);
}

TEST_P(ServerFaults, PostgresRestartingUnderLoadIs503ThenRecoveryAndNothingAcknowledgedIsLost) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "restarts the PostgreSQL server";
  std::string problem;
  test_postgres* pg = shared_postgres(problem);
  ASSERT_TRUE(pg) << problem;
  auto server = start_server({"--keep-versions", "1000", "--rate", "0"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  acknowledged acks;
  std::atomic<bool> stop{false};
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w)
    writers.emplace_back(
        [&, w] { write_until({server->port()}, token, "slot" + std::to_string(w), stop, acks, deadline); });
  // Each step waits for what it needs to have happened (bounded), not for a time.
  EXPECT_TRUE(eventually([&] { return acks.slots_written() == 8; })) << "every writer under way";
  ASSERT_TRUE(pg->stop_server(problem, "fast")) << problem;
  http_client probe(server->port());
  reply down;
  EXPECT_TRUE(eventually([&] { return (down = probe.request("GET", "/healthz")).status == 503; }))
      << "the monitor (every second) sees the outage";
  EXPECT_EQ(down.header("retry-after"), "1");
  EXPECT_TRUE(eventually([&] { return acks.unavailable > 0; })) << "writes during the outage were answered 503";
  ASSERT_TRUE(pg->start_server(problem)) << problem;
  const int at_restart = acks.writes.load();
  EXPECT_TRUE(eventually([&] { return acks.writes >= at_restart + 50; })) << "and went on after it";
  stop = true;
  for (auto& t : writers) t.join();
  EXPECT_GT(acks.unavailable.load(), 0) << "writes during the outage were answered 503";
  EXPECT_GT(acks.writes.load(), at_restart) << "and went on after it";
  EXPECT_TRUE(eventually([&] { return probe.request("GET", "/healthz").status == 200; }));
  expect_every_acknowledged_write(server->port(), token, acks);
}

// Expect: 100-continue: what the headers and the database decide (the precondition, the
// write id) is answered before 100 Continue, so that a waiting client uploads nothing in
// vain; before, the 100 went first and the body was uploaded for a 412 or a 409.
TEST_P(ServerFaults, AWriteWaitingFor100ContinueIsAnsweredBeforeItsBodyWhenTheDatabaseDecides) {
  auto server = start_server({"--rate", "0"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  const header_list me = {{"Authorization", "Bearer " + token}};
  http_client c(server->port());
  ASSERT_EQ(
      c.request("PUT", "/v1/slots/s", with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-1"}}), "first").status,
      201);
  ASSERT_EQ(
      c.request("PUT", "/v1/slots/s", with(me, {{"If-Match", "\"1\""}, {"Savekit-Write-Id", "w-2"}}), "second!").status,
      200);
  auto waiting = [&](const std::string& headers, std::size_t length) {
    return "PUT /v1/slots/s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
           "\r\nExpect: 100-continue\r\nContent-Length: " + std::to_string(length) + "\r\n" + headers + "\r\n";
  };
  struct decided {
    std::string headers;
    std::size_t length;
    std::string status;
  };
  for (const decided& d : std::vector<decided>{
           {"If-Match: \"1\"\r\n", 100000, "HTTP/1.1 412"},                           // version 2 now
           {"If-None-Match: *\r\n", 100000, "HTTP/1.1 412"},                          // it exists
           {"If-Match: \"2\"\r\nSavekit-Write-Id: w-1\r\n", 100000, "HTTP/1.1 409"},  // w-1 made another write
           {"If-Match: \"1\"\r\nSavekit-Write-Id: w-2\r\n", 100000, "HTTP/1.1 409"},  // of 7 bytes
           {"If-None-Match: *\r\nSavekit-Write-Id: w-2\r\n", 7, "HTTP/1.1 409"},      // not a creation
       }) {
    raw_connection raw(server->port());
    const std::string answer = first_answer(raw, waiting(d.headers, d.length));
    EXPECT_EQ(answer.rfind(d.status, 0), 0u) << d.headers << "-> " << answer;
  }
  // w-2 again, as it was (size, metadata, precondition): only its bytes can tell a repeat
  // from another write, so they are asked for; then it is answered as the first time.
  {
    raw_connection raw(server->port());
    const std::string answer = first_answer(raw, waiting("If-Match: \"1\"\r\nSavekit-Write-Id: w-2\r\n", 7));
    ASSERT_EQ(answer.rfind("HTTP/1.1 100 Continue", 0), 0u) << answer;
    const std::string repeated = first_answer(raw, "second!");
    EXPECT_EQ(repeated.rfind("HTTP/1.1 200", 0), 0u) << repeated;
    EXPECT_NE(repeated.find("ETag: \"2\""), std::string::npos) << repeated;
  }
  // A write whose precondition holds: 100 Continue, then the write.
  raw_connection raw(server->port());
  const std::string go_on = first_answer(raw, waiting("If-Match: \"2\"\r\n", 5));
  ASSERT_EQ(go_on.rfind("HTTP/1.1 100 Continue", 0), 0u) << go_on;
  const std::string written = first_answer(raw, "third");
  EXPECT_EQ(written.rfind("HTTP/1.1 200", 0), 0u) << written;
  EXPECT_NE(written.find("ETag: \"3\""), std::string::npos) << written;
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).body, "third");
}

TEST_P(ServerFaults, AnHttp10RequestIsNotSentAnHttp11Interim100Continue) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server();
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  // RFC 9110 §10.1.1: a server ignores a 100-continue expectation in an HTTP/1.0 request.
  const std::string answer =
      exchange(server->port(), "PUT /v1/slots/old HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer " + token +
                                   "\r\nIf-None-Match: *\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_EQ(answer.rfind("HTTP/1.0 201", 0), 0u) << answer;
  EXPECT_EQ(answer.find("100 Continue"), std::string::npos) << answer;
}

// RFC 9110 §8.6: no Content-Length in a 204 or a 304 (before: Content-Length: 0).
TEST_P(ServerFaults, NoContentAndNotModifiedAnswersGiveNoLength) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--cors-origin", "https://game.example"});
  ASSERT_TRUE(server);
  const std::string token = creds_.token(unique_player());
  const std::string auth = "Authorization: Bearer " + token + "\r\n";
  http_client c(server->port());
  ASSERT_EQ(c.request("PUT", "/v1/slots/s", {{"Authorization", "Bearer " + token}, {"If-None-Match", "*"}}, "x").status,
            201);
  const std::vector<std::pair<std::string, std::string>> bodiless = {
      {"GET /v1/slots/s HTTP/1.1\r\nHost: x\r\n" + auth + "If-None-Match: \"1\"\r\n\r\n", "HTTP/1.1 304"},
      {"OPTIONS /v1/slots/s HTTP/1.1\r\nHost: x\r\nOrigin: https://game.example\r\n"
       "Access-Control-Request-Method: PUT\r\n\r\n",
       "HTTP/1.1 204"},
      {"DELETE /v1/slots/s HTTP/1.1\r\nHost: x\r\n" + auth + "If-Match: \"1\"\r\n\r\n", "HTTP/1.1 204"},
  };
  for (const auto& [request, status] : bodiless) {
    const std::string answer = exchange(server->port(), request);
    EXPECT_EQ(answer.rfind(status, 0), 0u) << answer;
    EXPECT_EQ(answer.find("Content-Length"), std::string::npos) << answer;
    EXPECT_EQ(answer.find("Transfer-Encoding"), std::string::npos) << answer;
  }
}

// Answers made before a request is parsed — 400, 431 — or without reading it (the 503 past
// --max-connections) carry Cache-Control: no-store and CORS as every other answer does: a
// page can read them. Before, none had CORS and the 503 had no Cache-Control.
TEST_P(ServerFaults, AnswersMadeBeforeARequestIsParsedCarryNoStoreAndCors) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  auto server = start_server({"--cors-origin", "https://game.example", "--max-header-bytes", "4096",
                              "--max-connections", "2", "--header-timeout", "60"});
  ASSERT_TRUE(server);
  const std::string origin = "Origin: https://game.example\r\n";
  for (const auto& [request, status] : std::vector<std::pair<std::string, std::string>>{
           {"GET /healthz HTTP/1.1\r\nHost: x\r\n" + origin + "X-Big: " + std::string(8000, 'h') + "\r\n\r\n",
            "HTTP/1.1 431"},
           {"GET /healthz HTTP/1.1\r\nHost: x\r\n" + origin + "Bad Header\r\n\r\n", "HTTP/1.1 400"},
           {"GET /healthz HTTP/1.1\r\nHost: x\r\n" + origin + "X-Folded: a\r\n b\r\n\r\n", "HTTP/1.1 400"},
       }) {
    const std::string answer = exchange(server->port(), request);
    EXPECT_EQ(answer.rfind(status, 0), 0u) << answer;
    EXPECT_NE(answer.find("Cache-Control: no-store"), std::string::npos) << answer;
    EXPECT_NE(answer.find("Access-Control-Allow-Origin: https://game.example"), std::string::npos) << answer;
  }
  // Two uploads under way fill the server (connections that sent nothing, or half their
  // headers, are idle: a newcomer would evict one): a third is told to come back.
  const std::string token = creds_.token(unique_player());
  raw_connection a(server->port()), b(server->port());
  ASSERT_TRUE(a.connected() && b.connected());
  for (raw_connection* uploading : {&a, &b}) {
    const std::string go_on = first_answer(*uploading, put_request(token, "crowd", 1000, waits_for_continue));
    ASSERT_EQ(go_on.rfind("HTTP/1.1 100 Continue", 0), 0u) << go_on;
    ASSERT_TRUE(uploading->send(std::string(500, 'u')));
  }
  std::string crowded;
  eventually(
      [&] {
        crowded = exchange(server->port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n" + origin + "\r\n");
        return crowded.rfind("HTTP/1.1 503", 0) == 0;
      },
      60s, 100ms);
  ASSERT_EQ(crowded.rfind("HTTP/1.1 503", 0), 0u) << crowded;
  EXPECT_NE(crowded.find("Cache-Control: no-store"), std::string::npos) << crowded;
  EXPECT_NE(crowded.find("Access-Control-Allow-Origin: *"), std::string::npos) << crowded;
  EXPECT_NE(crowded.find("Retry-After: 1"), std::string::npos) << crowded;
}

// A connection that sends nothing (or half its headers) has no request in flight: a stop
// closes it at once. Before, each held every SIGTERM for --header-timeout.
TEST_P(ServerFaults, ASilentConnectionDoesNotHoldUpAStop) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the HTTP layer";
  // Timeouts of 300 s: every bound below is far from them, and far from what a loaded
  // machine takes.
  auto server = start_server({"--header-timeout", "300", "--shutdown-timeout", "300"});
  ASSERT_TRUE(server);
  raw_connection silent(server->port()), half(server->port());
  ASSERT_TRUE(silent.connected() && half.connected());
  ASSERT_TRUE(half.send("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
  // Both taken in: the server counts them (and the connection asking).
  http_client c(server->port());
  const bool counted = eventually(
      [&] { return c.request("GET", "/metrics").body.find("savekit_connections_open 3\n") != std::string::npos; }, 60s,
      100ms);
  ASSERT_TRUE(counted) << c.request("GET", "/metrics").body;
  c.close();
  ::kill(server->pid(), SIGTERM);
  EXPECT_TRUE(silent.closed_within(60s)) << "a connection that sent nothing is closed by the stop";
  EXPECT_TRUE(half.closed_within(60s)) << "so is one that sent half its headers";
  EXPECT_EQ(server->wait(120s), 0) << "not --header-timeout (300 s) later\n" << server->log();
}

// A launcher or cron may start the server with standard output and error closed: the files
// it opens next would take descriptors 1 and 2 (with PostgreSQL and standard error closed,
// a database connection became descriptor 2 and took every log line: 503s, and
// "invalid frontend message type 123" in PostgreSQL's log).
TEST_P(ServerFaults, StartedWithStandardOutputOrErrorClosedItServesAndKeepsItsDatabaseIntact) {
  const std::string db = database();
  const header_list me = {{"Authorization", "Bearer " + creds_.token(unique_player())}};
  const std::vector<std::vector<int>> closings = {{1, 2}, {2}};
  auto slot = [](std::size_t round, int i) { return "/v1/slots/r" + std::to_string(round) + "-" + std::to_string(i); };
  for (std::size_t round = 0; round < closings.size(); ++round) {
    auto server = start_server_with({.closed_descriptors = closings[round]}, {"--rate", "0"}, db);
    ASSERT_TRUE(server);
    http_client c(server->port());
    for (int i = 0; i < 10; ++i) {
      EXPECT_EQ(c.request("PUT", slot(round, i), with(me, {{"If-None-Match", "*"}}), "save " + slot(round, i)).status,
                201)
          << "round " << round << ", write " << i;
      EXPECT_EQ(c.request("GET", slot(round, i), me).body, "save " + slot(round, i));
    }
    EXPECT_EQ(server->stop(), 0);
  }
  // A server started as usual reads every save back.
  auto again = start_server({}, db);
  ASSERT_TRUE(again);
  http_client c(again->port());
  for (std::size_t round = 0; round < closings.size(); ++round)
    for (int i = 0; i < 10; ++i) EXPECT_EQ(c.request("GET", slot(round, i), me).body, "save " + slot(round, i));
}

// The process reading the server's standard error exits (a pipe to tee, a log shipper
// restarting): the next log line met a pipe with no reader, and SIGPIPE killed the server.
TEST_P(ServerFaults, ALogReaderThatExitsDoesNotStopTheServer) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "one backend is enough: this is the process";
  // head reads the two lines of the start (database, listening), then exits.
  auto server = start_server_with({.stderr_reader = {"/usr/bin/head", "-n", "2"}});
  ASSERT_TRUE(server);
  ASSERT_TRUE(server->reader_exited(30s)) << "head exits after the start's lines";
  http_client c(server->port());
  const header_list me = {{"Authorization", "Bearer " + creds_.token(unique_player())}};
  for (int i = 0; i < 20; ++i)  // each request logs a line into the pipe
    ASSERT_EQ(c.request("GET", "/healthz").status, 200) << "request " << i;
  EXPECT_EQ(c.request("PUT", "/v1/slots/s", with(me, {{"If-None-Match", "*"}}), "x").status, 201);
  EXPECT_EQ(c.request("GET", "/v1/slots/s", me).body, "x");
  EXPECT_EQ(server->stop(), 0) << "stopped by the SIGTERM, not by a SIGPIPE (141)";
}

// SQLite: a full disk made /healthz 503 until some write succeeded, and a load balancer that
// follows /healthz sends none. The check now tries a small write itself while writes fail.
// The disk is full for a SQLite server: it may write no byte past what its write-ahead log
// holds now (RLIMIT_FSIZE: such a write fails, EFBIG, as one fails with ENOSPC on a full
// disk). Returns the limit to put back.
rlimit fill_the_disk(pid_t pid, const std::string& db) {
  rlimit unlimited{}, full{};
  EXPECT_EQ(::prlimit(pid, RLIMIT_FSIZE, nullptr, &unlimited), 0);
  full.rlim_cur = static_cast<rlim_t>(std::filesystem::file_size(db.substr(7) + "-wal"));
  full.rlim_max = unlimited.rlim_max;
  EXPECT_EQ(::prlimit(pid, RLIMIT_FSIZE, &full, nullptr), 0);
  return unlimited;
}

TEST_P(ServerFaults, HealthComesBackByItselfOnceAFullDiskHasRoomAgain) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "SQLite's files on this machine";
  const std::string db = database();
  // The log goes through cat: the file size limit below is the server's, not the log's.
  auto server = start_server_with({.stderr_reader = {"/bin/cat"}}, {"--rate", "0"}, db);
  ASSERT_TRUE(server);
  http_client c(server->port());
  const header_list me = {{"Authorization", "Bearer " + creds_.token(unique_player())}};
  ASSERT_EQ(c.request("PUT", "/v1/slots/before", with(me, {{"If-None-Match", "*"}}), "kept").status, 201);
  const rlimit unlimited = fill_the_disk(server->pid(), db);
  const std::string save(65536, 'd');
  reply refused = c.request("PUT", "/v1/slots/during", with(me, {{"If-None-Match", "*"}}), save);
  EXPECT_EQ(refused.status, 503) << refused.body;
  http_client probe(server->port());
  auto health_becomes = [&](int status) {  // the monitor asks every second: a bounded wait for it
    return eventually([&] { return probe.request("GET", "/healthz").status == status; }, 120s, 100ms);
  };
  EXPECT_TRUE(health_becomes(503)) << "a full disk shows in /healthz";
  // Room again, and no write comes.
  ASSERT_EQ(::prlimit(server->pid(), RLIMIT_FSIZE, &unlimited, nullptr), 0);
  EXPECT_TRUE(health_becomes(200)) << "health comes back without a write from outside";
  EXPECT_EQ(c.request("PUT", "/v1/slots/during", with(me, {{"If-None-Match", "*"}}), save).status, 201);
  EXPECT_EQ(c.request("GET", "/v1/slots/before", me).body, "kept");
  EXPECT_EQ(c.request("GET", "/v1/slots/during", me).body, save);
}

// A write that changes nothing (a failed precondition, a write id sent again) needs no disk:
// it says nothing of whether writes go through again, and must not make a full disk's server
// look healthy to a load balancer.
TEST_P(ServerFaults, AWriteThatChangesNothingWhileTheDiskIsFullLeavesHealthAt503) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "SQLite's files on this machine";
  const std::string db = database();
  auto server = start_server_with({.stderr_reader = {"/bin/cat"}}, {"--rate", "0"}, db);
  ASSERT_TRUE(server);
  http_client c(server->port());
  const header_list me = {{"Authorization", "Bearer " + creds_.token(unique_player())}};
  const header_list first = with(me, {{"If-None-Match", "*"}, {"Savekit-Write-Id", "w-first"}});
  ASSERT_EQ(c.request("PUT", "/v1/slots/before", first, "kept").status, 201);
  const rlimit unlimited = fill_the_disk(server->pid(), db);
  EXPECT_EQ(c.request("PUT", "/v1/slots/during", with(me, {{"If-None-Match", "*"}}), std::string(65536, 'd')).status,
            503);
  http_client probe(server->port());
  ASSERT_TRUE(eventually([&] { return probe.request("GET", "/healthz").status == 503; }, 120s, 100ms));
  // Nothing to write: a precondition that fails, and the first write's id sent again.
  EXPECT_EQ(c.request("PUT", "/v1/slots/before", with(me, {{"If-None-Match", "*"}}), "other").status, 412);
  EXPECT_EQ(c.request("PUT", "/v1/slots/before", first, "kept").status, 201);
  // The monitor asks every second; for a few of its rounds, health never turns 200.
  EXPECT_FALSE(eventually([&] { return probe.request("GET", "/healthz").status == 200; }, 5s, 100ms))
      << "a write that wrote nothing made a full disk look healthy";
  ASSERT_EQ(::prlimit(server->pid(), RLIMIT_FSIZE, &unlimited, nullptr), 0);
  EXPECT_TRUE(eventually([&] { return probe.request("GET", "/healthz").status == 200; }, 120s, 100ms));
}

INSTANTIATE_TEST_SUITE_P(Backends, ServerFaults, ::testing::ValuesIn(backends()), backend_name);

}  // namespace
