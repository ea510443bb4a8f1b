// Sealed saves (savekit/seal.hpp): the envelope of docs/sealed-format.md, over
// libzstd and libsodium. No cryptography or compression of savekit's own.
#include "savekit/seal.hpp"

#include <sodium.h>
#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "little_endian.hpp"
#include "thread_kept.hpp"

namespace savekit {

// A dictionary digested by zstd once (ZSTD_CDict per level, one ZSTD_DDict) instead of at
// every seal: compressing ~1 KB saves with it was 2.5 times slower than without it.
struct zstd_dictionary::digested {
  std::mutex mutex;
  std::map<int, std::unique_ptr<ZSTD_CDict, decltype(&ZSTD_freeCDict)>> for_level;
  std::unique_ptr<ZSTD_DDict, decltype(&ZSTD_freeDDict)> for_reading{nullptr, ZSTD_freeDDict};

  const ZSTD_CDict* compressing(const std::string& bytes, int level) {
    std::lock_guard lock(mutex);
    auto found = for_level.find(level);
    if (found == for_level.end())
      found = for_level
                  .emplace(level,
                           std::unique_ptr<ZSTD_CDict, decltype(&ZSTD_freeCDict)>{
                               ZSTD_createCDict(bytes.data(), bytes.size(), level), ZSTD_freeCDict})
                  .first;
    return found->second.get();
  }
  const ZSTD_DDict* decompressing(const std::string& bytes) {
    std::lock_guard lock(mutex);
    if (!for_reading) for_reading.reset(ZSTD_createDDict(bytes.data(), bytes.size()));
    return for_reading.get();
  }
};

zstd_dictionary::digested& digest_of(const zstd_dictionary& d) { return *d.digested_; }

namespace {

constexpr char magic[4] = {'S', 'K', 'S', 'L'};
constexpr std::uint8_t format_version = 1;
// Separates this use of BLAKE2b and of the AEAD's associated data from any other.
constexpr std::string_view context_label = "savekit sealed save v1";

// Fills out with bytes from the system's cryptographic random source.
#ifdef __EMSCRIPTEN__
// libsodium's WebAssembly build asks JavaScript for 4 bytes per call (70 µs for one nonce
// under node, measured by bench/run.sh seal-wasm): one call to the platform's CSPRNG
// (Web Crypto, in pages, workers and node alike) fills the whole buffer instead.
EM_JS(void, savekit_fill_random, (unsigned char* out, std::size_t size), {
  var source = typeof globalThis.crypto != 'undefined' && globalThis.crypto.getRandomValues
                   ? globalThis.crypto
                   : require('crypto').webcrypto;
  var start = out >>> 0;
  for (var at = 0; at < size; at += 65536)  // getRandomValues' limit per call
    source.getRandomValues(HEAPU8.subarray(start + at, start + Math.min(size, at + 65536)));
});
void fill_random(unsigned char* out, std::size_t size) { savekit_fill_random(out, size); }
#else
void fill_random(unsigned char* out, std::size_t size) { randombytes_buf(out, size); }
#endif

status library_ready() {
  static const int initialized = sodium_init();  // thread-safe, idempotent
  if (initialized < 0) return error{errc::io_error, 0, "libsodium could not initialize"};
  return {};
}

error tampered(std::string what) {
  return error{errc::tampered, 0,
               "the sealed save fails its check (" + std::move(what) +
                   "): it was edited, damaged, cut short, or sealed for another slot or player"};
}

// The context, as the digest, MAC or AEAD covers it (after the header and nonce).
status check_context(const seal_context& context) {
  if (context.name.size() > UINT32_MAX || context.player.size() > UINT32_MAX || context.binding.size() > UINT32_MAX)
    return error{errc::invalid_value, 0, "a seal context's name, player and binding are at most 4 GiB each"};
  return {};
}
// Appends the context as the seal covers it, after the header and nonce.
void append_context(std::string& out, const seal_context& context) {
  out.append(context_label);
  detail::put_u32(out, static_cast<std::uint32_t>(context.name.size()));
  out.append(context.name);
  detail::put_u32(out, context.schema_version);
  detail::put_u32(out, static_cast<std::uint32_t>(context.player.size()));
  out.append(context.player);
  // Always present, even empty: every field is length-prefixed, so no two contexts encode
  // alike and no context is a prefix of another (the digest and MAC take the body after it).
  detail::put_u32(out, static_cast<std::uint32_t>(context.binding.size()));
  out.append(context.binding);
}

// Per-thread buffers a seal or unseal reuses, so that small saves allocate nothing: what the
// tag covers before the body (header, nonce, context), and a body decrypted before it
// inflates. Trimmed after every call (a buffer grown past 1 MiB by a large or forged save is
// given back; a decrypted body is wiped first).
struct scratch {
  std::string covered;
  std::string opened;
};
// This thread's buffers, or `fallback` once they are destroyed (thread_kept.hpp).
scratch& thread_scratch(scratch& fallback) {
  scratch* kept = detail::thread_kept<scratch>();
  return kept ? *kept : fallback;
}
void trim(std::string& buffer) {
  if (buffer.capacity() > (std::size_t{1} << 20)) std::string{}.swap(buffer);
}
struct trim_on_return {
  scratch& buffers;
  ~trim_on_return() {
    sodium_memzero(buffers.opened.data(), buffers.opened.size());
    buffers.opened.clear();
    trim(buffers.opened);
    trim(buffers.covered);
  }
};

// Whether a view's bytes lie in a string's buffer (a caller's out given as its own input).
bool inside(std::string_view view, const std::string& buffer) {
  const auto begin = reinterpret_cast<std::uintptr_t>(buffer.data());
  const auto end = begin + buffer.capacity() + 1;
  const auto at = reinterpret_cast<std::uintptr_t>(view.data());
  return !view.empty() && at < end && at + view.size() > begin;
}

// BLAKE2b-256 over header (with nonce) and context, then the body: keyed for mac, plain for none.
void digest(const unsigned char* key, std::string_view covered, std::string_view body,
            unsigned char out[sealed_tag_bytes_digest]) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, key, key ? seal_key_bytes : 0, sealed_tag_bytes_digest);
  for (std::string_view part : {covered, body})
    crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  crypto_generichash_final(&state, out, sealed_tag_bytes_digest);
}

