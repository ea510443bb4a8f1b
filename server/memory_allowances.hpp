// What bodies savekit-server holds in memory at once (http_options::max_inflight_bytes and
// max_player_inflight_bytes): leases taken for a request's or an answer's body before it is
// read or sent, and given back when it is done. A request that cannot take its lease is
// refused (503 or 429, with Retry-After) before a byte of its body is read.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace savekit::server {

// Bytes of bodies held at once (http_options::max_inflight_bytes), taken for a request or
// an answer and given back when it is done.
class body_budget {
 public:
  explicit body_budget(std::uint64_t total) : left_(static_cast<std::int64_t>(total)) {}
  class lease {
   public:
    lease() = default;
    lease(body_budget* owner, std::int64_t n) : owner_(owner), n_(n) {}
    lease(lease&& o) noexcept : owner_(std::exchange(o.owner_, nullptr)), n_(o.n_) {}
    lease& operator=(lease&& o) noexcept {
      release();
      owner_ = std::exchange(o.owner_, nullptr);
      n_ = o.n_;
      return *this;
    }
    ~lease() { release(); }
    void release() {
      if (owner_) owner_->left_.fetch_add(n_);
      owner_ = nullptr;
    }
    explicit operator bool() const { return owner_ != nullptr || n_ == 0; }

   private:
    body_budget* owner_ = nullptr;
    std::int64_t n_ = 0;
  };
  lease take(std::uint64_t bytes) {
    const auto n = static_cast<std::int64_t>(bytes);
    if (n == 0) return lease(nullptr, 0);
    if (left_.fetch_sub(n) < n) {
      left_.fetch_add(n);
      return lease(nullptr, -1);  // refused
    }
    return lease(this, n);
  }

 private:
  std::atomic<std::int64_t> left_;
};

// Bytes of bodies each player's requests hold (http_options::max_player_inflight_bytes).
class player_shares {
 public:
  explicit player_shares(std::uint64_t limit) : limit_(limit) {}
  class lease {
   public:
    lease() = default;
    lease(player_shares* owner, std::string player, std::uint64_t n)
        : owner_(owner), player_(std::move(player)), n_(n) {}
    lease(lease&& o) noexcept : owner_(std::exchange(o.owner_, nullptr)), player_(std::move(o.player_)), n_(o.n_) {}
    lease& operator=(lease&& o) noexcept {
      release();
      owner_ = std::exchange(o.owner_, nullptr);
      player_ = std::move(o.player_);
      n_ = o.n_;
      return *this;
    }
    ~lease() { release(); }
    void release() {
      if (owner_) owner_->give_back(player_, n_);
      owner_ = nullptr;
    }

   private:
    player_shares* owner_ = nullptr;
    std::string player_;
    std::uint64_t n_ = 0;
  };
  // nullopt past the player's share (a player holding nothing may always take one body).
  std::optional<lease> take(const std::string& player, std::uint64_t bytes) {
    if (bytes == 0 || player.empty()) return lease{};
    std::lock_guard lock(mutex_);
    auto& held = held_[player];
    if (held != 0 && held + bytes > limit_) return std::nullopt;
    held += bytes;
    return lease(this, player, bytes);
  }

 private:
  void give_back(const std::string& player, std::uint64_t n) {
    std::lock_guard lock(mutex_);
    auto it = held_.find(player);
    if (it != held_.end() && (it->second -= n) == 0) held_.erase(it);
  }
  std::uint64_t limit_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::uint64_t> held_;
};

}  // namespace savekit::server
