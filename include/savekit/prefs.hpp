// savekit/prefs.hpp — the save store, in PlayerPrefs' vocabulary: byte-clean, typed,
// crash-safe.
//
//   savekit::result<savekit::prefs> p = savekit::prefs::open("saves/player.prefs");
//   if (!p) return fail(p.error());                 // errc::locked, io_error, corrupt_store...
//   p->set_int("Status1.lv", 3);                     // memory only
//   p->set("status", status);                        // a whole object (MessagePack map form)
//   savekit::status ok = p->save();                  // commits every change: durably, atomically
//   std::int64_t lv = p->get_int("Status1.lv", 0);   // 0 if missing (or not an integer)
//   savekit::result<Status> st = p->get<Status>("status");
//
// Values keep every byte (NUL and invalid UTF-8 included) and a type tag; get<T> of an
// entry of another type is errc::wrong_type, never garbage. set_* change memory only;
// save() commits all pending changes or none; after a failed save the changes stay
// pending and a retry commits them.
//
// Thread safety: every member function may be called from any thread; calls are
// serialized by an internal mutex (save() holds it while the backend commits; a commit of
// save_async on the worker thread does not).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "savekit/backend.hpp"
#include "savekit/detail/bytes.hpp"
#include "savekit/detail/config.hpp"
#include "savekit/error.hpp"
#include "savekit/file_backend_options.hpp"
#include "savekit/json.hpp"
#include "savekit/msgpack.hpp"
#include "savekit/object_codec.hpp"
#include "savekit/sealer.hpp"

namespace savekit {

namespace detail {
// The value type an object is stored under in a given encoding.
constexpr value_type stored_type(object_encoding encoding) noexcept {
  return encoding == object_encoding::json              ? value_type::json
         : encoding == object_encoding::msgpack_compact ? value_type::msgpack_compact
         : encoding == object_encoding::bytes           ? value_type::bytes
                                                        : value_type::msgpack;
}
}  // namespace detail

namespace detail {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
// WebAssembly without threads: nothing to exclude, and std::mutex would be two calls into
// the C library per get or set.
struct store_mutex {
  void lock() noexcept {}
  void unlock() noexcept {}
};
#elif defined(__EMSCRIPTEN__)
using store_mutex = std::mutex;
#else
// A lock that costs one atomic exchange when nobody else holds it (a game's usual case);
// waiters sleep in the kernel (std::atomic::wait) instead of spinning through a commit.
class store_mutex {
 public:
  void lock() noexcept {
    while (locked_.exchange(true, std::memory_order_acquire)) locked_.wait(true, std::memory_order_relaxed);
  }
  void unlock() noexcept {
    locked_.store(false, std::memory_order_release);
    locked_.notify_one();
  }