// zstd's contexts: one of each per thread, made once. After the thread's are destroyed
// (thread_kept.hpp) a call makes its own, owned by `own`.
using owned_cctx = std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)>;
using owned_dctx = std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)>;
struct zstd_contexts {
  owned_cctx compressing{ZSTD_createCCtx(), ZSTD_freeCCtx};
  owned_dctx decompressing{ZSTD_createDCtx(), ZSTD_freeDCtx};
};
ZSTD_CCtx* compressor(owned_cctx& own) {
  if (zstd_contexts* c = detail::thread_kept<zstd_contexts>(); c && c->compressing) return c->compressing.get();
  own.reset(ZSTD_createCCtx());
  return own.get();
}
ZSTD_DCtx* decompressor(owned_dctx& own) {
  if (zstd_contexts* c = detail::thread_kept<zstd_contexts>(); c && c->decompressing) return c->decompressing.get();
  own.reset(ZSTD_createDCtx());
  return own.get();
}

// The body: exactly one zstd frame (no skippable frame, nothing after it) that holds its
// content size, which must be the declared one; inflated into a buffer grown as output
// arrives, so that a small frame claiming a large size allocates no more than it yields.
status inflate(std::string& out, std::string_view body, std::uint64_t declared, const zstd_dictionary* dictionary) {
  if (body.size() < 4 || detail::get_u32(body.data()) != ZSTD_MAGICNUMBER)
    return tampered("the body is not a zstd frame");
  const std::size_t frame = ZSTD_findFrameCompressedSize(body.data(), body.size());
  if (ZSTD_isError(frame) || frame != body.size()) return tampered("the body is not exactly one zstd frame");
  const unsigned long long content = ZSTD_getFrameContentSize(body.data(), body.size());
  if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR || content != declared)
    return tampered("the compressed frame does not hold its declared size");
  if (ZSTD_getDictID_fromFrame(body.data(), body.size()) != (dictionary ? dictionary->id() : 0))
    return tampered("the compressed frame names another dictionary");
  owned_dctx own{nullptr, ZSTD_freeDCtx};
  ZSTD_DCtx* dctx = decompressor(own);
  if (!dctx) return error{errc::io_error, 0, "zstd could not make a decompression context"};
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);  // drops an earlier dictionary too
  if (dictionary) {
    const ZSTD_DDict* prepared = digest_of(*dictionary).decompressing(dictionary->bytes());
    if (!prepared || ZSTD_isError(ZSTD_DCtx_refDDict(dctx, prepared)))
      return error{errc::io_error, 12, "zstd could not prepare the dictionary"};
  }
  const auto size = static_cast<std::size_t>(declared);
  out.assign(std::min(size, std::max<std::size_t>(body.size() * 8, 64 * 1024)), '\0');
  ZSTD_inBuffer in{body.data(), body.size(), 0};
  std::size_t produced = 0;
  for (;;) {
    ZSTD_outBuffer o{out.data(), out.size(), produced};
    const std::size_t before_in = in.pos;
    const std::size_t left = ZSTD_decompressStream(dctx, &o, &in);
    if (ZSTD_isError(left))
      return tampered(std::string{"the compressed body does not inflate: "} + ZSTD_getErrorName(left));
    const bool progressed = o.pos != produced || in.pos != before_in;
    produced = o.pos;
    if (left == 0) break;  // the frame is complete
    if (produced == out.size()) {
      if (out.size() == size) return tampered("the compressed body inflates past its declared size");
      out.resize(std::min(size, out.size() * 2));
    } else if (in.pos == in.size || !progressed) {
      return tampered("the compressed body ends before its frame does");
    }
  }
  if (produced != size) return tampered("the compressed body does not inflate to its declared size");
  out.resize(produced);
  return {};
}

