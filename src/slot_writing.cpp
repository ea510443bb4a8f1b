// Writing a slots folder: one generation file at a time, whole or not at all, then pruning
// (slot_folder.hpp, invariants 1, 2 and 6).
#include <algorithm>
#include <chrono>

#include "slot_folder.hpp"

namespace savekit::detail {

namespace {

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// To a temporary name, synced, renamed into place, the folder synced; the error says which
// case a failure is. The file takes the permissions (and, where the process may, the
// owner) of `like`: a save the player made private (chmod 600) stays private at the next write.
// superseded: files to remove once the new one is in place, before the folder sync, so that
// one sync makes both lasting (never the slot's newest before the write: see invariant 6).
status slot_folder::write_generation(const std::string& base, slot_header header, std::string_view name,
                                     std::string_view meta_bytes, std::string_view thumbnail, std::string_view payload,
                                     const std::string& like, const std::vector<std::string>& superseded) {
  auto not_saved = [&](error e) {
    return error{e.code(), 0, quoted(name) + " was not saved (its previous save is kept): " + e.message()};
  };
  std::string head = encode_slot_head(header, name, meta_bytes, thumbnail, payload);
  const std::string temporary = path_of(base, header.generation, slot_file_kind::temporary);
  const std::string final_path = path_of(base, header.generation, slot_file_kind::generation);
  result<int> handle = fs->open(temporary, file_system::open_mode::create_new);
  if (!handle && handle.error().code() == errc::already_exists) {  // left by an interrupted write
    (void)fs->remove(temporary);
    handle = fs->open(temporary, file_system::open_mode::create_new);
    // (Still there, a folder say: not "already_exists", which callers read as a slot's.)
    if (!handle && handle.error().code() == errc::already_exists)
      handle = error{errc::io_error, 0, temporary + " is in the way and could not be removed"};
  }
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
  for (const std::string& path : superseded) (void)fs->remove(path);
  if (status synced = fs->sync_directory(folder); !synced)
    return error{synced.error().code(), 0,
                 quoted(name) + " was saved, but the folder could not be synced: the save is what reads see, " +
                     "and it may not survive a power cut (the previous one is kept too): " + synced.error().message()};
  return {};
}

// What pruning removes once a new generation is written (invariant 6): the generations past
// keep_generations, counting the new one, and the damaged ones older than the oldest kept.
// early (before the new generation's folder sync): the damaged files, which no read takes;
// and the generations, when the slot's newest file is the save this object wrote and synced
// last and the write keeps it (keep_generations 2 and up). Else the generations go late,
// once the new generation has lasted: the newest file may be one planted or damaged above
// the save a read gets, or one whose sync failed.
slot_folder::superseded_files slot_folder::superseded_by_next(const std::string& base, const slot_files& files) const {
  superseded_files out;
  const std::size_t keep = std::max<std::uint32_t>(options.keep_generations, 1);
  if (files.generations.size() + 1 <= keep) return out;  // (the new one among them)
  // The oldest generation kept: among the previous ones, or the new one alone (keep 1).
  const std::uint64_t oldest_kept = keep >= 2 ? files.generations[keep - 2] : files.highest() + 1;
  auto last = acknowledged.find(base);
  const bool newest_is_acknowledged =
      keep >= 2 && last != acknowledged.end() && files.generations.front() == last->second;
  for (std::size_t i = keep - 1; i < files.generations.size(); ++i)
    (newest_is_acknowledged ? out.early : out.late)
        .push_back(path_of(base, files.generations[i], slot_file_kind::generation));
  for (std::uint64_t g : files.damaged)
    if (g < oldest_kept) out.early.push_back(path_of(base, g, slot_file_kind::damaged));
  return out;
}

// Strictly increasing within a run, so that the load menu's order is the order of the
// writes (restores and copies included) even when two fall in one tick of the clock.
std::int64_t slot_folder::next_saved_at() { return last_saved_at_us = std::max(now_us(), last_saved_at_us + 1); }

status slot_folder::write_new_generation(std::string_view name, slot_header header, std::string_view meta_bytes,
                                         std::string_view thumbnail, std::string_view payload,
                                         const std::string& like_if_new, std::int64_t saved_at_us) {
  const std::string base = slot_file_base(name);
  // Past every number the base has used, other names' sharing a hashed base included.
  result<std::map<std::string, slot_files>> all = scan();
  if (!all) return std::move(all).error();
  const std::uint64_t highest = (*all)[base].highest();
  if (highest >= max_slot_generation)
    return error{errc::value_too_large, 0,
                 quoted(name) + " has used every generation number: remove it (or its files) to save again"};
  header.generation = highest + 1;
  header.saved_at_us = saved_at_us != 0 ? saved_at_us : next_saved_at();
  const slot_files& files = (*all)[base];
  const std::string like =
      files.generations.empty() ? like_if_new : path_of(base, files.generations.front(), slot_file_kind::generation);
  // (The folder is held, invariant 8: this scan is what the folder holds until the write.)
  const superseded_files superseded = superseded_by_next(base, own_files(name, base, files));
  status written = write_generation(base, header, name, meta_bytes, thumbnail, payload, like, superseded.early);
  if (!written) {
    acknowledged.erase(base);  // (a failed folder sync: the newest file may not last)
    return written;
  }
  acknowledged[base] = header.generation;
  for (const std::string& path : superseded.late) (void)fs->remove(path);
  return {};
}

status slot_folder::remove_locked(std::string_view name) {
  const std::string base = slot_file_base(name);
  acknowledged.erase(base);
  result<slot_files> files = scan_slot(name, base);
  if (!files) return std::move(files).error();
  if (files->generations.empty() && files->damaged.empty()) return error{errc::not_found, 0, "no " + quoted(name)};
  // Oldest first: interrupted, the slot keeps its newest save, never an older one alone.
  for (auto g = files->generations.rbegin(); g != files->generations.rend(); ++g)
    if (status removed = fs->remove(path_of(base, *g, slot_file_kind::generation)); !removed) return removed;
  for (std::uint64_t g : files->damaged) (void)fs->remove(path_of(base, g, slot_file_kind::damaged));
  return fs->sync_directory(folder);
}

status slot_folder::write_save(std::string_view name, const new_save& save) {
  if (options.read_only) return read_only_error();
  slot_header header;
  header.schema_version = save.schema_version;
  header.encoding = save.encoding;
  const auto& t = save.meta->thumbnail;
  if (t.size() > max_slot_thumbnail_bytes)
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
                                                    slot_seal_binding(header.encoding, *save.compact_layout));
    if (!made)
      return error{made.error().code(), 0,
                   quoted(name) + " was not saved: it could not be sealed: " + made.error().message()};
    sealed = std::move(*made);
    payload = sealed;
    header.flags |= slot_flag_sealed;
  }
  if (payload.size() > options.max_payload_bytes)
    return error{errc::value_too_large, 0,
                 quoted(name) + ": the save takes " + std::to_string(payload.size()) +
                     " bytes, more than max_payload_bytes (" + std::to_string(options.max_payload_bytes) +
                     "): it could not be read back"};
  std::string meta = encode_slot_meta(*save.meta, *save.compact_layout);
  // What is written must read back: the metadata's reader has its own limits.
  if (result<slot_meta> back = decode_slot_meta(meta); meta.size() > max_slot_meta_bytes || !back)
    return error{errc::value_too_large, 0,
                 quoted(name) + ": the title and fields are too large to be read back (at most 1 MiB, " +
                     std::to_string(max_slot_meta_entries) + " fields)"};
  std::lock_guard lock(folder_mutex);
  return write_new_generation(name, header, meta, std::string_view{reinterpret_cast<const char*>(t.data()), t.size()},
                              payload);
}

}  // namespace savekit::detail
