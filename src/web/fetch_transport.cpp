// fetch() under the sync (fetch_transport.hpp). The JavaScript half is here, beside the C++
// that calls it: one awaited call makes the request and keeps the answer in a table on the
// Module; the C++ then copies the answer out by its id and releases it.
//
// What the browser decides, and what is asked of it:
//   - the request goes with cache: 'no-store' (a list must never come from the HTTP
//     cache), credentials: 'omit' (the bearer token is the only credential), and
//     redirect: 'manual' (a redirect is an error, as with libcurl: the token never follows
//     one);
//   - the body is copied out of the WebAssembly heap before the first await (the heap may
//     grow while the request is under way, which moves it);
//   - timeouts are an AbortController's: the whole request (request_timeout), and no byte
//     for stall_timeout; an answer larger than any save is cut.
// A page on another origin than the server's needs the server's --cors-origin; without it
// the browser hides the answer, and the error says so.
#include "fetch_transport.hpp"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace savekit::cloud::detail {
namespace {

// Answers larger than this are cut, as natively (curl_transport.cpp).
constexpr double max_answer_bytes = double(std::uint64_t{1} << 30) + double(std::uint64_t{1} << 20);

// (clang-format would split JavaScript's === in two.)
// clang-format off
EM_JS(int, savekit_fetch_can_suspend, (), {
  if (typeof Asyncify === "undefined") return -1;
  return Asyncify.currData ? 0 : 1;
});

// headers: "name\nvalue\n" pairs. Returns the answer's id (always: a failure is kept in it,
// never thrown — a rejection would never wake the suspended stack). Pointers come as signed
// numbers: >>> 0 reads those past 2 GiB right.
EM_ASYNC_JS(int, savekit_fetch_send, (const char* url, const char* method, const char* headers, const std::uint8_t* body,
                                      int body_size, int has_body, double request_ms, double stall_ms, double max_bytes), {
  var table = Module.savekitFetchAnswers || (Module.savekitFetchAnswers = {next: 1, answers: {}});
  var id = table.next++;
  var answer = {status: 0, headers: "", body: new Uint8Array(0), error: ""};
  table.answers[id] = answer;
  var why = "";
  var whole = 0;
  var stall = 0;
  try {
    // Asyncify pauses the program's main loop (emscripten_set_main_loop) whenever a call
    // suspends, taking the sleeper for the main loop itself; a sync is not, and the game's
    // frames go on: resumed once the unwind has ended (a microtask), and again, harmlessly,
    // at the rewind.
    Promise.resolve().then(function() {
      if (typeof Browser !== "undefined" && Browser.mainLoop && Browser.mainLoop.func) Browser.mainLoop.resume();
    });
    var target = UTF8ToString(url);
    var lines = UTF8ToString(headers).split("\n");
    var sent = new Headers();
    for (var i = 0; i + 1 < lines.length; i += 2) sent.append(lines[i], lines[i + 1]);
    var init = {method: UTF8ToString(method), headers: sent, cache: "no-store", credentials: "omit",
                redirect: "manual", mode: "cors", referrerPolicy: "no-referrer"};
    var from = body >>> 0;
    if (has_body) init.body = HEAPU8.slice(from, from + body_size);
    var controller = new AbortController();
    init.signal = controller.signal;
    if (request_ms > 0) whole = setTimeout(function() {
      why = "no answer within " + request_ms + " ms";
      controller.abort();
    }, request_ms);
    // The stall timer runs once the answer has begun: fetch tells nothing of an upload's
    // progress, and a large save on a slow uplink is no stall (the whole-request timeout
    // bounds it).
    var watch = function() {
      clearTimeout(stall);
      if (stall_ms > 0) stall = setTimeout(function() {
        why = "nothing came for " + stall_ms + " ms";
        controller.abort();
      }, stall_ms);
    };
    var response = await fetch(target, init);
    watch();
    if (response.type === "opaqueredirect") throw new Error("the server answered with a redirect (not followed)");
    var names = [];
    response.headers.forEach(function(value, name) { names.push(name, value); });
    var declared = Number(response.headers.get("content-length") || 0);
    var too_large = "the answer is larger than this request can need (" + max_bytes + " bytes)";
    if (declared > max_bytes) throw new Error(too_large);
    var chunks = [];
    var size = 0;
    if (response.body) {
      var reader = response.body.getReader();
      for (;;) {
        var part = await reader.read();
        if (part.done) break;
        watch();
        size += part.value.length;
        if (size > max_bytes) {
          controller.abort();
          throw new Error(too_large);
        }
        chunks.push(part.value);
      }
    }
    var all = new Uint8Array(size);
    var at = 0;
    for (var c = 0; c < chunks.length; ++c) {
      all.set(chunks[c], at);
      at += chunks[c].length;
    }
    answer.status = response.status;
    answer.headers = names.join("\n");
    answer.body = all;
  } catch (e) {
    answer.status = 0;
    answer.error = why || (e && e.message) || String(e);
    // What a browser says of a refused connection and of a refused CORS check is the same.
    if (!why && e && e.name === "TypeError")
      answer.error += " (the server is down or unreachable, the device is offline, or the server does not let this " +
                      "page call it: savekit-server --cors-origin " +
                      (typeof location !== "undefined" ? location.origin : "ORIGIN") + ")";
  } finally {
    clearTimeout(whole);
    clearTimeout(stall);
  }
  return id;
});

EM_JS(int, savekit_fetch_status, (int id), { return Module.savekitFetchAnswers.answers[id].status; });

// which: 0 the headers, 1 the body, 2 the error. size: its size in bytes (UTF-8 for text).
EM_JS(double, savekit_fetch_size, (int id, int which), {
  var a = Module.savekitFetchAnswers.answers[id];
  if (which === 1) return a.body.length;
  return lengthBytesUTF8(which === 0 ? a.headers : a.error);
});
EM_JS(void, savekit_fetch_copy, (int id, int which, char* to, int size), {
  var a = Module.savekitFetchAnswers.answers[id];
  if (which === 1) HEAPU8.set(a.body, to >>> 0);
  else stringToUTF8(which === 0 ? a.headers : a.error, to >>> 0, size + 1);
});
EM_JS(void, savekit_fetch_release, (int id), { delete Module.savekitFetchAnswers.answers[id]; });

// A waiter: a promise C++ settles (wake) from a callback while the stack waits on it.
EM_JS(int, savekit_waiter_new, (), {
  var t = Module.savekitWaiters || (Module.savekitWaiters = {next: 1, waiting: {}});
  var id = t.next++;
  var w = {};
  w.promise = new Promise(function(resolve) { w.resolve = resolve; });
  t.waiting[id] = w;
  return id;
});
EM_JS(void, savekit_waiter_wake, (int id), {
  var w = Module.savekitWaiters.waiting[id];
  if (w) w.resolve();
});
EM_ASYNC_JS(void, savekit_waiter_wait, (int id, double timeout_ms), {
  Promise.resolve().then(function() {
    if (typeof Browser !== "undefined" && Browser.mainLoop && Browser.mainLoop.func) Browser.mainLoop.resume();
  });  // as in savekit_fetch_send
  var w = Module.savekitWaiters.waiting[id];
  if (w) {
    if (timeout_ms >= 0) await Promise.race([w.promise, new Promise(function(r) { setTimeout(r, timeout_ms); })]);
    else await w.promise;
  }
  delete Module.savekitWaiters.waiting[id];
});
// clang-format on

std::string copied(int id, int which) {
  const auto size = static_cast<std::size_t>(savekit_fetch_size(id, which));
  std::string out(size + 1, '\0');  // room for stringToUTF8's terminator
  savekit_fetch_copy(id, which, out.data(), static_cast<int>(size));
  out.resize(size);
  return out;
}

class fetch_transport final : public transport {
 public:
  explicit fetch_transport(const options& o)
      : url_(o.url), request_timeout_(o.request_timeout), stall_timeout_(o.stall_timeout) {
    while (!url_.empty() && url_.back() == '/') url_.pop_back();
  }

