#include "http_server.hpp"

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
//
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "http_framing.hpp"
#include "memory_allowances.hpp"

namespace savekit::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using strand_type = asio::strand<asio::io_context::executor_type>;
constexpr auto use_awaitable = asio::use_awaitable;
using namespace framing;

// What a stop needs of each open connection: to close it if it is waiting for a request;
// and what a full server needs: to close the kept-alive connection idle the longest.
struct connection_handle {
  explicit connection_handle(strand_type s) : strand(std::move(s)) {}
  strand_type strand;
  beast::tcp_stream* stream = nullptr;  // set and used on the strand only
  bool idle = true;                     // on the strand only
  // Kept alive after an answer and waiting for the next request (read by the acceptor).
  std::atomic<bool> kept_idle{false};
  std::atomic<std::int64_t> idle_since{0};
  std::atomic<bool> evicting{false};
};

struct server_state {
  server_state(const http_options& o, api& a, metrics& m, logger& l)
      : options(o), handler(a), counters(m), log(l), workers(std::max<std::uint32_t>(1, o.worker_threads)) {}
  const http_options& options;
  api& handler;
  metrics& counters;
  logger& log;
  asio::io_context io;
  asio::thread_pool workers;
  std::unique_ptr<asio::ssl::context> tls;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint32_t> sessions{0};
  body_budget budget{options.max_inflight_bytes};
  player_shares shares{options.max_player_inflight_bytes};
  std::mutex mutex;
  std::set<std::shared_ptr<connection_handle>> open;
  std::string busy_answer;  // to a connection past max_connections (busy_answer_of)
};

std::string_view method_label(http::verb v) {
  switch (v) {
    case http::verb::get:
      return "GET";
    case http::verb::put:
      return "PUT";
    case http::verb::delete_:
      return "DELETE";
    case http::verb::post:
      return "POST";
    case http::verb::head:
      return "HEAD";
    default:
      return "other";
  }
}

// An answer made here, before the API sees the request (malformed, too large, ...): the
// connection closes after it.
api_response early_error(int status, const char* code, std::string message) {
  return error_response(status, code, std::move(message));
}

template <class Fields>
std::optional<std::string> header_of(const Fields& fields, std::string_view name) {
  auto it = fields.find(beast::string_view{name.data(), name.size()});
  if (it == fields.end()) return std::nullopt;
  return std::string{it->value()};
}

// The deadline of a body's or an answer's next read or write, begun at `begun` with `moved`
// bytes moved so far: no pause longer than body_timeout, and never behind --min-rate once
// body_timeout of grace has passed (a reader of one byte a minute is cut, not kept).
std::chrono::steady_clock::time_point progress_deadline(const server_state& s,
                                                        std::chrono::steady_clock::time_point begun,
                                                        std::uint64_t moved) {
  const auto earned = std::chrono::microseconds(moved * 1'000'000 / std::max<std::uint64_t>(1, s.options.min_rate));
  return std::min(std::chrono::steady_clock::now() + s.options.body_timeout, begun + s.options.body_timeout + earned);
}

// Answers with bodies larger than this are counted against the budgets while they are
// sent; smaller ones (every JSON answer, a write's above all) always go.
constexpr std::size_t small_answer_bytes = 64 * 1024;

// What every answer to one request carries besides its own headers.
struct request_context {
  std::string_view method = "other";
  std::string remote;
  std::chrono::steady_clock::time_point start;
  unsigned version = 11;
  bool head = false;
  bool reads = false;  // GET or HEAD: nothing was changed, so the answer may still become a 503
  std::vector<std::pair<std::string, std::string>> cors;
};

api_response too_many_bodies() {
  api_response busy = early_error(503, "unavailable", "the server holds too many bodies in memory now: try again");
  busy.headers.push_back({"Retry-After", "1"});
  return busy;
}
api_response player_busy() {
  api_response busy = early_error(429, "rate_limited", "this player's requests hold too many bodies now: try again");
  busy.headers.push_back({"Retry-After", "1"});
  return busy;
}

