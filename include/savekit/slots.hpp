// savekit/slots.hpp — save slots: a folder of named saves with a load menu.
//
//   savekit::result<savekit::slots> s = savekit::slots::open("saves/");
//   s->write("slot1", game, {.title = "Chapter 2", .playtime = std::chrono::seconds{11520}});
//   for (const savekit::slot_info& slot : s->list()) ...   // newest first; no payload read
//   savekit::result<Game> g = s->read<Game>("slot1");
//
// Every write is a new generation of the slot, in a file of its own: written to a temporary
// name, synced, renamed into place and the folder synced — the previous generation stays
// until the new one is on disk, and the last few are kept (history, restore). A generation
// file holds a small header and the metadata before the thumbnail and the payload, each
// checksummed, so the load menu reads a few hundred bytes per slot whatever the save's size.
// A damaged generation is set aside (renamed *.damaged, never deleted) and the slot falls
// back to the one before, saying so. The folder is locked against a second process.
//
// The file format is in docs/slot-format.md; the rules for reading saves of older or newer
// versions of the game's types in docs/slots.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/detail/layout.hpp"
#include "savekit/document.hpp"
#include "savekit/error.hpp"
#include "savekit/file_system.hpp"
// Slots need only file_system.hpp; file_backend.hpp stays included for one release, for code
// that reached the file backend through this header (0.2 drops it).
#include "savekit/file_backend.hpp"
#include "savekit/object_codec.hpp"
#include "savekit/sealer.hpp"

