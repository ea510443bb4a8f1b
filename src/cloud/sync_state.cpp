// The sync's files beside the slots (sync_state.hpp, with its invariants).
#include "sync_state.hpp"

#include "../crc32c.hpp"

#include <map>
#include <set>

#include <savekit/json.hpp>

#include <algorithm>
#include <chrono>
#include <random>

#include "../sha256.hpp"

namespace savekit::cloud::detail {

namespace {

constexpr std::uint64_t max_state_bytes = 64u << 20;
constexpr std::uint64_t max_entry_bytes = (std::uint64_t{1} << 30) + (1u << 20);
// A batch holds up to outbox_batch_bytes of entries, or one larger entry alone.
constexpr std::uint64_t max_outbox_file_bytes = max_entry_bytes + outbox_batch_bytes;
constexpr json_options state_json{.skip_null_members = true};

// The entry's JSON line: everything but the body.
struct entry_line {
  std::uint32_t format = 1;
  std::string slot, op, write_id;
  std::optional<std::int64_t> if_match;
  std::string meta, content;
  std::uint64_t local_generation = 0;
  std::int64_t created_us = 0;
  std::uint64_t body_bytes = 0;
  std::string body_sha256;  // entries written before body_crc32c (still read)
  std::int64_t local_saved_at_us = 0;
  std::optional<std::uint32_t> body_crc32c;  // damage on the disk, found (a hash's cost is not needed here)
};

}  // namespace

std::string sync_files::path(std::string_view file) const {
  std::string p = folder_;
  if (!p.empty() && p.back() != '/') p += '/';
  p += file;
  return p;
}

std::string sync_files::new_id() {
  std::random_device random;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t r = random();
    for (int j = 0; j < 8; ++j, r >>= 4) out += hex[r & 15];
  }
  return out;
}

status sync_files::write_whole(std::string_view file, std::string_view bytes) {
  const std::string final_path = path(file);
  const std::string temporary = final_path + ".tmp";
  (void)fs_.remove(temporary);
  result<int> handle = fs_.open(temporary, file_system::open_mode::create_new, 0600);
  if (!handle) return std::move(handle).error();
  status written = fs_.write(*handle, bytes.data(), bytes.size());
  if (written) written = fs_.sync(*handle);
  fs_.close(*handle);
  if (written) written = fs_.rename(temporary, final_path);
  if (!written) {
    (void)fs_.remove(temporary);
    return written;
  }
  return fs_.sync_directory(folder_);
}

result<std::string> sync_files::read_whole(std::string_view file, std::uint64_t max_bytes) {
  result<int> handle = fs_.open(path(file), file_system::open_mode::read);
  if (!handle) return std::move(handle).error();
  result<std::string> bytes = fs_.read(*handle, max_bytes);
  fs_.close(*handle);
  return bytes;
}

result<state_document> sync_files::load_state() {
  result<std::string> text = read_whole(state_file, max_state_bytes);
  if (!text) {
    if (text.error().code() != errc::not_found) return std::move(text).error();
    result<state_document> fresh{std::in_place};
    fresh->device_id = new_id();
    return fresh;
  }
  result<state_document> doc = from_json<state_document>(*text);
  if (!doc)
    return error{errc::corrupt_store, doc.error().offset(),
                 path(state_file) + " does not read (" + doc.error().message() +
                     "): move it away to sync this folder as a new device (every slot on both sides is then kept)"};
  if (doc->format != 1)
    return error{errc::unsupported_version, 0, path(state_file) + " was written by a newer savekit"};
  return doc;
}

status sync_files::save_state(const state_document& s) { return write_whole(state_file, to_json(s, state_json)); }

