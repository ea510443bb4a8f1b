// The prefs store through the C ABI (savekit/savekit.h): savekit::prefs over the file backend.
#include <savekit/detail/utf8.hpp>
#include <savekit/file_backend.hpp>

#include <cstring>
#include <memory>

#include "c_handles.hpp"

using namespace savekit::c_api;

namespace {

// The store behind a handle and the key, checked (rule 2); else the status to return.
sk_status checked(const sk_prefs* prefs, const char* key, std::size_t key_size, std::string_view& key_view) {
  if (!live(prefs)) return not_a_handle(prefs);
  if (!view_of(key, key_size, key_view)) return null_argument(prefs);
  return SK_OK;
}

// A number entry into *out, by the store's typed getter.
template <class Number, class Getter>
sk_status get_number(const sk_prefs* prefs, const char* key, std::size_t key_size, Number* out, Getter get) {
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!out) return null_argument(prefs);
  return guarded(prefs, [&]() -> sk_status {
    savekit::result<Number> value = get(prefs->store, k);
    if (!value) return fail(prefs, value.error());
    *out = *value;
    return SK_OK;
  });
}

}  // namespace

extern "C" {

void sk_prefs_options_init(sk_prefs_options* options) {
  if (!options) return;
  const savekit::file_backend_options defaults;
  options->struct_size = sizeof(sk_prefs_options);
  options->read_only = defaults.read_only;
  options->create_if_missing = defaults.create_if_missing;
  options->max_store_bytes = defaults.max_store_bytes;
  options->compact_ratio = defaults.compact_ratio;
  options->compact_min_bytes = defaults.compact_min_bytes;
}

sk_status sk_prefs_open(const char* path, size_t path_size, const sk_prefs_options* options, sk_prefs** out) {
  std::string_view path_view;
  if (out) *out = nullptr;  // out-parameters are set whatever happens
  if (!out || !view_of(path, path_size, path_view)) return null_argument(nullptr);
  if (sk_status bad = check_path(path_view)) return bad;
  sk_prefs_options given;
  sk_prefs_options_init(&given);
  if (sk_status bad =
          read_options(nullptr, options, given, "sk_prefs_options.struct_size is not one this library knows"))
    return bad;
  return guarded(nullptr, [&]() -> sk_status {
    savekit::file_backend_options backend;
    backend.read_only = given.read_only != 0;
    backend.create_if_missing = given.create_if_missing != 0;
    backend.max_store_bytes = given.max_store_bytes;
    backend.compact_ratio = given.compact_ratio;
    backend.compact_min_bytes = given.compact_min_bytes;
    savekit::result<savekit::prefs> opened = savekit::prefs::open(std::string{path_view}, backend);
    if (!opened) return fail(nullptr, opened.error());
    *out = new sk_prefs(std::move(*opened));
    return SK_OK;
  });
}

void sk_prefs_close(sk_prefs* prefs) { close_handle(prefs); }

sk_status sk_prefs_set_int(sk_prefs* prefs, const char* key, size_t key_size, int64_t value) {
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  return guarded(prefs, [&] { return done(prefs, prefs->store.set_int(k, value)); });
}

sk_status sk_prefs_set_float(sk_prefs* prefs, const char* key, size_t key_size, double value) {
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  return guarded(prefs, [&] { return done(prefs, prefs->store.set_float(k, value)); });
}

sk_status sk_prefs_set_string(sk_prefs* prefs, const char* key, size_t key_size, const char* value, size_t value_size) {
  std::string_view k, v;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!view_of(value, value_size, v)) return null_argument(prefs);
  if (std::size_t bad = savekit::detail::find_invalid_utf8(v.data(), v.size()); bad != v.size())
    return fail(prefs, savekit::error{savekit::errc::invalid_utf8, bad,
                                      "a string value is UTF-8 (sk_prefs_set_bytes takes any bytes)"});
  return guarded(prefs, [&] { return done(prefs, prefs->store.set_string(k, v)); });
}

sk_status sk_prefs_set_bytes(sk_prefs* prefs, const char* key, size_t key_size, const uint8_t* value,
                             size_t value_size) {
  std::string_view k, v;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!view_of(value, value_size, v)) return null_argument(prefs);
  return guarded(prefs, [&] { return done(prefs, prefs->store.set_bytes(k, std::as_bytes(std::span{v}))); });
}

sk_status sk_prefs_get_int(const sk_prefs* prefs, const char* key, size_t key_size, int64_t* out) {
  return get_number(prefs, key, key_size, out,
                    [](const savekit::prefs& p, std::string_view k) { return p.try_get_int(k); });
}

sk_status sk_prefs_get_float(const sk_prefs* prefs, const char* key, size_t key_size, double* out) {
  return get_number(prefs, key, key_size, out,
                    [](const savekit::prefs& p, std::string_view k) { return p.try_get_float(k); });
}

sk_status sk_prefs_get_string(const sk_prefs* prefs, const char* key, size_t key_size, char* out, size_t capacity,
                              size_t* needed) {
  if (needed) *needed = 0;
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!needed) return null_argument(prefs);
  return guarded(prefs, [&]() -> sk_status {
    savekit::result<std::string> value = prefs->store.try_get_string(k);
    if (!value) return fail(prefs, value.error());
    return copy_out(prefs, *value, out, capacity, needed);
  });
}

