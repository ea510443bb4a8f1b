// savekit/file_backend.hpp — the desktop backend: one append-only log file per store.
//
// Each save() appends one checksummed record holding only what changed, then syncs the
// file: a commit costs one append + one fdatasync whatever the store's size. When the
// log holds more than compact_ratio times the live data, the next save() rewrites it as
// one record in a new file, syncs it, renames it over the old one and syncs the
// directory — so a crash at any instant leaves the last committed state or the one
// before it. A file with a damaged record is recovered to the newest intact commit and
// reported (prefs::recovery()), the damaged file kept beside it. The format is in
// docs/format.md.
//
// The path is resolved once, at open: made absolute (a later chdir changes nothing) and
// followed through symbolic links, so that a linked store is written where it really is,
// and locked as that real file — a second name for it (a symbolic or hard link) cannot
// open it at the same time. (A hard link names the same file only until the first
// compaction, which writes a new file: after it, the link keeps the old content, as a
// backup made of hard links expects.)
//
// All file access goes through savekit::file_system, so tests can inject faults and
// simulate power cuts (tests/support/fault_fs.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "savekit/backend.hpp"
#include "savekit/error.hpp"
#include "savekit/file_backend_options.hpp"

namespace savekit {

// The operating-system calls the file backend makes, one virtual call per system call.
class file_system {
 public:
  virtual ~file_system() = default;

  enum class open_mode {
    read,        // an existing file, for reading
    append,      // an existing file, for reading and appending
    create_new,  // a new file (errc::io_error if the name exists), for reading and writing
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
};

// The real one: POSIX open/write/fdatasync/rename, flock on "<store>.lock" and on the store.
file_system& posix_file_system();

// What a store file holds, checked without opening it as a store (and without repairing).
struct store_check {
  bool header_ok = false;      // magic, version and header checksum
  bool newer_version = false;  // written by a newer savekit: nothing was judged
  std::uint32_t version = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t intact_bytes = 0;                 // header and intact records
  std::uint64_t commits = 0;                      // intact records
  std::uint64_t entries = 0;                      // keys in the newest intact state
  bool torn_tail = false;                         // an interrupted append at the end: opening cuts it off
  bool damaged = false;                           // damage: opening keeps a copy and rewrites the store
  std::uint64_t intact_records_after_damage = 0;  // kept only in that copy
  std::string problem;                            // what was wrong, if anything
};

// errc::not_found if there is no file; errc::locked if a process has the store open for
// writing (what it holds may be in the middle of a commit); a result with header_ok ==
// false if nothing is intact. Takes a shared lock while reading, and creates nothing.
result<store_check> check_store_file(const std::string& path, file_system& fs = posix_file_system(),
                                     std::uint64_t max_store_bytes = file_backend_options{}.max_store_bytes);

// A backend over the store file at path (created on first open, with its folder).
std::unique_ptr<backend> make_file_backend(std::string path, file_system& fs = posix_file_system(),
                                           file_backend_options options = {});

}  // namespace savekit
