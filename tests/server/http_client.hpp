// A blocking HTTP/1.1 client for the server's tests and load benchmark (Boost.Beast), and
// a raw socket for the hostile tests that must send what no client library would.
#pragma once

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
//
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace test_server {

struct reply {
  int status = 0;                              // 0: no answer (the connection failed or closed)
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string{} : it->second;
  }
};

using header_list = std::vector<std::pair<std::string, std::string>>;

// One keep-alive connection, opened again when the server closed it.
class http_client {
 public:
  explicit http_client(int port, std::string host = "127.0.0.1") : host_(std::move(host)), port_(port) {}

  reply request(const std::string& method, const std::string& target, const header_list& headers = {},
                const std::string& body = {}, std::chrono::seconds timeout = std::chrono::seconds(30)) {
    namespace http = boost::beast::http;
    for (int attempt = 0; attempt < 2; ++attempt) {
      boost::beast::error_code ec;
      if (!stream_ && !connect(ec)) return {};
      http::request<http::string_body> req{http::string_to_verb(method), target, 11};
      if (req.method() == http::verb::unknown) req.method_string(method);
      req.set(http::field::host, host_);
      for (const auto& [name, value] : headers) req.set(name, value);
      req.body() = body;
      if (!body.empty() || method == "PUT") req.prepare_payload();
      stream_->expires_after(timeout);
      http::write(*stream_, req, ec);
      if (ec) {
        stream_.reset();
        continue;  // a kept-alive connection the server had closed: once more on a new one
      }
      boost::beast::flat_buffer buffer;
      http::response_parser<http::string_body> parser;
      parser.body_limit(std::uint64_t{1} << 30);
      parser.header_limit(128 * 1024);  // Savekit-Meta of 16 KiB is a header of 22 KiB
      parser.skip(method == "HEAD");
      http::read(*stream_, buffer, parser, ec);
      if (ec) {
        stream_.reset();
        if (attempt == 0 && (ec == http::error::end_of_stream || ec == boost::asio::error::connection_reset)) continue;
        return {};
      }
      auto& res = parser.get();
      reply out;
      out.status = static_cast<int>(res.result_int());
      for (const auto& field : res) {
        std::string name{field.name_string()};
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.headers[name] = std::string{field.value()};
      }
      out.body = std::move(res.body());
      if (!res.keep_alive()) stream_.reset();
      return out;
    }
    return {};
  }

  void close() { stream_.reset(); }

 private:
  bool connect(boost::beast::error_code& ec) {
    boost::asio::ip::tcp::resolver resolver(io_);
    auto endpoints = resolver.resolve(host_, std::to_string(port_), ec);
    if (ec) return false;
    stream_.emplace(io_);
    stream_->expires_after(std::chrono::seconds(10));
    stream_->connect(endpoints, ec);
    if (ec) {
      stream_.reset();
      return false;
    }
    stream_->socket().set_option(boost::asio::ip::tcp::no_delay(true), ec);  // as the server does: no Nagle delay
    return true;
  }

  boost::asio::io_context io_;
  std::string host_;
  int port_;
  std::optional<boost::beast::tcp_stream> stream_;
};

// A plain TCP connection to send bytes as they are and read what comes back.
class raw_connection {
 public:
  // receive_buffer: a small SO_RCVBUF (a reader that takes little at a time), 0: the default.
  explicit raw_connection(int port, int receive_buffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~raw_connection() {
    if (fd_ >= 0) ::close(fd_);
  }
  raw_connection(const raw_connection&) = delete;
  raw_connection& operator=(const raw_connection&) = delete;
  bool connected() const { return fd_ >= 0; }

  // False once the server has closed the connection.
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // What arrives within timeout, until the server closes the connection (closed = true)
  // or nothing more comes.
  std::string receive(std::chrono::milliseconds timeout, bool& closed) {
    std::string out;
    closed = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return out;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return out;
      char buffer[65536];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        closed = true;
        reset_ = n < 0 && errno == ECONNRESET;
        return out;
      }
      out.append(buffer, static_cast<std::size_t>(n));
    }
  }

  // What arrives until `marker` has come (then true), the server closes the connection, or
  // timeout passes: for an answer that comes while the connection stays open.
  bool receive_until(std::string_view marker, std::string& out, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out.find(marker) == std::string::npos) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buffer[65536];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return out.find(marker) != std::string::npos;
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }

  // Says that nothing more will be sent (a half close): the server answers what it has, then
  // closes without waiting for more.
  void finish_sending() { ::shutdown(fd_, SHUT_WR); }

  // Whether the connection ended in a reset (RST), not a clean close, when it closed.
  bool was_reset() const { return reset_; }

  // Whether the server closes the connection within timeout (reading and dropping bytes).
  bool closed_within(std::chrono::milliseconds timeout) {
    bool closed = false;
    receive(timeout, closed);
    return closed;
  }

 private:
  int fd_ = -1;
  bool reset_ = false;
};

}  // namespace test_server