sk_status sk_prefs_get_bytes(const sk_prefs* prefs, const char* key, size_t key_size, uint8_t* out, size_t capacity,
                             size_t* needed) {
  if (needed) *needed = 0;
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!needed) return null_argument(prefs);
  return guarded(prefs, [&]() -> sk_status {
    savekit::result<std::vector<std::byte>> value = prefs->store.get_bytes(k);
    if (!value) return fail(prefs, value.error());
    return copy_out(prefs, {reinterpret_cast<const char*>(value->data()), value->size()}, out, capacity, needed);
  });
}

sk_status sk_prefs_has_key(const sk_prefs* prefs, const char* key, size_t key_size, int32_t* out) {
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!out) return null_argument(prefs);
  return guarded(prefs, [&] {
    *out = prefs->store.has_key(k) ? 1 : 0;
    return SK_OK;
  });
}

sk_status sk_prefs_type(const sk_prefs* prefs, const char* key, size_t key_size, int32_t* out) {
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!out) return null_argument(prefs);
  return guarded(prefs, [&]() -> sk_status {
    savekit::result<savekit::value_type> type = prefs->store.type_of(k);
    if (!type) return fail(prefs, type.error());
    *out = static_cast<std::int32_t>(*type);
    return SK_OK;
  });
}

sk_status sk_prefs_get_raw(const sk_prefs* prefs, const char* key, size_t key_size, int32_t* type, sk_buffer* out) {
  if (out) *out = sk_buffer{};
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  if (!type || !out) return null_argument(prefs);
  *out = sk_buffer{};
  return guarded(prefs, [&]() -> sk_status {
    savekit::result<savekit::stored_value> raw = prefs->store.get_raw(k);
    if (!raw) return fail(prefs, raw.error());
    if (!fill(out, raw->bytes)) return fail(prefs, SK_OUT_OF_MEMORY, "out of memory");
    *type = static_cast<std::int32_t>(raw->type);
    return SK_OK;
  });
}

sk_status sk_prefs_delete_key(sk_prefs* prefs, const char* key, size_t key_size) {
  std::string_view k;
  if (sk_status s = checked(prefs, key, key_size, k)) return s;
  return guarded(prefs, [&] { return done(prefs, prefs->store.delete_key(k)); });
}

sk_status sk_prefs_delete_all(sk_prefs* prefs) {
  if (!live(prefs)) return not_a_handle(prefs);
  return guarded(prefs, [&] {
    prefs->store.delete_all();
    return SK_OK;
  });
}

sk_status sk_prefs_keys(const sk_prefs* prefs, sk_buffer* out, size_t* count) {
  if (out) *out = sk_buffer{};
  if (count) *count = 0;
  if (!live(prefs)) return not_a_handle(prefs);
  if (!out || !count) return null_argument(prefs);
  out->data = nullptr;
  out->size = 0;
  *count = 0;
  return guarded(prefs, [&]() -> sk_status {
    const std::vector<std::string> keys = prefs->store.keys();
    std::string packed;
    for (const std::string& key : keys) {
      const auto n = static_cast<std::uint32_t>(key.size());  // a key is at most 256 bytes
      for (int shift = 0; shift < 32; shift += 8) packed += static_cast<char>((n >> shift) & 0xff);
      packed += key;
    }
    if (!fill(out, packed)) return fail(prefs, SK_OUT_OF_MEMORY, "out of memory");
    *count = keys.size();
    return SK_OK;
  });
}

sk_status sk_prefs_save(sk_prefs* prefs) {
  if (!live(prefs)) return not_a_handle(prefs);
  return guarded(prefs, [&] { return done(prefs, prefs->store.save()); });
}

sk_status sk_prefs_save_async(sk_prefs* prefs, sk_done_callback callback, void* user) {
  if (!live(prefs)) return not_a_handle(prefs);
  return guarded(prefs, [&] {
    // The failure is kept with the handle before the callback runs, so that it can ask
    // sk_last_error. (prefs::save_async keeps the store's state alive while it runs.)
    prefs->store.save_async([prefs, callback, user](const savekit::status& outcome) {
      const sk_status code = outcome ? SK_OK : fail(prefs, outcome.error());
      if (callback) callback(user, code);
    });
    return SK_OK;
  });
}

sk_status sk_prefs_recovery(const sk_prefs* prefs, sk_recovery* out) {
  if (out) *out = sk_recovery{};
  if (!live(prefs)) return not_a_handle(prefs);
  if (!out) return null_argument(prefs);
  *out = sk_recovery{};
  return guarded(prefs, [&]() -> sk_status {
    const savekit::recovery_report& r = prefs->store.recovery();
    out->recovered = r.recovered ? 1 : 0;
    out->commits_loaded = r.commits_loaded;
    out->bytes_discarded = r.bytes_discarded;
    if (!fill(&out->detail, r.detail) || !fill(&out->damaged_copy, r.damaged_copy)) {
      sk_recovery_free(out);
      return fail(prefs, SK_OUT_OF_MEMORY, "out of memory");
    }
    return SK_OK;
  });
}

void sk_recovery_free(sk_recovery* recovery) {
  if (!recovery) return;
  sk_buffer_free(&recovery->detail);
  sk_buffer_free(&recovery->damaged_copy);
}

}  // extern "C"