// The message of an answer: status, headers and (but for HEAD) content. Throws if Beast
// refuses a header (a value over 64 KiB); the content is taken last, once nothing can.
template <class Body>
void make_message(http::response<Body>& res, api_response& answer, const request_context& at, bool keep_alive) {
  res = http::response<Body>{static_cast<http::status>(answer.status), at.version};
  res.set(http::field::server, "savekit-server");
  // Saves change under the same URL: no cache on the way may keep an answer.
  res.set(http::field::cache_control, "no-store");
  if (!answer.content_type.empty()) res.set(http::field::content_type, answer.content_type);
  for (const auto& [name, value] : answer.headers) res.set(beast::string_view{name.data(), name.size()}, value);
  for (const auto& [name, value] : at.cors) res.set(beast::string_view{name.data(), name.size()}, value);
  res.keep_alive(keep_alive);
  // 204 and 304 have no content and give no length, not even 0 (RFC 9110 §8.6).
  if (answer.status == 204 || answer.status == 304) return;
  if constexpr (std::is_same_v<Body, http::empty_body>) {
    res.content_length(answer.body.size());  // HEAD: the length a GET would have
  } else {
    res.body() = std::move(answer.body);
    res.prepare_payload();
  }
}

// make_message, and when that fails a 500 in its place: an answer that cannot be made (its
// metadata too large for a header, say) is still answered and logged, not a closed
// connection with nothing said.
template <class Body>
void make_message_or_500(http::response<Body>& res, api_response& answer, const request_context& at, bool keep_alive) {
  try {
    make_message(res, answer, at, keep_alive);
  } catch (const std::exception& e) {
    api_response failed = early_error(500, "internal", "the server could not make this answer");
    failed.error = std::string{"internal: the answer could not be made: "} + e.what();
    failed.route = answer.route;
    failed.player = std::move(answer.player);
    failed.slot = std::move(answer.slot);
    answer = std::move(failed);
    make_message(res, answer, at, keep_alive);
  }
}

// Sends an answer; false if that failed. A large read's bytes are counted against the
// budgets while they are sent (a slow reader of large saves holds them): over them, a 503
// or 429 goes instead — never instead of a write's answer, which says what was done.
template <class Stream>
asio::awaitable<bool> send(Stream& stream, server_state& s, api_response& answer, bool keep_alive,
                           const request_context& at, std::size_t& body_bytes) {
  body_budget::lease held;
  std::optional<player_shares::lease> share;
  if (at.reads && !at.head && answer.body.size() > small_answer_bytes) {
    share = s.shares.take(answer.player.value_or(""), answer.body.size());
    if (share) held = s.budget.take(answer.body.size());
    if (!share || !held) answer = !share ? player_busy() : too_many_bodies();
  }
  error_code ec;
  auto& lowest = beast::get_lowest_layer(stream);
  if (at.head) {  // the headers a GET would have, no content
    http::response<http::empty_body> res;
    make_message_or_500(res, answer, at, keep_alive);
    body_bytes = 0;
    lowest.expires_after(s.options.body_timeout);
    co_await http::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
    co_return !ec;
  }
  http::response<http::string_body> res;
  make_message_or_500(res, answer, at, keep_alive);
  body_bytes = res.body().size();
  if (res.body().size() <= small_answer_bytes) {  // fits a socket's buffers: one write
    lowest.expires_after(s.options.body_timeout);
    co_await http::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
    co_return !ec;
  }
  // A large answer: written piece by piece, each with the deadline its progress earned.
  http::response_serializer<http::string_body> serializer{res};
  const auto begun = std::chrono::steady_clock::now();
  std::uint64_t sent = 0;
  while (!serializer.is_done()) {
    lowest.expires_at(progress_deadline(s, begun, sent));
    sent += co_await http::async_write_some(stream, serializer, asio::redirect_error(use_awaitable, ec));
    if (ec) co_return false;
  }
  co_return true;
}

template <class Stream>
asio::awaitable<void> close_stream(Stream& stream, server_state& s) {
  if constexpr (requires { stream.async_shutdown(use_awaitable); }) {
    beast::get_lowest_layer(stream).expires_after(s.options.header_timeout);
    error_code ec;
    co_await stream.async_shutdown(asio::redirect_error(use_awaitable, ec));
  } else {
    error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  }
}

