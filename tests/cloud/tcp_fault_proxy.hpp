// A TCP proxy on 127.0.0.1 between the sync (real libcurl) and the server, that breaks
// chosen requests the way networks do: the connection reset as it opens, reset after the
// server has answered (the write applied, its answer lost), the answer cut in the middle,
// or the answer held back until the client gives up (a stall).
//
// It does not parse HTTP beyond a request's first bytes: a request starts when the client
// sends after the server has answered (or first on a connection), and its method is what
// those bytes begin with; a fault armed for that method acts on that request's answer.
// Bounded: every wait polls the stop flag; the destructor closes every socket and joins
// every thread. One thread accepts; one per connection moves bytes both ways.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace test_cloud {

enum class tcp_fault {
  none,
  reset_on_connect,     // the connection is reset before a byte of the request is read
  reset_after_request,  // the request reaches the server; when its answer starts, the client gets a reset
  cut_answer,           // cut_after bytes of the answer go through, then the connection closes
  stall_answer,         // nothing of the answer goes through: the client's stall timeout ends it
};

// A listening socket on 127.0.0.1 at a port the kernel picks (set in port).
inline int listen_on_loopback(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0) {
    std::perror("a test socket cannot listen on 127.0.0.1");  // (the tests build without exceptions too)
    std::abort();
  }
  socklen_t size = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
  port = ntohs(a.sin_port);
  return fd;
}

class tcp_fault_proxy {
 public:
  explicit tcp_fault_proxy(std::uint16_t upstream) : upstream_(upstream) {
    listener_ = listen_on_loopback(port_);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~tcp_fault_proxy() {
    stop_ = true;
    acceptor_.join();
    std::vector<std::thread> moving;
    {
      std::lock_guard lock(mutex_);
      moving.swap(connections_);
    }
    for (std::thread& t : moving) t.join();
    ::close(listener_);
  }
  tcp_fault_proxy(const tcp_fault_proxy&) = delete;
  tcp_fault_proxy& operator=(const tcp_fault_proxy&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // The next `count` requests whose method is `method` ("" any) get `fault`; the rest go
  // through. reset_on_connect acts on connections, not requests (nothing is read first).
  void fail_next(tcp_fault fault, int count, std::string method = "", std::size_t cut_after = 0) {
    std::lock_guard lock(mutex_);
    fault_ = fault;
    remaining_ = count;
    method_ = std::move(method);
    cut_after_ = cut_after;
  }
  int faults_done() const { return faults_done_; }
  int connections() const { return connections_seen_; }

 private:
  static sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
  }
  static void reset(int fd) {  // close with an RST, not a FIN
    linger l{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  static bool write_all(int fd, const char* data, std::size_t n) {
    while (n > 0) {
      const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
      if (w <= 0) return false;
      data += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }

  // Takes the armed fault for a request of `method`, if one is left.
  tcp_fault take(const std::string& method, std::size_t& cut_after) {
    std::lock_guard lock(mutex_);
    if (remaining_ <= 0 || fault_ == tcp_fault::none || fault_ == tcp_fault::reset_on_connect) return tcp_fault::none;
    if (!method_.empty() && method_ != method) return tcp_fault::none;
    --remaining_;
    ++faults_done_;
    cut_after = cut_after_;
    return fault_;
  }

  void accept_loop() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      ++connections_seen_;
      {
        std::lock_guard lock(mutex_);
        if (fault_ == tcp_fault::reset_on_connect && remaining_ > 0) {
          --remaining_;
          ++faults_done_;
          reset(client);
          ::close(client);
          continue;
        }
      }
      const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a = loopback(upstream_);
      if (upstream < 0 || ::connect(upstream, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        if (upstream >= 0) ::close(upstream);
        ::close(client);
        continue;
      }
      std::lock_guard lock(mutex_);
      connections_.emplace_back([this, client, upstream] { relay(client, upstream); });
    }
  }

  void relay(int client, int upstream) {
    char buffer[16384];
    bool request_starts = true;  // the client's next bytes begin a request
    tcp_fault fault = tcp_fault::none;
    std::size_t cut_after = 0, answered = 0;
    bool rst = false;
    while (!stop_) {
      pollfd p[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
      if (::poll(p, 2, 50) <= 0) continue;
      if (p[0].revents != 0) {
        const ssize_t r = ::recv(client, buffer, sizeof buffer, 0);
        if (r <= 0) break;
        if (request_starts) {
          const std::string head{buffer, static_cast<std::size_t>(r)};
          fault = take(head.substr(0, head.find(' ')), cut_after);
          answered = 0;
          request_starts = false;
        }
        if (!write_all(upstream, buffer, static_cast<std::size_t>(r))) break;
      }
      if (p[1].revents != 0) {
        const ssize_t r = ::recv(upstream, buffer, sizeof buffer, 0);
        if (r <= 0) break;
        if (fault == tcp_fault::reset_after_request) {
          rst = true;
          break;
        }
        if (fault == tcp_fault::stall_answer) continue;  // held back until the client gives up
        std::size_t n = static_cast<std::size_t>(r);
        if (fault == tcp_fault::cut_answer) n = std::min(n, cut_after - std::min(cut_after, answered));
        if (n > 0 && !write_all(client, buffer, n)) break;
        answered += n;
        if (fault == tcp_fault::cut_answer && answered >= cut_after) break;
        request_starts = true;
      }
    }
    if (rst) reset(client);
    ::close(client);
    ::close(upstream);
  }

  std::uint16_t upstream_, port_ = 0;
  int listener_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int> faults_done_{0}, connections_seen_{0};
  std::mutex mutex_;
  tcp_fault fault_ = tcp_fault::none;
  int remaining_ = 0;
  std::string method_;
  std::size_t cut_after_ = 0;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

}  // namespace test_cloud
