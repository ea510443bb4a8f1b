// The cloud sync's way into a slots folder (slot_sync_access.hpp): under the folder's
// mutex, every compare-and-set against the newest intact generation.
#include "slot_sync_access.hpp"

#include <cstring>

#include "sha256.hpp"
#include "slots_state.hpp"

namespace savekit::detail {

namespace {

void add_sized(sha256& h, std::string_view bytes) {
  const std::uint64_t n = bytes.size();
  char size[8];
  for (int i = 0; i < 8; ++i) size[i] = static_cast<char>(n >> (8 * i));
  h.update({size, 8});
  h.update(bytes);
}

std::string_view bytes_of(const std::vector<std::byte>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size()};
}

error not_a_save(std::string problem) {
  return error{errc::damaged, 0, "not an intact savekit generation file: " + std::move(problem)};
}

}  // namespace

result<parsed_generation> parse_generation_file(std::string_view file) {
  result<parsed_generation> out{std::in_place};
  slot_header& h = out->header;
  const std::size_t head_bytes = slot_header_bytes_to_check(file.substr(0, slot_header_size), file.size());
  if (head_bytes > file.size()) return not_a_save("shorter than its header");
  slot_check check = parse_slot_header(file.substr(0, head_bytes), file.size(), h);
  if (check.damage == slot_damage::newer)
    return error{errc::unsupported_version, 0, "a generation file of a newer savekit: " + check.problem};
  if (check.damage != slot_damage::none) return not_a_save(check.problem);
  if (h.file_bytes() != file.size()) return not_a_save("its sections do not add up to its size");
  const std::string_view head = file.substr(slot_header_size, h.name_bytes + h.meta_bytes);
  if (check = check_slot_section(head, h.head_crc, "name and metadata"); check.damage != slot_damage::none)
    return not_a_save(check.problem);
  const std::string_view thumbnail = file.substr(h.thumbnail_at(), h.thumbnail_bytes);
  if (check = check_slot_section(thumbnail, h.thumbnail_crc, "thumbnail"); check.damage != slot_damage::none)
    return not_a_save(check.problem);
  const std::string_view payload = file.substr(h.payload_at(), h.payload_bytes);
  if (check = check_slot_section(payload, h.payload_crc, "payload"); check.damage != slot_damage::none)
    return not_a_save(check.problem);
  out->name = std::string{head.substr(0, h.name_bytes)};
  if (status valid = slots::check_name(out->name); !valid) return not_a_save("its slot name is not one");
  result<slot_meta> meta = decode_slot_meta(head.substr(h.name_bytes), &out->compact_layout);
  if (!meta) return not_a_save("its metadata does not decode: " + meta.error().to_string());
  out->meta = std::move(*meta);
  const auto* t = reinterpret_cast<const std::byte*>(thumbnail.data());
  out->meta.thumbnail.assign(t, t + thumbnail.size());
  out->payload = std::string{payload};
  return out;
}

std::string content_of(const slot_header& header, const slot_meta& meta, const std::vector<std::string>& layout,
                       std::string_view payload) {
  sha256 h;
  h.update("savekit-content-1");
  const char fixed[6] = {static_cast<char>(header.encoding),
                         static_cast<char>(header.flags),
                         static_cast<char>(header.schema_version),
                         static_cast<char>(header.schema_version >> 8),
                         static_cast<char>(header.schema_version >> 16),
                         static_cast<char>(header.schema_version >> 24)};
  h.update({fixed, sizeof fixed});
  add_sized(h, encode_slot_meta(meta, layout));  // the thumbnail is not in it
  add_sized(h, bytes_of(meta.thumbnail));
  add_sized(h, payload);
  return h.hex();
}

namespace {

// A generation as the sync sends it: the whole file, its info and its content.
result<slot_snapshot> snapshot_of(inspected& f, std::string_view name) {
  if (f.thumbnail_damaged)
    return error{errc::damaged, 0, quoted(name) + "'s newest save has a damaged thumbnail: it is not synced"};
  result<slot_snapshot> out{std::in_place};
  slot_snapshot& snap = *out;
  static_cast<generation_info&>(snap.info) = info_of(f);
  snap.info.name = std::string{name};
  const auto* t = reinterpret_cast<const std::byte*>(f.thumbnail.data());
  snap.info.meta.thumbnail.assign(t, t + f.thumbnail.size());
  slot_header header = f.header;
  std::string meta_bytes = encode_slot_meta(f.meta, f.compact_layout);
  snap.file = encode_slot_head(header, name, meta_bytes, f.thumbnail, f.payload);
  snap.file += f.payload;
  snap.content = content_of(f.header, snap.info.meta, f.compact_layout, f.payload);
  return out;
}

}  // namespace

