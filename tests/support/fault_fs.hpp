// An in-memory file system for the store's crash tests. It keeps, for every file, what
// was synced (durable) apart from what was written (current), and for every folder the
// names in it that were synced apart from the current ones — as a disk with a page cache
// does. A new folder is itself a name in its parent: it (and all in it) survives a power
// cut only once its parent is synced. power_cut() throws away what was not synced
// (optionally keeping part of an unsynced append, as a torn write leaves it). arm()
// makes one chosen operation fail, write only part of its bytes, or tear and crash the
// "process". The working folder is "/".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "savekit/file_backend.hpp"

namespace test_support {

class fault_fs final : public savekit::file_system {
 public:
  enum class fault {
    none,
    fail,         // the operation returns an error and does nothing
    short_write,  // a write stores half its bytes, then returns an error
    crash,        // a write stores half its bytes (any other operation: nothing), then the power goes
    kill,         // the same, but only the process dies: everything done before stays (no power cut)
  };

  // The operation numbered `at` (counting from 0: open, write, sync, truncate, rename,
  // sync_directory, remove, create_directories) gets the fault.
  void arm(fault kind, int at) {
    armed_ = kind;
    armed_at_ = at;
  }
  // Every creation of a file whose name ends with suffix fails (an unwritable folder, say).
  void fail_creating(std::string suffix) { fail_creating_ = std::move(suffix); }
  int operations() const { return operations_; }
  bool crashed() const { return crashed_; }

  // Drops everything not synced. keep_unsynced: the fraction (0..1) of bytes appended to a
  // file since its last sync that reach the disk anyway.
  void power_cut(double keep_unsynced = 0) {
    std::set<std::string> dirs{"/"};
    for (const std::string& d : durable_dirs_)
      if (reachable(d, durable_dirs_)) dirs.insert(d);
    dirs_ = durable_dirs_ = dirs;
    std::map<std::string, int> names;
    for (const auto& [path, id] : durable_names_)
      if (dirs_.count(parent_of(path))) names[path] = id;
    names_ = durable_names_ = names;
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
    inode_locks_.clear();
    handle_locks_.clear();
    ++generation_;
  }

  // After a crash: the next "process" starts (operations work again, no fault armed).
  void restart() {
    crashed_ = false;
    armed_ = fault::none;
  }

  // Durable content of a file (empty if none), and a way to plant one (its folders too).
  std::string durable_content(const std::string& path) const {
    auto it = durable_names_.find(path);
    return it == durable_names_.end() ? std::string{} : inodes_.at(it->second).durable;
  }
  bool exists(const std::string& path) const { return names_.count(path) != 0; }
  // Another program rewrites a file in place (same inode, as cp over it does), durably.
  void overwrite_in_place(const std::string& path, const std::string& content) {
    inode& node = inodes_.at(names_.at(path));
    node.current = node.durable = content;
  }
  void plant(const std::string& path, const std::string& content) {
    for (std::string d = parent_of(path); d != "/"; d = parent_of(d)) dirs_.insert(d), durable_dirs_.insert(d);
    int id = next_inode_++;
    inodes_[id] = {content, content, 0644};
    names_[path] = durable_names_[path] = id;
  }

  // A file system that does not keep the order of its folder changes (FAT on an SD card):
  // a removal lasts at once, a rename or a new name only once its folder is synced.
  bool removals_outrun_renames = false;

  // Runs once, at the next open(), before it (another program acting between a reader's
  // listing and its reading, say).
  std::function<void(const std::string& path)> before_next_open;

  // ---- savekit::file_system ----
  savekit::result<int> open(const std::string& path, open_mode mode, std::uint32_t permissions) override {
    if (before_next_open) std::exchange(before_next_open, nullptr)(path);
    if (fault f = step(); f != fault::none) return injected(f);
    auto it = names_.find(path);
    int id;
    if (mode == open_mode::create_new) {
      if (!fail_creating_.empty() && path.size() >= fail_creating_.size() &&
          path.compare(path.size() - fail_creating_.size(), fail_creating_.size(), fail_creating_) == 0)
        return savekit::error{savekit::errc::io_error, 0, "cannot create " + path};
      if (it != names_.end()) return savekit::error{savekit::errc::already_exists, 0, "file exists: " + path};
      if (!dirs_.count(parent_of(path))) return not_found(path);
      id = next_inode_++;
      inodes_[id] = {{}, {}, permissions};
      names_[path] = id;  // durable only once the folder is synced
    } else {
      if (it == names_.end()) return not_found(path);
      id = it->second;
    }
    int handle = next_handle_++;
    handles_[handle] = id;
    return handle;
  }