// After an answer that leaves a body unread: the connection closes the way nginx's
// lingering close does — what still arrives (up to a save's size, for 2 s) is read and dropped,
// so that the kernel does not reset the connection and destroy the answer before the
// client has read it (a player with an expired token must see the 401).
template <class Stream>
asio::awaitable<void> close_lingering(Stream& stream, server_state& s) {
  co_await close_stream(stream, s);
  if constexpr (!requires { stream.async_shutdown(use_awaitable); }) {
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(2));
    std::array<char, 16384> scratch;
    error_code ec;
    for (std::uint64_t dropped = 0; dropped < s.options.max_body_bytes && !ec;)
      dropped += co_await stream.async_read_some(asio::buffer(scratch), asio::redirect_error(use_awaitable, ec));
  }
}

void log_request(server_state& s, const api_response& answer, std::string_view method, std::string remote,
                 std::chrono::steady_clock::time_point start, std::uint64_t in, std::size_t out_bytes) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s.counters.request_done(answer.route, method, answer.status, seconds);
  request_log line;
  line.time = now_rfc3339();
  line.level = answer.status >= 500 ? (answer.status == 503 ? "warn" : "error") : "info";
  line.method = std::string{method};
  line.route = std::string{answer.route};
  line.slot = answer.slot;
  line.player = answer.player;
  line.status = answer.status;
  line.ms = seconds * 1000;
  line.bytes_in = in;
  line.bytes_out = out_bytes;
  line.remote = std::move(remote);
  line.error = answer.error;
  s.log.write(line);
}

// Sends and logs (the status that went, once it went); false when the connection is to
// close (or failed). body_unread: the request's body was not read (closed lingering).
template <class Stream>
asio::awaitable<bool> answer_request(server_state& s, Stream& stream, api_response answer, const request_context& at,
                                     std::uint64_t in, bool keep_alive, bool body_unread = false) {
  std::size_t out_bytes = 0;
  const bool sent = co_await send(stream, s, answer, keep_alive, at, out_bytes);
  log_request(s, answer, at.method, at.remote, at.start, in, out_bytes);
  if (sent && !keep_alive) {
    if (body_unread)
      co_await close_lingering(stream, s);
    else
      co_await close_stream(stream, s);
  }
  co_return sent&& keep_alive;
}

// The CORS headers of an answer to a page of `origin`, if the server lets it call.
std::vector<std::pair<std::string, std::string>> cors_headers(const server_state& s,
                                                              const std::optional<std::string>& origin) {
  if (!origin || s.options.cors_origins.empty()) return {};
  const auto& allowed = s.options.cors_origins;
  if (std::find(allowed.begin(), allowed.end(), "*") == allowed.end() &&
      std::find(allowed.begin(), allowed.end(), *origin) == allowed.end())
    return {};
  return {{"Access-Control-Allow-Origin", *origin},
          {"Vary", "Origin"},
          {"Access-Control-Expose-Headers", std::string{cors_answer_headers}}};
}

// One connection's requests, one after another (HTTP/1.1 keep-alive), as Beast's
// do_session: run() is the loop, and each request goes through its named steps in order —
// wait for it, read its headers, check their framing, answer a preflight, refuse repeated
// headers, admit it from the headers, read its body, have the API answer it, send the answer. A step that answers
// (a refusal) says whether the connection goes on; a refusal before the body is read
// closes it (lingering, so that the client reads the answer).
template <class Stream>
class request_loop {
 public:
  request_loop(server_state& s, Stream& stream, connection_handle& handle, std::string remote)
      : s_(s), stream_(stream), lowest_(beast::get_lowest_layer(stream)), handle_(handle), remote_(std::move(remote)) {}

  asio::awaitable<void> run() {
    for (bool first = true;; first = false) {
      if (!co_await wait_for_request(first)) co_return;
      if (!co_await read_headers()) co_return;
      if (std::optional<api_response> problem = framing_problem(parser_->get())) {
        co_await refuse(std::move(*problem));
        co_return;
      }
      if (is_preflight()) {
        if (!co_await answer_preflight()) co_return;
        continue;
      }
      if (std::optional<api_response> problem = repeated_header()) {
        co_await refuse(std::move(*problem));
        co_return;
      }
      api_request request = api_request_of();
      admission admitted = admit(request);
      const bool has_body = !parser_->is_done();
      if (admitted.answer) {
        const bool keep = !has_body && parser_->get().keep_alive() && !s_.stopping;  // an unread body ends it
        if (!co_await answer_request(s_, stream_, std::move(*admitted.answer), at_, 0, keep, has_body)) co_return;
        continue;
      }
      if (has_body && !co_await read_body(admitted, request)) co_return;
      request.body = parser_->get().body();
      api_response answer = co_await respond(admitted, request);
      if (!co_await send_answer(std::move(answer))) co_return;
    }
  }