result<std::optional<slot_snapshot>> slot_sync_access::newest(slots& s, std::string_view name) {
  result<slots::state::found_generation> found = s.state_->newest_for_caller(name, sections::all, nullptr);
  if (!found) {
    if (found.error().code() == errc::not_found) return std::optional<slot_snapshot>{};
    return std::move(found).error();
  }
  result<slot_snapshot> snap = snapshot_of(found->file, name);
  if (!snap) return std::move(snap).error();
  snap->info.damaged_newer = found->files.damaged_newer_than(found->file.header.generation);
  return std::optional<slot_snapshot>{std::move(*snap)};
}

result<slot_snapshot> slot_sync_access::generation(slots& s, std::string_view name, std::uint64_t generation) {
  slots::state& st = *s.state_;
  st.wait_for_queue();
  std::lock_guard lock(st.folder_mutex);
  result<inspected> f = st.one_generation(name, generation);
  if (!f) return std::move(f).error();
  return snapshot_of(*f, name);
}

result<std::uint64_t> slot_sync_access::newest_generation(slots& s, std::string_view name) {
  result<slots::state::found_generation> found = s.state_->newest_for_caller(name, sections::head, nullptr);
  if (!found) {
    if (found.error().code() == errc::not_found) return std::uint64_t{0};
    return std::move(found).error();
  }
  return found->file.header.generation;
}

namespace {

// The newest intact generation's number, 0 if none; caller holds folder_mutex.
result<std::uint64_t> newest_locked(slot_folder& st, std::string_view name) {
  result<slot_folder::found_generation> found = st.newest_intact(name, sections::head, nullptr);
  if (!found) {
    if (found.error().code() == errc::not_found) return std::uint64_t{0};
    return std::move(found).error();
  }
  return found->file.header.generation;
}

error moved(std::string_view name) {
  return error{errc::already_exists, 0, quoted(name) + " was saved meanwhile: it is left as it is"};
}

}  // namespace

result<std::uint64_t> slot_sync_access::write_if_unmoved(slots& s, std::string_view name, const parsed_generation& file,
                                                         std::uint64_t expected_newest) {
  slots::state& st = *s.state_;
  if (status ready = st.prepare_change({name}); !ready) return std::move(ready).error();
  if (!file.sealed() && refuses_unsealed(s))
    return error{errc::tampered, 0,
                 quoted(name) + ": the downloaded save is not sealed, and these slots read sealed saves only"};
  if (file.payload.size() > st.options.max_payload_bytes)
    return error{errc::value_too_large, 0, quoted(name) + ": the downloaded save is larger than max_payload_bytes"};
  std::lock_guard lock(st.folder_mutex);
  result<std::uint64_t> now = newest_locked(st, name);
  if (!now) return std::move(now).error();
  if (*now != expected_newest) return moved(name);
  slot_header header = file.header;
  header.restored_from = 0;
  std::string payload = file.payload;
  if (file.sealed() && file.name != name) {
    // Bound to its old name (invariant 7 of slot_folder.hpp): sealed again, which needs the key.
    inspected as_read;
    as_read.header = file.header;
    as_read.name = file.name;
    as_read.compact_layout = file.compact_layout;
    result<std::string> resealed = st.sealed_for(as_read, std::move(payload), file.name, name);
    if (!resealed) return std::move(resealed).error();
    payload = std::move(*resealed);
  }
  slot_meta meta = file.meta;
  meta.thumbnail.clear();
  const std::string meta_bytes = encode_slot_meta(meta, file.compact_layout);
  if (status written = st.write_new_generation(name, header, meta_bytes, bytes_of(file.meta.thumbnail), payload, {},
                                               file.header.saved_at_us);
      !written)
    return std::move(written).error();
  return newest_locked(st, name);
}

status slot_sync_access::remove_if_unmoved(slots& s, std::string_view name, std::uint64_t expected_newest) {
  slots::state& st = *s.state_;
  if (status ready = st.prepare_change({name}); !ready) return ready;
  std::lock_guard lock(st.folder_mutex);
  result<std::uint64_t> now = newest_locked(st, name);
  if (!now) return std::move(now).error();
  if (*now != expected_newest) return moved(name);
  return st.remove_locked(name);
}

bool slot_sync_access::refuses_unsealed(slots& s) {
  const slots_options& o = s.state_->options;
  return o.sealer && o.sealer->authenticates() && !o.accept_unsealed;
}

std::uint32_t slot_sync_access::keep_generations(slots& s) { return s.state_->options.keep_generations; }
file_system& slot_sync_access::fs(slots& s) { return *s.state_->fs; }
const std::string& slot_sync_access::folder(slots& s) { return s.state_->folder; }
bool slot_sync_access::read_only(slots& s) { return s.state_->options.read_only; }

}  // namespace savekit::detail
