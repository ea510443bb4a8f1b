// libcurl under the sync (curl_transport.hpp). Every request sets its options anew on the
// one easy handle (curl_easy_reset keeps the connection, the DNS cache and TLS sessions).
#include "curl_transport.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <mutex>

namespace savekit::cloud::detail {

namespace {

// Answers larger than this are cut (a save's limit is 1 GiB; a list of 100 slots is small).
constexpr std::size_t max_answer_bytes = (std::size_t{1} << 30) + (std::size_t{1} << 20);
// Bodies from this size wait for the server's 100 Continue: a 412 or 401 comes before them.
constexpr std::size_t expect_continue_from = 1u << 20;

struct upload {
  std::string_view body;
  std::size_t at = 0;
};

std::size_t read_body(char* to, std::size_t size, std::size_t n, void* user) {
  auto* u = static_cast<upload*>(user);
  const std::size_t take = std::min(size * n, u->body.size() - u->at);
  std::memcpy(to, u->body.data() + u->at, take);
  u->at += take;
  return take;
}

int seek_body(void* user, curl_off_t offset, int origin) {
  auto* u = static_cast<upload*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<std::size_t>(offset) > u->body.size())
    return CURL_SEEKFUNC_CANTSEEK;
  u->at = static_cast<std::size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

struct answer {
  http_response response;
  std::size_t limit = max_answer_bytes;
  bool too_large = false;
  // The stall timeout, ours: libcurl's low-speed check does not run while a sent request
  // waits for its answer, which is where a server or a proxy that never answers leaves it.
  std::chrono::milliseconds stall_timeout{0};
  std::chrono::steady_clock::time_point moved_at = std::chrono::steady_clock::now();
  curl_off_t moved = -1;  // bytes down + up when last seen
  bool stalled = false;
};

int watch_progress(void* user, curl_off_t down_total, curl_off_t down_now, curl_off_t up_total, curl_off_t up_now) {
  (void)down_total;
  (void)up_total;
  auto* a = static_cast<answer*>(user);
  const auto now = std::chrono::steady_clock::now();
  if (down_now + up_now != a->moved) {
    a->moved = down_now + up_now;
    a->moved_at = now;
    return 0;
  }
  if (now - a->moved_at < a->stall_timeout) return 0;
  a->stalled = true;
  return 1;  // libcurl stops with CURLE_ABORTED_BY_CALLBACK
}

std::size_t write_answer(char* from, std::size_t size, std::size_t n, void* user) {
  auto* a = static_cast<answer*>(user);
  if (a->response.body.size() + size * n > a->limit) {
    a->too_large = true;
    return 0;  // libcurl stops with CURLE_WRITE_ERROR
  }
  a->response.body.append(from, size * n);
  return size * n;
}

std::size_t header_line(char* from, std::size_t size, std::size_t n, void* user) {
  auto* a = static_cast<answer*>(user);
  std::string_view line{from, size * n};
  if (line.starts_with("HTTP/")) {  // a new answer (after a 100 Continue): its own headers
    a->response.headers.clear();
    return size * n;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name{line.substr(0, colon)};
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  a->response.headers.emplace_back(std::move(name), std::string{value});
  return size * n;
}

class curl_transport final : public transport {
 public:
  curl_transport(CURL* handle, const options& o)
      : handle_(handle),
        url_(o.url),
        ca_file_(o.ca_file),
        connect_timeout_(o.connect_timeout),
        request_timeout_(o.request_timeout),
        stall_timeout_(o.stall_timeout) {
    while (!url_.empty() && url_.back() == '/') url_.pop_back();
  }
  ~curl_transport() override { curl_easy_cleanup(handle_); }

  result<http_response> send(const http_request& request) override {
    std::lock_guard lock(mutex_);
    CURL* h = handle_;
    curl_easy_reset(h);
    char problem[CURL_ERROR_SIZE] = {};
    const std::string url = url_ + request.target;
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, problem);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(h, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2);
    if (!ca_file_.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ca_file_.c_str());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout_.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout_.count()));
    // A stall, not a slow link: less than 1 byte per second for stall_timeout.
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(stall_timeout_.count() / 1000)));
    curl_easy_setopt(h, CURLOPT_EXPECT_100_TIMEOUT_MS, 2000L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, nullptr);

    answer got;
    got.stall_timeout = stall_timeout_;
    if (request.max_answer_bytes != 0 && request.max_answer_bytes < max_answer_bytes)
      got.limit = static_cast<std::size_t>(request.max_answer_bytes);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, watch_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &got);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_answer);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &got);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_line);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &got);

    upload body{request.body};
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers)
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
    if (request.method == "PUT") {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(h, CURLOPT_READFUNCTION, read_body);
      curl_easy_setopt(h, CURLOPT_READDATA, &body);
      curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, seek_body);
      curl_easy_setopt(h, CURLOPT_SEEKDATA, &body);
      headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
      headers =
          curl_slist_append(headers, request.body.size() >= expect_continue_from ? "Expect: 100-continue" : "Expect:");
    } else if (request.method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    const CURLcode done = curl_easy_perform(h);
    curl_slist_free_all(headers);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    if (done != CURLE_OK) {
      std::string why = problem[0] != '\0' ? problem : curl_easy_strerror(done);
      if (got.too_large)
        why = "the answer is larger than this request can need (" + std::to_string(got.limit) + " bytes)";
      if (got.stalled) why = "nothing moved for " + std::to_string(stall_timeout_.count()) + " ms";
      return error{errc::network, 0, "no answer from " + url_ + ": " + why};
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    got.response.status = static_cast<int>(status);
    return std::move(got.response);
  }

 private:
  std::mutex mutex_;
  CURL* handle_;
  std::string url_, ca_file_;
  std::chrono::milliseconds connect_timeout_, request_timeout_, stall_timeout_;
};

}  // namespace

result<std::shared_ptr<transport>> make_curl_transport(const options& o) {
  // Thread-safe since libcurl 7.84 where CURL_VERSION_THREADSAFE is set (Debian 12: 7.88).
  static const CURLcode started = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (started != CURLE_OK)
    return error{errc::invalid_value, 0, std::string{"libcurl did not start: "} + curl_easy_strerror(started)};
  CURL* handle = curl_easy_init();
  if (!handle) return error{errc::invalid_value, 0, "libcurl could not make a handle"};
  return std::shared_ptr<transport>{std::make_shared<curl_transport>(handle, o)};
}

}  // namespace savekit::cloud::detail