 private:
  // Until a request's headers are whole, the connection is idle: a stop closes it now (a
  // connection that sent nothing, or half its headers, held every stop for
  // --header-timeout). Nothing of a request has been done yet. False: the connection ends.
  asio::awaitable<bool> wait_for_request(bool first) {
    handle_.idle = true;
    if (s_.stopping) co_return false;
    if (first) {
      lowest_.expires_at(opened_ + s_.options.header_timeout);  // a connection that sends nothing is cut too
    } else if (buffer_.size() == 0) {
      lowest_.expires_after(s_.options.idle_timeout);
      // Kept alive with nothing to do: the first to go when the server is full.
      handle_.idle_since = std::chrono::steady_clock::now().time_since_epoch().count();
      handle_.kept_idle = true;
      error_code ec;
      const std::size_t n =
          co_await stream_.async_read_some(buffer_.prepare(4096), asio::redirect_error(use_awaitable, ec));
      handle_.kept_idle = false;
      if (ec) {
        if (ec == beast::error::timeout) s_.counters.timed_out();
        co_return false;
      }
      buffer_.commit(n);
      lowest_.expires_after(s_.options.header_timeout);
    } else {
      lowest_.expires_after(s_.options.header_timeout);
    }
    co_return true;
  }

  // The headers, within header_timeout (a slow sender is cut off); a request that cannot be
  // read is answered (400, 413, 431) and the connection closed. False: it ends.
  asio::awaitable<bool> read_headers() {
    at_ = request_context{};
    at_.remote = remote_;
    at_.start = std::chrono::steady_clock::now();
    body_bytes_.release();
    player_bytes_.reset();
    parser_.emplace();
    parser_->header_limit(s_.options.max_header_bytes);
    parser_->body_limit(s_.options.max_body_bytes);  // a chunked body is refused as it passes the limit
    error_code ec = co_await read_header_section(stream_, buffer_, s_.options.max_header_bytes);
    // What a refusal of these bytes tells a page (the parser may consume part of them).
    at_.cors = cors_headers(s_, origin_in(buffered(buffer_)));
    if (!ec && folds_a_line(buffered(buffer_))) {
      handle_.idle = false;
      co_await answer_request(
          s_, stream_,
          early_error(400, "bad_header", "a header line is folded (obs-fold): give each field on one line"), at_, 0,
          false, true);
      co_return false;
    }
    // (At the end of the stream, the parser says whether a request was cut short.)
    if (!ec || ec == asio::error::eof)
      co_await http::async_read_header(stream_, buffer_, *parser_, asio::redirect_error(use_awaitable, ec));
    handle_.idle = false;
    if (ec) {
      if (ec == beast::error::timeout) {
        s_.counters.timed_out();
        co_return false;
      }
      if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
          ec == asio::error::operation_aborted)  // (aborted: a stop closed it)
        co_return false;
      // (A Content-Length over body_limit is reported here, with the headers.)
      api_response answer =
          ec == http::error::header_limit
              ? early_error(431, "headers_too_large",
                            "the request's headers exceed " + std::to_string(s_.options.max_header_bytes) + " bytes")
          : ec == http::error::body_limit
              ? early_error(413, "too_large",
                            "a save is at most " + std::to_string(s_.options.max_body_bytes) + " bytes")
              : early_error(400, "bad_request", "not an HTTP/1.1 request: " + ec.message());
      co_await answer_request(s_, stream_, std::move(answer), at_, 0, false, true);
      co_return false;
    }
    auto& req = parser_->get();
    at_.method = method_label(req.method());
    at_.head = req.method() == http::verb::head;
    at_.reads = at_.head || req.method() == http::verb::get;
    at_.version = req.version();
    at_.cors = cors_headers(s_, header_of(req, "Origin"));
    header_fields_ = std::distance(req.begin(), req.end());
    co_return true;
  }

  // A header the contract reads, or one that frames the request, given twice: the refusal.
  std::optional<api_response> repeated_header() const {
    const auto& req = parser_->get();
    std::vector<std::string_view> once{"Content-Length", "Transfer-Encoding", "Expect", "Host"};
    for (const api_header_field& h : api_request_headers) once.push_back(h.name);
    for (std::string_view name : once)
      if (req.count(beast::string_view{name.data(), name.size()}) > 1)
        return early_error(400, "bad_header", std::string{name} + " is given more than once");
    return std::nullopt;
  }

  // A browser's preflight for a page the server lets call (--cors-origin).
  bool is_preflight() const {
    const auto& req = parser_->get();
    return req.method() == http::verb::options && !at_.cors.empty() &&
           req.find(http::field::access_control_request_method) != req.end();
  }
  // What the page may send; false: the connection ends.
  asio::awaitable<bool> answer_preflight() {
    api_response preflight;
    preflight.status = 204;
    preflight.content_type.clear();
    preflight.route = "preflight";
    preflight.headers = {{"Access-Control-Allow-Methods", player_route_methods()},
                         {"Access-Control-Allow-Headers", cors_request_headers()},
                         {"Access-Control-Max-Age", "600"}};
    const bool done = parser_->is_done();
    const bool keep = done && parser_->get().keep_alive() && !s_.stopping;
    co_return co_await answer_request(s_, stream_, std::move(preflight), at_, 0, keep, !done);
  }

  // What the API reads, taken from the header section now: a chunked body's trailer can
  // neither add to it nor change it.
  api_request api_request_of() const {
    const auto& req = parser_->get();
    api_request request;
    request.method = at_.method;
    request.target = origin_form(std::string_view{req.target().data(), req.target().size()});
    for (const api_header_field& h : api_request_headers) request.*h.field = header_of(req, h.name);
    return request;
  }

  // Everything the headers decide — route, method, token, rate, precondition, metadata —
  // before a byte of the body is read or a 100 Continue sent.
  admission admit(const api_request& request) {
    admission admitted;
    try {
      admitted = s_.handler.admit(request);
    } catch (const std::exception& e) {  // answered and logged, as a failure in respond() is
      admitted.answer = early_error(500, "internal", "the server failed");
      admitted.answer->error = std::string{"internal: "} + e.what();
    }
    return admitted;
  }

  // The body of an admitted request, within the memory allowances and at the pace they
  // allow (100 Continue first, for a client that waits, once the database has decided what
  // it can without it). False: refused or cut, and the connection ends.
  asio::awaitable<bool> read_body(const admission& admitted, const api_request& request) {
    const auto& req = parser_->get();
    // Expect: 100-continue is HTTP/1.1's: an HTTP/1.0 request's is ignored (RFC 9110
    // §10.1.1), and its client gets no 100 it cannot read.
    const bool waits = req.version() >= 11 && beast::iequals(req[http::field::expect], "100-continue");
    if (waits) {
      // What the database decides without the body — the precondition, the write id —
      // is decided before 100 Continue: a client that waits uploads nothing in vain.
      std::optional<std::uint64_t> length;  // none for a chunked body
      if (const auto given = parser_->content_length()) length = *given;
      std::optional<api_response> decided = co_await asio::co_spawn(
          s_.workers,
          [&]() -> asio::awaitable<std::optional<api_response>> {
            try {
              co_return s_.handler.answer_before_body(admitted, request, length);
            } catch (const std::exception& e) {
              api_response failed = early_error(500, "internal", "the server failed");
              failed.error = std::string{"internal: "} + e.what();
              co_return failed;
            }
          },
          use_awaitable);
      if (decided) {
        co_await refuse(std::move(*decided));
        co_return false;
      }
    }
    // A chunked body is charged the largest it may be: its size is not known before.
    const std::uint64_t expected = parser_->content_length().value_or(s_.options.max_body_bytes);
    // The player's share first, then the allowance: a refused upload takes neither (and
    // its lingering close holds nothing of them).
    player_bytes_ = s_.shares.take(admitted.player, expected);
    if (player_bytes_) body_bytes_ = s_.budget.take(expected);
    if (!player_bytes_ || !body_bytes_) {
      // (Made before the co_await: g++ 12 destroys a conditional's temporary in a
      // co_await expression twice.)
      api_response refusal = !player_bytes_ ? player_busy() : too_many_bodies();
      co_await refuse(std::move(refusal));
      co_return false;
    }
    error_code ec;
    if (waits) {
      http::response<http::empty_body> go_on{http::status::continue_, at_.version};
      lowest_.expires_after(s_.options.body_timeout);
      co_await http::async_write(stream_, go_on, asio::redirect_error(use_awaitable, ec));
      if (ec) co_return false;
    }
    // The body: cut off at a pause of body_timeout, or once it falls behind min_rate.
    const auto begun = std::chrono::steady_clock::now();
    std::uint64_t received = 0;
    while (!parser_->is_done()) {
      lowest_.expires_at(progress_deadline(s_, begun, received));
      received += co_await http::async_read_some(stream_, buffer_, *parser_, asio::redirect_error(use_awaitable, ec));
      if (ec) break;
    }
    if (ec == http::error::body_limit) {
      co_await refuse(
          early_error(413, "too_large", "a save is at most " + std::to_string(s_.options.max_body_bytes) + " bytes"));
      co_return false;
    }
    if (ec == beast::error::timeout) {
      // The stream has closed the connection at its deadline: the 408 is logged, not sent.
      s_.counters.timed_out();
      log_request(s_, early_error(408, "request_timeout", "the body came too slowly"), at_.method, remote_, at_.start,
                  received, 0);
      co_return false;
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset)
      co_return false;
    if (ec) {
      co_await refuse(early_error(400, "bad_request", "the body is not well framed: " + ec.message()));
      co_return false;
    }
    if (std::distance(req.begin(), req.end()) != header_fields_) {
      co_await refuse(early_error(400, "bad_header", "trailer fields are not accepted"));
      co_return false;
    }
    co_return true;
  }

  // The API (and the database) on a worker thread; this connection's strand meanwhile
  // serves nothing else of it.
  asio::awaitable<api_response> respond(const admission& admitted, const api_request& request) {
    co_return co_await asio::co_spawn(
        s_.workers,
        [&]() -> asio::awaitable<api_response> {
          try {
            co_return s_.handler.respond(admitted, request);
          } catch (const std::exception& e) {
            api_response failed = early_error(500, "internal", "the server failed");
            failed.error = std::string{"internal: "} + e.what();
            co_return failed;
          }
        },
        use_awaitable);
  }

  // The request's bytes go before the answer is sent; false: the connection ends.
  asio::awaitable<bool> send_answer(api_response answer) {
    auto& req = parser_->get();
    const std::uint64_t in = req.body().size();
    body_bytes_.release();
    player_bytes_.reset();
    { std::string().swap(req.body()); }
    const bool keep_alive = req.keep_alive() && !s_.stopping;
    co_return co_await answer_request(s_, stream_, std::move(answer), at_, in, keep_alive);
  }

  // A refusal with the body unread (or cut): what the body held of the memory allowances is
  // given back before it is answered, so that its lingering close holds nothing.
  asio::awaitable<bool> refuse(api_response answer) {
    body_bytes_.release();
    player_bytes_.reset();
    co_return co_await answer_request(s_, stream_, std::move(answer), at_, 0, false, true);
  }

  server_state& s_;
  Stream& stream_;
  std::remove_reference_t<decltype(beast::get_lowest_layer(std::declval<Stream&>()))>& lowest_;
  connection_handle& handle_;
  std::string remote_;
  beast::flat_buffer buffer_;
  const std::chrono::steady_clock::time_point opened_ = std::chrono::steady_clock::now();
  // The request being answered.
  request_context at_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::ptrdiff_t header_fields_ = 0;
  body_budget::lease body_bytes_;
  std::optional<player_shares::lease> player_bytes_;
};

