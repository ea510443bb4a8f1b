// Sealed saves through the C ABI (savekit/savekit.h): keyrings, sk_seal / sk_unseal, and
// the sealer save slots use. The one file of the C ABI that needs zstd and libsodium: a
// library built without them (SAVEKIT_C_HAS_SEAL unset) answers SK_UNSUPPORTED_ALGORITHM.
#include "c_handles.hpp"

#if SAVEKIT_C_HAS_SEAL
#include <savekit/seal.hpp>
#endif

using namespace savekit::c_api;

#if SAVEKIT_C_HAS_SEAL

struct sk_keyring : sk_handle_base {
  static constexpr std::uint32_t kind = keyring_kind;
  sk_keyring() : sk_handle_base(kind) {}
  mutable std::mutex keys_mutex;  // a keyring may be used from several threads (header rule 4)
  savekit::keyring keys;
};

namespace {

sk_status read_seal_options(const sk_seal_options* options, sk_seal_options& given) {
  sk_seal_options_init(&given);
  if (sk_status bad =
          read_options(nullptr, options, given, "sk_seal_options.struct_size is not one this library knows"))
    return bad;
  if (given.compression != SK_COMPRESSION_NONE && given.compression != SK_COMPRESSION_ZSTD)
    return fail(nullptr,
                savekit::error{savekit::errc::invalid_value, 0, "compression is SK_COMPRESSION_NONE or _ZSTD"});
  auto protection_known = [](std::int32_t p) { return p >= SK_PROTECTION_NONE && p <= SK_PROTECTION_AEAD; };
  if (!protection_known(given.protection) ||
      (given.minimum_protection != -1 && !protection_known(given.minimum_protection)))
    return fail(nullptr, savekit::error{savekit::errc::invalid_value, 0, "protection is one of SK_PROTECTION_..."});
  if (given.level < 1 || given.level > 19)
    return fail(nullptr, savekit::error{savekit::errc::invalid_value, 0, "a zstd level is 1..19"});
  return SK_OK;
}

savekit::seal_options sealing(const sk_seal_options& o) {
  savekit::seal_options out;
  out.compression = static_cast<savekit::seal_compression>(o.compression);
  out.level = o.level;
  out.protection = static_cast<savekit::seal_protection>(o.protection);
  return out;
}

savekit::unseal_options opening(const sk_seal_options& o) {
  savekit::unseal_options out;
  if (o.minimum_protection != -1) out.minimum_protection = static_cast<savekit::seal_protection>(o.minimum_protection);
  return out;
}

// The context's views, checked (rule 2).
sk_status read_context(const sk_seal_context* context, savekit::seal_context& out) {
  if (!context) return SK_OK;
  sk_seal_context given{};
  given.struct_size = sizeof given;
  if (sk_status bad =
          read_options(nullptr, context, given, "sk_seal_context.struct_size is not one this library knows"))
    return bad;
  std::string_view name, player;
  if (!view_of(given.name, given.name_size, name) || !view_of(given.player, given.player_size, player))
    return null_argument(nullptr);
  out.name = name;
  out.schema_version = given.schema_version;
  out.player = player;
  return SK_OK;
}

// A keyring argument that may be NULL: a copy of its keys (so that no lock is held while
// sealing), or none.
sk_status keys_of(const sk_keyring* keys, std::optional<savekit::keyring>& out) {
  if (!keys) return SK_OK;
  if (!live(keys)) return not_a_handle(keys);
  std::lock_guard lock(keys->keys_mutex);
  out = keys->keys;
  return SK_OK;
}

// Seal or unseal: the shared checks, then body(plain_or_sealed, keys, options, context).
template <class Body>
sk_status seal_call(const std::uint8_t* data, std::size_t size, const sk_keyring* keys, const sk_seal_options* options,
                    const sk_seal_context* context, sk_buffer* out, Body body) {
  std::string_view input;
  if (out) *out = sk_buffer{};
  if (!out || !view_of(data, size, input)) return null_argument(nullptr);
  sk_seal_options given;
  if (sk_status bad = read_seal_options(options, given)) return bad;
  return guarded(nullptr, [&]() -> sk_status {
    savekit::seal_context bound;
    if (sk_status bad = read_context(context, bound)) return bad;
    std::optional<savekit::keyring> ring;
    if (sk_status bad = keys_of(keys, ring)) return bad;
    savekit::result<std::string> done = body(input, ring ? &*ring : nullptr, given, bound);
    if (!done) return fail(nullptr, done.error());
    if (!fill(out, *done)) return fail(nullptr, SK_OUT_OF_MEMORY, "out of memory");
    return SK_OK;
  });
}

}  // namespace

namespace savekit::c_api {

sk_status slot_sealer(const void* keys, const sk_seal_options* options, std::string_view player,
                      std::shared_ptr<const payload_sealer>& out) noexcept {
  out = nullptr;
  if (!keys) return SK_OK;
  const auto* ring = static_cast<const sk_keyring*>(keys);
  sk_seal_options given;
  if (sk_status bad = read_seal_options(options, given)) return bad;
  return guarded(nullptr, [&]() -> sk_status {
    std::optional<savekit::keyring> copy;
    if (sk_status bad = keys_of(ring, copy)) return bad;
    out = make_slot_sealer(std::move(*copy), sealing(given), std::string{player}, opening(given));
    return SK_OK;
  });
}

}  // namespace savekit::c_api

