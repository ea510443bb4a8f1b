// What savekit-server checks of a request's bytes before Beast's parser or the API sees
// them (RFC 9112): the framing of its body, a header section read whole before it is
// parsed (so that what Beast would accept and should not can be refused first), folded
// lines, the Origin of a request refused before it is parsed, and the target's path.
// Used by http_server.cpp only.
#pragma once

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api.hpp"

namespace savekit::server::framing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using boost::system::error_code;

// A request's framing, refused when it cannot be read reliably (RFC 9112 §6): a
// Transfer-Encoding whose last coding is not chunked (§6.3: 400), or that applies chunked
// twice, or in HTTP/1.0; a PUT whose length is not given; no Host in HTTP/1.1. Codings
// before a final chunked are understood nowhere here: 501 (§6.1). The answer, or nothing.
template <class Request>
std::optional<api_response> framing_problem(const Request& req) {
  // Present but empty is refused too (RFC 9112 has no empty list): a front end may read it
  // as chunked while this reads Content-Length.
  if (req.find(http::field::transfer_encoding) != req.end()) {
    if (req.version() != 11)
      return error_response(400, "bad_request",
                            "Transfer-Encoding is HTTP/1.1's: an HTTP/1.0 request gives Content-Length");
    // The codings, in order, each trimmed (empty list elements are skipped, RFC 9110 §5.6.1).
    std::vector<std::string_view> codings;
    const beast::string_view te = req[http::field::transfer_encoding];
    for (std::string_view rest{te.data(), te.size()};;) {
      const std::size_t comma = rest.find(',');
      std::string_view coding = rest.substr(0, comma);
      while (!coding.empty() && (coding.front() == ' ' || coding.front() == '\t')) coding.remove_prefix(1);
      while (!coding.empty() && (coding.back() == ' ' || coding.back() == '\t')) coding.remove_suffix(1);
      if (!coding.empty()) codings.push_back(coding);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    const auto chunked = [](std::string_view coding) { return beast::iequals(coding, "chunked"); };
    // "xchunked" or "chunked;x=1" is another coding than chunked: the body's end is unknown.
    if (codings.empty() || !chunked(codings.back()))
      return error_response(400, "bad_request", "a body's Transfer-Encoding must end in chunked");
    if (std::any_of(codings.begin(), codings.end() - 1, chunked))
      return error_response(400, "bad_request", "chunked is applied once, last");
    if (codings.size() > 1)
      return error_response(501, "not_implemented", "no transfer coding but chunked is understood here");
  } else if (req.method() == http::verb::put && req.find(http::field::content_length) == req.end()) {
    return error_response(411, "length_required", "a PUT gives Content-Length or Transfer-Encoding: chunked");
  }
  if (req.version() == 11 && req.find(http::field::host) == req.end())
    return error_response(400, "bad_request", "an HTTP/1.1 request names its Host");
  return std::nullopt;
}

// The origin-form path of a target (an absolute-form one, http://host/path, is accepted).
inline std::string_view origin_form(std::string_view target) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.size() > scheme.size() && beast::iequals(target.substr(0, scheme.size()), scheme)) {
      const std::size_t path = target.find('/', scheme.size());
      return path == std::string_view::npos ? std::string_view{"/"} : target.substr(path);
    }
  }
  return target;
}

inline std::string_view buffered(const beast::flat_buffer& buffer) {
  const auto bytes = buffer.data();
  return {static_cast<const char*>(bytes.data()), bytes.size()};
}

// Reads until the buffer holds a request's whole header section, or more than limit bytes
// of one (which the parser then refuses, 431). Beast parses a header section only once it
// is whole, so what it would accept and should not can be refused first.
template <class Stream>
asio::awaitable<error_code> read_header_section(Stream& stream, beast::flat_buffer& buffer, std::size_t limit) {
  error_code ec;
  for (std::size_t searched = 0;;) {
    const std::string_view bytes = buffered(buffer);
    if (bytes.find("\r\n\r\n", searched) != std::string_view::npos || bytes.size() >= limit) co_return ec;
    searched = bytes.size() < 3 ? 0 : bytes.size() - 3;
    const std::size_t n =
        co_await stream.async_read_some(buffer.prepare(8192), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return ec;
    buffer.commit(n);
  }
}

// Whether a whole header section folds a line (obs-fold: CRLF, then a space or a tab).
// Beast unfolds it; a front end may read the folded line as a field of its own, or drop it
// (Transfer-Encoding:\r\n chunked): RFC 9112 §5.2 lets a server refuse it, and this does.
inline bool folds_a_line(std::string_view bytes) {
  const std::size_t end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) return false;
  const std::string_view section = bytes.substr(0, end + 2);  // the request line and the fields
  for (std::size_t at = section.find("\r\n"); at != std::string_view::npos; at = section.find("\r\n", at + 2))
    if (at + 2 < section.size() && (section[at + 2] == ' ' || section[at + 2] == '\t')) return true;
  return false;
}

// The Origin field of a request's bytes (none if given twice): for an answer made before
// the header section is parsed, or instead of it (400, 431), which a page must be able to
// read too.
inline std::optional<std::string> origin_in(std::string_view bytes) {
  std::optional<std::string> found;
  for (std::size_t at = bytes.find("\r\n"); at != std::string_view::npos;) {
    const std::size_t next = bytes.find("\r\n", at + 2);
    if (next == std::string_view::npos) break;  // a line not whole yet
    std::string_view line = bytes.substr(at + 2, next - at - 2);
    if (line.empty()) break;  // the end of the header section
    if (line.size() >= 7 && beast::iequals(line.substr(0, 7), "origin:")) {
      if (found) return std::nullopt;
      line.remove_prefix(7);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      found = std::string{line};
    }
    at = next;
  }
  return found;
}

}  // namespace savekit::server::framing