namespace savekit {

namespace detail {
struct slot_sync_access;  // the cloud sync's way in (src/slot_sync_access.hpp)

template <class T>
consteval std::uint32_t declared_schema_version() {
  if constexpr (requires { T::savekit_schema_version; })
    return static_cast<std::uint32_t>(T::savekit_schema_version);
  else
    return 1;
}
}  // namespace detail

// The version of a type's layout that a slot records with each save. 1 unless the type
// says otherwise, with a static member
//   struct Game { static constexpr std::uint32_t savekit_schema_version = 3; ... };
// or a specialization:
//   template <> inline constexpr std::uint32_t savekit::schema_version<Game> = 3;
// Reading a save of a newer version than the program's is errc::newer_schema.
template <class T>
inline constexpr std::uint32_t schema_version = detail::declared_schema_version<T>();

// What the load menu shows of a save. Stored beside the payload, read without it.
struct slot_meta {
  std::string title = {};
  std::chrono::seconds playtime{0};
  double progress = 0;                           // 0..1 by convention; any finite value is kept
  std::vector<std::byte> thumbnail = {};         // a PNG, say; may be empty. Not filled by list()
  std::map<std::string, std::string> user = {};  // the game's own fields ("level": "12")
  bool operator==(const slot_meta&) const = default;
};

// One generation of a slot, as the load menu or the history sees it.
struct generation_info {
  std::uint64_t generation = 0;  // counts up per slot from 1
  std::chrono::system_clock::time_point saved_at;
  std::uint32_t schema_version = 0;
  object_encoding encoding = object_encoding::msgpack;
  std::uint64_t bytes = 0;            // the payload's size
  std::uint64_t thumbnail_bytes = 0;  // meta.thumbnail is left empty: see slots::thumbnail
  std::uint64_t restored_from = 0;    // the generation restore() copied, or 0
  bool sealed = false;                // the payload is sealed (savekit/seal.hpp); bytes counts the sealed size
  slot_meta meta;
  // Set aside as *.damaged (history only; such a generation is never read or restored).
  bool damaged = false;
  std::string problem;  // what was wrong with a damaged generation, or why it cannot be read
  // Why it cannot be read, for a program to decide on (never by searching problem's words):
  // damaged, unsupported_version (a newer savekit's), an I/O error's code; ok when readable.
  errc problem_code = errc::ok;
};

// A slot in the load menu: its newest intact generation.
struct slot_info : generation_info {
  std::string name;
  // Newer generations found damaged and set aside: non-zero means the slot fell back to
  // an older save than its last one, which the game should tell the player.
  std::uint64_t damaged_newer = 0;
  bool fell_back() const { return damaged_newer != 0; }
};

// What a read found on the way to the generation it decoded.
struct read_report {
  std::uint64_t generation = 0;  // the generation read
  std::uint32_t schema_version = 0;
  // Newer generations that were damaged (each now set aside as *.damaged, unless the
  // folder was opened read-only), newest first, with what was wrong.
  std::vector<generation_info> skipped;
  bool fell_back() const { return !skipped.empty(); }
};

// Where write_async's callbacks run.
enum class completion_thread {
  worker,  // on the slots' worker thread, as soon as the write is done (keep them short)
  poll,    // on the thread that calls slots::poll(): a game's own thread, once per frame
};

struct slots_options {
  object_encoding encoding = object_encoding::msgpack;       // for writes that do not choose
  std::uint32_t keep_generations = 3;                        // per slot, the newest included (at least 1)
  std::uint32_t autosave_slots = 3;                          // autosave() rotates through these
  std::string autosave_prefix = "autosave-";                 // ... named autosave-1, autosave-2, ...
  object_options limits = {};                                // depth and memory of what is written and read
  std::uint64_t max_payload_bytes = std::uint64_t{1} << 30;  // a larger generation file is not read
  // No lock: list and read beside the game that writes (tools); nothing is written or set aside.
  bool read_only = false;
  bool create_if_missing = true;  // false: a missing folder is errc::not_found (tools, a mistyped path)
  completion_thread completions = completion_thread::worker;
  file_system* fs = nullptr;  // the operating system's by default; tests inject faults here
  // Seals every payload written (savekit::make_slot_sealer, savekit/seal.hpp: compression,
  // a MAC or encryption, bound to the slot's name and schema version) and opens sealed ones.
  // Copies and renames are sealed again for their new name. Metadata and thumbnails stay
  // readable (the load menu needs no key).
  std::shared_ptr<const payload_sealer> sealer = nullptr;
  // With a sealer that proves who wrote a save (a MAC or encryption), a generation that is
  // not sealed is errc::tampered: anyone can write one with the public format. true reads
  // them, to migrate saves made before the game sealed (each is sealed at its next write),
  // in slots that hold no sealed generation (beside sealed ones, a plain one was planted).
  bool accept_unsealed = false;
};

struct write_options {
  std::optional<object_encoding> encoding = {};  // the folder's (slots_options::encoding) if unset
  // Seal this write or not (default: whether there is a sealer). false beside a sealer that
  // authenticates needs slots_options::accept_unsealed: the save could not be read back.
  std::optional<bool> sealed = {};
};

class slots {
 public:
  // Opens (creating it and its parents) the folder at path and locks it: a second
  // slots::open of the same folder, from this process or another, is errc::locked
  // (read-only opens take no lock). Leftover temporary files of interrupted writes are
  // removed. The path is resolved once: a later chdir changes nothing.
  static result<slots> open(const std::string& path, slots_options options = {});
  // The same on a file system the slots keep alive (the browser's: web::open_slots).
  static result<slots> open(const std::string& path, slots_options options, std::shared_ptr<file_system> fs);

  slots(slots&&) noexcept;
  slots& operator=(slots&&) noexcept;
  // Waits for queued writes, runs the callbacks poll() has not run yet, then releases the
  // folder. Destroyed from a callback (on the worker), it lets the worker finish the queue.
  ~slots();

  // ---- names ----
  // A slot name is 1..max_name_bytes bytes of UTF-8 without control characters; it is
  // stored inside the file and mapped to a file name that is the same on every file
  // system (no path separators, no reserved names, no two names differing only in case).
  static constexpr std::size_t max_name_bytes = 128;
  static status check_name(std::string_view name);