extern "C" {

sk_status sk_keyring_new(sk_keyring** out) {
  if (!out) return null_argument(nullptr);
  *out = nullptr;
  return guarded(nullptr, [&] {
    *out = new sk_keyring();
    return SK_OK;
  });
}

void sk_keyring_free(sk_keyring* keys) { close_handle(keys); }

sk_status sk_keyring_add(sk_keyring* keys, uint32_t id, const uint8_t* key, size_t key_size) {
  std::string_view bytes;
  if (!live(keys)) return not_a_handle(keys);
  if (!view_of(key, key_size, bytes)) return null_argument(keys);
  return guarded(keys, [&]() -> sk_status {
    savekit::result<savekit::seal_key> made =
        savekit::seal_key::from_bytes(id, std::as_bytes(std::span{bytes.data(), bytes.size()}));
    if (!made) return fail(keys, made.error());
    std::lock_guard lock(keys->keys_mutex);
    keys->keys.add(std::move(*made));
    return SK_OK;
  });
}

sk_status sk_keyring_generate(sk_keyring* keys, uint32_t id, uint8_t* key_out, size_t key_out_size) {
  if (!live(keys)) return not_a_handle(keys);
  if (!key_out) return null_argument(keys);
  if (key_out_size < SK_SEAL_KEY_BYTES) return fail(keys, SK_BUFFER_TOO_SMALL, "a key is SK_SEAL_KEY_BYTES (32) bytes");
  return guarded(keys, [&]() -> sk_status {
    savekit::result<savekit::seal_key> made = savekit::seal_key::generate(id);
    if (!made) return fail(keys, made.error());
    std::memcpy(key_out, made->bytes().data(), SK_SEAL_KEY_BYTES);
    std::lock_guard lock(keys->keys_mutex);
    keys->keys.add(std::move(*made));
    return SK_OK;
  });
}

sk_status sk_keyring_use(sk_keyring* keys, uint32_t id) {
  if (!live(keys)) return not_a_handle(keys);
  return guarded(keys, [&] {
    std::lock_guard lock(keys->keys_mutex);
    return done(keys, keys->keys.use(id));
  });
}

void sk_seal_options_init(sk_seal_options* options) {
  if (!options) return;
  const savekit::seal_options defaults;
  options->struct_size = sizeof(sk_seal_options);
  options->compression = static_cast<std::int32_t>(defaults.compression);
  options->level = defaults.level;
  options->protection = static_cast<std::int32_t>(defaults.protection);
  options->minimum_protection = -1;
}

sk_status sk_seal(const uint8_t* plain, size_t plain_size, const sk_keyring* keys, const sk_seal_options* options,
                  const sk_seal_context* context, sk_buffer* out) {
  return seal_call(plain, plain_size, keys, options, context, out,
                   [](std::string_view input, const savekit::keyring* ring, const sk_seal_options& o,
                      const savekit::seal_context& bound) { return savekit::seal(input, sealing(o), bound, ring); });
}

sk_status sk_unseal(const uint8_t* sealed, size_t sealed_size, const sk_keyring* keys, const sk_seal_options* options,
                    const sk_seal_context* context, sk_buffer* out) {
  return seal_call(sealed, sealed_size, keys, options, context, out,
                   [](std::string_view input, const savekit::keyring* ring, const sk_seal_options& o,
                      const savekit::seal_context& bound) { return savekit::unseal(input, ring, bound, opening(o)); });
}

}  // extern "C"

#else  // built without zstd and libsodium

struct sk_keyring : sk_handle_base {
  static constexpr std::uint32_t kind = keyring_kind;
};

namespace {
sk_status no_sealing() {
  return fail(nullptr, savekit::error{savekit::errc::unsupported_algorithm, 0,
                                      "this savekit_c was built without zstd and libsodium: no sealed saves"});
}
}  // namespace

namespace savekit::c_api {
sk_status slot_sealer(const void* keys, const sk_seal_options*, std::string_view,
                      std::shared_ptr<const payload_sealer>& out) noexcept {
  out = nullptr;
  return keys ? no_sealing() : SK_OK;
}
}  // namespace savekit::c_api

extern "C" {
sk_status sk_keyring_new(sk_keyring** out) {
  if (out) *out = nullptr;
  return no_sealing();
}
void sk_keyring_free(sk_keyring*) {}
sk_status sk_keyring_add(sk_keyring*, uint32_t, const uint8_t*, size_t) { return no_sealing(); }
sk_status sk_keyring_generate(sk_keyring*, uint32_t, uint8_t*, size_t) { return no_sealing(); }
sk_status sk_keyring_use(sk_keyring*, uint32_t) { return no_sealing(); }
void sk_seal_options_init(sk_seal_options* options) {
  if (!options) return;
  *options = sk_seal_options{sizeof(sk_seal_options), SK_COMPRESSION_ZSTD, 3, SK_PROTECTION_AEAD, -1};
}
sk_status sk_seal(const uint8_t*, size_t, const sk_keyring*, const sk_seal_options*, const sk_seal_context*,
                  sk_buffer* out) {
  if (out) *out = sk_buffer{};
  return no_sealing();
}
sk_status sk_unseal(const uint8_t*, size_t, const sk_keyring*, const sk_seal_options*, const sk_seal_context*,
                    sk_buffer* out) {
  if (out) *out = sk_buffer{};
  return no_sealing();
}
}  // extern "C"

#endif
