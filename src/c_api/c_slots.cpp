// Save slots through the C ABI (savekit/savekit.h): savekit::slots over payloads the game
// encoded itself (slots::write_bytes), the load menu as sk_slot_list.
#include <chrono>
#include <deque>
#include <vector>

#include <savekit/detail/utf8.hpp>

#include "c_handles.hpp"

using namespace savekit::c_api;

// The load menu or a history, with the memory its views point into. A deque keeps each
// string where it was put as more are added.
struct sk_slot_list {
  static constexpr std::uint32_t kind = 0x736b6c31;  // "skl1": sk_slot_list_free refuses anything else
  std::uint32_t magic = kind;
  std::vector<sk_slot_info> items;
  std::deque<std::string> strings;
  std::deque<std::vector<sk_string_pair>> users;
};

namespace {

sk_status checked(const sk_slots* slots, const char* name, std::size_t name_size, std::string_view& name_view) {
  if (!live(slots)) return not_a_handle(slots);
  if (!view_of(name, name_size, name_view)) return null_argument(slots);
  return SK_OK;
}

sk_string keep(sk_slot_list& list, std::string text) {
  const std::string& kept = list.strings.emplace_back(std::move(text));
  return {kept.data(), kept.size()};
}

sk_slot_info info_of(sk_slot_list& list, const savekit::generation_info& g, std::string_view name,
                     std::uint64_t damaged_newer) {
  sk_slot_info out{};
  out.name = keep(list, std::string{name});
  out.generation = g.generation;
  out.saved_at_us = std::chrono::duration_cast<std::chrono::microseconds>(g.saved_at.time_since_epoch()).count();
  out.schema_version = g.schema_version;
  out.encoding = static_cast<std::int32_t>(g.encoding);
  out.bytes = g.bytes;
  out.thumbnail_bytes = g.thumbnail_bytes;
  out.restored_from = g.restored_from;
  out.sealed = g.sealed ? 1 : 0;
  out.title = keep(list, g.meta.title);
  out.playtime_seconds = g.meta.playtime.count();
  out.progress = g.meta.progress;
  std::vector<sk_string_pair>& pairs = list.users.emplace_back();
  for (const auto& [key, value] : g.meta.user) {
    const sk_string k = keep(list, key), v = keep(list, value);
    pairs.push_back({k.data, k.size, v.data, v.size});
  }
  out.user = pairs.empty() ? nullptr : pairs.data();
  out.user_count = pairs.size();
  out.damaged = g.damaged ? 1 : 0;
  out.problem_status = static_cast<sk_status>(g.problem_code);
  out.problem = keep(list, g.problem);
  out.damaged_newer = damaged_newer;
  return out;
}

// A write as the C++ API takes it.
struct write_request {
  std::string_view name, payload;
  savekit::slot_meta meta;
  savekit::object_encoding encoding{};
  std::uint32_t schema_version = 1;
  savekit::write_options how;
};

// A write's options as the C++ API's, every view checked (rule 2).
sk_status write_arguments(const sk_slots* slots, const sk_slot_write_options* options, write_request& request) {
  savekit::slot_meta& meta = request.meta;
  sk_slot_write_options given;
  sk_slot_write_options_init(&given);
  if (sk_status bad =
          read_options(slots, options, given, "sk_slot_write_options.struct_size is not one this library knows"))
    return bad;
  if (given.encoding < SK_ENCODING_MSGPACK || given.encoding > SK_ENCODING_BYTES)
    return fail(slots, savekit::error{savekit::errc::invalid_value, 0, "encoding is one of SK_ENCODING_..."});
  if (given.sealed < -1 || given.sealed > 1)
    return fail(slots, savekit::error{savekit::errc::invalid_value, 0, "sealed is -1, 0 or 1"});
  std::string_view title, thumbnail;
  if (!view_of(given.title, given.title_size, title) || !view_of(given.thumbnail, given.thumbnail_size, thumbnail) ||
      (given.user == nullptr && given.user_count != 0))
    return null_argument(slots);
  // Text the load menu shows in every language: UTF-8, checked here (a binding decodes it).
  auto utf8 = [&](std::string_view text, const char* what) -> sk_status {
    if (std::size_t bad = savekit::detail::find_invalid_utf8(text.data(), text.size()); bad != text.size())
      return fail(slots, savekit::error{savekit::errc::invalid_utf8, bad, std::string{what} + " is not UTF-8"});
    return SK_OK;
  };
  if (sk_status bad = utf8(title, "the title")) return bad;
  meta.title.assign(title);
  meta.playtime = std::chrono::seconds{given.playtime_seconds};
  meta.progress = given.progress;
  meta.thumbnail.assign(reinterpret_cast<const std::byte*>(thumbnail.data()),
                        reinterpret_cast<const std::byte*>(thumbnail.data() + thumbnail.size()));
  for (std::size_t i = 0; i < given.user_count; ++i) {
    std::string_view key, value;
    if (!view_of(given.user[i].key, given.user[i].key_size, key) ||
        !view_of(given.user[i].value, given.user[i].value_size, value))
      return null_argument(slots);
    if (sk_status bad = utf8(key, "a user field's key")) return bad;
    if (sk_status bad = utf8(value, "a user field's value")) return bad;
    meta.user[std::string{key}] = std::string{value};
  }
  request.encoding = static_cast<savekit::object_encoding>(given.encoding);
  request.schema_version = given.schema_version;
  if (given.sealed != -1) request.how.sealed = given.sealed == 1;
  return SK_OK;
}

// sk_slots_write and write_async: the arguments checked and read, then body(request).
template <class Body>
sk_status write_call(sk_slots* slots, const char* name, std::size_t name_size, const std::uint8_t* payload,
                     std::size_t payload_size, const sk_slot_write_options* options, Body body) {
  write_request request;
  if (sk_status s = checked(slots, name, name_size, request.name)) return s;
  if (!view_of(payload, payload_size, request.payload)) return null_argument(slots);
  return guarded(slots, [&]() -> sk_status {
    if (sk_status bad = write_arguments(slots, options, request)) return bad;
    return body(request);
  });
}

// What a read found, into the caller's struct as far as it reaches (rule 5).
void describe(const savekit::slots::payload& p, std::size_t skipped, sk_payload_info* info) {
  if (!info || info->struct_size < sizeof(std::size_t)) return;
  sk_payload_info full{};
  full.struct_size = info->struct_size;
  full.encoding = static_cast<std::int32_t>(p.encoding);
  full.schema_version = p.schema_version;
  full.generation = p.generation;
  full.sealed = p.sealed ? 1 : 0;
  full.skipped = static_cast<std::uint32_t>(skipped);
  std::memcpy(static_cast<void*>(info), &full, std::min(info->struct_size, sizeof full));
}

sk_status read_into(sk_slots* slots, const savekit::result<savekit::slots::payload>& read, std::size_t skipped,
                    sk_buffer* out, sk_payload_info* info) {
  if (!read) return fail(slots, read.error());
  if (!fill(out, read->bytes)) return fail(slots, SK_OUT_OF_MEMORY, "out of memory");
  describe(*read, skipped, info);
  return SK_OK;
}

// A list built by body(list) into *out (NULL on failure).
template <class Body>
sk_status list_call(sk_slots* slots, sk_slot_list** out, Body body) {
  if (!out) return null_argument(slots);
  return guarded(slots, [&]() -> sk_status {
    auto list = std::make_unique<sk_slot_list>();
    if (sk_status s = body(*list)) return s;
    *out = list.release();
    return SK_OK;
  });
}

}  // namespace