  // ---- writing ----
  // Encodes value and writes it as the slot's newest generation, durably: when this
  // returns success the save is on disk; on failure the slot is as it was.
  template <class T>
  status write(std::string_view name, const T& value, const slot_meta& meta = {}, write_options options = {});
  // Takes a snapshot of value on the calling thread and encodes and writes it on the worker
  // thread. The snapshot is a copy when a copy shares nothing with value (plain values,
  // strings, containers and aggregates of them: detail::copy_is_independent), else the
  // encoded bytes. Writes keep their order per slot; a write still queued is superseded by a
  // newer one of the same slot (both callbacks then get the newer one's outcome). done
  // runs on the thread slots_options::completions names; it may be empty. A write refused
  // before it is queued (a bad name, a value too deep) reports at once.
  template <class T>
  void write_async(std::string_view name, const T& value, const slot_meta& meta, std::function<void(status)> done = {},
                   write_options options = {});
  // The same for a value the game hands over (std::move(save)): when a copy would have been
  // the snapshot, the value itself is moved in instead — the game's thread pays nothing for a
  // large save's copy (other types are encoded here, as above). name and meta may be parts
  // of value. A write refused once queued (read-only slots, no thread) has used the value up:
  // its outcome says so.
  template <class T>
  requires(!std::is_lvalue_reference_v<T>) void write_async(std::string_view name, T&& value, const slot_meta& meta,
                                                            std::function<void(status)> done = {},
                                                            write_options options = {});
  // A payload the game encoded itself (the C ABI and the bindings write this way), written
  // as write() writes an object, with the schema version the game gives (at least 1).
  // MessagePack and JSON payloads must be one well-formed document (read<T>, migrations and
  // the tools read them: errc::invalid_msgpack, syntax_error, ... with the offset);
  // object_encoding::bytes is the game's own format, read back only by read_payload.
  // options.encoding is not used: encoding says what the bytes are.
  status write_bytes(std::string_view name, std::string_view payload, object_encoding encoding,
                     std::uint32_t schema_version, const slot_meta& meta = {}, write_options options = {});
  // The same on the worker, as write_async (the bytes are copied first).
  void write_bytes_async(std::string_view name, std::string_view payload, object_encoding encoding,
                         std::uint32_t schema_version, const slot_meta& meta, std::function<void(status)> done = {},
                         write_options options = {});
  // Writes into the autosave slot written longest ago (autosave-1..N), and returns its name.
  template <class T>
  result<std::string> autosave(const T& value, const slot_meta& meta = {}, write_options options = {});
  template <class T>
  std::string autosave_async(const T& value, const slot_meta& meta, std::function<void(status)> done = {},
                             write_options options = {});
  template <class T>
  requires(!std::is_lvalue_reference_v<T>) std::string
      autosave_async(T&& value, const slot_meta& meta, std::function<void(status)> done = {},
                     write_options options = {});
  // Waits for every queued write; returns the first failure since the last flush, if any.
  // (In the browser it cannot wait: it returns the failures known so far; see when_durable.)
  status flush();
  // Calls done once every change made so far is durable, with the first failure since the
  // last flush or when_durable, if any. On a disk that is when the queued writes are done
  // (done runs before this returns); in the browser, when IndexedDB has completed their
  // transactions — a failure there also undoes the changes (the slots read as before them),
  // even those of a write() that had returned success.
  void when_durable(std::function<void(status)> done);
  // Runs the callbacks of finished asynchronous writes (completion_thread::poll) on the
  // calling thread; returns how many ran.
  std::size_t poll();
  // Writes queued or in progress (in the browser: also written, not yet durable).
  std::size_t pending_writes() const;

  // ---- reading ----
  // Decodes the slot's newest intact generation. A save of an older schema version is
  // read by the written rules (docs/slots.md); a newer one is errc::newer_schema.
  template <class T>
  result<T> read(std::string_view name, read_report* report = nullptr);
  // The same into an existing object, reusing its capacity. A save of the current schema
  // version is read in place (every member is in it); an older one is read into a fresh
  // T first, so that members the old save lacks get their default initializers.
  template <class T>
  status read_into(std::string_view name, T& into, read_report* report = nullptr);

  // ---- loading (slots in the browser) ----
  // Slots in IndexedDB (savekit::web::open_slots) open on their load menu; a save's bytes
  // come when asked for, and a read cannot wait there: a read of a save not loaded yet is
  // errc::not_loaded. load_async loads what read(name) reads — the newest intact
  // generation (an older one where newer ones are damaged) — then calls done with ok, or
  // with what the read would say (not_found, damaged, ...). On a disk every save is at
  // hand: done runs at once, with ok. done runs on the calling thread or, later, from the
  // browser's event loop.
  void load_async(std::string_view name, std::function<void(status)> done);
  // One kept generation (read_generation, restore, copy of it), or every kept generation
  // (rename, which carries them all; a tool copying a history).
  void load_async(std::string_view name, std::uint64_t generation, std::function<void(status)> done);
  void load_history_async(std::string_view name, std::function<void(status)> done);