 private:
  std::atomic<bool> locked_{false};
};
#endif

// Fresh random bits for a key_hash seed (the operating system's entropy, mixed with a
// per-process counter).
std::uint64_t random_seed() noexcept;

// Keys compared inline (detail::equal_text): std::equal_to's memcmp is a call in
// WebAssembly, made for every key in a bucket's chain.
struct key_equal {
  using is_transparent = void;
  bool operator()(const std::string_view& a, const std::string_view& b) const noexcept { return equal_text(a, b); }
};

// The high and low halves of x * y (128 bits) folded into 64 by xor: the mixing step of
// the key hash. Two versions of one function: one 128-bit multiply (one instruction on
// 64-bit machines), and four 32 x 32 -> 64 ones, which WebAssembly does inline where its
// 128-bit multiply is a call into the compiler's runtime (__multi3), two per key.
inline std::uint64_t multiply_fold_wide(std::uint64_t x, std::uint64_t y) noexcept {
  __extension__ using u128 = unsigned __int128;
  const u128 product = static_cast<u128>(x) * y;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

inline std::uint64_t multiply_fold_halves(std::uint64_t x, std::uint64_t y) noexcept {
  constexpr std::uint64_t low = 0xFFFFFFFFu;
  const std::uint64_t x0 = x & low, x1 = x >> 32, y0 = y & low, y1 = y >> 32;
  const std::uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
  const std::uint64_t middle = (p00 >> 32) + (p01 & low) + (p10 & low);  // at most 3 x (2^32 - 1)
  const std::uint64_t product_low = (middle << 32) | (p00 & low);
  const std::uint64_t product_high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
  return product_low ^ product_high;
}

// The store's key hash. Keys come from files that may be crafted (shared saves, mods), so
// the hash is keyed by a random seed per store: without it, keys chosen to collide make
// every lookup walk one long chain (30,000 such keys took 18 s to open instead of 0.06).
// The mixing step is a 64 x 64 -> 128-bit multiply folded to 64 bits, with the seed in
// every step (the construction of wyhash, which Go's runtime map hash falls back to), so
// collisions cannot be found without the seed;
// short keys take one or two multiplies.
class key_hash {
 public:
  using is_transparent = void;
  key_hash() noexcept : seed_{random_seed(), random_seed(), random_seed()} {}

  // (The key by reference: in WebAssembly a string_view by value is a copy through memory
  // that stalls the call; see read_msgpack_document.)
  std::size_t operator()(const std::string_view& key) const noexcept {
    const char* p = key.data();
    std::size_t n = key.size();
    std::uint64_t h = seed_[0] ^ (n * 0x9E3779B97F4A7C15ull);
    for (; n > 16; p += 16, n -= 16) h = fold(load64(p) ^ seed_[1], load64(p + 8) ^ h);
    std::uint64_t a = 0, b = 0;  // the last 1 to 16 bytes, read as two (overlapping) words
    if (n >= 8) {
      a = load64(p);
      b = load64(p + n - 8);
    } else if (n >= 4) {
      a = load32(p);
      b = load32(p + n - 4);
    } else if (n > 0) {
      a = (std::uint64_t{static_cast<unsigned char>(p[0])} << 16) |
          (std::uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) | static_cast<unsigned char>(p[n - 1]);
    }
    return static_cast<std::size_t>(fold(fold(a ^ seed_[1], b ^ h) ^ seed_[2], key.size() ^ seed_[0]));
  }

 private:
  static std::uint64_t fold(std::uint64_t x, std::uint64_t y) noexcept {
#if defined(__wasm__)
    return multiply_fold_halves(x, y);
#else
    return multiply_fold_wide(x, y);
#endif
  }
  static std::uint64_t load64(const char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static std::uint64_t load32(const char* p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }

  std::uint64_t seed_[3];
};

}  // namespace detail

// The error path of an entry of a store, `$["key"]`: what store errors carry in
// error::path, followed (for an object that does not decode) by the path inside the
// object, as in `$["status"].equip.name`.
inline std::string store_path(std::string_view key) {
  std::string out = "$[\"";
  for (char c : key) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"]";
}

// Whether bytes are what an entry of this type holds, so that its getter can read them: an
// int is one MessagePack integer, a float one MessagePack number, json one JSON document,
// msgpack and msgpack_compact one MessagePack document; strings and bytes are anything.
status check_stored_value(value_type type, std::string_view bytes);

// The old name (it also named the store's file format): kept for one release.
using format [[deprecated("savekit::format is now savekit::object_encoding")]] = object_encoding;

class prefs {
 public:
  static constexpr std::size_t max_key_size = savekit::max_key_size;
  static constexpr std::size_t max_value_size = savekit::max_value_size;

  // Opens (creating if missing) the store file at path with an exclusive lock.
  static result<prefs> open(const std::string& path, file_backend_options options = {});
  // Opens a store over any backend.
  static result<prefs> open(std::unique_ptr<backend> store_backend);

  prefs(prefs&& other) noexcept;
  prefs& operator=(prefs&& other) noexcept;
  ~prefs();

  // ---- primitives (PlayerPrefs' calls) ----
  // (Inline, handing the key on by reference: in WebAssembly a string_view passed by value
  // to a function out of line is a copy through memory that stalls the call — see
  // read_msgpack_document — and a game makes these calls key by key.)
  SAVEKIT_ALWAYS_INLINE status set_int(std::string_view key, std::int64_t value) { return set_int_at(key, value); }
  SAVEKIT_ALWAYS_INLINE status set_float(std::string_view key, double value) { return set_float_at(key, value); }
  SAVEKIT_ALWAYS_INLINE status set_string(std::string_view key, std::string_view value) {
    return set_string_at(key, value);
  }
  SAVEKIT_ALWAYS_INLINE status set_bytes(std::string_view key, std::span<const std::byte> value) {
    return set_string_at(key, std::string_view(reinterpret_cast<const char*>(value.data()), value.size()),
                         value_type::bytes);
  }

  // The value, or fallback when the key is missing or holds another type (PlayerPrefs'
  // behaviour). The try_get_* calls say why instead.
  SAVEKIT_ALWAYS_INLINE std::int64_t get_int(std::string_view key, std::int64_t fallback = 0) const {
    result<std::int64_t> value = try_get_int_at(key);
    return value ? *value : fallback;
  }
  SAVEKIT_ALWAYS_INLINE double get_float(std::string_view key, double fallback = 0.0) const {
    result<double> value = try_get_float_at(key);
    return value ? *value : fallback;
  }
  SAVEKIT_ALWAYS_INLINE std::string get_string(std::string_view key, std::string_view fallback = {}) const {
    result<std::string> value = try_get_string_at(key);
    return value ? std::move(*value) : std::string{fallback};
  }
  result<std::vector<std::byte>> get_bytes(std::string_view key) const;
  // The same into a caller's vector, reusing its capacity (no allocation once it is large
  // enough); into is left as it was on an error.
  status get_bytes_into(std::string_view key, std::vector<std::byte>& into) const;

  SAVEKIT_ALWAYS_INLINE result<std::int64_t> try_get_int(std::string_view key) const { return try_get_int_at(key); }
  SAVEKIT_ALWAYS_INLINE result<double> try_get_float(std::string_view key) const { return try_get_float_at(key); }
  SAVEKIT_ALWAYS_INLINE result<std::string> try_get_string(std::string_view key) const {
    return try_get_string_at(key);
  }

  // ---- whole objects ----
  template <class T>
  SAVEKIT_ALWAYS_INLINE status set(std::string_view key, const T& value,
                                   object_encoding encoding = object_encoding::msgpack, object_options options = {}) {
    return set_at(key, value, encoding, options);  // (by reference: see the primitives)
  }
  template <class T>
  result<T> get(std::string_view key, object_options options = {}) const;
  // Reads into an existing object, reusing its capacity.
  template <class T>
  status get_into(std::string_view key, T& into, object_options options = {}) const;

  // ---- sealed entries ----
  // A value sealed for its key's name (savekit/seal.hpp; savekit::make_slot_sealer makes a
  // sealer): stored as value_type::sealed, compressed and MACed or encrypted; copied under
  // another key it does not open (errc::tampered).
  status set_sealed(std::string_view key, value_type type, std::string_view bytes, const payload_sealer& sealer);
  template <class T>
  status set_sealed(std::string_view key, const T& value, const payload_sealer& sealer,
                    object_encoding encoding = object_encoding::msgpack, object_options options = {});
  // The type and bytes a sealed entry holds: errc::tampered, key_not_held, wrong_type...
  result<stored_value> open_sealed(std::string_view key, const payload_sealer& sealer) const;
  template <class T>
  result<T> get_sealed(std::string_view key, const payload_sealer& sealer, object_options options = {}) const;

  // ---- keys ----
  bool has_key(std::string_view key) const;
  result<value_type> type_of(std::string_view key) const;
  status delete_key(std::string_view key);  // errc::not_found if absent
  void delete_all();
  std::vector<std::string> keys() const;  // sorted
  std::size_t size() const;

  // ---- committing ----
  // Commits every change since the last successful save, or none of them. With an
  // asynchronous backend this returns errc::commit_pending: use save_async.
  status save();
  // Commits and calls done with the outcome when the backend has finished (with the
  // IndexedDB backend: when the readwrite transaction has completed). Called while a
  // commit is in flight, it waits for that one, then commits what is still pending — or,
  // with a backend that orders overlapping commits (IndexedDB), starts at once with every
  // pending change, those in flight included.
  // With the file backend the commit runs on the store's worker thread, and done runs
  // there: the call only queues it. Each queued save commits, when its turn comes, every
  // change made up to then (at least those made before the call), and reports in the order
  // of the calls; set/get go on meanwhile, and changes made during the write stay pending
  // for the next save. done must not throw (an exception is dropped on the worker). The
  // destructor waits for the queued saves and their callbacks: do not destroy the store
  // while holding a lock its callbacks take. A callback may call save(), save_async() or
  // destroy the store; destroyed there, the store (and its file lock) is released once the
  // worker has run the saves queued after it.
  void save_async(std::function<void(status)> done);
  bool has_pending_changes() const;

  // What open() found and repaired.
  const recovery_report& recovery() const { return state_->report; }
  // The outcome of the backend's upkeep after the last commit (see backend::maintenance):
  // a failed compaction, for instance, which loses nothing but should be logged.
  status maintenance() const;
  std::string describe() const { return state_->store_backend->describe(); }

  // The raw stored bytes of an entry and its type (tools: savekit get --raw, export).
  result<stored_value> get_raw(std::string_view key) const;
  // Stores bytes as they are, under a type tag; errc::invalid_value if they are not what
  // such an entry holds (an int must be one MessagePack integer, a json entry one JSON
  // document, msgpack one MessagePack document...), so nothing is stored that its getter
  // could not read.
  status set_raw(std::string_view key, value_type type, std::string_view bytes);

 private:
  struct entry {
    value_type type = value_type::bytes;
    std::string bytes;
    std::uint64_t version = 0;  // bumped by every change; tells a commit what it covered
    bool deleted = false;       // a tombstone until the deletion is committed
    bool dirty = false;         // in dirty_ (changed since the last commit)
  };
  using entry_map = std::unordered_map<std::string, entry, detail::key_hash, detail::key_equal>;

  struct background_commits;  // src/prefs.cpp

  // Shared so that an asynchronous commit completing after the prefs is gone or moved
  // finds it (through a weak_ptr) or skips its bookkeeping.
  struct shared_state {
    mutable detail::store_mutex mutex;
    std::unique_ptr<backend> store_backend;
    entry_map entries;
    std::vector<entry_map::value_type*> dirty;  // node pointers are stable in unordered_map
    entry_map::value_type* last = nullptr;      // the last key looked up: games repeat keys
    std::uint64_t version = 0;
    bool clear_pending = false;
    std::uint64_t clear_version = 0;
    // Serializes the backend's commits (taken before mutex): save() and the worker's.
    std::mutex commit_mutex;
    std::shared_ptr<background_commits> background;    // save_async's worker, once started
    int commits_in_flight = 0;                         // more than one only with a backend that orders_commits()
    std::vector<std::function<void(status)>> waiting;  // save_async calls made during a commit
    recovery_report report;
    std::string scratch;  // encoding buffer, reused
  };

  explicit prefs(std::shared_ptr<shared_state> state) : state_(std::move(state)) {}

  // Committing, in named steps (src/prefs.cpp; the rules are in docs/design.md).
  struct commit_ticket;
  static void commit(std::shared_ptr<shared_state> state, std::function<void(status)> done);
  static status commit_here(shared_state& s);           // save(): holds the mutex through the commit
  static status commit_in_background(shared_state& s);  // the worker: holds it only to gather and settle
  static void run_background(std::shared_ptr<shared_state> keep, std::function<void(status)> done);
  void stop_background();
  static change_set gather_pending(shared_state& s, commit_ticket& ticket, bool remember_versions);
  static void settle_synchronous(shared_state& s, const commit_ticket& ticket);
  static void settle_asynchronous(shared_state& s, const commit_ticket& ticket);
  static void commit_waiting(const std::weak_ptr<shared_state>& weak, std::vector<std::function<void(status)>> waiting);
  static status check_key(const std::string_view& key);
  // The primitives' bodies (src/prefs.cpp).
  status set_int_at(const std::string_view& key, std::int64_t value);
  status set_float_at(const std::string_view& key, double value);
  status set_string_at(const std::string_view& key, const std::string_view& value,
                       value_type type = value_type::string);
  result<std::int64_t> try_get_int_at(const std::string_view& key) const;
  result<double> try_get_float_at(const std::string_view& key) const;
  result<std::string> try_get_string_at(const std::string_view& key) const;
  template <class T>
  status set_at(const std::string_view& key, const T& value, object_encoding encoding, const object_options& options);
  // Store under key (caller holds the mutex and has checked the key and size).
  entry& touch(const std::string_view& key, value_type type);
  void put(const std::string_view& key, value_type type, std::string_view bytes) {
    touch(key, type).bytes.assign(bytes);
  }
  void put_swap(const std::string_view& key, value_type type, std::string& bytes) {
    touch(key, type).bytes.swap(bytes);
  }
  const entry* find(const std::string_view& key) const;  // live entries only
  // The live entry under key if it holds type; errc::not_found or wrong_type otherwise.
  result<const entry*> typed_entry(std::string_view key, value_type type) const;
  // An object entry's bytes decoded into `into`; holder and object name them in errors.
  template <class T>
  // (Keys and options by reference here: see key_hash.)
  static status decode_stored(const std::string_view& key, value_type type, const std::string& bytes, T& into,
                              const object_options& options, const char* holder, const char* object);

  std::shared_ptr<shared_state> state_;
};

// ---- templates -----------------------------------------------------------------------------

template <class T>
status prefs::set_at(const std::string_view& key, const T& value, object_encoding encoding,
                     const object_options& options) {
  if (status valid = check_key(key); !valid) return valid;
  std::lock_guard lock(state_->mutex);
  // Encoded into a scratch buffer, then swapped into the entry: the entry keeps its old
  // value if the new one is refused, and buffers are reused in both directions.
  std::string& buffer = state_->scratch;
  if (status encoded = detail::encode_object(value, encoding, buffer, options); !encoded) {
    error e = std::move(encoded).error();
    return error{e.code(), e.offset(), e.message(), store_path(key)};
  }
  const value_type type = detail::stored_type(encoding);
  if (buffer.size() > max_value_size) return error{errc::value_too_large, 0, "value too large", store_path(key)};
  put_swap(key, type, buffer);
  return {};
}

template <class T>
status prefs::decode_stored(const std::string_view& key, value_type type, const std::string& bytes, T& into,
                            const object_options& options, const char* holder, const char* object) {
  status decoded;
  switch (type) {  // no default: a new value_type must be placed here
    case value_type::json:
      decoded = detail::decode_object(bytes, object_encoding::json, into, options);
      break;
    case value_type::msgpack:
    case value_type::msgpack_compact:
      decoded = detail::decode_object(bytes, object_encoding::msgpack, into, options);
      break;
    case value_type::sealed:
      return error{errc::wrong_type, 0, "entry is sealed: read it with get_sealed", store_path(key)};
    case value_type::integer:
    case value_type::floating:
    case value_type::string:
    case value_type::bytes:
    case value_type::end_of_known_types:
      return error{errc::wrong_type, 0,
                   std::string{holder} + " holds " + std::string{to_string(type)} + ", not an object", store_path(key)};
  }
  if (!decoded) {
    error e = std::move(decoded).error();
    return error{e.code(), e.offset(), std::string{object} + " does not decode: " + e.message(),
                 store_path(key) + e.path().substr(1)};
  }
  return {};
}

template <class T>
SAVEKIT_ALWAYS_INLINE status prefs::get_into(std::string_view key, T& into, object_options options) const {
  std::lock_guard lock(state_->mutex);
  const entry* found = find(key);
  if (!found) return error{errc::not_found, 0, "no entry under this key", store_path(key)};
  return decode_stored(key, found->type, found->bytes, into, options, "entry", "stored object");
}

template <class T>
status prefs::set_sealed(std::string_view key, const T& value, const payload_sealer& sealer, object_encoding encoding,
                         object_options options) {
  std::string bytes;
  if (status encoded = detail::encode_object(value, encoding, bytes, options); !encoded) {
    error e = std::move(encoded).error();
    return error{e.code(), e.offset(), e.message(), store_path(key)};
  }
  const value_type type = detail::stored_type(encoding);
  return set_sealed(key, type, bytes, sealer);
}

template <class T>
result<T> prefs::get_sealed(std::string_view key, const payload_sealer& sealer, object_options options) const {
  result<stored_value> opened = open_sealed(key, sealer);
  if (!opened) return std::move(opened).error();
  result<T> out{std::in_place};
  status decoded = decode_stored(key, opened->type, opened->bytes, *out, options, "the sealed entry", "sealed object");
  if (!decoded) return std::move(decoded).error();
  return out;
}

template <class T>
result<T> prefs::get(std::string_view key, object_options options) const {
  result<T> out{std::in_place};
  status read = get_into(key, *out, options);
  if (!read) return std::move(read).error();
  return out;
}

}  // namespace savekit
