// savekit/file_backend.hpp — the desktop backend: one append-only log file per store.
//
// Each save() appends one checksummed record holding only what changed, then syncs the
// file: a commit costs one append + one fdatasync whatever the store's size. When the
// log holds more than compact_ratio times the live data, the next save() rewrites it as
// one record in a new file, syncs it, renames it over the old one and syncs the
// directory — so a crash at any instant leaves the last committed state or the one
// before it. A file with a damaged record is recovered to the newest intact commit and
// reported (prefs::recovery()), the damaged file kept beside it. The format is in
// docs/store-format.md.
//
// The path is resolved once, at open: made absolute (a later chdir changes nothing) and
// followed through symbolic links, so that a linked store is written where it really is,
// and locked as that real file — a second name for it (a symbolic or hard link) cannot
// open it at the same time. (A hard link names the same file only until the first
// compaction, which writes a new file: after it, the link keeps the old content, as a
// backup made of hard links expects.)
//
// All file access goes through savekit::file_system (savekit/file_system.hpp), so tests
// can inject faults and simulate power cuts (tests/support/fault_fs.hpp).
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
#include "savekit/file_system.hpp"

namespace savekit {

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