extern "C" {

void sk_slots_options_init(sk_slots_options* options) {
  if (!options) return;
  const savekit::slots_options defaults;
  *options = sk_slots_options{};
  options->struct_size = sizeof(sk_slots_options);
  options->keep_generations = defaults.keep_generations;
  options->read_only = defaults.read_only;
  options->create_if_missing = defaults.create_if_missing;
  options->max_payload_bytes = defaults.max_payload_bytes;
  options->accept_unsealed = defaults.accept_unsealed;
}

sk_status sk_slots_open(const char* path, size_t path_size, const sk_slots_options* options, sk_slots** out) {
  std::string_view path_view;
  if (out) *out = nullptr;
  if (!out || !view_of(path, path_size, path_view)) return null_argument(nullptr);
  if (sk_status bad = check_path(path_view)) return bad;
  sk_slots_options given;
  sk_slots_options_init(&given);
  if (sk_status bad =
          read_options(nullptr, options, given, "sk_slots_options.struct_size is not one this library knows"))
    return bad;
  std::string_view player;
  if (!view_of(given.player, given.player_size, player)) return null_argument(nullptr);
  return guarded(nullptr, [&]() -> sk_status {
    savekit::slots_options opening;
    opening.keep_generations = given.keep_generations;
    opening.read_only = given.read_only != 0;
    opening.create_if_missing = given.create_if_missing != 0;
    opening.max_payload_bytes = given.max_payload_bytes;
    opening.accept_unsealed = given.accept_unsealed != 0;
    opening.encoding = savekit::object_encoding::bytes;  // what write_bytes is given decides anyway
    if (sk_status bad = slot_sealer(given.keyring, given.seal, player, opening.sealer)) return bad;
    savekit::result<savekit::slots> opened = savekit::slots::open(std::string{path_view}, std::move(opening));
    if (!opened) return fail(nullptr, opened.error());
    *out = new sk_slots(std::move(*opened));
    return SK_OK;
  });
}

void sk_slots_close(sk_slots* slots) { close_handle(slots); }

void sk_slot_write_options_init(sk_slot_write_options* options) {
  if (!options) return;
  *options = sk_slot_write_options{};
  options->struct_size = sizeof(sk_slot_write_options);
  options->encoding = SK_ENCODING_BYTES;
  options->schema_version = 1;
  options->sealed = -1;
}

sk_status sk_slots_write(sk_slots* slots, const char* name, size_t name_size, const uint8_t* payload,
                         size_t payload_size, const sk_slot_write_options* options) {
  return write_call(slots, name, name_size, payload, payload_size, options, [&](const write_request& r) {
    return done(slots, slots->folder.write_bytes(r.name, r.payload, r.encoding, r.schema_version, r.meta, r.how));
  });
}

sk_status sk_slots_write_async(sk_slots* slots, const char* name, size_t name_size, const uint8_t* payload,
                               size_t payload_size, const sk_slot_write_options* options, sk_done_callback callback,
                               void* user) {
  return write_call(slots, name, name_size, payload, payload_size, options, [&](const write_request& r) {
    // The failure is kept with the handle before the callback runs, so that it can ask
    // sk_last_error. (sk_slots_close waits for the queue: the handle outlives the callback.)
    slots->folder.write_bytes_async(
        r.name, r.payload, r.encoding, r.schema_version, r.meta,
        [slots, callback, user](const savekit::status& outcome) {
          const sk_status code = outcome ? SK_OK : fail(slots, outcome.error());
          if (callback) callback(user, code);
        },
        r.how);
    return SK_OK;
  });
}

sk_status sk_slots_flush(sk_slots* slots) {
  if (!live(slots)) return not_a_handle(slots);
  return guarded(slots, [&] { return done(slots, slots->folder.flush()); });
}

sk_status sk_slots_list(sk_slots* slots, sk_slot_list** out) {
  if (out) *out = nullptr;  // out-parameters are set whatever happens
  if (!live(slots)) return not_a_handle(slots);
  return list_call(slots, out, [&](sk_slot_list& list) -> sk_status {
    savekit::result<std::vector<savekit::slot_info>> menu = slots->folder.list();
    if (!menu) return fail(slots, menu.error());
    for (const savekit::slot_info& s : *menu) list.items.push_back(info_of(list, s, s.name, s.damaged_newer));
    return SK_OK;
  });
}

sk_status sk_slots_info(sk_slots* slots, const char* name, size_t name_size, sk_slot_list** out) {
  if (out) *out = nullptr;  // out-parameters are set whatever happens
  std::string_view n;
  if (sk_status s = checked(slots, name, name_size, n)) return s;
  return list_call(slots, out, [&](sk_slot_list& list) -> sk_status {
    savekit::result<savekit::slot_info> one = slots->folder.info(n);
    if (!one) return fail(slots, one.error());
    list.items.push_back(info_of(list, *one, one->name, one->damaged_newer));
    return SK_OK;
  });
}

sk_status sk_slots_history(sk_slots* slots, const char* name, size_t name_size, sk_slot_list** out) {
  if (out) *out = nullptr;  // out-parameters are set whatever happens
  std::string_view n;
  if (sk_status s = checked(slots, name, name_size, n)) return s;
  return list_call(slots, out, [&](sk_slot_list& list) -> sk_status {
    savekit::result<std::vector<savekit::generation_info>> kept = slots->folder.history(n);
    if (!kept) return fail(slots, kept.error());
    for (const savekit::generation_info& g : *kept) list.items.push_back(info_of(list, g, n, 0));
    return SK_OK;
  });
}

size_t sk_slot_list_count(const sk_slot_list* list) {
  return list && list->magic == sk_slot_list::kind ? list->items.size() : 0;
}

const sk_slot_info* sk_slot_list_at(const sk_slot_list* list, size_t index) {
  return list && list->magic == sk_slot_list::kind && index < list->items.size() ? &list->items[index] : nullptr;
}

void sk_slot_list_free(sk_slot_list* list) {
  if (!list || list->magic != sk_slot_list::kind) return;
  list->magic = 0;
  delete list;
}

sk_status sk_slots_read(sk_slots* slots, const char* name, size_t name_size, sk_buffer* out, sk_payload_info* info) {
  if (out) *out = sk_buffer{};
  std::string_view n;
  if (sk_status s = checked(slots, name, name_size, n)) return s;
  if (!out) return null_argument(slots);
  *out = sk_buffer{};
  return guarded(slots, [&] {
    savekit::read_report report;
    savekit::result<savekit::slots::payload> read = slots->folder.read_payload(n, &report);
    return read_into(slots, read, report.skipped.size(), out, info);
  });
}

sk_status sk_slots_read_generation(sk_slots* slots, const char* name, size_t name_size, uint64_t generation,
                                   sk_buffer* out, sk_payload_info* info) {
  if (out) *out = sk_buffer{};
  std::string_view n;
  if (sk_status s = checked(slots, name, name_size, n)) return s;
  if (!out) return null_argument(slots);
  *out = sk_buffer{};
  return guarded(slots, [&] { return read_into(slots, slots->folder.read_generation(n, generation), 0, out, info); });
}

sk_status sk_slots_thumbnail(sk_slots* slots, const char* name, size_t name_size, sk_buffer* out) {
  if (out) *out = sk_buffer{};
  std::string_view n;
  if (sk_status s = checked(slots, name, name_size, n)) return s;
  if (!out) return null_argument(slots);
  *out = sk_buffer{};
  return guarded(slots, [&]() -> sk_status {
    savekit::result<std::vector<std::byte>> picture = slots->folder.thumbnail(n);
    if (!picture) return fail(slots, picture.error());
    if (!fill(out, {reinterpret_cast<const char*>(picture->data()), picture->size()}))
      return fail(slots, SK_OUT_OF_MEMORY, "out of memory");
    return SK_OK;
  });
}

sk_status sk_slots_restore(sk_slots* slots, const char* name, size_t name_size, uint64_t generation) {
  std::string_view n;
  if (sk_status s = checked(slots, name, name_size, n)) return s;
  return guarded(slots, [&] { return done(slots, slots->folder.restore(n, generation)); });
}

sk_status sk_slots_remove(sk_slots* slots, const char* name, size_t name_size) {
  std::string_view n;
  if (sk_status s = checked(slots, name, name_size, n)) return s;
  return guarded(slots, [&] { return done(slots, slots->folder.remove(n)); });
}

sk_status sk_slots_copy(sk_slots* slots, const char* from, size_t from_size, const char* to, size_t to_size) {
  std::string_view f, t;
  if (sk_status s = checked(slots, from, from_size, f)) return s;
  if (!view_of(to, to_size, t)) return null_argument(slots);
  return guarded(slots, [&] { return done(slots, slots->folder.copy(f, t)); });
}

sk_status sk_slots_rename(sk_slots* slots, const char* from, size_t from_size, const char* to, size_t to_size) {
  std::string_view f, t;
  if (sk_status s = checked(slots, from, from_size, f)) return s;
  if (!view_of(to, to_size, t)) return null_argument(slots);
  return guarded(slots, [&] { return done(slots, slots->folder.rename(f, t)); });
}

}  // extern "C"