std::size_t nonce_bytes(seal_protection p) { return p == seal_protection::aead ? sealed_nonce_bytes : 0; }
std::size_t tag_bytes(seal_protection p) {
  return p == seal_protection::aead ? sealed_tag_bytes_aead : sealed_tag_bytes_digest;
}

}  // namespace

// ---- keys --------------------------------------------------------------------------------

result<seal_key> seal_key::generate(std::uint32_t id) {
  if (status ready = library_ready(); !ready) return std::move(ready).error();
  seal_key key;
  key.id_ = id;
  fill_random(key.bytes_.data(), key.bytes_.size());
  key.derive_subkeys();
  return key;
}

result<seal_key> seal_key::from_bytes(std::uint32_t id, std::span<const std::byte> bytes) {
  if (bytes.size() != seal_key_bytes)
    return error{errc::invalid_value, 0,
                 "a key is " + std::to_string(seal_key_bytes) + " bytes, not " + std::to_string(bytes.size())};
  seal_key key;
  key.id_ = id;
  std::memcpy(key.bytes_.data(), bytes.data(), seal_key_bytes);
  if (status ready = library_ready(); !ready) return std::move(ready).error();
  key.derive_subkeys();
  return key;
}

seal_key::seal_key(const seal_key&) = default;
seal_key& seal_key::operator=(const seal_key&) = default;
seal_key::~seal_key() {
  sodium_memzero(bytes_.data(), bytes_.size());
  sodium_memzero(mac_subkey_.data(), mac_subkey_.size());
  sodium_memzero(aead_subkey_.data(), aead_subkey_.size());
}

// Each protection uses its own subkey, derived from the key: one key never serves two
// algorithms. The subkey's id is the protection's number in the envelope.
void seal_key::derive_subkeys() {
  crypto_kdf_derive_from_key(mac_subkey_.data(), mac_subkey_.size(), static_cast<std::uint64_t>(seal_protection::mac),
                             "SKsealv1", bytes_.data());
  crypto_kdf_derive_from_key(aead_subkey_.data(), aead_subkey_.size(),
                             static_cast<std::uint64_t>(seal_protection::aead), "SKsealv1", bytes_.data());
}

