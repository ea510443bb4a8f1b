// Save slots, the public API (slots.hpp): opening a folder, reading, the load menu,
// history, and removing, copying and restoring slots. The folder and its generation files
// are in slot_folder.hpp (with the invariants every call keeps); background writes in
// src/slot_queue.cpp; rename in src/slot_rename.cpp; names in src/slot_names.cpp; reading
// an old save in src/slot_migration.cpp.
#include "savekit/slots.hpp"

#include <algorithm>
#include <numeric>

#include "slots_state.hpp"

namespace savekit {

using detail::damaged_info;
using detail::generation_walk;
using detail::info_of;
using detail::inspected;
using detail::met_generation;
using detail::quoted;
using detail::sections;
using detail::slot_file_kind;
using detail::slot_files;

// ---- the state's calls for the public API ----------------------------------------------------

result<slots::state::found_generation> slots::state::newest_for_caller(std::string_view name, sections asked,
                                                                       read_report* report) {
  if (status valid = slots::check_name(name); !valid) return std::move(valid).error();
  wait_for_queue();
  std::lock_guard lock(folder_mutex);
  return newest_intact(name, asked, report);
}

status slots::state::prepare_change(std::initializer_list<std::string_view> names) {
  for (std::string_view name : names)
    if (status valid = slots::check_name(name); !valid) return valid;
  if (options.read_only) return read_only_error();
  wait_for_queue();
  return {};
}

std::uint32_t slots::state::last_autosave_on_disk() {
  const std::uint32_t count = std::max<std::uint32_t>(options.autosave_slots, 1);
  std::uint32_t last = 0;
  std::int64_t newest = 0;
  for (std::uint32_t i = 1; i <= count; ++i) {
    result<found_generation> found =
        newest_intact(options.autosave_prefix + std::to_string(i), sections::head, nullptr);
    if (!found) return i - 1;
    if (i == 1 || found->file.header.saved_at_us > newest) {
      newest = found->file.header.saved_at_us;
      last = i;
    }
  }
  return last;
}

// ---- opening and closing -------------------------------------------------------------------

slots::slots(std::shared_ptr<state> s) : state_(std::move(s)) {}
slots::slots(slots&&) noexcept = default;
slots& slots::operator=(slots&& other) noexcept {
  if (this != &other) {
    if (state_) {
      state_->stop_worker();
      if (!state_->on_worker()) state_->run_completed();
    }
    state_ = std::move(other.state_);
  }
  return *this;
}
slots::~slots() {
  if (!state_) return;
  state_->stop_worker();  // the worker finishes the queue first
  if (!state_->on_worker()) state_->run_completed();
}

const std::string& slots::path() const { return state_->folder; }
const object_options& slots::limits() const { return state_->options.limits; }
object_encoding slots::encoding_for(const write_options& options) const {
  return options.encoding.value_or(state_->options.encoding);
}

result<slots> slots::open(const std::string& given, slots_options options, std::shared_ptr<file_system> owned) {
  auto s = std::make_shared<state>();
  s->owned_fs = std::move(owned);
  s->fs = s->owned_fs ? s->owned_fs.get() : options.fs ? options.fs : &posix_file_system();
  s->options = std::move(options);
  file_system& fs = *s->fs;
  std::string path = given;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty()) return error{errc::invalid_path, 0, "an empty slots folder path"};
  if (!s->options.read_only && s->options.create_if_missing) {
    result<std::vector<std::string>> created = fs.create_directories(path);
    if (!created) return std::move(created).error();
    for (const std::string& folder : *created) {  // a new folder is durable once its parent is synced
      std::string parent = folder.substr(0, folder.find_last_of('/'));
      if (parent.empty()) parent = "/";
      if (status synced = fs.sync_directory(parent); !synced) return std::move(synced).error();
    }
  }
  // resolve() names a file in a folder; a path that ends in "." or ".." (`savekit slots
  // list .`) names no file in its folder: the folder is found through a name inside it.
  const std::string last = path.substr(path.find_last_of('/') + 1);
  result<std::string> resolved =
      last == "." || last == ".." ? fs.resolve(path + "/.savekit-slots.lock") : fs.resolve(path);
  if (resolved && (last == "." || last == "..")) resolved->erase(resolved->find_last_of('/'));
  if (resolved && resolved->empty()) *resolved = "/";
  if (!resolved) return std::move(resolved).error();
  result<file_system::file_info> info = fs.stat(*resolved);
  if (!info) return std::move(info).error();
  if (!info->directory) return error{errc::invalid_path, 0, *resolved + " is not a folder"};
  s->folder = std::move(*resolved);
  // A read-only open takes no lock: generation files never change once renamed into
  // place, so reading beside a writer is safe (a file pruned meanwhile is skipped).
  if (s->options.read_only) return slots{std::move(s)};
  result<std::unique_ptr<file_system::lock_token>> lock =
      fs.lock(s->folder + "/.savekit-slots.lock", file_system::lock_mode::exclusive, true);
  if (!lock) {
    error e = std::move(lock).error();
    if (e.code() == errc::locked)
      return error{errc::locked, 0, s->folder + " is open in another process (or another slots object)"};
    return e;
  }
  s->lock = std::move(*lock);
  // Writes a crash interrupted: never renamed into place, so never acknowledged.
  result<std::map<std::string, slot_files>> all = s->scan();
  if (!all) return std::move(all).error();
  for (const auto& [base, files] : *all)
    for (std::uint64_t g : files.temporary) (void)fs.remove(s->path_of(base, g, slot_file_kind::temporary));
  s->last_autosave = s->last_autosave_on_disk();  // the rotation goes on from where it stopped
  return slots{std::move(s)};
}

