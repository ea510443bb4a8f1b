// Save slots: a folder of generation files (docs/format.md), one writer per folder.
#include "savekit/slots.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "background_worker.hpp"
#include "savekit/detail/utf8.hpp"
#include "slot_format.hpp"

namespace savekit {

namespace {

using detail::slot_damage;
using detail::slot_file_kind;
using detail::slot_header;

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A stored time as a time_point, clamped to what the clock can represent (nanoseconds on
// Linux: ±292 years around 1970) instead of overflowing on a file's arbitrary value.
std::chrono::system_clock::time_point time_of(std::int64_t us) {
  using clock_duration = std::chrono::system_clock::duration;
  constexpr auto limit = std::chrono::duration_cast<std::chrono::microseconds>(clock_duration::max()).count();
  us = std::clamp<std::int64_t>(us, -limit, limit);
  return std::chrono::system_clock::time_point{
      std::chrono::duration_cast<clock_duration>(std::chrono::microseconds{us})};
}

std::string quoted(std::string_view name) { return "slot '" + std::string{name} + "'"; }

// The files of one slot in the folder, each list newest first.
struct slot_files {
  std::vector<std::uint64_t> generations;  // BASE.N.slot
  std::vector<std::uint64_t> damaged;      // BASE.N.damaged
  std::vector<std::uint64_t> temporary;    // BASE.N.tmp
  bool empty() const { return generations.empty() && damaged.empty() && temporary.empty(); }
  std::uint64_t highest() const {
    std::uint64_t h = 0;
    for (const auto* list : {&generations, &damaged, &temporary})
      if (!list->empty()) h = std::max(h, list->front());
    return h;
  }
  std::uint64_t damaged_newer_than(std::uint64_t generation) const {
    return static_cast<std::uint64_t>(
        std::count_if(damaged.begin(), damaged.end(), [&](std::uint64_t g) { return g > generation; }));
  }
};

// A generation file, read as far as was asked and checked.
struct inspected {
  detail::slot_check check;  // damage, with what was wrong
  bool other_name = false;   // intact, but another slot's (two long names with one hashed file name)
  slot_header header;
  std::string name;
  slot_meta meta;
  std::vector<std::string> compact_layout;  // of a payload in the compact form
  std::string thumbnail;                    // if asked for
  bool thumbnail_damaged = false;           // then left empty: a picture is not worth the save
  std::string payload;                      // if asked for
};

enum class sections : unsigned { head = 0, thumbnail = 1, payload = 2, all = 3 };
bool wants(sections asked, sections s) { return (static_cast<unsigned>(asked) & static_cast<unsigned>(s)) != 0; }

generation_info info_of(const inspected& g) {
  generation_info info;
  info.generation = g.header.generation;
  info.saved_at = time_of(g.header.saved_at_us);
  info.schema_version = g.header.schema_version;
  info.encoding = g.header.encoding;
  info.bytes = g.header.payload_bytes;
  info.thumbnail_bytes = g.header.thumbnail_bytes;
  info.restored_from = g.header.restored_from;
  info.sealed = (g.header.flags & detail::slot_flag_sealed) != 0;
  info.meta = g.meta;
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

}  // namespace

// ---- the folder ----------------------------------------------------------------------------

struct slots::state {
  file_system* fs = nullptr;
  std::shared_ptr<file_system> owned_fs;  // fs, when the slots keep it alive
  std::string folder;
  slots_options options;
  std::unique_ptr<file_system::lock_token> lock;
  std::mutex folder_mutex;  // one operation on the folder's files at a time
  std::int64_t last_saved_at_us = 0;

  // Writes queued for the worker thread.
  struct queued_write {
    std::string name;
    snapshot save;
    std::vector<std::function<void(status)>> done;
  };
  mutable std::mutex queue_mutex;
  std::condition_variable queue_changed;
  std::deque<queued_write> queue;
  bool writing = false;
  std::size_t awaiting_durability = 0;  // written, waiting for when_durable (the browser)
  detail::background_worker worker;     // one write_next() per queued write
  std::optional<error> first_failure;   // since the last flush()
  std::vector<std::pair<std::function<void(status)>, status>> completed;  // for poll()

  std::mutex autosave_mutex;
  std::optional<std::uint32_t> last_autosave;  // index 1..N of the autosave written last (0: none)

  std::string path_of(std::string_view base, std::uint64_t generation, slot_file_kind kind) const {
    return folder + "/" + detail::slot_file_name_of(base, generation, kind);
  }

  // ---- reading the folder ----

  result<std::map<std::string, slot_files>> scan() {
    result<std::vector<std::string>> names = fs->list_directory(folder);
    if (!names) return std::move(names).error();
    std::map<std::string, slot_files> slots;
    for (const std::string& file : *names) {
      std::optional<detail::slot_file_name> parsed = detail::parse_slot_file_name(file);
      if (!parsed) continue;
      slot_files& files = slots[parsed->base];
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

  // The files of the slot called name. A hashed base (a long name) may be shared by
  // another name: its generations are kept only if their header names this slot.
  result<slot_files> scan_slot(std::string_view name, const std::string& base) {
    result<std::map<std::string, slot_files>> all = scan();
    if (!all) return std::move(all).error();
    auto it = all->find(base);
    if (it == all->end()) return slot_files{};
    slot_files files = std::move(it->second);
    if (base.find('~') != std::string::npos) {
      std::vector<std::uint64_t> mine;
      for (std::uint64_t g : files.generations) {
        result<inspected> r = inspect(base, g, sections::head, name);
        if (!r || !r->other_name) mine.push_back(g);
      }
      files.generations = std::move(mine);
    }
    return files;
  }

  // Reads generation file BASE.N.slot's header and metadata, and the sections asked for, checking
  // each. Damage is reported in the result's check; an error is an I/O failure (or a
  // payload over the size limit), which says nothing about the file's bytes.
  result<inspected> inspect(const std::string& base, std::uint64_t generation, sections asked,
                            std::string_view expected_name, slot_file_kind kind = slot_file_kind::generation) {
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
    result<std::string> head = fs->read_at(*handle, 0, detail::slot_header_size);
    if (!head) return std::move(head).error();
    if (std::size_t whole = detail::slot_header_bytes_to_check(*head, info->size); whole > head->size()) {
      head = fs->read_at(*handle, 0, whole);  // a newer version's longer header, to check its checksum
      if (!head) return std::move(head).error();
    }
    out->check = detail::parse_slot_header(*head, info->size, out->header);
    if (out->check.damage != slot_damage::none) return out;
    // The file name numbers generations (a file copied in under another number is that
    // number); the header's copy is what the writer meant, kept only in the file.
    out->header.generation = generation;
    const slot_header& h = out->header;
    result<std::string> name_and_meta = fs->read_at(*handle, detail::slot_header_size, h.name_bytes + h.meta_bytes);
    if (!name_and_meta) return std::move(name_and_meta).error();
    out->check = detail::check_slot_section(*name_and_meta, h.head_crc, "name and metadata");
    if (out->check.damage != slot_damage::none) return out;
    out->name = name_and_meta->substr(0, h.name_bytes);
    if (!expected_name.empty() && out->name != expected_name) {
      out->other_name = true;
      return out;
    }
    result<slot_meta> meta =
        detail::decode_slot_meta(std::string_view{*name_and_meta}.substr(h.name_bytes), &out->compact_layout);
    if (!meta) {  // checksummed bytes savekit cannot read: another writer's, not damage
      out->check = {slot_damage::newer, "the metadata does not decode: " + meta.error().to_string()};
      return out;
    }
    out->meta = std::move(*meta);
    if (wants(asked, sections::thumbnail)) {
      result<std::string> thumbnail = fs->read_at(*handle, h.thumbnail_at(), h.thumbnail_bytes);
      if (!thumbnail) return std::move(thumbnail).error();
      if (detail::check_slot_section(*thumbnail, h.thumbnail_crc, "thumbnail").damage == slot_damage::none)
        out->thumbnail = std::move(*thumbnail);
      else
        out->thumbnail_damaged = true;
    }
    if (wants(asked, sections::payload)) {
      if (h.payload_bytes > options.max_payload_bytes)
        return error{errc::store_too_large, 0,
                     path + " holds a " + std::to_string(h.payload_bytes) +
                         "-byte save, more than max_payload_bytes (" + std::to_string(options.max_payload_bytes) + ")"};
      result<std::string> payload = fs->read_at(*handle, h.payload_at(), static_cast<std::size_t>(h.payload_bytes));
      if (!payload) return std::move(payload).error();
      out->check = detail::check_slot_section(*payload, h.payload_crc, "payload");
      if (out->check.damage != slot_damage::none) return out;
      out->payload = std::move(*payload);
    }
    return out;
  }

  // The slot name a base stands for: spelled out in the base, or (hashed) read from the
  // intact head of one of its damaged files; the base itself if neither can be had.
  std::string name_of_files(const std::string& base, const slot_files& files) {
    if (std::optional<std::string> name = detail::slot_name_of_base(base)) return *name;
    for (std::uint64_t g : files.damaged) {
      result<inspected> r = inspect(base, g, sections::head, {}, slot_file_kind::damaged);
      if (r && slots::check_name(r->name) && detail::slot_file_base(r->name) == base) return r->name;
    }
    return base;
  }

  // A file named like a generation that is gone (removed underneath) or is not a regular
  // file (a link, a folder, a FIFO planted there): not a generation, skipped.
  static bool not_a_generation(const error& e) { return e.code() == errc::not_found || e.code() == errc::invalid_path; }

  // Renames a damaged generation to BASE.N.damaged: never read again, never deleted
  // while it is within the kept generations, there for a person to look at.
  void set_aside(const std::string& base, std::uint64_t generation) {
    if (options.read_only) return;
    if (fs->rename(path_of(base, generation, slot_file_kind::generation),
                   path_of(base, generation, slot_file_kind::damaged)))
      (void)fs->sync_directory(folder);
  }

  struct found_generation {
    inspected file;
    std::string base;
    slot_files files;
  };

  // The newest generation of the slot that passes the checks of the sections asked for;
  // damaged ones met on the way are set aside and reported.
  // A read-only reader beside the game may list a generation the game then prunes: when
  // every generation it listed is gone, it looks again (a few times: the game writes a
  // newer one before it prunes, so the second look finds it).
  result<found_generation> newest_intact(std::string_view name, sections asked, read_report* report) {
    for (int look = 1;; ++look) {
      bool pruned_meanwhile = false;
      result<found_generation> found = newest_intact_once(name, asked, report, pruned_meanwhile);
      if (found || found.error().code() != errc::not_found || !pruned_meanwhile || look == 5) return found;
    }
  }

  result<found_generation> newest_intact_once(std::string_view name, sections asked, read_report* report,
                                              bool& pruned_meanwhile) {
    found_generation found;
    found.base = detail::slot_file_base(name);
    result<slot_files> files = scan_slot(name, found.base);
    if (!files) return std::move(files).error();
    found.files = std::move(*files);
    std::vector<generation_info> skipped;
    for (std::uint64_t g : found.files.generations) {
      result<inspected> r = inspect(found.base, g, asked, name);
      if (!r) {
        if (not_a_generation(r.error())) {
          pruned_meanwhile = pruned_meanwhile || r.error().code() == errc::not_found;
          continue;
        }
        return std::move(r).error();
      }
      if (r->other_name) continue;
      if (r->check.damage == slot_damage::newer)
        return error{
            errc::unsupported_version, 0,
            quoted(name) + " generation " + std::to_string(g) + ": " + r->check.problem + "; it is left as it is"};
      if (r->check.damage == slot_damage::damaged) {
        skipped.push_back(damaged_info(g, std::move(r->check.problem)));
        set_aside(found.base, g);
        found.files.damaged.push_back(g);
        continue;
      }
      found.file = std::move(*r);
      break;
    }
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

  // One given generation, every section checked: errc::not_found, damaged (set aside) or
  // unsupported_version when it cannot be had. Caller holds folder_mutex.
  result<inspected> one_generation(std::string_view name, std::uint64_t generation) {
    const std::string base = detail::slot_file_base(name);
    auto missing = [&] {
      return error{errc::not_found, 0, quoted(name) + " keeps no intact generation " + std::to_string(generation)};
    };
    result<inspected> r = inspect(base, generation, sections::all, name);
    if (!r) return not_a_generation(r.error()) ? missing() : std::move(r).error();
    if (r->other_name) return missing();
    if (r->check.damage == slot_damage::damaged) {
      set_aside(base, generation);
      return error{errc::damaged, 0,
                   quoted(name) + " generation " + std::to_string(generation) + ": " + r->check.problem};
    }
    if (r->check.damage == slot_damage::newer) return error{errc::unsupported_version, 0, r->check.problem};
    return r;
  }

  // newest_intact for a caller of the public API: the name checked, after the writes
  // queued before the call.
  result<found_generation> newest_for_caller(std::string_view name, sections asked, read_report* report) {
    if (status valid = slots::check_name(name); !valid) return std::move(valid).error();
    wait_for_queue();
    std::lock_guard lock(folder_mutex);
    return newest_intact(name, asked, report);
  }

  // For a public call that changes the folder: the names checked, the folder writable,
  // after the writes queued before the call.
  status prepare_change(std::initializer_list<std::string_view> names) {
    for (std::string_view name : names)
      if (status valid = slots::check_name(name); !valid) return valid;
    if (options.read_only) return read_only_error();
    wait_for_queue();
    return {};
  }

  // ---- writing ----

  // Writes one generation file: to a temporary name, synced, renamed into place, the
  // folder synced. On failure before the rename nothing of it is left under its final
  // name; the error says which case it is. The file takes the permissions (and, where the
  // process may, the owner) of `like`, a file of the slot's: a save the player made private
  // (chmod 600) stays private at the next write.
  status write_generation(const std::string& base, slot_header header, std::string_view name,
                          std::string_view meta_bytes, std::string_view thumbnail, std::string_view payload,
                          const std::string& like = {}) {
    auto not_saved = [&](error e) {
      return error{e.code(), 0, quoted(name) + " was not saved (its previous save is kept): " + e.message()};
    };
    std::string head = detail::encode_slot_head(header, name, meta_bytes, thumbnail, payload);
    const std::string temporary = path_of(base, header.generation, slot_file_kind::temporary);
    const std::string final_path = path_of(base, header.generation, slot_file_kind::generation);
    (void)fs->remove(temporary);  // left by an interrupted write
    result<int> handle = fs->open(temporary, file_system::open_mode::create_new);
    if (!handle) return not_saved(std::move(handle).error());
    status written;
    if (!like.empty())
      if (result<file_system::file_info> model = fs->stat(like); model && model->regular)
        written = fs->copy_permissions(*handle, *model);
    if (written) written = fs->write(*handle, head.data(), head.size());
    if (written && !payload.empty()) written = fs->write(*handle, payload.data(), payload.size());
    if (written) written = fs->sync(*handle);
    fs->close(*handle);
    if (written) written = fs->rename(temporary, final_path);
    if (!written) {
      (void)fs->remove(temporary);
      return not_saved(std::move(written).error());
    }
    if (status synced = fs->sync_directory(folder); !synced)
      return error{
          synced.error().code(), 0,
          quoted(name) + " was saved, but the folder could not be synced: the save is what reads see, " +
              "and it may not survive a power cut (the previous one is kept too): " + synced.error().message()};
    return {};
  }

  // Keeps the newest keep_generations intact generations and the damaged ones among them.
  void prune(std::string_view name, const std::string& base) {
    result<slot_files> files = scan_slot(name, base);
    if (!files) return;
    const std::size_t keep = std::max<std::uint32_t>(options.keep_generations, 1);
    if (files->generations.size() <= keep) return;
    const std::uint64_t oldest_kept = files->generations[keep - 1];
    for (std::size_t i = keep; i < files->generations.size(); ++i)
      (void)fs->remove(path_of(base, files->generations[i], slot_file_kind::generation));
    for (std::uint64_t g : files->damaged)
      if (g < oldest_kept) (void)fs->remove(path_of(base, g, slot_file_kind::damaged));
  }

  // Strictly increasing within a run, so that the load menu's order is the order of the
  // writes (restores and copies included) even when two fall in one tick of the clock.
  std::int64_t next_saved_at() { return last_saved_at_us = std::max(now_us(), last_saved_at_us + 1); }

  // Writes the slot's next generation, stamped now. Caller holds folder_mutex.
  // like_if_new: the file whose permissions a slot with no generation yet takes (a copy's source).
  status write_new_generation(std::string_view name, slot_header header, std::string_view meta_bytes,
                              std::string_view thumbnail, std::string_view payload,
                              const std::string& like_if_new = {}) {
    const std::string base = detail::slot_file_base(name);
    // Past every number the base has used, other names' sharing a hashed base included.
    result<std::map<std::string, slot_files>> all = scan();
    if (!all) return std::move(all).error();
    const std::uint64_t highest = (*all)[base].highest();
    if (highest >= detail::max_slot_generation)
      return error{errc::value_too_large, 0,
                   quoted(name) + " has used every generation number: remove it (or its files) to save again"};
    header.generation = highest + 1;
    header.saved_at_us = next_saved_at();
    const slot_files& files = (*all)[base];
    const std::string like =
        files.generations.empty() ? like_if_new : path_of(base, files.generations.front(), slot_file_kind::generation);
    if (status written = write_generation(base, header, name, meta_bytes, thumbnail, payload, like); !written)
      return written;
    prune(name, base);
    return {};
  }

  status write_save(std::string_view name, const encoded_save& save) {
    if (options.read_only) return read_only_error();
    slot_header header;
    header.schema_version = save.schema_version;
    header.encoding = save.encoding;
    const auto& t = save.meta.thumbnail;
    if (t.size() > detail::max_slot_thumbnail_bytes)
      return error{errc::value_too_large, 0, quoted(name) + ": the thumbnail is larger than 64 MiB"};
    std::string_view payload = save.payload;
    std::string sealed;
    const bool sealing = save.sealed.value_or(options.sealer != nullptr);
    if (!sealing && options.sealer && options.sealer->authenticates() && !options.accept_unsealed)
      return error{errc::invalid_value, 0,
                   quoted(name) +
                       " was not saved: unsealed, it could not be read back by these slots (which open "
                       "sealed saves only, unless slots_options::accept_unsealed)"};
    if (sealing) {
      if (!options.sealer)
        return error{errc::key_not_held, 0, quoted(name) + " was not saved: sealing it needs slots_options::sealer"};
      result<std::string> made = options.sealer->seal(save.payload, name, save.schema_version,
                                                      detail::slot_seal_binding(header.encoding, save.compact_layout));
      if (!made)
        return error{made.error().code(), 0,
                     quoted(name) + " was not saved: it could not be sealed: " + made.error().message()};
      sealed = std::move(*made);
      payload = sealed;
      header.flags |= detail::slot_flag_sealed;
    }
    if (payload.size() > options.max_payload_bytes)
      return error{errc::value_too_large, 0,
                   quoted(name) + ": the save takes " + std::to_string(payload.size()) +
                       " bytes, more than max_payload_bytes (" + std::to_string(options.max_payload_bytes) +
                       "): it could not be read back"};
    std::string meta = detail::encode_slot_meta(save.meta, save.compact_layout);
    // What is written must read back: the metadata's reader has its own limits.
    if (result<slot_meta> back = detail::decode_slot_meta(meta); meta.size() > detail::max_slot_meta_bytes || !back)
      return error{errc::value_too_large, 0,
                   quoted(name) + ": the title and fields are too large to be read back (at most 1 MiB, " +
                       std::to_string(detail::max_slot_meta_entries) + " fields)"};
    std::lock_guard lock(folder_mutex);
    return write_new_generation(name, header, meta, std::string_view{reinterpret_cast<const char*>(t.data()), t.size()},
                                payload);
  }

  // A sealed payload is bound to its slot's name: one copied or renamed is sealed again
  // for the new name (a payload that is not sealed is returned as it is).
  result<std::string> sealed_for(const inspected& file, std::string payload, std::string_view from,
                                 std::string_view to) {
    const slot_header& header = file.header;
    if ((header.flags & detail::slot_flag_sealed) == 0 || from == to) return payload;
    result<std::string> opened = open_sealed(file, payload, from);
    if (!opened) return std::move(opened).error();
    result<std::string> sealed = options.sealer->seal(*opened, to, header.schema_version,
                                                      detail::slot_seal_binding(header.encoding, file.compact_layout));
    if (!sealed)
      return error{sealed.error().code(), 0, quoted(to) + ": sealing it failed: " + sealed.error().message()};
    return sealed;
  }

  // The payload of a generation made anew from another (copy from -> to, restore: from ==
  // to): only one the game can read is copied — a sealed one opens (a forgery is never put
  // in place as the newest), a plain one only where plain ones are read — and it is sealed
  // for `to`, where the sealer proves who wrote a save (a plain one too: a migration step,
  // as a write is). header is the new generation's: its sealed flag follows.
  result<std::string> payload_for_copy(const inspected& file, slot_header& header, std::string_view from,
                                       std::string_view to) {
    result<std::string> readable = readable_payload(file, file.payload, from);
    if (!readable) return std::move(readable).error();
    const bool sealed = (header.flags & detail::slot_flag_sealed) != 0;
    if (sealed && from == to) return file.payload;  // opened above: its seal holds for this name
    if (!sealed && !(options.sealer && options.sealer->authenticates())) return std::move(*readable);
    result<std::string> resealed = options.sealer->seal(
        *readable, to, header.schema_version, detail::slot_seal_binding(header.encoding, file.compact_layout));
    if (!resealed)
      return error{resealed.error().code(), 0, quoted(to) + ": sealing it failed: " + resealed.error().message()};
    header.flags |= detail::slot_flag_sealed;
    return resealed;
  }

  // A sealed payload, opened: errc::key_not_held without a sealer; the seal's own error else.
  // The seal covers how the payload is read (its encoding and compact layout), so that a
  // changed header or layout cannot send a value into another member.
  result<std::string> open_sealed(const inspected& file, std::string_view payload, std::string_view name) {
    const slot_header& header = file.header;
    if (!options.sealer)
      return error{errc::key_not_held, 0,
                   quoted(name) + " generation " + std::to_string(header.generation) +
                       " is sealed: open the slots with a sealer (slots_options::sealer, savekit::make_slot_sealer)"};
    result<std::string> opened = options.sealer->unseal(
        payload, name, header.schema_version, detail::slot_seal_binding(header.encoding, file.compact_layout));
    if (!opened) {
      error e = std::move(opened).error();
      return error{e.code(), e.offset(),
                   quoted(name) + " generation " + std::to_string(header.generation) + ": " + e.message()};
    }
    return opened;
  }

  // A generation's payload as the game reads it: a sealed one opened; a plain one refused
  // where the sealer proves who wrote a save (anyone can write a plain generation with the
  // public format), unless slots_options::accept_unsealed lets old plain saves migrate.
  // Migrating, a plain generation is read only in a slot that holds no sealed one: a save
  // made before sealing is in a slot the sealing game has not written yet; a plain one
  // beside sealed ones was planted since.
  result<std::string> readable_payload(const inspected& file, std::string payload, std::string_view name) {
    if ((file.header.flags & detail::slot_flag_sealed) != 0) return open_sealed(file, payload, name);
    if (!options.sealer || !options.sealer->authenticates()) return payload;
    const std::string which = quoted(name) + " generation " + std::to_string(file.header.generation);
    if (!options.accept_unsealed)
      return error{errc::tampered, 0,
                   which +
                       " is not sealed, and these slots open sealed saves only (slots_options::accept_unsealed "
                       "reads unsealed ones, to migrate saves made before sealing)"};
    if (holds_a_sealed_generation(name))
      return error{errc::tampered, 0,
                   which + " is not sealed, and the slot holds sealed saves: only a slot sealed nowhere migrates"};
    return payload;
  }
  bool holds_a_sealed_generation(std::string_view name) {
    const std::string base = detail::slot_file_base(name);
    result<slot_files> files = scan_slot(name, base);
    if (!files) return true;  // cannot tell: not migrated
    for (std::uint64_t g : files->generations) {
      result<inspected> head = inspect(base, g, sections::head, name);
      if (!head || head->other_name) continue;
      if ((head->header.flags & detail::slot_flag_sealed) != 0) return true;
    }
    return false;
  }

  error read_only_error() const {
    return error{errc::io_error, 0, folder + " was opened read-only: nothing is written"};
  }

  // ---- the worker ----

  bool on_worker() const { return worker.on_worker(); }

  // Waits until the writes queued so far are done (not from the worker itself, which
  // would wait for itself: a callback that reads or lists sees what is on disk).
  void wait_for_queue() {
    if (on_worker()) return;
    std::unique_lock lock(queue_mutex);
    queue_changed.wait(lock, [&] { return queue.empty() && !writing; });
  }

  void deliver(std::vector<std::function<void(status)>> done, const status& outcome) {
    if (options.completions == completion_thread::poll) {
      std::lock_guard lock(queue_mutex);
      for (auto& d : done)
        if (d) completed.emplace_back(std::move(d), outcome);
      return;
    }
    for (auto& d : done)
      if (d) detail::call_safely(d, outcome);  // background_worker.hpp, invariant 5
  }

  // On the worker: the queue's first write (a newer snapshot of its slot may have replaced
  // the one queued). An exception while encoding or writing (bad_alloc on a large save) is
  // that write's failure, reported to its callbacks: never the end of the game.
  void write_next() {
    queued_write next;
    {
      std::lock_guard lock(queue_mutex);
      if (queue.empty()) return;
      next = std::move(queue.front());
      queue.pop_front();
      writing = true;
    }
    status outcome = detail::guarded("the background write", [&]() -> status {
      result<encoded_save> save = next.save();
      return save ? write_save(next.name, *save) : status{std::move(save).error()};
    });
    deliver(std::move(next.done), outcome);
    std::lock_guard lock(queue_mutex);
    if (!outcome && !first_failure) first_failure = outcome.error();
    writing = false;
    queue_changed.notify_all();
  }

  // Runs the queue, then ends the worker (from a callback that let go of the slots: the
  // worker ends the queue, then the state).
  void stop_worker() { worker.stop(); }

  // Callbacks waiting for a poll() that will not come: run on the thread closing the slots.
  void run_completed() {
    std::vector<std::pair<std::function<void(status)>, status>> ready;
    {
      std::lock_guard lock(queue_mutex);
      ready.swap(completed);
    }
    for (auto& [done, outcome] : ready) done(outcome);
  }

  // Where the autosave rotation stands on disk: the autosave slot written last (0: none yet,
  // or the first missing one follows). Read once, at open.
  std::uint32_t last_autosave_on_disk() {
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
};

// ---- slots ---------------------------------------------------------------------------------

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

namespace {

// The code point at name[i] (valid UTF-8, checked before), and its length in bytes.
char32_t code_point_at(std::string_view name, std::size_t i, std::size_t& length) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(name[i + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return length = 1, lead;
  if (lead < 0xE0) return length = 2, char32_t((lead & 0x1F) << 6 | (byte(1) & 0x3F));
  if (lead < 0xF0) return length = 3, char32_t((lead & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F));
  return length = 4, char32_t((lead & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 | (byte(3) & 0x3F));
}

// Characters that change how a name looks without being seen: a menu entry could pass for
// another (bidirectional overrides) or look empty.
bool invisible(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xAD || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB);
}

bool blank(char32_t c) {
  return c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

}  // namespace

status slots::check_name(std::string_view name) {
  if (name.empty() || name.size() > max_name_bytes)
    return error{
        errc::invalid_name, 0,
        "a slot name is 1 to " + std::to_string(max_name_bytes) + " bytes, not " + std::to_string(name.size())};
  if (std::size_t bad = detail::find_invalid_utf8(name.data(), name.size()); bad != name.size())
    return error{errc::invalid_name, bad, "a slot name is UTF-8; byte " + std::to_string(bad) + " is not"};
  bool all_blank = true;
  for (std::size_t i = 0, length = 0; i < name.size(); i += length) {
    const char32_t c = code_point_at(name, i, length);
    if (invisible(c))
      return error{errc::invalid_name, i,
                   "a slot name holds no control, format or bidirectional characters (byte " + std::to_string(i) + ")"};
    all_blank = all_blank && blank(c);
  }
  if (all_blank) return error{errc::invalid_name, 0, "a slot name is not only spaces"};
  return {};
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

// ---- writing ----

status slots::write_encoded(std::string_view name, encoded_save save) {
  state_->wait_for_queue();  // after the writes queued before it
  status written = state_->write_save(name, save);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  if (written) {  // written, not yet durable (the browser): counted until it is
    ++state_->awaiting_durability;
    state_->fs->when_durable([weak = std::weak_ptr<state>(state_)](const status&) {
      if (std::shared_ptr<state> alive = weak.lock()) --alive->awaiting_durability;
    });
  }
#endif
  return written;
}

void slots::deliver(std::function<void(status)> done, status outcome) {
  std::vector<std::function<void(status)>> one;
  one.push_back(std::move(done));
  state_->deliver(std::move(one), outcome);
}

void slots::queue_write(std::string_view name, snapshot save, std::function<void(status)> done) {
  state& s = *state_;
  if (s.options.read_only) return deliver(std::move(done), s.read_only_error());
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  // No threads to write on (WebAssembly without pthreads): the write happens here, in
  // order, and reports as a background one would.
  result<encoded_save> encoded = save();
  status outcome = encoded ? s.write_save(name, *encoded) : status{std::move(encoded).error()};
  if (!outcome) {
    s.first_failure = s.first_failure.value_or(outcome.error());
    return deliver(std::move(done), std::move(outcome));
  }
  // Written; it is saved once durable (the browser: when IndexedDB completes it).
  // The state is not kept alive for it: a game may close the slots (and open them again)
  // in a callback, and the folder must then be free. Closed meanwhile, done runs as soon
  // as the outcome is known (no poll() will come).
  ++s.awaiting_durability;
  s.fs->when_durable([weak = std::weak_ptr<state>(state_), done = std::move(done)](status durable) mutable {
    if (std::shared_ptr<state> alive = weak.lock()) {
      --alive->awaiting_durability;
      if (!durable) alive->first_failure = alive->first_failure.value_or(durable.error());
      if (alive->options.completions == completion_thread::poll) {
        if (done) alive->completed.emplace_back(std::move(done), durable);
        return;
      }
    }  // and let go before the callback: it may close the slots
    if (done) done(durable);
  });
  return;
#endif
  std::vector<std::function<void(status)>> refused;
  std::unique_lock lock(s.queue_mutex);
  auto waiting = std::find_if(s.queue.begin(), s.queue.end(), [&](const auto& q) { return q.name == name; });
  if (waiting != s.queue.end()) {  // superseded: the newer snapshot takes its place
    waiting->save = std::move(save);
    waiting->done.push_back(std::move(done));
  } else {
    state::queued_write q{std::string{name}, std::move(save), {}};
    q.done.push_back(std::move(done));
    s.queue.push_back(std::move(q));
    if (!s.worker.post([keep = state_] { keep->write_next(); })) {  // no thread could be started
      refused = std::move(s.queue.back().done);
      s.queue.pop_back();
    }
  }
  s.queue_changed.notify_all();
  lock.unlock();
  if (!refused.empty())
    s.deliver(std::move(refused),
              error{errc::io_error, 0, quoted(name) + " was not saved: no thread could be started to write it"});
}

status slots::flush() {
  state& s = *state_;
  s.wait_for_queue();
  std::lock_guard lock(s.queue_mutex);
  std::optional<error> failure = std::exchange(s.first_failure, std::nullopt);
  std::optional<error> later = s.fs->take_failure();  // both taken: the first is reported
  if (failure) return std::move(*failure);
  if (later) return std::move(*later);
  return {};
}

void slots::when_durable(std::function<void(status)> done) {
  status queued = flush();
  if (!queued) return done(std::move(queued));
  state_->fs->when_durable([weak = std::weak_ptr<state>(state_), done = std::move(done)](status durable) {
    if (std::shared_ptr<state> alive = weak.lock()) {
      // Failures that surfaced meanwhile (a write_async's, a write()'s): taken, reported once.
      std::optional<error> queued, later;
      {
        std::lock_guard lock(alive->queue_mutex);
        queued = std::exchange(alive->first_failure, std::nullopt);
      }
      later = alive->fs->take_failure();
      if (durable && queued) durable = std::move(*queued);
      if (durable && later) durable = std::move(*later);
    }
    done(std::move(durable));
  });
}

std::size_t slots::poll() {
  std::vector<std::pair<std::function<void(status)>, status>> ready;
  {
    std::lock_guard lock(state_->queue_mutex);
    ready.swap(state_->completed);
  }
  for (auto& [done, outcome] : ready) done(outcome);
  return ready.size();
}

std::size_t slots::pending_writes() const {
  std::lock_guard lock(state_->queue_mutex);
  return state_->queue.size() + (state_->writing ? 1 : 0) + state_->awaiting_durability;
}

std::string slots::next_autosave_name() {
  state& s = *state_;
  const std::uint32_t count = std::max<std::uint32_t>(s.options.autosave_slots, 1);
  std::lock_guard lock(s.autosave_mutex);
  s.last_autosave = s.last_autosave.value_or(0) % count + 1;
  return s.options.autosave_prefix + std::to_string(*s.last_autosave);
}

// ---- reading ----

result<slots::payload> slots::read_payload(std::string_view name, read_report* report) {
  result<state::found_generation> found = state_->newest_for_caller(name, sections::payload, report);
  if (!found) return std::move(found).error();
  payload out;
  out.bytes = std::move(found->file.payload);
  out.encoding = found->file.header.encoding;
  out.schema_version = found->file.header.schema_version;
  out.generation = found->file.header.generation;
  out.sealed = (found->file.header.flags & detail::slot_flag_sealed) != 0;
  result<std::string> readable = state_->readable_payload(found->file, std::move(out.bytes), name);
  if (!readable) return std::move(readable).error();
  out.bytes = std::move(*readable);
  out.compact_layout = std::move(found->file.compact_layout);
  return out;
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
    std::map<std::string, bool> listed;
    std::uint64_t damaged_now = 0;
    for (std::uint64_t g : files.generations) {
      result<inspected> r = s.inspect(base, g, sections::head, {});
      if (!r && state::not_a_generation(r.error())) continue;
      if (!r || r->check.damage == slot_damage::newer) {  // shown, with why it cannot be read
        slot_info entry;
        entry.generation = g;
        entry.problem = r ? r->check.problem : r.error().to_string();
        entry.problem_code = r ? errc::unsupported_version : r.error().code();
        entry.name = s.name_of_files(base, files);
        listed[entry.name] = true;
        menu.push_back(std::move(entry));
        break;
      }
      if (r->check.damage == slot_damage::damaged) {
        s.set_aside(base, g);
        files.damaged.push_back(g);
        ++damaged_now;
        continue;
      }
      // A file whose header names a slot that maps elsewhere is not this base's (copied
      // in by hand, say): the slot it names is listed from its own files. One that names
      // no valid slot (planted: a bidirectional override in a hashed name) is no slot's: it
      // could be neither read nor removed from the menu.
      if (listed.count(r->name) || detail::slot_file_base(r->name) != base || !slots::check_name(r->name)) continue;
      listed[r->name] = true;
      slot_info entry;
      static_cast<generation_info&>(entry) = info_of(*r);
      entry.name = std::move(r->name);
      entry.damaged_newer = files.damaged_newer_than(g);
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
  std::stable_sort(menu.begin(), menu.end(), [](const slot_info& a, const slot_info& b) {
    if (a.damaged != b.damaged) return !a.damaged;
    return a.saved_at > b.saved_at;
  });
  return menu;
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
  for (std::uint64_t g : files->generations) {
    result<inspected> r = s.inspect(base, g, sections::head, name);
    if (!r) {
      if (state::not_a_generation(r.error())) continue;
      return std::move(r).error();
    }
    if (r->other_name) continue;
    if (r->check.damage != slot_damage::none) {
      if (r->check.damage == slot_damage::damaged) s.set_aside(base, g);
      out.push_back(damaged_info(g, std::move(r->check.problem)));
      if (r->check.damage == slot_damage::newer) {
        out.back().damaged = false;
        out.back().problem_code = errc::unsupported_version;
      }
      continue;
    }
    out.push_back(info_of(*r));
  }
  for (std::uint64_t g : files->damaged) out.push_back(damaged_info(g, "set aside as damaged"));
  std::sort(out.begin(), out.end(),
            [](const generation_info& a, const generation_info& b) { return a.generation > b.generation; });
  return out;
}

// ---- managing ----

status slots::remove(std::string_view name) {
  state& s = *state_;
  if (status ready = s.prepare_change({name}); !ready) return ready;
  std::lock_guard lock(s.folder_mutex);
  const std::string base = detail::slot_file_base(name);
  result<slot_files> files = s.scan_slot(name, base);
  if (!files) return std::move(files).error();
  if (files->generations.empty() && files->damaged.empty()) return error{errc::not_found, 0, "no " + quoted(name)};
  // Oldest first: interrupted, the slot keeps its newest save, never an older one alone.
  for (auto g = files->generations.rbegin(); g != files->generations.rend(); ++g)
    if (status removed = s.fs->remove(s.path_of(base, *g, slot_file_kind::generation)); !removed) return removed;
  for (std::uint64_t g : files->damaged) (void)s.fs->remove(s.path_of(base, g, slot_file_kind::damaged));
  return s.fs->sync_directory(s.folder);
}

status slots::copy(std::string_view from, std::string_view to) {
  state& s = *state_;
  if (status ready = s.prepare_change({from, to}); !ready) return ready;
  std::lock_guard lock(s.folder_mutex);
  result<state::found_generation> found = s.newest_intact(from, sections::all, nullptr);
  if (!found) return std::move(found).error();
  const inspected& f = found->file;
  slot_header header = f.header;
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
  slot_header header = r->header;
  header.restored_from = generation;
  result<std::string> payload = s.payload_for_copy(*r, header, name, name);
  if (!payload) return std::move(payload).error();
  return s.write_new_generation(name, header, detail::encode_slot_meta(r->meta, r->compact_layout), r->thumbnail,
                                *payload);
}

result<slots::payload> slots::read_generation(std::string_view name, std::uint64_t generation) {
  if (status valid = check_name(name); !valid) return std::move(valid).error();
  state& s = *state_;
  s.wait_for_queue();
  std::lock_guard lock(s.folder_mutex);
  result<inspected> r = s.one_generation(name, generation);
  if (!r) return std::move(r).error();
  payload out;
  out.bytes = std::move(r->payload);
  out.encoding = r->header.encoding;
  out.schema_version = r->header.schema_version;
  out.generation = generation;
  out.sealed = (r->header.flags & detail::slot_flag_sealed) != 0;
  result<std::string> readable = s.readable_payload(*r, std::move(out.bytes), name);
  if (!readable) return std::move(readable).error();
  out.bytes = std::move(*readable);
  out.compact_layout = std::move(r->compact_layout);
  return out;
}

status slots::rename(std::string_view from, std::string_view to) {
  state& s = *state_;
  if (status ready = s.prepare_change({from, to}); !ready) return ready;
  std::lock_guard lock(s.folder_mutex);
  const std::string from_base = detail::slot_file_base(from);
  const std::string to_base = detail::slot_file_base(to);
  result<slot_files> source = s.scan_slot(from, from_base);
  if (!source) return std::move(source).error();
  if (source->generations.empty() && source->damaged.empty()) return error{errc::not_found, 0, "no " + quoted(from)};
  if (from == to) return {};
  result<slot_files> target = s.scan_slot(to, to_base);
  if (!target) return std::move(target).error();
  // `to` may hold what an interrupted rename of `from` did — stopped anywhere, by a power cut
  // or a kill between two steps: copies of `from`'s generations (the same numbers and saving
  // times; the same payloads, unless sealed again for the new name), and `from` missing its
  // oldest ones (removed oldest first). Then the rename goes on; anything else is another slot.
  // (`to`'s set-aside files come last, after every old generation file is gone: with any of
  // them, `from` has none left.)
  bool resuming = !target->generations.empty() && (target->damaged.empty() || source->generations.empty());
  for (std::uint64_t g : target->damaged)  // never two set-aside files of one number
    if (std::find(source->damaged.begin(), source->damaged.end(), g) != source->damaged.end()) resuming = false;
  // The first copy is `from`'s newest and its removal comes last: while `from` keeps any
  // generation, `to`'s newest is that one (else `to` is another slot, whose older numbers
  // would pass for removed ones).
  if (resuming && !source->generations.empty()) resuming = target->generations.front() == source->generations.front();
  const std::uint64_t oldest_left =
      source->generations.empty() ? std::numeric_limits<std::uint64_t>::max() : source->generations.back();
  for (std::uint64_t g : target->generations) {
    if (!resuming) break;
    result<inspected> copied = s.inspect(to_base, g, sections::head, to);
    resuming = copied && copied->check.damage == slot_damage::none && !copied->other_name;
    const bool removed_already =
        g < oldest_left && std::find(source->damaged.begin(), source->damaged.end(), g) == source->damaged.end();
    if (!resuming || removed_already) continue;
    result<inspected> original = s.inspect(from_base, g, sections::head, from);
    const bool sealed_again = (copied->header.flags & detail::slot_flag_sealed) != 0;
    resuming = original && original->check.damage == slot_damage::none && !original->other_name &&
               copied->header.saved_at_us == original->header.saved_at_us &&
               copied->header.flags == original->header.flags &&
               (sealed_again || copied->header.payload_crc == original->header.payload_crc);
  }
  if ((!target->generations.empty() || !target->damaged.empty()) && !resuming)
    return error{errc::already_exists, 0, quoted(to) + " exists: remove it first, or copy over it"};
  // Every generation is written under the new name (its header names the slot), newest
  // first, before any old file goes: interrupted, `to` holds the newest save and `from`
  // all of them, and the rename can be run again.
  std::vector<std::uint64_t> moved;
  for (std::uint64_t g : source->generations) {
    result<inspected> r = s.inspect(from_base, g, sections::all, from);
    if (!r) {
      if (state::not_a_generation(r.error())) continue;
      return std::move(r).error();
    }
    if (r->other_name) continue;
    if (r->check.damage == slot_damage::newer)  // never left behind to be deleted
      return error{
          errc::unsupported_version, 0,
          quoted(from) + " generation " + std::to_string(g) + ": " + r->check.problem + "; the slot is left as it is"};
    moved.push_back(g);
    if (r->check.damage == slot_damage::damaged) {  // not copied: set aside, moved below as it is
      s.set_aside(from_base, g);
      source->damaged.push_back(g);
      continue;
    }
    if (std::find(target->generations.begin(), target->generations.end(), g) != target->generations.end()) continue;
    result<std::string> payload = s.sealed_for(*r, r->payload, from, to);
    // An older generation sealed with a key the keyring no longer holds cannot be sealed for
    // the new name: it moves with its bytes as they are (it opened under no name before, and
    // still opens under none), so that the rename can finish. The newest must open.
    if (!payload && payload.error().code() == errc::key_not_held && g != source->generations.front())
      payload = std::move(r->payload);
    if (!payload) return std::move(payload).error();
    if (status written =
            s.write_generation(to_base, r->header, to, detail::encode_slot_meta(r->meta, r->compact_layout),
                               r->thumbnail, *payload, s.path_of(from_base, g, slot_file_kind::generation));
        !written)
      return written;
  }
  if (status synced = s.fs->sync_directory(s.folder); !synced) return synced;
  for (auto g = moved.rbegin(); g != moved.rend(); ++g)                        // oldest first
    (void)s.fs->remove(s.path_of(from_base, *g, slot_file_kind::generation));  // gone already if set aside
  for (std::uint64_t g : source->damaged)
    (void)s.fs->rename(s.path_of(from_base, g, slot_file_kind::damaged),
                       s.path_of(to_base, g, slot_file_kind::damaged));
  return s.fs->sync_directory(s.folder);
}

}  // namespace savekit

// ---- migrations ----------------------------------------------------------------------------

namespace savekit::detail {

namespace {

// The layout's entries by struct path: PATH -> (key -> name).
using named_positions = std::map<std::string, std::map<std::uint64_t, std::string>, std::less<>>;

named_positions positions_of(const std::vector<std::string>& layout) {
  named_positions out;
  for (const std::string& entry : layout) {
    std::size_t equals = entry.find('='), at = entry.rfind('@', equals);
    if (equals == std::string::npos || at == std::string::npos) continue;
    std::uint64_t key = 0;
    auto [end, ec] = std::from_chars(entry.data() + at + 1, entry.data() + equals, key);
    if (ec != std::errc{} || end != entry.data() + equals) continue;
    out[entry.substr(0, at)][key] = entry.substr(equals + 1);
  }
  return out;
}

bool any_under(const named_positions& positions, const std::string& prefix) {
  auto it = positions.lower_bound(prefix);
  return it != positions.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

struct naming {
  named_positions positions;
  std::set<std::string, std::less<>> nullable;  // "PATH.NAME", no '?'
};

document named(document value, std::string path, const naming& n, std::uint32_t depth) {
  if (depth > default_max_depth || value.is_null()) return value;
  const named_positions& positions = n.positions;
  // An optional's or a pointer's value is described under PATH?: the document has no
  // wrapper for it, so the path steps through.
  if (!any_under(positions, path + "[") && !any_under(positions, path + "{") && !any_under(positions, path + "<") &&
      !any_under(positions, path + "(") && !positions.count(path) && any_under(positions, path + "?"))
    path += "?";
  auto structure = positions.find(path);
  if (structure != positions.end() && value.is_array()) {
    const std::string& at = structure->first;
    std::string plain = at;
    std::erase(plain, '?');
    document object = document::object();
    const document::array_type& slots = value.elements();
    for (std::size_t k = 0; k < slots.size(); ++k) {
      auto name = structure->second.find(k);
      if (name == structure->second.end()) continue;  // a position gone
      // nil: a gap (the member keeps its default) unless the member holds null itself.
      if (slots[k].is_null() && !n.nullable.count(plain + "." + name->second)) continue;
      (void)object.set(name->second, named(slots[k], at + "." + name->second, n, depth + 1));
    }
    return object;
  }
  if (value.is_array() && any_under(positions, path + "<") && value.size() == 2) {  // a variant: [index, value]
    const std::optional<std::uint64_t> index = value.element(0)->as_uint();
    if (index) {
      document::array_type pair{*value.element(0),
                                named(*value.element(1), path + "<" + std::to_string(*index) + ">", n, depth + 1)};
      return document{std::move(pair)};
    }
  }
  if (value.is_array() && any_under(positions, path + "(")) {  // a tuple or pair: each element its own path
    document::array_type elements;
    for (std::size_t i = 0; i < value.size(); ++i)
      elements.push_back(named(*value.element(i), path + "(" + std::to_string(i) + ")", n, depth + 1));
    return document{std::move(elements)};
  }
  if (value.is_array()) {
    document::array_type elements;
    for (const document& e : value.elements()) elements.push_back(named(e, path + "[]", n, depth + 1));
    return document{std::move(elements)};
  }
  if (value.is_object()) {
    document::object_type members;
    for (const auto& [key, v] : value.members()) members.emplace_back(key, named(v, path + "{}", n, depth + 1));
    return document{std::move(members)};
  }
  return value;
}

}  // namespace

document name_compact_document(document compact, const std::vector<std::string>& layout,
                               const std::vector<std::string>& nullable) {
  naming n{positions_of(layout), {nullable.begin(), nullable.end()}};
  return named(std::move(compact), "$", n, 0);
}

result<std::string> migrate_payload(const slots::payload& stored, const std::vector<migration_step>& steps,
                                    std::uint32_t to_version, const object_options& limits,
                                    const std::vector<std::string>& nullable) {
  const document_limits document_options{limits.max_depth, limits.max_memory};
  result<document> d = stored.encoding == object_encoding::json
                           ? document::from_json(stored.bytes, document_options)
                           : document::from_msgpack(stored.bytes, document_options);
  if (!d) return std::move(d).error();
  if (stored.encoding == object_encoding::msgpack_compact)
    *d = name_compact_document(std::move(*d), stored.compact_layout, nullable);
  if (status done = migrate(*d, steps, stored.schema_version, to_version); !done) return std::move(done).error();
  std::string out;
  d->to_msgpack(out);
  return out;
}

}  // namespace savekit::detail