const unsigned char* subkey_of(const seal_key& key, seal_protection protection) {
  return protection == seal_protection::aead ? key.aead_subkey_.data() : key.mac_subkey_.data();
}

void keyring::add(seal_key key) {
  if (keys_.empty()) current_ = key.id();
  for (seal_key& k : keys_)
    if (k.id() == key.id()) {
      k = std::move(key);
      return;
    }
  keys_.push_back(std::move(key));
}

status keyring::use(std::uint32_t id) {
  if (!find(id)) return error{errc::key_not_held, 0, "the keyring holds no key " + std::to_string(id)};
  current_ = id;
  return {};
}

const seal_key* keyring::current() const { return find(current_); }

const seal_key* keyring::find(std::uint32_t id) const {
  for (const seal_key& k : keys_)
    if (k.id() == id) return &k;
  return nullptr;
}

// ---- dictionaries ------------------------------------------------------------------------

result<zstd_dictionary> zstd_dictionary::from_bytes(std::string bytes) {
  const unsigned id = ZDICT_getDictID(bytes.data(), bytes.size());
  if (id == 0)
    return error{errc::invalid_value, 0,
                 "not a zstd dictionary with an id (train one with savekit train-dict, or ZDICT_trainFromBuffer)"};
  zstd_dictionary d;
  d.bytes_ = std::move(bytes);
  d.id_ = id;
  d.digested_ = std::make_shared<digested>();
  return d;
}

result<zstd_dictionary> zstd_dictionary::train(const std::vector<std::string>& samples, std::size_t capacity) {
  std::string joined;
  std::vector<std::size_t> sizes;
  for (const std::string& s : samples) {
    joined += s;
    sizes.push_back(s.size());
  }
  std::string dictionary(capacity, '\0');
  const std::size_t made = ZDICT_trainFromBuffer(dictionary.data(), dictionary.size(), joined.data(), sizes.data(),
                                                 static_cast<unsigned>(sizes.size()));
  if (ZDICT_isError(made))
    return error{errc::invalid_value, 0,
                 std::string{"zstd could not train a dictionary from "} + std::to_string(samples.size()) +
                     " samples: " + ZDICT_getErrorName(made) + " (give more, or more varied, samples)"};
  dictionary.resize(made);
  return from_bytes(std::move(dictionary));
}

// ---- the envelope ------------------------------------------------------------------------

std::string_view to_string(seal_compression c) noexcept {
  switch (c) {
    case seal_compression::none:
      return "none";
    case seal_compression::zstd:
      return "zstd";
  }
  return "unknown";
}

std::string_view to_string(seal_protection p) noexcept {
  switch (p) {
    case seal_protection::none:
      return "none";
    case seal_protection::mac:
      return "mac";
    case seal_protection::aead:
      return "aead";
  }
  return "unknown";
}

bool looks_sealed(std::string_view bytes) noexcept {
  return bytes.size() >= sizeof magic && std::memcmp(bytes.data(), magic, sizeof magic) == 0;
}

result<sealed_info> inspect_sealed(std::string_view sealed) {
  if (sealed.size() < sealed_header_bytes || !looks_sealed(sealed))
    return tampered(sealed.size() < sealed_header_bytes ? "shorter than its header" : "no sealed-save magic");
  sealed_info info;
  const char* h = sealed.data();
  info.version = static_cast<std::uint8_t>(h[4]);
  if (info.version != format_version)
    return error{errc::unsupported_algorithm, 4,
                 "sealed-save format " + std::to_string(info.version) + ": this savekit reads format 1"};
  const auto compression = static_cast<std::uint8_t>(h[5]);
  const auto protection = static_cast<std::uint8_t>(h[6]);
  if (compression > 1)
    return error{errc::unsupported_algorithm, 5, "compression " + std::to_string(compression) + " is not known here"};
  if (protection > 2)
    return error{errc::unsupported_algorithm, 6, "protection " + std::to_string(protection) + " is not known here"};
  if (h[7] != 0) return tampered("a reserved header byte is set");
  info.compression = static_cast<seal_compression>(compression);
  info.protection = static_cast<seal_protection>(protection);
  info.key_id = detail::get_u32(h + 8);
  info.dictionary_id = detail::get_u32(h + 12);
  info.original_bytes = detail::get_u64(h + 16);
  info.sealed_bytes = sealed.size();
  if ((info.protection == seal_protection::none) != (info.key_id == 0))
    return tampered("the key id does not go with the protection");
  if (info.compression == seal_compression::none && info.dictionary_id != 0)
    return tampered("a dictionary without compression");
  if (sealed.size() < sealed_header_bytes + nonce_bytes(info.protection) + tag_bytes(info.protection))
    return tampered("cut short");
  return info;
}