namespace {

// An outbox file: one entry or a batch of them written at once, each a JSON line and its
// body. Damaged anywhere (it cannot be: files are written whole): nullopt.
std::optional<std::vector<outbox_entry>> parse_entries(std::string_view bytes) {
  std::vector<outbox_entry> out;
  while (!bytes.empty()) {
    const std::size_t line_end = bytes.find('\n');
    if (line_end == std::string_view::npos) return std::nullopt;
    result<entry_line> line = from_json<entry_line>(bytes.substr(0, line_end));
    if (!line || line->format != 1 || (line->op != "put" && line->op != "delete") ||
        line->body_bytes > bytes.size() - line_end - 1)
      return std::nullopt;
    const std::string_view body = bytes.substr(line_end + 1, line->body_bytes);
    if (line->body_crc32c ? savekit::detail::crc32c(body.data(), body.size()) != *line->body_crc32c
                          : savekit::detail::sha256_hex(body) != line->body_sha256)
      return std::nullopt;
    outbox_entry e;
    e.format = line->format;
    e.slot = std::move(line->slot);
    e.op = std::move(line->op);
    e.write_id = std::move(line->write_id);
    e.if_match = line->if_match;
    e.meta = std::move(line->meta);
    e.content = std::move(line->content);
    e.local_generation = line->local_generation;
    e.local_saved_at_us = line->local_saved_at_us;
    e.created_us = line->created_us;
    e.body_bytes = line->body_bytes;
    e.body_sha256 = std::move(line->body_sha256);
    e.body = std::string{body};
    out.push_back(std::move(e));
    bytes.remove_prefix(line_end + 1 + body.size());
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string entries_bytes(const std::vector<const outbox_entry*>& entries) {
  std::string bytes;
  for (const outbox_entry* e : entries) {
    entry_line line{e->format,
                    e->slot,
                    e->op,
                    e->write_id,
                    e->if_match,
                    e->meta,
                    e->content,
                    e->local_generation,
                    e->created_us,
                    e->body.size(),
                    {},
                    e->local_saved_at_us,
                    savekit::detail::crc32c(e->body.data(), e->body.size())};
    bytes += to_json(line, state_json);
    bytes += '\n';
    bytes += e->body;
  }
  return bytes;
}

}  // namespace

result<std::vector<outbox_entry>> sync_files::load_outbox(std::vector<std::string>* damaged) {
  result<std::vector<std::string>> names = fs_.list_directory(folder_);
  if (!names) return std::move(names).error();
  std::sort(names->begin(), names->end());
  result<std::vector<outbox_entry>> out{std::in_place};
  std::map<std::string, std::size_t> counts;
  for (const std::string& name : *names) {
    if (!name.starts_with(outbox_prefix) || name.ends_with(".tmp")) continue;
    result<std::string> bytes = read_whole(name, max_outbox_file_bytes);
    if (!bytes) return std::move(bytes).error();
    std::optional<std::vector<outbox_entry>> entries = parse_entries(*bytes);
    if (!entries) {
      // Set aside (as the slots set a damaged generation aside): kept for a person to look
      // at, reported once, never read as an entry again.
      std::string kept = path(name);
      const std::string aside = path(std::string{damaged_prefix} + name.substr(outbox_prefix.size()));
      if (fs_.rename(kept, aside)) kept = aside;
      if (damaged) damaged->push_back(kept);
      continue;
    }
    counts[name] = entries->size();
    for (outbox_entry& e : *entries) {
      e.file = name;
      out->push_back(std::move(e));
    }
  }
  std::stable_sort(out->begin(), out->end(),
                   [](const outbox_entry& a, const outbox_entry& b) { return a.created_us < b.created_us; });
  std::lock_guard lock(entries_mutex_);
  entries_in_ = std::move(counts);
  return out;
}

status sync_files::add_entry(outbox_entry& e) {
  std::vector<outbox_entry*> one{&e};
  return add_entries(one);
}

status sync_files::add_entries(const std::vector<outbox_entry*>& entries) {
  if (entries.empty()) return {};
  const std::string file = std::string{outbox_prefix} + entries.front()->write_id;
  const std::vector<const outbox_entry*> all(entries.begin(), entries.end());
  if (status written = write_whole(file, entries_bytes(all)); !written) return written;
  for (outbox_entry* e : entries) e->file = file;
  std::lock_guard lock(entries_mutex_);
  entries_in_[file] = entries.size();
  return {};
}

status sync_files::remove_entry(const outbox_entry& e) { return remove_entries({e}); }

status sync_files::remove_entries(const std::vector<outbox_entry>& entries) {
  if (entries.empty()) return {};
  std::map<std::string, std::set<std::string>> going;  // file -> write ids
  for (const outbox_entry& e : entries)
    going[e.file.empty() ? std::string{outbox_prefix} + e.write_id : e.file].insert(e.write_id);
  status outcome;
  auto keep = [&](status s) {
    if (!s && outcome) outcome = std::move(s);
  };
  for (const auto& [file, ids] : going) {
    std::size_t held = 0;  // entries the file holds, if known
    {
      std::lock_guard lock(entries_mutex_);
      if (auto known = entries_in_.find(file); known != entries_in_.end()) held = known->second;
    }
    if (held > ids.size()) {
      // Some of the file's entries stay (unanswered): the file is written again without the rest.
      result<std::string> bytes = read_whole(file, max_outbox_file_bytes);
      std::optional<std::vector<outbox_entry>> all = bytes ? parse_entries(*bytes) : std::nullopt;
      if (!all) {
        keep(bytes ? status{error{errc::corrupt_store, 0, path(file) + " does not read"}} : status{bytes.error()});
        continue;
      }
      std::vector<const outbox_entry*> staying;
      for (const outbox_entry& e : *all)
        if (!ids.contains(e.write_id)) staying.push_back(&e);
      if (!staying.empty()) {
        keep(write_whole(file, entries_bytes(staying)));
        std::lock_guard lock(entries_mutex_);
        entries_in_[file] = staying.size();
        continue;
      }
    }
    keep(fs_.remove(path(file)));
    std::lock_guard lock(entries_mutex_);
    entries_in_.erase(file);
  }
  keep(fs_.sync_directory(folder_));
  return outcome;
}

status sync_files::hold(std::string_view id, std::string_view file_bytes, std::string& held_file) {
  held_file = std::string{held_prefix} + std::string{id};
  return write_whole(held_file, file_bytes);
}

result<std::string> sync_files::read_held(const std::string& held_file) {
  return read_whole(held_file, max_entry_bytes);
}

void sync_files::drop_held(const std::string& held_file) {
  if (!held_file.empty()) (void)fs_.remove(path(held_file));
}

}  // namespace savekit::cloud::detail
