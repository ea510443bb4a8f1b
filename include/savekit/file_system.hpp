// savekit/file_system.hpp — the seam between savekit and the operating system's files.
//
// The file backend of prefs (savekit/file_backend.hpp) and the slots (savekit/slots.hpp)
// make every file operation through a file_system: posix_file_system() on a disk; in the
// browser, the slots' IndexedDB mirror (src/web/indexeddb_slots.cpp) is one more; the tests'
// fault_fs (tests/support/fault_fs.hpp) injects failures, kills and power cuts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "savekit/error.hpp"

namespace savekit {

// The operating-system calls savekit's files are made with, one virtual call per system call.
class file_system {
 public:
  virtual ~file_system() = default;

  enum class open_mode {
    read,        // an existing file, for reading
    append,      // an existing file, for reading and appending
    create_new,  // a new file (errc::already_exists if the name exists), for reading and writing
  };

  struct file_info {
    bool regular = false;    // a regular file (not a folder, FIFO, device or link)
    bool directory = false;  // a folder
    std::uint64_t size = 0;
    std::uint64_t device = 0, inode = 0;  // the same pair: the same file
    std::uint64_t links = 0;              // names the file has (0: deleted while open)
    std::uint32_t permissions = 0;        // mode bits (0644)
    std::uint32_t owner = 0, group = 0;
  };

  // Opens a regular file. Never follows a symbolic link at path, never blocks on a FIFO;
  // anything but a regular file is errc::invalid_path; a missing file errc::not_found.
  virtual result<int> open(const std::string& path, open_mode mode, std::uint32_t permissions = 0644) = 0;
  // The whole content of an open file; errc::store_too_large if it holds more than max_bytes.
  virtual result<std::string> read(int handle, std::uint64_t max_bytes) = 0;
  // Up to n bytes at offset (fewer at the end of the file).
  virtual result<std::string> read_at(int handle, std::uint64_t offset, std::size_t n) = 0;
  // Writes all n bytes at the end of the file (errc::io_error if not all could be written).
  virtual status write(int handle, const void* data, std::size_t n) = 0;
  virtual status sync(int handle) = 0;  // fdatasync: data and size reach the disk
  virtual status truncate(int handle, std::uint64_t size) = 0;
  virtual void close(int handle) = 0;
  virtual result<file_info> stat(int handle) = 0;
  // What is at path, not following a final symbolic link; errc::not_found if nothing.
  virtual result<file_info> stat(const std::string& path) = 0;
  // Gives an open file the permission bits of `like`, and its owner and group where the
  // process may (so a store rewritten by another user keeps its owner).
  virtual status copy_permissions(int handle, const file_info& like) = 0;
  virtual status rename(const std::string& from, const std::string& to) = 0;  // atomic replace
  virtual status sync_directory(const std::string& directory) = 0;
  virtual status remove(const std::string& path) = 0;  // a missing file is not an error
  // Creates the folder and its missing parents; returns those it created, outermost first
  // (their parents must be synced before anything in them is durable).
  virtual result<std::vector<std::string>> create_directories(const std::string& directory) = 0;
  // The names in a folder (not "." and ".."), in no particular order.
  virtual result<std::vector<std::string>> list_directory(const std::string& directory) = 0;
  // The absolute path of the file path names, symbolic links (a final one too) resolved.
  // The file itself need not exist; its folder must (errc::not_found otherwise).
  virtual result<std::string> resolve(const std::string& path) = 0;

  // A lock held until the returned object is destroyed: exclusive (one holder) or shared
  // (any number of shared holders, no exclusive one). errc::locked if it cannot be had now.
  // With create == false a missing lock file is errc::not_found (nothing is created).
  enum class lock_mode { exclusive, shared };
  class lock_token {
   public:
    virtual ~lock_token() = default;
  };
  virtual result<std::unique_ptr<lock_token>> lock(const std::string& path, lock_mode mode, bool create) = 0;
  // Locks an open file itself (whatever its names) until the handle is closed.
  virtual status lock(int handle, lock_mode mode) = 0;

  // For file systems whose changes become durable after the call that made them returns
  // (the browser's IndexedDB): done gets ok once every change made so far is durable, or
  // the failure that undid them. Disks are durable when sync/sync_directory return: at once.
  virtual void when_durable(std::function<void(status)> done) { done(status{}); }
  // A failure that surfaced after the call that made the change had returned success, not
  // yet taken (none on disks).
  virtual std::optional<error> take_failure() { return std::nullopt; }

  // For file systems whose bytes may not be at hand yet (the browser's slots, which open on
  // the files' first bytes): a read beyond them is errc::not_loaded until fetch(path) has
  // called done with ok. Disks hold every byte: fetches() is false, and fetch calls done at once.
  virtual bool fetches() const { return false; }
  virtual void fetch(const std::string& path, std::function<void(status)> done) {
    (void)path;
    done(status{});
  }
};

// The real one: POSIX open/write/fdatasync/rename, flock on "<store>.lock" and on the store.
file_system& posix_file_system();

}  // namespace savekit