namespace {

// seal_into and unseal_into, given an out that is not their input.
status seal_apart(std::string& out, std::string_view plain, const seal_options& options, const seal_context& context,
                  const keyring* keys) {
  if (status ready = library_ready(); !ready) return std::move(ready).error();
  if (static_cast<std::uint8_t>(options.compression) > 1 || static_cast<std::uint8_t>(options.protection) > 2)
    return error{errc::invalid_value, 0, "an unknown compression or protection"};
  if (status fits = check_context(context); !fits) return std::move(fits).error();
  const seal_key* key = nullptr;
  if (options.protection != seal_protection::none) {
    key = keys ? keys->current() : nullptr;
    if (!key) return error{errc::key_not_held, 0, "sealing with a MAC or encryption needs a keyring with a key"};
    if (key->id() == 0) return error{errc::invalid_value, 0, "key id 0 means \"no key\": give keys ids from 1"};
  }
  if (options.compression == seal_compression::zstd && (options.level < 1 || options.level > ZSTD_maxCLevel()))
    return error{errc::invalid_value, 0,
                 "zstd level " + std::to_string(options.level) + " (1 to " + std::to_string(ZSTD_maxCLevel()) + ")"};
  const bool compressed = options.compression == seal_compression::zstd;
  const zstd_dictionary* dictionary = compressed ? options.dictionary : nullptr;

  // What the tag covers before the body: the header with its nonce, then the context (read
  // before out is touched: the context may be a view of out's old bytes).
  scratch own;
  scratch& buffers = thread_scratch(own);
  const trim_on_return trimmed{buffers};
  std::string& covered = buffers.covered;
  covered.clear();
  covered.append(magic, sizeof magic);
  covered.push_back(static_cast<char>(format_version));
  covered.push_back(static_cast<char>(options.compression));
  covered.push_back(static_cast<char>(options.protection));
  covered.push_back(0);
  detail::put_u32(covered, key ? key->id() : 0);
  detail::put_u32(covered, dictionary ? dictionary->id() : 0);
  detail::put_u64(covered, plain.size());
  const std::size_t nonce_at = covered.size();
  covered.resize(nonce_at + nonce_bytes(options.protection));
  if (options.protection == seal_protection::aead)
    fill_random(reinterpret_cast<unsigned char*>(covered.data() + nonce_at), sealed_nonce_bytes);
  const std::size_t body_at = covered.size();
  append_context(covered, context);
  out.assign(covered, 0, body_at);

  // The body: compressed in place in the output (then encrypted in place), or the input.
  std::size_t body_bytes = plain.size();
  if (compressed) {
    out.resize(body_at + ZSTD_compressBound(plain.size()) + sealed_tag_bytes_digest);
    owned_cctx own_cctx{nullptr, ZSTD_freeCCtx};
    ZSTD_CCtx* cctx = compressor(own_cctx);
    if (!cctx) return error{errc::io_error, 0, "zstd could not make a compression context"};
    const ZSTD_CDict* prepared =
        dictionary ? digest_of(*dictionary).compressing(dictionary->bytes(), options.level) : nullptr;
    if (dictionary && !prepared) return error{errc::io_error, 0, "zstd could not prepare the dictionary"};
    const std::size_t made = prepared ? ZSTD_compress_usingCDict(cctx, out.data() + body_at, out.size() - body_at,
                                                                 plain.data(), plain.size(), prepared)
                                      : ZSTD_compressCCtx(cctx, out.data() + body_at, out.size() - body_at,
                                                          plain.data(), plain.size(), options.level);
    if (ZSTD_isError(made)) {
      out.clear();
      return error{errc::io_error, 0, std::string{"zstd: "} + ZSTD_getErrorName(made)};
    }
    body_bytes = made;
  }

  if (options.protection == seal_protection::aead) {
    out.resize(body_at + body_bytes + sealed_tag_bytes_aead);
    const auto* message = compressed ? reinterpret_cast<const unsigned char*>(out.data() + body_at)
                                     : reinterpret_cast<const unsigned char*>(plain.data());
    unsigned long long written = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(
        reinterpret_cast<unsigned char*>(out.data() + body_at), &written, message, body_bytes,
        reinterpret_cast<const unsigned char*>(covered.data()), covered.size(), nullptr,
        reinterpret_cast<const unsigned char*>(out.data() + nonce_at), subkey_of(*key, seal_protection::aead));
    out.resize(body_at + written);
  } else {
    if (compressed)
      out.resize(body_at + body_bytes);
    else
      out.append(plain);
    unsigned char tag[sealed_tag_bytes_digest];
    digest(key ? subkey_of(*key, seal_protection::mac) : nullptr, covered, std::string_view{out}.substr(body_at), tag);
    out.append(reinterpret_cast<const char*>(tag), sizeof tag);
  }
  return {};
}

status unseal_apart(std::string& out, std::string_view sealed, const keyring* keys, const seal_context& context,
                    const unseal_options& options) {
  if (status ready = library_ready(); !ready) return std::move(ready).error();
  if (status fits = check_context(context); !fits) return std::move(fits).error();
  result<sealed_info> info = inspect_sealed(sealed);
  if (!info) return std::move(info).error();
  // Anyone can write a digest-only save: a reader with keys wants at least a MAC.
  const seal_protection least =
      options.minimum_protection.value_or(keys && !keys->empty() ? seal_protection::mac : seal_protection::none);
  if (static_cast<std::uint8_t>(info->protection) < static_cast<std::uint8_t>(least))
    return tampered("it carries " + std::string{to_string(info->protection)} + " protection, and " +
                    std::string{to_string(least)} + " or more is required");
  const seal_key* key = nullptr;
  if (info->protection != seal_protection::none) {
    key = keys ? keys->find(info->key_id) : nullptr;
    if (!key)
      return error{errc::key_not_held, 8,
                   "sealed with key " + std::to_string(info->key_id) + ", which the keyring does not hold"};
  }

  const std::size_t body_at = sealed_header_bytes + nonce_bytes(info->protection);
  scratch own;
  scratch& buffers = thread_scratch(own);
  const trim_on_return trimmed{buffers};
  buffers.covered.assign(sealed.substr(0, body_at));
  append_context(buffers.covered, context);
  const bool compressed = info->compression == seal_compression::zstd;
  // A decrypted body goes where it is kept: the output, or a scratch buffer to inflate from.
  std::string& opened = compressed ? buffers.opened : out;
  std::string_view body;
  if (info->protection == seal_protection::aead) {
    const std::string_view cipher = sealed.substr(body_at);
    opened.resize(cipher.size() - sealed_tag_bytes_aead);
    unsigned long long length = 0;
    const bool open = crypto_aead_xchacha20poly1305_ietf_decrypt(
                          reinterpret_cast<unsigned char*>(opened.data()), &length, nullptr,
                          reinterpret_cast<const unsigned char*>(cipher.data()), cipher.size(),
                          reinterpret_cast<const unsigned char*>(buffers.covered.data()), buffers.covered.size(),
                          reinterpret_cast<const unsigned char*>(sealed.data() + sealed_header_bytes),
                          subkey_of(*key, seal_protection::aead)) == 0;
    if (!open) {
      opened.clear();
      return tampered("the encryption's tag does not match");
    }
    body = opened;
  } else {
    body = sealed.substr(body_at, sealed.size() - body_at - sealed_tag_bytes_digest);
    unsigned char expected[sealed_tag_bytes_digest];
    digest(key ? subkey_of(*key, seal_protection::mac) : nullptr, buffers.covered, body, expected);
    if (sodium_memcmp(expected, sealed.data() + sealed.size() - sealed_tag_bytes_digest, sizeof expected) != 0)
      return tampered(key ? "the MAC does not match" : "the digest does not match");
  }

  // Checked, so the size is the sealer's; refused before the output is allocated.
  if (info->original_bytes > options.max_original_bytes || info->original_bytes > std::string{}.max_size())
    return error{errc::value_too_large, 16,
                 "the sealed save declares " + std::to_string(info->original_bytes) +
                     " bytes, more than max_original_bytes (" + std::to_string(options.max_original_bytes) + ")"};
  if (!compressed) {
    if (body.size() != info->original_bytes) return tampered("the body is not its declared size");
    if (info->protection != seal_protection::aead) out.assign(body);  // (decrypted into out already)
    return {};
  }
  const zstd_dictionary* dictionary = nullptr;
  if (info->dictionary_id != 0) {
    for (const zstd_dictionary* d : options.dictionaries)
      if (d && d->id() == info->dictionary_id) dictionary = d;
    if (!dictionary)
      return error{errc::key_not_held, 12,
                   "compressed with zstd dictionary " + std::to_string(info->dictionary_id) + ", which was not given"};
  }
  return inflate(out, body, info->original_bytes, dictionary);
}

// Makes into out, or into a string apart when the input lies in out's buffer (a string
// sealed or opened into itself); out is empty after a failure.
template <class Make>
status into(std::string& out, std::string_view input, Make make) {
  if (inside(input, out)) {
    std::string apart;
    status made = make(apart);
    if (!made) apart.clear();
    out.swap(apart);
    return made;
  }
  status made = make(out);
  if (!made) out.clear();
  return made;
}

}  // namespace

