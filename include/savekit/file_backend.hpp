// savekit/file_backend.hpp — the desktop backend: one append-only log file per store.
//
// Each save() appends one checksummed record holding only what changed, then syncs the
// file: a commit costs one append + one fdatasync whatever the store's size. When the
// log holds more than compact_ratio times the live data, the next save() rewrites it as
// one record in a new file, syncs it, renames it over the old one and syncs the
// directory — so a crash at any instant leaves the last committed state or the one
// before it. A file with a damaged record is recovered to the newest intact commit and
// reported (prefs::recovery()). The format is in docs/format.md.
//
// All file access goes through savekit::file_system, so tests can inject faults and
// simulate power cuts (tests/support/fault_fs.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "savekit/backend.hpp"
#include "savekit/error.hpp"

namespace savekit {

// The operating-system calls the file backend makes, one virtual call per syscall.
class file_system {
 public:
  virtual ~file_system() = default;

  enum class open_mode {
    append,    // create if missing, writes go to the end
    truncate,  // create if missing, empty it
  };

  // The whole content of a file; errc::not_found if it does not exist.
  virtual result<std::string> read_file(const std::string& path) = 0;
  virtual result<int> open(const std::string& path, open_mode mode) = 0;
  // Writes all n bytes (errc::io_error if not all could be written).
  virtual status write(int handle, const void* data, std::size_t n) = 0;
  virtual status sync(int handle) = 0;  // fdatasync: data and size reach the disk
  virtual status truncate(int handle, std::uint64_t size) = 0;
  virtual void close(int handle) = 0;
  virtual status rename(const std::string& from, const std::string& to) = 0;  // atomic replace
  virtual status sync_directory(const std::string& directory) = 0;
  virtual status remove(const std::string& path) = 0;
  virtual status create_directories(const std::string& directory) = 0;

  // An exclusive, non-blocking lock held until the returned object is destroyed;
  // errc::locked if another holder (process or open store) has it.
  class lock_token {
   public:
    virtual ~lock_token() = default;
  };
  virtual result<std::unique_ptr<lock_token>> lock(const std::string& path) = 0;
};

// The real one: POSIX open/write/fdatasync/rename, flock on "<store>.lock".
file_system& posix_file_system();

struct file_backend_options {
  // Rewrite the log when it exceeds compact_ratio x the live data (and compact_min_bytes).
  double compact_ratio = 2.0;
  std::uint64_t compact_min_bytes = 64 * 1024;
  // Open without changing anything: no file is created, a damaged file is not repaired
  // (what was intact is loaded and reported), and commits fail. Still takes the lock.
  bool read_only = false;
};

// What a store file holds, checked without opening it as a store (and without the lock).
struct store_check {
  bool header_ok = false;  // magic, version and header checksum
  std::uint32_t version = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t intact_bytes = 0;  // header and intact records
  std::uint64_t commits = 0;       // intact records
  std::uint64_t entries = 0;       // keys in the newest intact state
  bool torn_tail = false;          // an interrupted append at the end: opening cuts it off
  bool damaged = false;            // a damaged record with data after it: opening keeps a copy, rewrites
  std::string problem;             // what was wrong, if anything
};

// errc::not_found if there is no file; a result with header_ok == false if nothing is intact.
result<store_check> check_store_file(const std::string& path, file_system& fs = posix_file_system());

// A backend over the store file at path (created on first open, with its directory).
std::unique_ptr<backend> make_file_backend(std::string path, file_system& fs = posix_file_system(),
                                           file_backend_options options = {});

}  // namespace savekit
