// Reading a slots folder: scanning its files, reading and checking generations, the one
// walk over a slot's generations, finding the newest intact one. Invariants: slot_folder.hpp.
#include "slot_folder.hpp"

#include <algorithm>
#include <utility>

namespace savekit::detail {

std::string quoted(std::string_view name) { return "slot '" + std::string{name} + "'"; }

// A stored time as a time_point, clamped to what the clock can represent (nanoseconds on
// Linux: ±292 years around 1970) instead of overflowing on a file's arbitrary value.
std::chrono::system_clock::time_point time_of(std::int64_t us) {
  using clock_duration = std::chrono::system_clock::duration;
  constexpr auto limit = std::chrono::duration_cast<std::chrono::microseconds>(clock_duration::max()).count();
  us = std::clamp<std::int64_t>(us, -limit, limit);
  return std::chrono::system_clock::time_point{
      std::chrono::duration_cast<clock_duration>(std::chrono::microseconds{us})};
}

namespace {
// Everything but the metadata.
generation_info header_info_of(const inspected& g) {
  generation_info info;
  info.generation = g.header.generation;
  info.saved_at = time_of(g.header.saved_at_us);
  info.schema_version = g.header.schema_version;
  info.encoding = g.header.encoding;
  info.bytes = g.header.payload_bytes;
  info.thumbnail_bytes = g.header.thumbnail_bytes;
  info.restored_from = g.header.restored_from;
  info.sealed = g.sealed();
  return info;
}
}  // namespace

generation_info info_of(const inspected& g) {
  generation_info info = header_info_of(g);
  info.meta = g.meta;
  return info;
}

generation_info info_of(inspected&& g) {
  generation_info info = header_info_of(g);
  info.meta = std::move(g.meta);
  return info;
}

generation_info damaged_info(std::uint64_t generation, std::string problem) {
  generation_info info;
  info.generation = generation;
  info.damaged = true;
  info.problem = std::move(problem);
  info.problem_code = errc::damaged;
  return info;
}

std::uint64_t slot_files::highest() const {
  std::uint64_t h = 0;
  for (const auto* list : {&generations, &damaged, &temporary})
    if (!list->empty()) h = std::max(h, list->front());
  return h;
}

std::uint64_t slot_files::damaged_newer_than(std::uint64_t generation) const {
  return static_cast<std::uint64_t>(
      std::count_if(damaged.begin(), damaged.end(), [&](std::uint64_t g) { return g > generation; }));
}

std::string slot_folder::path_of(std::string_view base, std::uint64_t generation, slot_file_kind kind) const {
  std::string path;
  path.reserve(folder.size() + 1 + base.size() + 32);
  path += folder;
  path += '/';
  append_slot_file_name(path, base, generation, kind);
  return path;
}

error slot_folder::read_only_error() const {
  return error{errc::io_error, 0, folder + " was opened read-only: nothing is written"};
}

result<std::map<std::string, slot_files>> slot_folder::scan() {
  result<std::vector<std::string>> names = fs->list_directory(folder);
  if (!names) return std::move(names).error();
  std::map<std::string, slot_files> slots;
  std::string base;
  for (const std::string& file : *names) {
    std::optional<slot_file_name_parts> parsed = split_slot_file_name(file);
    if (!parsed) continue;
    base.assign(parsed->base);
    auto it = slots.find(base);
    if (it == slots.end()) {  // a base is checked once, not once per file (a parse_slot_file_name)
      std::optional<std::string> name;
      if (base.find('~') == std::string::npos && !(name = canonical_slot_name_of_base(base))) continue;
      it = slots.emplace(base, slot_files{}).first;
      if (name) it->second.name = std::move(*name);
      it->second.generations.reserve(4);  // (keep_generations is 3 by default, and a write makes one more)
    }
    slot_files& files = it->second;
    switch (parsed->kind) {
      case slot_file_kind::generation:
        files.generations.push_back(parsed->generation);
        break;
      case slot_file_kind::damaged:
        files.damaged.push_back(parsed->generation);
        break;
      case slot_file_kind::temporary:
        files.temporary.push_back(parsed->generation);
        break;
    }
  }
  for (auto& [base, files] : slots)
    for (auto* list : {&files.generations, &files.damaged, &files.temporary})
      std::sort(list->begin(), list->end(), std::greater<>{});
  return slots;
}

result<slot_files> slot_folder::scan_slot(std::string_view name, const std::string& base) {
  result<std::map<std::string, slot_files>> all = scan();
  if (!all) return std::move(all).error();
  auto it = all->find(base);
  if (it == all->end()) return slot_files{};
  return own_files(name, base, std::move(it->second));
}

slot_files slot_folder::own_files(std::string_view name, const std::string& base, slot_files files) {
  if (base.find('~') != std::string::npos) {  // a hashed base (invariant 5)
    // A file whose header names another slot is that slot's: never read, pruned, removed or
    // moved as this one's. One whose header cannot be read may be either's, and stays in.
    auto mine = [&](const std::vector<std::uint64_t>& numbers, slot_file_kind kind) {
      std::vector<std::uint64_t> kept;
      for (std::uint64_t g : numbers) {
        result<inspected> r = inspect(base, g, sections::head, name, kind);
        if (!r || !r->other_name) kept.push_back(g);
      }
      return kept;
    };
    files.generations = mine(files.generations, slot_file_kind::generation);
    files.damaged = mine(files.damaged, slot_file_kind::damaged);
  }
  return files;
}

result<inspected> slot_folder::inspect(const std::string& base, std::uint64_t generation, sections asked,
                                       std::string_view expected_name, slot_file_kind kind) {
  const std::string path = path_of(base, generation, kind);
  result<int> handle = fs->open(path, file_system::open_mode::read);
  if (!handle) return std::move(handle).error();
  struct closer {
    file_system* fs;
    int handle;
    ~closer() { fs->close(handle); }
  } close_on_return{fs, *handle};
  result<file_system::file_info> info = fs->stat(*handle);
  if (!info) return std::move(info).error();
  result<inspected> out{std::in_place};
  // One read of the first 4 KB holds the header and, in most files, the name and the
  // metadata: the load menu opens a file per slot, and each read is a system call.
  constexpr std::uint64_t first_read = 4096;
  result<std::string> first = fs->read_at(
      *handle, 0, static_cast<std::size_t>(std::clamp<std::uint64_t>(info->size, slot_header_size, first_read)));
  if (!first) return std::move(first).error();
  // Bytes [at, at + n) of the file: a view of the first read when it holds them, else read
  // into read_past (which the view then shows).
  auto bytes_at = [&](std::uint64_t at, std::size_t n, std::string& read_past) -> result<std::string_view> {
    if (at + n <= first->size()) return std::string_view{*first}.substr(static_cast<std::size_t>(at), n);
    result<std::string> more = fs->read_at(*handle, at, n);
    if (!more) return std::move(more).error();
    read_past = std::move(*more);
    return std::string_view{read_past};
  };
  std::string longer_head, longer_meta;
  std::string_view head = std::string_view{*first}.substr(0, slot_header_size);
  if (std::size_t whole = slot_header_bytes_to_check(head, info->size); whole > head.size()) {
    result<std::string_view> all = bytes_at(0, whole, longer_head);  // a newer version's longer header
    if (!all) return std::move(all).error();
    head = *all;
  }
  out->check = parse_slot_header(head, info->size, out->header);
  if (out->check.damage != slot_damage::none) return out;
  // The file name numbers generations (a file copied in under another number is that
  // number); the header's copy is what the writer meant, kept only in the file.
  out->header.generation = generation;
  const slot_header& h = out->header;
  result<std::string_view> name_and_meta = bytes_at(slot_header_size, h.name_bytes + h.meta_bytes, longer_meta);
  if (!name_and_meta) return std::move(name_and_meta).error();
  out->check = check_slot_section(*name_and_meta, h.head_crc, "name and metadata");
  if (out->check.damage != slot_damage::none) return out;
  out->name = name_and_meta->substr(0, h.name_bytes);
  if (!expected_name.empty() && out->name != expected_name) {
    out->other_name = true;
    return out;
  }
  result<slot_meta> meta = decode_slot_meta(name_and_meta->substr(h.name_bytes), &out->compact_layout);
  if (!meta) {  // checksummed bytes savekit cannot read: another writer's, not damage
    out->check = {slot_damage::newer, "the metadata does not decode: " + meta.error().to_string()};
    return out;
  }
  out->meta = std::move(*meta);
  if (wants(asked, sections::thumbnail)) {
    result<std::string> thumbnail = fs->read_at(*handle, h.thumbnail_at(), h.thumbnail_bytes);
    if (!thumbnail) return std::move(thumbnail).error();
    if (check_slot_section(*thumbnail, h.thumbnail_crc, "thumbnail").damage == slot_damage::none)
      out->thumbnail = std::move(*thumbnail);
    else
      out->thumbnail_damaged = true;
  }
  if (wants(asked, sections::payload)) {
    if (h.payload_bytes > options.max_payload_bytes)
      return error{errc::store_too_large, 0,
                   path + " holds a " + std::to_string(h.payload_bytes) + "-byte save, more than max_payload_bytes (" +
                       std::to_string(options.max_payload_bytes) + ")"};
    result<std::string> payload = fs->read_at(*handle, h.payload_at(), static_cast<std::size_t>(h.payload_bytes));
    if (!payload) return std::move(payload).error();
    out->check = check_slot_section(*payload, h.payload_crc, "payload");
    if (out->check.damage != slot_damage::none) return out;
    out->payload = std::move(*payload);
  }
  return out;
}

std::string slot_folder::name_of_files(const std::string& base, const slot_files& files) {
  if (!files.name.empty()) return files.name;
  if (std::optional<std::string> name = slot_name_of_base(base)) return *name;
  for (std::uint64_t g : files.damaged) {
    result<inspected> r = inspect(base, g, sections::head, {}, slot_file_kind::damaged);
    if (r && slots::check_name(r->name) && slot_file_base(r->name) == base) return r->name;
  }
  return base;
}

void slot_folder::set_aside(const std::string& base, std::uint64_t generation) {
  if (options.read_only) return;
  if (fs->rename(path_of(base, generation, slot_file_kind::generation),
                 path_of(base, generation, slot_file_kind::damaged)))
    (void)fs->sync_directory(folder);
}

// ---- the walk ------------------------------------------------------------------------------

generation_walk::generation_walk(slot_folder& folder, std::string base, std::vector<std::uint64_t> generations,
                                 sections asked, std::string_view name)
    : folder_(folder), base_(std::move(base)), generations_(std::move(generations)), asked_(asked), name_(name) {}

std::optional<met_generation> generation_walk::next() {
  while (at_ < generations_.size()) {
    met_generation met;
    met.generation = generations_[at_++];
    result<inspected> r = folder_.inspect(base_, met.generation, asked_, name_);
    if (!r) {
      // Gone (removed underneath) or not a regular file (a link, a folder, a FIFO planted
      // under a generation's name): not a generation, skipped.
      const errc code = r.error().code();
      if (code == errc::not_found || code == errc::invalid_path) {
        pruned_meanwhile_ = pruned_meanwhile_ || code == errc::not_found;
        continue;
      }
      met.what = met_generation::kind::unreadable;
      met.failure = std::move(r).error();
      return met;
    }
    if (r->other_name) continue;
    met.file = std::move(*r);
    switch (met.file.check.damage) {
      case slot_damage::none:
        met.what = met_generation::kind::intact;
        break;
      case slot_damage::newer:
        met.what = met_generation::kind::newer;
        break;
      case slot_damage::damaged:
        folder_.set_aside(base_, met.generation);
        met.what = met_generation::kind::damaged;
        break;
    }
    return met;
  }
  return std::nullopt;
}

// ---- finding a generation ------------------------------------------------------------------

// A read-only reader beside the game may list a generation the game then prunes: when
// every generation it listed is gone, it looks again (a few times: the game writes a
// newer one before it prunes, so the second look finds it).
result<slot_folder::found_generation> slot_folder::newest_intact(std::string_view name, sections asked,
                                                                 read_report* report) {
  for (int look = 1;; ++look) {
    bool pruned_meanwhile = false;
    result<found_generation> found = newest_intact_once(name, asked, report, pruned_meanwhile);
    if (found || found.error().code() != errc::not_found || !pruned_meanwhile || look == 5) return found;
  }
}

result<slot_folder::found_generation> slot_folder::newest_intact_once(std::string_view name, sections asked,
                                                                      read_report* report, bool& pruned_meanwhile) {
  found_generation found;
  found.base = slot_file_base(name);
  result<slot_files> files = scan_slot(name, found.base);
  if (!files) return std::move(files).error();
  found.files = std::move(*files);
  std::vector<generation_info> skipped;
  generation_walk walk{*this, found.base, found.files.generations, asked, name};
  while (std::optional<met_generation> met = walk.next()) {
    if (met->what == met_generation::kind::unreadable) return std::move(*met->failure);
    if (met->what == met_generation::kind::newer)
      return error{errc::unsupported_version, 0,
                   quoted(name) + " generation " + std::to_string(met->generation) + ": " + met->problem() +
                       "; it is left as it is"};
    if (met->what == met_generation::kind::damaged) {
      skipped.push_back(damaged_info(met->generation, std::move(met->file.check.problem)));
      found.files.damaged.push_back(met->generation);
      continue;
    }
    found.file = std::move(met->file);
    break;
  }
  pruned_meanwhile = walk.pruned_meanwhile();
  std::sort(found.files.damaged.begin(), found.files.damaged.end(), std::greater<>{});
  const std::uint64_t read = found.file.header.generation;
  if (report) {
    report->generation = read;
    report->schema_version = found.file.header.schema_version;
    report->skipped = std::move(skipped);
    // Generations set aside by an earlier call are reported too, until a newer save.
    for (std::uint64_t g : found.files.damaged)
      if (g > read && std::none_of(report->skipped.begin(), report->skipped.end(),
                                   [&](const generation_info& s) { return s.generation == g; }))
        report->skipped.push_back(damaged_info(g, "set aside as damaged earlier"));
    std::sort(report->skipped.begin(), report->skipped.end(),
              [](const generation_info& a, const generation_info& b) { return a.generation > b.generation; });
  }
  if (read != 0) return found;
  if (!found.files.damaged.empty())
    return error{errc::damaged, 0,
                 quoted(name) + ": every kept generation is damaged (set aside in " + folder + " as " + found.base +
                     ".N.damaged)"};
  return error{errc::not_found, 0, "no " + quoted(name) + " in " + folder};
}

result<inspected> slot_folder::one_generation(std::string_view name, std::uint64_t generation) {
  generation_walk walk{*this, slot_file_base(name), {generation}, sections::all, name};
  std::optional<met_generation> met = walk.next();
  if (!met)
    return error{errc::not_found, 0, quoted(name) + " keeps no intact generation " + std::to_string(generation)};
  switch (met->what) {
    case met_generation::kind::unreadable:
      return std::move(*met->failure);
    case met_generation::kind::damaged:
      return error{errc::damaged, 0,
                   quoted(name) + " generation " + std::to_string(generation) + ": " + met->problem()};
    case met_generation::kind::newer:
      return error{errc::unsupported_version, 0, met->problem()};
    case met_generation::kind::intact:
      break;
  }
  return std::move(met->file);
}

}  // namespace savekit::detail