  result<http_response> send(const http_request& request) override {
    if (!can_suspend())
      return error{errc::locked, 0,
                   "the browser's request cannot wait now: another call of the program is suspended (Asyncify keeps "
                   "one at a time); sync with run_async"};
    if (request.body.size() > 0x7fff'ffffu) return error{errc::invalid_value, 0, "a request body over 2 GiB"};
    std::string headers;
    for (const auto& [name, value] : request.headers) {
      if (name.find('\n') != std::string::npos || value.find('\n') != std::string::npos)
        return error{errc::invalid_value, 0, "a header with a line break"};
      headers += name + '\n' + value + '\n';
    }
    const bool put = request.method == "PUT";
    if (put) headers += "Content-Type\napplication/octet-stream\n";
    const std::string url = url_ + request.target;
    const int id = savekit_fetch_send(
        url.c_str(), request.method.c_str(), headers.c_str(),
        reinterpret_cast<const std::uint8_t*>(request.body.data()), static_cast<int>(request.body.size()), put ? 1 : 0,
        static_cast<double>(request_timeout_.count()), static_cast<double>(stall_timeout_.count()),
        request.max_answer_bytes != 0 ? std::min(double(request.max_answer_bytes), max_answer_bytes)
                                      : max_answer_bytes);
    const int status = savekit_fetch_status(id);
    result<http_response> out = error{errc::network, 0, "no answer from " + url_ + ": " + copied(id, 2)};
    if (status != 0) {
      http_response r;
      r.status = status;
      const std::string names = copied(id, 0);
      std::size_t at = 0;
      while (at < names.size()) {  // name \n value \n ...
        const std::size_t name_end = names.find('\n', at);
        if (name_end == std::string::npos) break;
        std::size_t value_end = names.find('\n', name_end + 1);
        if (value_end == std::string::npos) value_end = names.size();
        r.headers.emplace_back(names.substr(at, name_end - at), names.substr(name_end + 1, value_end - name_end - 1));
        at = value_end + 1;
      }
      r.body = copied(id, 1);
      out = std::move(r);
    }
    savekit_fetch_release(id);
    return out;
  }

 private:
  std::string url_;
  std::chrono::milliseconds request_timeout_, stall_timeout_;
};

}  // namespace

bool can_suspend() { return savekit_fetch_can_suspend() == 1; }

void pause_for(std::chrono::milliseconds d) {
  if (!can_suspend()) return;
  savekit_waiter_wait(savekit_waiter_new(), static_cast<double>(d.count()));  // never woken: the time
}

// Starts an IndexedDB operation with a callback, and waits for its outcome letting the page
// run (at once if the callback ran within start).
static status wait_for_callback(const std::function<void(std::function<void(status)>)>& start) {
  struct waiting {
    std::optional<status> outcome;
    int id = 0;
  };
  auto w = std::make_shared<waiting>();
  start([w](status s) {
    w->outcome = std::move(s);
    if (w->id != 0) savekit_waiter_wake(w->id);
  });
  if (w->outcome) return std::move(*w->outcome);
  if (!can_suspend())
    return error{errc::locked, 0, "cannot wait for IndexedDB now: another call of the program is suspended"};
  w->id = savekit_waiter_new();
  savekit_waiter_wait(w->id, -1);
  w->id = 0;
  if (!w->outcome) return error{errc::io_error, 0, "IndexedDB never answered"};
  return std::move(*w->outcome);
}

status wait_until_durable(slots& folder) {
  return wait_for_callback([&folder](std::function<void(status)> done) { folder.when_durable(std::move(done)); });
}

status wait_until_loaded(slots& folder, std::string_view name, std::optional<std::uint64_t> generation) {
  return wait_for_callback([&](std::function<void(status)> done) {
    if (generation)
      folder.load_async(name, *generation, std::move(done));
    else
      folder.load_async(name, std::move(done));
  });
}

result<std::shared_ptr<transport>> make_fetch_transport(const options& o) {
  if (savekit_fetch_can_suspend() < 0)
    return error{errc::invalid_value, 0,
                 "cloud sync in the browser needs the program linked with -sASYNCIFY (savekit::cloud's CMake target "
                 "adds it; see docs/cloud.md, \"In the browser\")"};
  return std::shared_ptr<transport>{std::make_shared<fetch_transport>(o)};
}

}  // namespace savekit::cloud::detail