template <class Stream>
asio::awaitable<void> serve_requests(server_state& s, Stream& stream, connection_handle& handle, std::string remote) {
  request_loop<Stream> loop(s, stream, handle, std::move(remote));
  co_await loop.run();
}

asio::awaitable<void> session(server_state& s, tcp::socket socket, std::shared_ptr<connection_handle> handle) {
  error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  std::string remote = ec ? "?" : peer.address().to_string();
  socket.set_option(tcp::no_delay(true), ec);
  try {
    if (s.tls) {
      beast::ssl_stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(socket)), *s.tls);
      handle->stream = &beast::get_lowest_layer(stream);
      beast::get_lowest_layer(stream).expires_after(s.options.header_timeout);
      co_await stream.async_handshake(asio::ssl::stream_base::server, asio::redirect_error(use_awaitable, ec));
      if (!ec) co_await serve_requests(s, stream, *handle, remote);
      handle->stream = nullptr;
    } else {
      beast::tcp_stream stream(std::move(socket));
      handle->stream = &stream;
      co_await serve_requests(s, stream, *handle, remote);
      handle->stream = nullptr;
    }
  } catch (const std::exception& e) {
    handle->stream = nullptr;
    s.log.event("error", "connection", std::string{"a connection failed: "} + e.what());
  }
  {
    std::lock_guard lock(s.mutex);
    s.open.erase(handle);
  }
  s.counters.connection_closed();
  s.sessions.fetch_sub(1);
}