result<slots> slots::open(const std::string& path, slots_options options) {
  return open(path, std::move(options), nullptr);
}

std::string slots::next_autosave_name() {
  state& s = *state_;
  const std::uint32_t count = std::max<std::uint32_t>(s.options.autosave_slots, 1);
  std::lock_guard lock(s.autosave_mutex);
  s.last_autosave = s.last_autosave.value_or(0) % count + 1;
  return s.options.autosave_prefix + std::to_string(*s.last_autosave);
}

// ---- reading -------------------------------------------------------------------------------

namespace {

// A generation's payload as slots::payload, opened as the game reads it.
result<slots::payload> payload_of(detail::slot_folder& s, inspected& file, std::string_view name) {
  slots::payload out;
  out.encoding = file.header.encoding;
  out.schema_version = file.header.schema_version;
  out.generation = file.header.generation;
  out.sealed = file.sealed();
  result<std::string> readable = s.readable_payload(file, std::move(file.payload), name);
  if (!readable) return std::move(readable).error();
  out.bytes = std::move(*readable);
  out.compact_layout = std::move(file.compact_layout);
  return out;
}

}  // namespace

result<slots::payload> slots::read_payload(std::string_view name, read_report* report) {
  result<state::found_generation> found = state_->newest_for_caller(name, sections::payload, report);
  if (!found) return std::move(found).error();
  return payload_of(*state_, found->file, name);
}

result<slots::payload> slots::read_generation(std::string_view name, std::uint64_t generation) {
  if (status valid = check_name(name); !valid) return std::move(valid).error();
  state& s = *state_;
  s.wait_for_queue();
  std::lock_guard lock(s.folder_mutex);
  result<inspected> r = s.one_generation(name, generation);
  if (!r) return std::move(r).error();
  return payload_of(s, *r, name);
}

result<slot_info> slots::info(std::string_view name) {
  result<state::found_generation> found = state_->newest_for_caller(name, sections::head, nullptr);
  if (!found) return std::move(found).error();
  slot_info out;
  static_cast<generation_info&>(out) = info_of(found->file);
  out.name = std::move(found->file.name);
  out.damaged_newer = found->files.damaged_newer_than(out.generation);
  return out;
}

result<std::vector<slot_info>> slots::list() {
  state& s = *state_;
  s.wait_for_queue();
  std::lock_guard lock(s.folder_mutex);
  result<std::map<std::string, slot_files>> all = s.scan();
  if (!all) return std::move(all).error();
  std::vector<slot_info> menu;
  for (auto& [base, files] : *all) {
    // Newest first; a hashed base may hold several names: each name's newest is listed.
    std::vector<std::string> listed;
    auto was_listed = [&](const std::string& name) {
      return std::find(listed.begin(), listed.end(), name) != listed.end();
    };
    // The name scan found the base spells, or (a hashed base) one that maps to it.
    // (Named references: clang 14 does not capture structured bindings.)
    auto is_this_base = [&spelled = files.name, &this_base = base](const std::string& name) {
      return (!spelled.empty() && name == spelled) ||
             (detail::slot_file_base(name) == this_base && slots::check_name(name));
    };
    std::uint64_t damaged_now = 0;
    generation_walk walk{s, base, files.generations, sections::head, {}};
    while (std::optional<met_generation> met = walk.next()) {
      if (met->what == met_generation::kind::damaged) {
        files.damaged.push_back(met->generation);
        ++damaged_now;
        continue;
      }
      if (met->what != met_generation::kind::intact) {  // shown, with why it cannot be read
        const bool newer = met->what == met_generation::kind::newer;
        slot_info entry;
        entry.generation = met->generation;
        entry.problem = newer ? met->problem() : met->failure->to_string();
        entry.problem_code = newer ? errc::unsupported_version : met->failure->code();
        entry.name = s.name_of_files(base, files);
        listed.push_back(entry.name);
        menu.push_back(std::move(entry));
        break;
      }
      inspected& r = met->file;
      // A file whose header names a slot that maps elsewhere is not this base's (copied
      // in by hand, say): the slot it names is listed from its own files. One that names
      // no valid slot (planted: a bidirectional override in a hashed name) is no slot's: it
      // could be neither read nor removed from the menu.
      if (was_listed(r.name) || !is_this_base(r.name)) continue;
      listed.push_back(r.name);
      slot_info entry;
      entry.name = std::move(r.name);
      static_cast<generation_info&>(entry) = info_of(std::move(r));
      entry.damaged_newer = files.damaged_newer_than(met->generation);
      menu.push_back(std::move(entry));
      if (base.find('~') == std::string::npos) break;
    }
    if (listed.empty() && !files.damaged.empty()) {  // nothing intact: listed as damaged, never hidden
      std::sort(files.damaged.begin(), files.damaged.end(), std::greater<>{});
      slot_info entry;
      entry.name = s.name_of_files(base, files);
      entry.generation = files.damaged.front();
      entry.damaged = true;
      entry.problem_code = errc::damaged;
      entry.damaged_newer = files.damaged.size();
      entry.problem = "every kept generation is damaged" + std::string{damaged_now ? "" : " (set aside earlier)"};
      menu.push_back(std::move(entry));
    }
  }
  // Sorted by index, then moved once: a slot_info is large (strings, the game's fields).
  std::vector<std::size_t> order(menu.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (menu[a].damaged != menu[b].damaged) return !menu[a].damaged;
    return menu[a].saved_at > menu[b].saved_at;
  });
  std::vector<slot_info> sorted;
  sorted.reserve(menu.size());
  for (std::size_t i : order) sorted.push_back(std::move(menu[i]));
  return sorted;
}

