// An in-memory file system for the store's crash tests. It keeps, for every file, what
// was synced (durable) apart from what was written (current), and for the directory the
// names that were synced apart from the current ones — as a disk with a page cache does.
// power_cut() throws away what was not synced (optionally keeping part of an unsynced
// append, as a torn write leaves it). arm() makes one chosen operation fail, write only
// part of its bytes, or tear and crash the "process".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "savekit/file_backend.hpp"

namespace test_support {

class fault_fs final : public savekit::file_system {
 public:
  enum class fault {
    none,
    fail,         // the operation returns an error and does nothing
    short_write,  // a write stores half its bytes, then returns an error
    crash,        // a write stores half its bytes (any other operation: nothing), then the power goes
  };

  // The operation numbered `at` (counting from 0: open, write, sync, truncate, rename,
  // sync_directory, remove) gets the fault.
  void arm(fault kind, int at) {
    armed_ = kind;
    armed_at_ = at;
  }
  int operations() const { return operations_; }
  bool crashed() const { return crashed_; }

  // Drops everything not synced. keep_unsynced: the fraction (0..1) of bytes appended to a
  // file since its last sync that reach the disk anyway.
  void power_cut(double keep_unsynced = 0) {
    names_ = durable_names_;
    for (auto& [id, node] : inodes_) {
      if (node.current.size() > node.durable.size() &&
          node.current.compare(0, node.durable.size(), node.durable) == 0) {
        auto extra =
            static_cast<std::size_t>(static_cast<double>(node.current.size() - node.durable.size()) * keep_unsynced);
        node.durable = node.current.substr(0, node.durable.size() + extra);
      }
      node.current = node.durable;
    }
    handles_.clear();
    locks_.clear();
    ++generation_;
  }

  // After a crash: the next "process" starts (operations work again, no fault armed).
  void restart() {
    crashed_ = false;
    armed_ = fault::none;
  }

  // Durable content of a file (empty if none), and a way to plant one.
  std::string durable_content(const std::string& path) const {
    auto it = durable_names_.find(path);
    return it == durable_names_.end() ? std::string{} : inodes_.at(it->second).durable;
  }
  void plant(const std::string& path, const std::string& content) {
    int id = next_inode_++;
    inodes_[id] = {content, content};
    names_[path] = durable_names_[path] = id;
  }

  // ---- savekit::file_system ----
  savekit::result<std::string> read_file(const std::string& path) override {
    if (crashed_) return dead();
    auto it = names_.find(path);
    if (it == names_.end()) return savekit::error{savekit::errc::not_found, 0, "no file " + path};
    return inodes_[it->second].current;
  }

  savekit::result<int> open(const std::string& path, open_mode mode) override {
    if (fault f = step(); f != fault::none) return injected(f);
    auto it = names_.find(path);
    int id;
    if (it == names_.end()) {
      id = next_inode_++;
      inodes_[id] = {};
      names_[path] = id;  // durable only once the directory is synced
    } else {
      id = it->second;
    }
    if (mode == open_mode::truncate) inodes_[id].current.clear();
    int handle = next_handle_++;
    handles_[handle] = id;
    return handle;
  }

  savekit::status write(int handle, const void* data, std::size_t n) override {
    if (crashed_) return dead();
    fault f = step();
    auto* node = find(handle);
    if (!node) return dead();
    const char* bytes = static_cast<const char*>(data);
    if (f == fault::fail) return injected(f);
    if (f == fault::short_write || f == fault::crash) {
      node->current.append(bytes, n / 2);  // a torn write: the first half got through
      return injected(f);
    }
    node->current.append(bytes, n);
    return {};
  }

  savekit::status sync(int handle) override {
    if (fault f = step(); f != fault::none) return injected(f);
    auto* node = find(handle);
    if (!node) return dead();
    node->durable = node->current;
    return {};
  }

  savekit::status truncate(int handle, std::uint64_t size) override {
    if (fault f = step(); f != fault::none) return injected(f);
    auto* node = find(handle);
    if (!node) return dead();
    node->current.resize(static_cast<std::size_t>(size));
    return {};
  }

  void close(int handle) override { handles_.erase(handle); }

  savekit::status rename(const std::string& from, const std::string& to) override {
    if (fault f = step(); f != fault::none) return injected(f);
    auto it = names_.find(from);
    if (it == names_.end()) return savekit::error{savekit::errc::io_error, 0, "rename: no file " + from};
    names_[to] = it->second;
    names_.erase(from);
    return {};
  }

  savekit::status sync_directory(const std::string&) override {
    if (fault f = step(); f != fault::none) return injected(f);
    durable_names_ = names_;
    return {};
  }

  savekit::status remove(const std::string& path) override {
    if (fault f = step(); f != fault::none) return injected(f);
    names_.erase(path);
    return {};
  }

  savekit::status create_directories(const std::string&) override {
    if (crashed_) return dead();
    return {};
  }

  savekit::result<std::unique_ptr<lock_token>> lock(const std::string& path) override {
    if (crashed_) return dead();
    if (!locks_.insert(path).second) return savekit::error{savekit::errc::locked, 0, "locked: " + path};
    return std::unique_ptr<lock_token>(new token(*this, path, generation_));
  }

 private:
  struct inode {
    std::string durable;
    std::string current;
  };

  class token final : public lock_token {
   public:
    token(fault_fs& fs, std::string path, int generation) : fs_(fs), path_(std::move(path)), generation_(generation) {}
    ~token() override {
      if (fs_.generation_ == generation_) fs_.locks_.erase(path_);
    }

   private:
    fault_fs& fs_;
    std::string path_;
    int generation_;
  };

  // Counts one operation and returns the fault it gets.
  fault step() {
    if (crashed_) return fault::fail;
    int number = operations_++;
    if (armed_ == fault::none || number != armed_at_) return fault::none;
    fault f = armed_;
    armed_ = fault::none;
    return f;
  }

  inode* find(int handle) {
    if (crashed_) return nullptr;
    auto it = handles_.find(handle);
    return it == handles_.end() ? nullptr : &inodes_[it->second];
  }

  void crash() {
    power_cut(0);
    crashed_ = true;
  }

  // The error an injected fault returns; a crash also cuts the power (only a write
  // leaves part of its data; any other crashed operation does not happen).
  savekit::error injected(fault f) {
    if (f == fault::crash) crash();
    return savekit::error{savekit::errc::io_error, 0, "injected fault"};
  }
  savekit::error dead() const { return savekit::error{savekit::errc::io_error, 0, "the process has crashed"}; }

  std::map<std::string, int> names_;
  std::map<std::string, int> durable_names_;
  std::map<int, inode> inodes_;
  std::map<int, int> handles_;  // handle -> inode
  std::set<std::string> locks_;
  int next_inode_ = 1;
  int next_handle_ = 3;
  int generation_ = 0;
  int operations_ = 0;
  fault armed_ = fault::none;
  int armed_at_ = -1;
  bool crashed_ = false;
};

}  // namespace test_support
