// The file backend: an append-only log of checksummed commit records (docs/format.md).
#include "savekit/file_backend.hpp"

#include <string>

#include "store_format.hpp"

namespace savekit {
namespace {

std::string parent_directory(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

class file_backend final : public backend {
 public:
  file_backend(std::string path, file_system& fs, file_backend_options options)
      : path_(std::move(path)), directory_(parent_directory(path_)), fs_(fs), options_(options) {}

  ~file_backend() override {
    if (handle_ >= 0) fs_.close(handle_);
  }

  std::string describe() const override { return "file " + path_; }

  result<loaded_state> load() override {
    if (options_.read_only) {
      // Nothing may be created for a store that does not exist.
      if (auto probe = fs_.read_file(path_); !probe) return std::move(probe).error();
    } else if (status made = fs_.create_directories(directory_); !made) {
      return std::move(made).error();
    }
    auto lock = fs_.lock(path_ + ".lock");
    if (!lock) return std::move(lock).error();
    lock_ = std::move(*lock);

    loaded_state loaded;
    auto content = fs_.read_file(path_);
    if (!content) {
      if (content.error().code() != errc::not_found || options_.read_only) return std::move(content).error();
      if (status created = write_snapshot_file(); !created) return std::move(created).error();
    } else {
      auto parsed = detail::parse_store(*content);
      if (!parsed) {
        error e = std::move(parsed).error();
        return error{e.code(), e.offset(), path_ + ": " + e.message()};
      }
      state_ = std::move(parsed->state);
      sequence_ = parsed->last_sequence;
      loaded.report.commits_loaded = parsed->commits;
      file_size_ = parsed->valid_end;
      if (parsed->torn_tail || parsed->damaged) {
        recovery_report& report = loaded.report;
        report.recovered = true;
        report.bytes_discarded = content->size() - parsed->valid_end;
        report.detail = parsed->problem;
        if (options_.read_only) {
          // Report only; the file stays as it is.
        } else if (parsed->damaged) {
          // Keep the damaged file for inspection, then rewrite the store from what was intact.
          report.damaged_copy = path_ + ".damaged";
          bool renamed = false;
          if (status kept = write_whole_file(report.damaged_copy, *content, renamed); !kept)
            return std::move(kept).error();
          if (status rewritten = write_snapshot_file(); !rewritten) return std::move(rewritten).error();
        } else {
          // An interrupted append: cut it off so that the next record follows an intact one.
          needs_truncate_ = true;
        }
      }
    }
    recount_live_bytes();
    if (options_.read_only) {
      loaded.entries = state_;
      return loaded;
    }
    if (handle_ < 0) {
      auto opened = fs_.open(path_, file_system::open_mode::append);
      if (!opened) return std::move(opened).error();
      handle_ = *opened;
    }
    if (needs_truncate_) {
      if (status cut = cut_tail(); !cut) return std::move(cut).error();
    }
    loaded.entries = state_;
    return loaded;
  }

  void commit(const change_set& changes, std::function<void(status)> done) override {
    if (options_.read_only) return done(error{errc::io_error, 0, path_ + " was opened read-only"});
    if (handle_ < 0) {  // a compaction renamed the file but could not reopen it
      auto opened = fs_.open(path_, file_system::open_mode::append);
      if (!opened) return done(std::move(opened).error());
      handle_ = *opened;
    }
    if (directory_sync_pending_) {
      // A compaction renamed the file but could not sync the directory: until it can,
      // the new name (and so anything appended to it) may not survive a power cut.
      if (status synced = fs_.sync_directory(directory_); !synced) return done(std::move(synced));
      directory_sync_pending_ = false;
    }
    if (needs_truncate_) {
      if (status cut = cut_tail(); !cut) return done(std::move(cut));
    }
    record_.clear();
    detail::encode_commit_record(record_, sequence_ + 1, changes);
    if (status written = fs_.write(handle_, record_.data(), record_.size()); !written) {
      needs_truncate_ = true;  // part of the record may be in the file
      return done(std::move(written));
    }
    if (status synced = fs_.sync(handle_); !synced) {
      needs_truncate_ = true;
      return done(std::move(synced));
    }
    // Durable: this is the commit point.
    ++sequence_;
    file_size_ += record_.size();
    apply(changes);
    if (file_size_ > options_.compact_min_bytes &&
        static_cast<double>(file_size_) > options_.compact_ratio * static_cast<double>(live_bytes_)) {
      (void)compact();  // a failed compaction leaves the (intact) log as it was; retried next commit
    }
    done({});
  }

  // For tests and tools: rewrite the log now.
  status compact() { return write_snapshot_file(); }

 private:
  void apply(const change_set& changes) {
    if (changes.clear_all) state_.clear();
    for (const change& c : changes.changes) {
      auto it = state_.find(c.key);
      if (c.erase) {
        if (it != state_.end()) {
          live_bytes_ -= detail::encoded_entry_size(it->first, it->second.bytes);
          state_.erase(it);
        }
        continue;
      }
      if (it == state_.end()) {
        it = state_.emplace(std::string{c.key}, stored_value{}).first;
      } else {
        live_bytes_ -= detail::encoded_entry_size(it->first, it->second.bytes);
      }
      it->second.type = c.type;
      it->second.bytes.assign(c.value);
      live_bytes_ += detail::encoded_entry_size(it->first, it->second.bytes);
    }
    if (changes.clear_all) recount_live_bytes();
  }

  void recount_live_bytes() {
    live_bytes_ = detail::store_header_size + detail::record_header_size + 16;
    for (const auto& [key, value] : state_) live_bytes_ += detail::encoded_entry_size(key, value.bytes);
  }

  status cut_tail() {
    if (status cut = fs_.truncate(handle_, file_size_); !cut) return cut;
    if (status synced = fs_.sync(handle_); !synced) return synced;
    needs_truncate_ = false;
    return {};
  }

  // Writes path with content and syncs it, through a temporary file and a rename.
  // renamed tells whether path now names the new file (even if a later step failed).
  status write_whole_file(const std::string& path, const std::string& content, bool& renamed) {
    renamed = false;
    std::string temporary = path + ".tmp";
    auto opened = fs_.open(temporary, file_system::open_mode::truncate);
    if (!opened) return std::move(opened).error();
    status written = fs_.write(*opened, content.data(), content.size());
    if (written) written = fs_.sync(*opened);
    fs_.close(*opened);
    if (written) written = fs_.rename(temporary, path);
    if (!written) {
      (void)fs_.remove(temporary);
      return written;
    }
    renamed = true;
    // The rename is durable once the directory is synced.
    status synced = fs_.sync_directory(directory_);
    directory_sync_pending_ = !synced;
    return synced;
  }

  // Replaces the store with a header and one record holding the committed state.
  status write_snapshot_file() {
    std::string content = detail::encode_store_header();
    detail::encode_snapshot_record(content, sequence_, state_);
    bool renamed = false;
    status written = write_whole_file(path_, content, renamed);
    if (!renamed) return written;
    // The old handle points at the replaced file: reopen, whatever came after the rename.
    if (handle_ >= 0) fs_.close(handle_);
    handle_ = -1;
    auto opened = fs_.open(path_, file_system::open_mode::append);
    if (!opened) return std::move(opened).error();
    handle_ = *opened;
    file_size_ = content.size();
    needs_truncate_ = false;
    return written;
  }

  std::string path_;
  std::string directory_;
  file_system& fs_;
  file_backend_options options_;
  std::unique_ptr<file_system::lock_token> lock_;
  int handle_ = -1;
  committed_state state_;  // the committed state (compaction writes it)
  std::uint64_t sequence_ = 0;
  std::uint64_t file_size_ = 0;   // bytes up to the end of the last committed record
  std::uint64_t live_bytes_ = 0;  // what a compacted file would take
  bool needs_truncate_ = false;
  bool directory_sync_pending_ = false;
  std::string record_;  // reused encoding buffer
};

}  // namespace

result<store_check> check_store_file(const std::string& path, file_system& fs) {
  auto content = fs.read_file(path);
  if (!content) return std::move(content).error();
  store_check check;
  check.file_bytes = content->size();
  auto parsed = detail::parse_store(*content);
  if (!parsed) {
    check.problem = parsed.error().message();
    if (parsed.error().code() == errc::unsupported_version) check.version = detail::store_format_version + 1;
    return check;
  }
  check.header_ok = true;
  check.version = detail::store_format_version;
  check.intact_bytes = parsed->valid_end;
  check.commits = parsed->commits;
  check.entries = parsed->state.size();
  check.torn_tail = parsed->torn_tail;
  check.damaged = parsed->damaged;
  check.problem = parsed->problem;
  return check;
}

std::unique_ptr<backend> make_file_backend(std::string path, file_system& fs, file_backend_options options) {
  return std::make_unique<file_backend>(std::move(path), fs, options);
}

}  // namespace savekit