result<std::vector<std::byte>> slots::thumbnail(std::string_view name) {
  result<state::found_generation> found = state_->newest_for_caller(name, sections::thumbnail, nullptr);
  if (!found) return std::move(found).error();
  if (found->file.thumbnail_damaged)  // the save itself may be intact: it stays
    return error{errc::damaged, 0,
                 quoted(name) + " generation " + std::to_string(found->file.header.generation) +
                     ": the thumbnail fails its checksum"};
  const std::string& t = found->file.thumbnail;
  const auto* first = reinterpret_cast<const std::byte*>(t.data());
  return std::vector<std::byte>(first, first + t.size());
}

result<std::vector<generation_info>> slots::history(std::string_view name) {
  if (status valid = check_name(name); !valid) return std::move(valid).error();
  state& s = *state_;
  s.wait_for_queue();
  std::lock_guard lock(s.folder_mutex);
  const std::string base = detail::slot_file_base(name);
  result<slot_files> files = s.scan_slot(name, base);
  if (!files) return std::move(files).error();
  if (files->generations.empty() && files->damaged.empty()) return error{errc::not_found, 0, "no " + quoted(name)};
  std::vector<generation_info> out;
  generation_walk walk{s, base, files->generations, sections::head, name};
  while (std::optional<met_generation> met = walk.next()) {
    switch (met->what) {
      case met_generation::kind::unreadable:
        return std::move(*met->failure);
      case met_generation::kind::intact:
        out.push_back(info_of(met->file));
        break;
      case met_generation::kind::damaged:
        out.push_back(damaged_info(met->generation, std::move(met->file.check.problem)));
        break;
      case met_generation::kind::newer:
        out.push_back(damaged_info(met->generation, std::move(met->file.check.problem)));
        out.back().damaged = false;
        out.back().problem_code = errc::unsupported_version;
        break;
    }
  }
  for (std::uint64_t g : files->damaged) out.push_back(damaged_info(g, "set aside as damaged"));
  std::sort(out.begin(), out.end(),
            [](const generation_info& a, const generation_info& b) { return a.generation > b.generation; });
  return out;
}

// ---- managing ------------------------------------------------------------------------------

status slots::remove(std::string_view name) {
  state& s = *state_;
  if (status ready = s.prepare_change({name}); !ready) return ready;
  std::lock_guard lock(s.folder_mutex);
  return s.remove_locked(name);
}

status slots::copy(std::string_view from, std::string_view to) {
  state& s = *state_;
  if (status ready = s.prepare_change({from, to}); !ready) return ready;
  std::lock_guard lock(s.folder_mutex);
  result<state::found_generation> found = s.newest_intact(from, sections::all, nullptr);
  if (!found) return std::move(found).error();
  const inspected& f = found->file;
  detail::slot_header header = f.header;
  header.restored_from = 0;
  result<std::string> payload = s.payload_for_copy(f, header, from, to);
  if (!payload) return std::move(payload).error();
  return s.write_new_generation(to, header, detail::encode_slot_meta(f.meta, f.compact_layout), f.thumbnail, *payload,
                                s.path_of(found->base, f.header.generation, slot_file_kind::generation));
}

status slots::restore(std::string_view name, std::uint64_t generation) {
  state& s = *state_;
  if (status ready = s.prepare_change({name}); !ready) return ready;
  std::lock_guard lock(s.folder_mutex);
  result<inspected> r = s.one_generation(name, generation);
  if (!r) return std::move(r).error();
  detail::slot_header header = r->header;
  header.restored_from = generation;
  result<std::string> payload = s.payload_for_copy(*r, header, name, name);
  if (!payload) return std::move(payload).error();
  return s.write_new_generation(name, header, detail::encode_slot_meta(r->meta, r->compact_layout), r->thumbnail,
                                *payload);
}

}  // namespace savekit