  // ---- the load menu ----
  // Every slot's newest intact generation, newest first. Reads headers and metadata only.
  result<std::vector<slot_info>> list();
  result<slot_info> info(std::string_view name);
  result<std::vector<std::byte>> thumbnail(std::string_view name);
  // The kept generations, newest first; damaged ones (set aside) included and marked.
  result<std::vector<generation_info>> history(std::string_view name);

  // ---- managing ----
  status remove(std::string_view name);                     // every generation
  status copy(std::string_view from, std::string_view to);  // from's newest becomes to's newest
  // errc::already_exists if `to` is a slot, or if `to` is a long name whose hashed file name
  // another slot's files use too (a rename keeps each generation's number).
  status rename(std::string_view from, std::string_view to);
  status restore(std::string_view name, std::uint64_t generation);  // a copy of it becomes the newest

  // The raw payload of a slot's newest intact generation, and how it is encoded (tools).
  struct payload {
    std::string bytes;
    object_encoding encoding = object_encoding::msgpack;
    std::uint32_t schema_version = 0;
    std::uint64_t generation = 0;
    std::vector<std::string> compact_layout;  // the compact form's layout when saved (detail/layout.hpp)
    bool sealed = false;                      // it was sealed (bytes are opened)
  };
  // A sealed payload is opened with slots_options::sealer: without one errc::key_not_held;
  // a payload that fails its seal is errc::tampered (never set aside, never fallen back
  // from: a wrong key or player id must not turn every save into "damaged").
  result<payload> read_payload(std::string_view name, read_report* report = nullptr);
  // One kept generation's payload, every section checked (errc::not_found, damaged or
  // unsupported_version otherwise): for tools that show or verify history.
  result<payload> read_generation(std::string_view name, std::uint64_t generation);

  const std::string& path() const;  // the folder, resolved

 private:
  friend struct detail::slot_sync_access;
  struct state;
  struct loader;  // load_async's rounds (src/slot_loading.cpp)
  explicit slots(std::shared_ptr<state> s);

  struct encoded_save {
    std::string payload;
    std::optional<bool> sealed;  // write_options::sealed
    object_encoding encoding = object_encoding::msgpack;
    std::uint32_t schema_version = 1;
    slot_meta meta;
    std::vector<std::string> compact_layout;
  };
  using snapshot = std::function<result<encoded_save>()>;  // run once, on the worker
  status write_encoded(std::string_view name, encoded_save save);
  void queue_write(std::string_view name, snapshot save, std::function<void(status)> done);
  // write_async's two forms: Value is const T& (copied) or T (moved).
  template <class Value>
  void queue_snapshot(std::string_view name, Value&& value, const slot_meta& meta, std::function<void(status)> done,
                      write_options options);
  // Hands an outcome to a callback on the thread slots_options::completions names (a write
  // refused before it was queued: on the calling thread, or at the next poll()).
  void deliver(std::function<void(status)> done, status outcome);
  std::string next_autosave_name();
  object_encoding encoding_for(const write_options& options) const;
  const object_options& limits() const;

  result<encoded_save> take_bytes(std::string_view name, std::string_view payload, object_encoding encoding,
                                  std::uint32_t schema_version, const slot_meta& meta, const write_options& options);
  template <class T>
  static result<encoded_save> encode(const T& value, const slot_meta& meta, object_encoding encoding,
                                     const object_options& limits);