status seal_into(std::string& out, std::string_view plain, const seal_options& options, const seal_context& context,
                 const keyring* keys) {
  return into(out, plain, [&](std::string& to) { return seal_apart(to, plain, options, context, keys); });
}

status unseal_into(std::string& out, std::string_view sealed, const keyring* keys, const seal_context& context,
                   const unseal_options& options) {
  return into(out, sealed, [&](std::string& to) { return unseal_apart(to, sealed, keys, context, options); });
}

result<std::string> seal(std::string_view plain, const seal_options& options, const seal_context& context,
                         const keyring* keys) {
  std::string out;
  if (status sealed = seal_into(out, plain, options, context, keys); !sealed) return std::move(sealed).error();
  return out;
}

result<std::string> unseal(std::string_view sealed, const keyring* keys, const seal_context& context,
                           const unseal_options& options) {
  std::string out;
  if (status opened = unseal_into(out, sealed, keys, context, options); !opened) return std::move(opened).error();
  return out;
}

namespace {

class slot_sealer final : public payload_sealer {
 public:
  slot_sealer(keyring keys, seal_options options, std::string player, unseal_options open)
      : keys_(std::move(keys)), options_(options), player_(std::move(player)), open_(std::move(open)) {
    if (!open_.minimum_protection) open_.minimum_protection = options_.protection;  // no downgrade
  }
  result<std::string> seal(std::string_view payload, std::string_view slot, std::uint32_t schema_version,
                           std::string_view binding) const override {
    return savekit::seal(payload, options_, {slot, schema_version, player_, binding}, &keys_);
  }
  result<std::string> unseal(std::string_view sealed, std::string_view slot, std::uint32_t schema_version,
                             std::string_view binding) const override {
    return savekit::unseal(sealed, &keys_, {slot, schema_version, player_, binding}, open_);
  }
  // What it opens, not what it seals: a sealer that accepts less than a MAC proves nothing.
  bool authenticates() const override {
    return options_.protection != seal_protection::none && open_.minimum_protection != seal_protection::none;
  }

 private:
  keyring keys_;
  seal_options options_;
  std::string player_;
  unseal_options open_;
};

}  // namespace

std::shared_ptr<const payload_sealer> make_slot_sealer(keyring keys, seal_options options, std::string player,
                                                       unseal_options open) {
  return std::make_shared<slot_sealer>(std::move(keys), options, std::move(player), std::move(open));
}

}  // namespace savekit