// Closes the kept-alive connection that has waited longest for its next request, if any:
// at the connection limit, an idle connection gives way to a new one (a crowd of idle
// keep-alives cannot lock every player out).
bool evict_longest_idle(server_state& s) {
  std::shared_ptr<connection_handle> oldest;
  {
    std::lock_guard lock(s.mutex);
    for (const auto& h : s.open)
      if (h->kept_idle && !h->evicting && (!oldest || h->idle_since < oldest->idle_since)) oldest = h;
    if (oldest) oldest->evicting = true;
  }
  if (!oldest) return false;
  s.counters.connection_evicted();
  asio::post(oldest->strand, [h = oldest] {
    if (h->kept_idle && h->stream)
      h->stream->cancel();  // it closes: it stays marked, so that it is not chosen again
    else
      h->evicting = false;  // it took a request meanwhile: it goes on
  });
  return true;
}

asio::awaitable<void> accept_connections(server_state& s, tcp::acceptor& acceptor) {
  for (;;) {
    auto strand = asio::make_strand(s.io);
    error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(strand, asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (s.stopping || ec == asio::error::operation_aborted) co_return;
      // Out of file descriptors and the like: wait a moment rather than spin.
      asio::steady_timer pause(s.io, std::chrono::milliseconds(50));
      co_await pause.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    if (s.sessions.load() >= s.options.max_connections && evict_longest_idle(s)) {
      // A kept-alive connection with nothing to do makes room (closed on its strand).
    } else if (s.sessions.load() >= s.options.max_connections) {
      // Said, not just closed: the client learns to come back (the answer fits a socket's
      // send buffer, so this write does not wait).
      s.counters.connection_refused();
      socket.non_blocking(true, ec);
      asio::write(socket, asio::buffer(s.busy_answer), ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      socket.close(ec);
      continue;
    }
    s.sessions.fetch_add(1);
    s.counters.connection_opened();
    auto handle = std::make_shared<connection_handle>(strand);
    {
      std::lock_guard lock(s.mutex);
      s.open.insert(handle);
    }
    asio::co_spawn(strand, session(s, std::move(socket), handle), asio::detached);
  }
}

// Stops accepting, closes the connections waiting for a request, and ends the run once the
// rest have answered (or shutdown_timeout has passed).
void begin_stop(server_state& s, tcp::acceptor& acceptor) {
  if (s.stopping.exchange(true)) return;
  s.log.event("info", "stopping", "finishing the requests in flight, then stopping");
  error_code ec;
  acceptor.close(ec);
  std::vector<std::shared_ptr<connection_handle>> handles;
  {
    std::lock_guard lock(s.mutex);
    handles.assign(s.open.begin(), s.open.end());
  }
  for (auto& h : handles)
    asio::post(h->strand, [h] {
      if (h->idle && h->stream) h->stream->cancel();
    });
  auto deadline = std::chrono::steady_clock::now() + s.options.shutdown_timeout;
  auto timer = std::make_shared<asio::steady_timer>(s.io);
  auto check = std::make_shared<std::function<void()>>();
  *check = [&s, timer, check, deadline] {
    if (s.sessions.load() == 0 || std::chrono::steady_clock::now() >= deadline) {
      s.io.stop();
      *check = nullptr;  // breaks the cycle
      return;
    }
    timer->expires_after(std::chrono::milliseconds(20));
    timer->async_wait([check](error_code) {
      if (*check) (*check)();
    });
  };
  (*check)();
}

// The 503 sent, without reading the request, to a connection past --max-connections: with
// what every answer carries (Cache-Control, and CORS when a page may call). Its request is
// not read, so its Origin is not known: any page may read that the server is full, which
// is all this answer says.
std::string busy_answer_of(const http_options& options) {
  const std::string body = R"({"error":{"code":"unavailable","message":"too many connections are open: try again"}})";
  std::string head =
      "HTTP/1.1 503 Service Unavailable\r\nServer: savekit-server\r\nCache-Control: no-store\r\n"
      "Retry-After: 1\r\nContent-Type: application/json\r\n";
  if (!options.cors_origins.empty())
    head += "Access-Control-Allow-Origin: *\r\nAccess-Control-Expose-Headers: Retry-After\r\n";
  return head + "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

bool write_port_file(const std::string& path, unsigned short port) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << port << '\n';
    if (!out) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace

int serve(const http_options& options, api& handler, metrics& counters, logger& log) {
  server_state s(options, handler, counters, log);
  s.busy_answer = busy_answer_of(options);
  if (!options.tls_cert.empty() || !options.tls_key.empty()) {
    s.tls = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    s.tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    error_code ec;
    s.tls->use_certificate_chain_file(options.tls_cert, ec);
    if (!ec) s.tls->use_private_key_file(options.tls_key, asio::ssl::context::pem, ec);
    if (ec) {
      log.event("error", "tls", "cannot load --tls-cert / --tls-key: " + ec.message());
      return 1;
    }
  }
  // HOST:PORT or [IPv6]:PORT, the port all digits.
  const std::size_t colon = options.listen.rfind(':');
  std::string host = colon == std::string::npos ? std::string{} : options.listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = colon == std::string::npos ? std::string{} : options.listen.substr(colon + 1);
  error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  int port = -1;
  if (!port_text.empty() && port_text.size() <= 5 && port_text.find_first_not_of("0123456789") == std::string::npos)
    port = std::stoi(port_text);
  if (ec || port < 0 || port > 65535) {
    log.event("error", "listen",
              "--listen is HOST:PORT (or [IPv6]:PORT) with an IP address and a port number, not " + options.listen);
    return 1;
  }
  tcp::acceptor acceptor(s.io);
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    log.event("error", "listen", "cannot listen on " + options.listen + ": " + ec.message());
    return 1;
  }
  const unsigned short bound = acceptor.local_endpoint().port();
  if (!options.port_file.empty() && !write_port_file(options.port_file, bound)) {
    log.event("error", "listen", "cannot write the port file " + options.port_file);
    return 1;
  }
  log.event("info", "listening", std::string{"serving HTTP"} + (s.tls ? " over TLS" : ""),
            address.to_string() + ":" + std::to_string(bound));

  // The first signal stops gracefully; a second one stops at once.
  asio::signal_set signals(s.io, SIGINT, SIGTERM);
  std::function<void(error_code, int)> on_signal = [&](error_code e, int) {
    if (e) return;
    if (s.stopping) {
      log.event("warn", "stopped", "a second signal: stopping now, without waiting for the requests in flight");
      std::_Exit(1);
    }
    begin_stop(s, acceptor);
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);
  // /healthz answers from what the database last said, asked every second on this thread
  // of its own, so that a database that hangs makes it 503, not silent.
  std::mutex monitor_mutex;
  std::condition_variable monitor_wake;
  std::thread monitor([&] {
    std::unique_lock lock(monitor_mutex);
    while (!s.stopping) {
      lock.unlock();
      handler.check_health();
      lock.lock();
      monitor_wake.wait_for(lock, std::chrono::seconds(1), [&] { return s.stopping.load(); });
    }
  });
  asio::co_spawn(s.io, accept_connections(s, acceptor), asio::detached);
  std::vector<std::thread> threads;
  for (std::uint32_t i = 1; i < std::max<std::uint32_t>(1, options.io_threads); ++i)
    threads.emplace_back([&] { s.io.run(); });
  s.io.run();
  for (auto& t : threads) t.join();
  {
    std::lock_guard lock(monitor_mutex);
    monitor_wake.notify_all();
  }
  // Requests not yet started are dropped (their connections are gone); those running end
  // within the database's own deadlines.
  s.workers.stop();
  s.workers.join();
  monitor.join();
  log.event("info", "stopped",
            s.sessions.load() == 0 ? "every request answered"
                                   : std::to_string(s.sessions.load()) + " connections cut at --shutdown-timeout");
  return 0;
}

}  // namespace savekit::server