  std::shared_ptr<state> state_;  // shared with the worker thread, which may outlive *this
};

namespace detail {
// This thread's payload buffer, kept between writes: a large save is encoded into memory
// already allocated and touched, not into a new buffer grown by doubling (page faults and
// copies were a third of a 10 MB write's time: bench/e2e_bench.cpp). Taken holding the
// last save's bytes, which the encoder writes over (no zero-fill of a string grown from
// empty); given back after the write. One is kept per thread that writes, up to 64 MiB of capacity, until
// the thread ends: it holds the last save's bytes (as the game's own memory does).
std::string take_payload_buffer();
void give_back_payload_buffer(std::string buffer);
// Whether any step of the chain leads past from_version up to to_version.
inline bool has_migration_steps(const std::vector<migration_step>& steps, std::uint32_t from_version,
                                std::uint32_t to_version) {
  for (const migration_step& step : steps)
    if (step.to_version > from_version && step.to_version <= to_version) return true;
  return false;
}
// A stored payload as a document (a compact one with its layout's names), migrated to
// to_version, as the MessagePack map form.
// nullable: the members of today's type that hold null (layout_lists::nullable).
result<std::string> migrate_payload(const slots::payload& stored, const std::vector<migration_step>& steps,
                                    std::uint32_t to_version, const object_options& limits,
                                    const std::vector<std::string>& nullable);
// A compact-form document with member names from its layout (detail/layout.hpp): struct
// arrays become objects, through sequences, maps, optionals, variants and tuples; a nil
// slot becomes a null member where the member holds null, and is left out (a gap) elsewhere.
document name_compact_document(document compact, const std::vector<std::string>& layout,
                               const std::vector<std::string>& nullable = {});
}  // namespace detail

// ---- templates -----------------------------------------------------------------------------

template <class T>
result<slots::encoded_save> slots::encode(const T& value, const slot_meta& meta, object_encoding encoding,
                                          const object_options& limits) {
  result<encoded_save> save{std::in_place};
  save->encoding = encoding;
  save->schema_version = schema_version<T>;
  save->meta = meta;
  if (encoding == object_encoding::msgpack_compact) save->compact_layout = detail::compact_layout<T>();
  save->payload = detail::take_payload_buffer();
  if (status encoded = detail::encode_object(value, encoding, save->payload, limits); !encoded)
    return std::move(encoded).error();
  return save;
}

template <class T>
status slots::write(std::string_view name, const T& value, const slot_meta& meta, write_options options) {
  if (status valid = check_name(name); !valid) return valid;
  result<encoded_save> save = encode(value, meta, encoding_for(options), limits());
  if (!save) return std::move(save).error();
  save->sealed = options.sealed;
  return write_encoded(name, std::move(*save));
}

template <class T>
void slots::write_async(std::string_view name, const T& value, const slot_meta& meta, std::function<void(status)> done,
                        write_options options) {
  queue_snapshot(name, value, meta, std::move(done), options);
}

template <class T>
requires(!std::is_lvalue_reference_v<T>) void slots::write_async(std::string_view name, T&& value,
                                                                 const slot_meta& meta,
                                                                 std::function<void(status)> done,
                                                                 write_options options) {
  queue_snapshot(name, std::move(value), meta, std::move(done), options);
}

template <class Value>
void slots::queue_snapshot(std::string_view name, Value&& value, const slot_meta& meta,
                           std::function<void(status)> done, write_options options) {
  using T = std::remove_cvref_t<Value>;
  if (status valid = check_name(name); !valid) return deliver(std::move(done), std::move(valid));
  const object_encoding encoding = encoding_for(options);
  if constexpr (detail::copy_is_independent<T>()) {
    // The snapshot is a copy (a memcpy-like cost) or the value moved in, encoded on the worker.
    // The name and the metadata are taken first: they may be parts of the value moved.
    const std::string owned_name{name};
    slot_meta owned_meta = meta;
    snapshot encoding_later = [meta = std::move(owned_meta), copy = std::forward<Value>(value), encoding,
                               limits = limits(), sealed = options.sealed]() -> result<encoded_save> {
      result<encoded_save> save = encode(copy, meta, encoding, limits);
      if (save) save->sealed = sealed;
      return save;
    };
    queue_write(owned_name, std::move(encoding_later), std::move(done));
  } else {
    // A copy could share state with the game's object (pointers): encoded here instead.
    result<encoded_save> save = encode(value, meta, encoding, limits());
    if (!save) return deliver(std::move(done), std::move(save).error());
    save->sealed = options.sealed;
    queue_write(
        name, [save = std::move(*save)]() mutable -> result<encoded_save> { return std::move(save); }, std::move(done));
  }
}

template <class T>
result<std::string> slots::autosave(const T& value, const slot_meta& meta, write_options options) {
  std::string name = next_autosave_name();
  if (status written = write(name, value, meta, options); !written) return std::move(written).error();
  return name;
}

template <class T>
std::string slots::autosave_async(const T& value, const slot_meta& meta, std::function<void(status)> done,
                                  write_options options) {
  std::string name = next_autosave_name();
  write_async(name, value, meta, std::move(done), options);
  return name;
}

template <class T>
requires(!std::is_lvalue_reference_v<T>) std::string slots::autosave_async(T&& value, const slot_meta& meta,
                                                                           std::function<void(status)> done,
                                                                           write_options options) {
  std::string name = next_autosave_name();
  write_async(name, std::move(value), meta, std::move(done), options);
  return name;
}

template <class T>
status slots::read_into(std::string_view name, T& into, read_report* report) {
  read_report local;
  read_report& found = report ? *report : local;
  result<payload> stored = read_payload(name, &found);
  if (!stored) return std::move(stored).error();
  if (stored->encoding == object_encoding::bytes) {
    error e = detail::bytes_are_not_an_object();
    return error{e.code(), 0, "slot '" + std::string{name} + "' holds the game's own bytes: " + e.message()};
  }
  if (stored->schema_version > schema_version<T>)
    return error{errc::newer_schema, 0,
                 "slot '" + std::string{name} + "' was saved with schema version " +
                     std::to_string(stored->schema_version) + ", newer than this program's " +
                     std::to_string(schema_version<T>) + ": it is left as it is"};
  const bool migrating = stored->schema_version < schema_version<T> &&
                         detail::has_migration_steps(migrations<T>, stored->schema_version, schema_version<T>);
  if (migrating) {
    // The type's steps run over the save as a document (a compact one named through its
    // layout first); what they leave is read by name.
    if (stored->encoding == object_encoding::msgpack_compact && !detail::depth_is_bounded<T>)
      return error{errc::incompatible_layout, 0,
                   "slot '" + std::string{name} + "' is in the compact form, and a type that contains itself " +
                       "cannot be migrated from it (its layout names the first level only): save it in the map form"};
    result<std::string> migrated = detail::migrate_payload(*stored, migrations<T>, schema_version<T>, limits(),
                                                           detail::compact_layout_lists<T>().nullable);
    if (!migrated) {
      error e = std::move(migrated).error();
      return error{e.code(), e.offset(),
                   "slot '" + std::string{name} + "' generation " + std::to_string(stored->generation) +
                       " could not be migrated from schema version " + std::to_string(stored->schema_version) + ": " +
                       e.message(),
                   e.path()};
    }
    stored->bytes = std::move(*migrated);
    stored->encoding = object_encoding::msgpack;
    stored->compact_layout.clear();
  } else if (stored->encoding == object_encoding::msgpack_compact && !stored->compact_layout.empty()) {
    // The compact form has no names: a position that now means another member would be
    // read into it. Positions may only be added or dropped (or declared with with_key).
    if (std::string conflict = detail::compact_layout_conflict<T>(stored->compact_layout); !conflict.empty())
      return error{errc::incompatible_layout, 0,
                   "slot '" + std::string{name} + "' generation " + std::to_string(stored->generation) +
                       " is in the compact form, and its layout no longer matches the type (" + conflict +
                       "): give members fixed positions with with_key(n), or save in the map form"};
  }
  status decoded;
  if (stored->schema_version == schema_version<T>) {
    decoded = detail::decode_object(stored->bytes, stored->encoding, into, limits());
  } else {
    T fresh{};
    decoded = detail::decode_object(stored->bytes, stored->encoding, fresh, limits());
    if (decoded) into = std::move(fresh);
  }
  if (!decoded) {
    error e = std::move(decoded).error();
    return error{e.code(), e.offset(),
                 "slot '" + std::string{name} + "' generation " + std::to_string(stored->generation) +
                     " does not decode: " + e.message(),
                 e.path()};
  }
  return {};
}

template <class T>
result<T> slots::read(std::string_view name, read_report* report) {
  result<T> out{std::in_place};
  status read = read_into(name, *out, report);
  if (!read) return std::move(read).error();
  return out;
}

}  // namespace savekit
