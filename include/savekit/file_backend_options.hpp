// savekit/file_backend_options.hpp — how a store file is kept (savekit::prefs::open(path,
// options)). The file backend itself, and the file-system seam it runs on, are in
// savekit/file_backend.hpp; a store's user needs only these options.
#pragma once

#include <cstdint>

namespace savekit {

struct file_backend_options {
  // Rewrite the log when it exceeds compact_ratio x the live data (and compact_min_bytes).
  double compact_ratio = 2.0;
  std::uint64_t compact_min_bytes = 64 * 1024;
  // The largest store file: a larger one is refused at open, and a commit that would
  // make the file larger (even after compaction) fails with errc::store_too_large. At
  // most 4 GiB - 1 (a record's length is 32 bits).
  std::uint64_t max_store_bytes = std::uint64_t{1} << 30;  // 1 GiB
  // Create the store (and its folder) when there is none; false: errc::not_found instead.
  bool create_if_missing = true;
  // Open without changing anything: no file or folder is created (not even the lock file),
  // a damaged file is not repaired (what was intact is loaded and reported), and commits
  // fail. A shared lock keeps out writers while the store is open, when the lock file exists.
  bool read_only = false;
};

}  // namespace savekit