  savekit::result<std::string> read(int handle, std::uint64_t max_bytes) override {
    auto* node = find(handle);
    if (!node) return dead();
    if (node->current.size() > max_bytes) return savekit::error{savekit::errc::store_too_large, 0, "too large"};
    return node->current;
  }

  savekit::result<std::string> read_at(int handle, std::uint64_t offset, std::size_t n) override {
    auto* node = find(handle);
    if (!node) return dead();
    if (offset >= node->current.size()) return std::string{};
    return node->current.substr(static_cast<std::size_t>(offset), n);
  }

  savekit::status write(int handle, const void* data, std::size_t n) override {
    if (crashed_) return dead();
    fault f = step();
    auto* node = find(handle);
    if (!node) return dead();
    const char* bytes = static_cast<const char*>(data);
    if (f == fault::fail) return injected(f);
    if (f == fault::short_write || f == fault::crash || f == fault::kill) {
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

  void close(int handle) override {
    auto it = handles_.find(handle);
    if (it == handles_.end()) return;
    if (auto lock = handle_locks_.find(handle); lock != handle_locks_.end()) {
      release(inode_locks_, std::to_string(lock->second));
      handle_locks_.erase(lock);
    }
    handles_.erase(it);
  }

  savekit::result<file_info> stat(int handle) override {
    if (crashed_) return dead();
    auto it = handles_.find(handle);
    if (it == handles_.end()) return dead();
    return info_of(it->second);
  }

  savekit::result<file_info> stat(const std::string& path) override {
    if (crashed_) return dead();
    if (auto it = names_.find(path); it != names_.end()) return info_of(it->second);
    if (dirs_.count(path)) {
      file_info info;
      info.directory = true;
      return info;
    }
    return not_found(path);
  }

  savekit::status copy_permissions(int handle, const file_info& like) override {
    auto it = handles_.find(handle);
    if (crashed_ || it == handles_.end()) return dead();
    inodes_[it->second].permissions = like.permissions;
    return {};
  }

  savekit::status rename(const std::string& from, const std::string& to) override {
    if (fault f = step(); f != fault::none) return injected(f);
    auto it = names_.find(from);
    if (it == names_.end()) return savekit::error{savekit::errc::io_error, 0, "rename: no file " + from};
    names_[to] = it->second;
    names_.erase(from);
    return {};
  }

  // Makes the current names in this folder (files and folders) the durable ones.
  savekit::status sync_directory(const std::string& directory) override {
    if (fault f = step(); f != fault::none) return injected(f);
    std::erase_if(durable_names_, [&](const auto& entry) { return parent_of(entry.first) == directory; });
    for (const auto& [path, id] : names_)
      if (parent_of(path) == directory) durable_names_[path] = id;
    std::erase_if(durable_dirs_, [&](const std::string& d) { return d != "/" && parent_of(d) == directory; });
    for (const std::string& d : dirs_)
      if (d != "/" && parent_of(d) == directory) durable_dirs_.insert(d);
    return {};
  }

  savekit::status remove(const std::string& path) override {
    if (fault f = step(); f != fault::none) return injected(f);
    names_.erase(path);
    if (removals_outrun_renames) durable_names_.erase(path);
    return {};
  }

  savekit::result<std::vector<std::string>> create_directories(const std::string& directory) override {
    if (fault f = step(); f != fault::none) return injected(f);
    std::vector<std::string> missing;
    for (std::string d = absolute(directory); d != "/" && !dirs_.count(d); d = parent_of(d)) missing.push_back(d);
    std::vector<std::string> created(missing.rbegin(), missing.rend());
    for (const std::string& d : created) {
      if (names_.count(d)) return savekit::error{savekit::errc::invalid_path, 0, d + " is not a folder"};
      dirs_.insert(d);  // durable only once its parent is synced
    }
    return created;
  }

  savekit::result<std::vector<std::string>> list_directory(const std::string& directory) override {
    if (crashed_) return dead();
    std::string folder = absolute(directory);
    if (!dirs_.count(folder)) return not_found(folder);
    std::vector<std::string> names;
    for (const auto& [path, id] : names_)
      if (parent_of(path) == folder) names.push_back(path.substr(folder == "/" ? 1 : folder.size() + 1));
    for (const std::string& d : dirs_)
      if (d != "/" && parent_of(d) == folder) names.push_back(d.substr(folder == "/" ? 1 : folder.size() + 1));
    return names;
  }
  savekit::result<std::string> resolve(const std::string& path) override {
    if (crashed_) return dead();
    std::string full = absolute(path);
    if (!dirs_.count(parent_of(full))) return not_found(parent_of(full));
    return full;
  }

  savekit::result<std::unique_ptr<lock_token>> lock(const std::string& path, lock_mode mode, bool create) override {
    if (crashed_) return dead();
    if (!create && !lock_files_.count(path)) return not_found(path);
    lock_files_.insert(path);
    if (!acquire(locks_, path, mode)) return savekit::error{savekit::errc::locked, 0, "locked: " + path};
    return std::unique_ptr<lock_token>(new token(*this, path, generation_));
  }

  savekit::status lock(int handle, lock_mode mode) override {
    auto it = handles_.find(handle);
    if (crashed_ || it == handles_.end()) return dead();
    if (!acquire(inode_locks_, std::to_string(it->second), mode))
      return savekit::error{savekit::errc::locked, 0, "the file is locked"};
    handle_locks_[handle] = it->second;
    return {};
  }

 private:
  struct inode {
    std::string durable;
    std::string current;
    std::uint32_t permissions = 0644;
  };
  struct held_lock {
    bool exclusive = false;
    int holders = 0;
  };

  class token final : public lock_token {
   public:
    token(fault_fs& fs, std::string path, int generation) : fs_(fs), path_(std::move(path)), generation_(generation) {}
    ~token() override {
      if (fs_.generation_ == generation_) release(fs_.locks_, path_);
    }

   private:
    fault_fs& fs_;
    std::string path_;
    int generation_;
  };

  static bool acquire(std::map<std::string, held_lock>& table, const std::string& key, lock_mode mode) {
    held_lock& held = table[key];
    bool exclusive = mode == lock_mode::exclusive;
    if (held.holders > 0 && (held.exclusive || exclusive)) return false;
    held.exclusive = exclusive;
    ++held.holders;
    return true;
  }
  static void release(std::map<std::string, held_lock>& table, const std::string& key) {
    auto it = table.find(key);
    if (it != table.end() && --it->second.holders <= 0) table.erase(it);
  }

  static std::string parent_of(const std::string& path) {
    auto slash = path.find_last_of('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  static std::string absolute(const std::string& path) { return path.empty() || path[0] != '/' ? "/" + path : path; }
  // A folder survives when every folder above it is durable.
  static bool reachable(const std::string& dir, const std::set<std::string>& durable) {
    for (std::string d = parent_of(dir); d != "/"; d = parent_of(d))
      if (!durable.count(d)) return false;
    return true;
  }

  file_info info_of(int id) const {
    file_info info;
    info.regular = true;
    info.size = inodes_.at(id).current.size();
    info.device = 1;
    info.inode = static_cast<std::uint64_t>(id);
    for (const auto& [path, named] : names_) info.links += named == id ? 1 : 0;
    info.permissions = inodes_.at(id).permissions;
    return info;
  }

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
    if (f == fault::kill) crashed_ = true;
    return savekit::error{savekit::errc::io_error, 0, "injected fault"};
  }
  savekit::error dead() const { return savekit::error{savekit::errc::io_error, 0, "the process has crashed"}; }
  static savekit::error not_found(const std::string& path) {
    return savekit::error{savekit::errc::not_found, 0, "no file " + path};
  }

  std::map<std::string, int> names_;
  std::map<std::string, int> durable_names_;
  std::set<std::string> dirs_{"/"};
  std::set<std::string> durable_dirs_{"/"};
  std::map<int, inode> inodes_;
  std::map<int, int> handles_;  // handle -> inode
  std::set<std::string> lock_files_;
  std::map<std::string, held_lock> locks_;
  std::map<std::string, held_lock> inode_locks_;
  std::map<int, int> handle_locks_;  // handle -> inode it locks
  int next_inode_ = 1;
  int next_handle_ = 3;
  int generation_ = 0;
  int operations_ = 0;
  fault armed_ = fault::none;
  int armed_at_ = -1;
  std::string fail_creating_;
  bool crashed_ = false;
};

}  // namespace test_support
