/* savekit's C ABI: the prefs store, save slots, sealed saves and MessagePack <-> JSON from C,
 * and from any language that can call C (the C# and Python bindings build on it). C99; no C++ type, exception or
 * allocator crosses it. Library: savekit_c (libsavekit_c.so, or the static libsavekit_c.a).
 *
 * Rules that hold for every function:
 *  1. Every call returns an sk_status: SK_OK (0), or one of the stable numbers below; the
 *     numbers never change meaning (a new failure gets a new number). sk_status_name()
 *     names each.
 *  2. Text and bytes go as pointer + length, byte-clean: a NUL inside a key or a value is
 *     kept. A null pointer with a length of 0 is the empty string; with any other length
 *     it is SK_NULL_ARGUMENT. Keys are any bytes, 1 to 1024 of them (setting an empty or
 *     longer key is SK_INVALID_KEY; reading one is SK_NOT_FOUND: no entry has it); string
 *     values, titles and metadata are UTF-8 (else SK_INVALID_UTF8, with the offset); bytes
 *     values and payloads are any bytes. A path holds no NUL (SK_INVALID_PATH): the system
 *     would read it as a shorter one.
 *  3. Results come back in caller-owned memory with a size query (a buffer too small, or
 *     NULL, gives SK_BUFFER_TOO_SMALL and sets *needed), or in an sk_buffer the library
 *     allocates and sk_buffer_free() releases. Every out-parameter that is not NULL is set
 *     whatever the call returns (to NULL, an empty buffer or 0 on failure), so that freeing
 *     it afterwards is always safe.
 *  4. A failure leaves its details — message, byte offset, JSONPath — with the handle it
 *     came from and the calling thread (two threads on one handle never see each other's),
 *     or, for a call without a handle, with the calling thread: sk_last_error(). A handle
 *     may be used from several threads at once; closing it while another thread is inside
 *     a call on it is the caller's bug (the bindings prevent it).
 *  5. Options structs begin with their own size (set by their _init function), so that a
 *     later release can add fields and still read an older caller's struct.
 *  6. Nothing a caller passes crashes the library short of a pointer to memory it does not
 *     own, or a handle used after it was closed.
 *  7. Callbacks are plain function pointers with a void* user, passed back untouched; each
 *     function that takes one says on which thread it runs. A callback must not unwind
 *     (a C++ exception or a longjmp) out of itself.
 *
 * Example:
 *   sk_prefs* store = NULL;
 *   if (sk_prefs_open("save.prefs", 10, NULL, &store) != SK_OK) { ... }
 *   sk_prefs_set_int(store, "level", 5, 12);
 *   sk_prefs_save(store);   // durable when it returns SK_OK
 *   sk_prefs_close(store);
 */
#ifndef SAVEKIT_H
#define SAVEKIT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(SAVEKIT_C_BUILDING)
#define SK_API __declspec(dllexport)
#else
#define SK_API
#endif
#else
#define SK_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Raised when a function's signature or a struct's layout changes incompatibly (never,
 * within one major release: functions and fields are only added). */
#define SAVEKIT_ABI_VERSION 1

/* ---- status --------------------------------------------------------------------------- */

typedef int32_t sk_status;

/* 0..99: savekit::errc, number for number (savekit/error.hpp). */
#define SK_OK 0
#define SK_UNEXPECTED_END 1
#define SK_SYNTAX_ERROR 2
#define SK_INVALID_UTF8 3
#define SK_INVALID_ESCAPE 4
#define SK_INVALID_NUMBER 5
#define SK_NUMBER_OUT_OF_RANGE 6
#define SK_NOT_AN_INTEGER 7
#define SK_TYPE_MISMATCH 8
#define SK_UNKNOWN_KEY 9
#define SK_MISSING_KEY 10
#define SK_DEPTH_EXCEEDED 11
#define SK_TRAILING_DATA 12
#define SK_LENGTH_MISMATCH 13
#define SK_LENGTH_EXCEEDS_INPUT 14
#define SK_INVALID_MSGPACK 15
#define SK_UNKNOWN_ENUM_NAME 16
#define SK_UNKNOWN_VARIANT_INDEX 17
#define SK_UNSUPPORTED_TYPE 18
#define SK_INVALID_BASE64_CHARACTER 19
#define SK_INVALID_BASE64_PADDING 20
#define SK_INVALID_BASE64_TRAILING_BITS 21
#define SK_INVALID_VALUE 22
#define SK_NOT_FOUND 23
#define SK_WRONG_TYPE 24
#define SK_INVALID_KEY 25
#define SK_VALUE_TOO_LARGE 26
#define SK_LOCKED 27
#define SK_IO_ERROR 28
#define SK_CORRUPT_STORE 29
#define SK_UNSUPPORTED_VERSION 30
#define SK_COMMIT_PENDING 31
#define SK_STORAGE_UNAVAILABLE 32
#define SK_STORAGE_FULL 33
#define SK_STORE_TOO_LARGE 34
#define SK_STORE_REPLACED 35
#define SK_INVALID_PATH 36
#define SK_INVALID_NAME 37
#define SK_ALREADY_EXISTS 38
#define SK_DAMAGED 39
#define SK_NEWER_SCHEMA 40
#define SK_INCOMPATIBLE_LAYOUT 41
#define SK_TAMPERED 42
#define SK_KEY_NOT_HELD 43
#define SK_UNSUPPORTED_ALGORITHM 44
#define SK_NETWORK 45    /* cloud sync: not in the ABI yet; the code is reserved */
#define SK_NOT_LOADED 46 /* slots in the browser: not in the ABI; the code is reserved */
/* 100 and up: the ABI's own. */
#define SK_NULL_ARGUMENT 100    /* a null handle or out-pointer, or a null pointer with a length */
#define SK_BUFFER_TOO_SMALL 101 /* *needed says how much */
#define SK_OUT_OF_MEMORY 102
#define SK_INTERNAL 103        /* a failure savekit did not foresee; the message says what */
#define SK_INVALID_OPTIONS 104 /* an options struct whose size this library does not know */

/* "ok", "not_found", ...; "unknown" for a number no release has used. Never NULL. */
SK_API const char* sk_status_name(sk_status status);

/* ---- version -------------------------------------------------------------------------- */

SK_API const char* sk_version(void); /* "0.1.0" */
SK_API uint32_t sk_abi_version(void); /* SAVEKIT_ABI_VERSION of the library loaded */

/* ---- memory the library hands out ----------------------------------------------------- */

typedef struct sk_buffer {
  uint8_t* data; /* NULL when size is 0 */
  size_t size;
} sk_buffer;

/* Releases what the library put in *buffer and empties it; an empty buffer is fine. */
SK_API void sk_buffer_free(sk_buffer* buffer);

/* ---- errors --------------------------------------------------------------------------- */

typedef struct sk_error {
  sk_status status;
  uint64_t offset;   /* the byte of the input where it went wrong, or 0 */
  sk_buffer message; /* UTF-8 */
  sk_buffer path;    /* a JSONPath: "$" or "$[\"key\"]" */
} sk_error;

/* The last failure of the calls on handle (any sk_ handle), or with handle NULL, of the
 * calling thread's calls that take no handle. SK_OK with out->status SK_OK when there was
 * none. Free it with sk_error_free. */
SK_API sk_status sk_last_error(const void* handle, sk_error* out);
SK_API void sk_error_free(sk_error* error);

/* ---- the prefs store ------------------------------------------------------------------ */

typedef struct sk_prefs sk_prefs;

typedef struct sk_prefs_options {
  size_t struct_size;         /* sizeof(sk_prefs_options): set by sk_prefs_options_init */
  int32_t read_only;          /* open without changing anything; commits fail */
  int32_t create_if_missing;  /* create the file (and its folder); 0: SK_NOT_FOUND instead */
  uint64_t max_store_bytes;   /* the largest store file */
  double compact_ratio;       /* rewrite the log past this x the live data ... */
  uint64_t compact_min_bytes; /* ... and this many bytes */
} sk_prefs_options;

/* The defaults of savekit::file_backend_options. */
SK_API void sk_prefs_options_init(sk_prefs_options* options);

/* Opens (or creates) the store file at path, over the file backend; options may be NULL
 * (the defaults). Another process holding the store: SK_LOCKED. */
SK_API sk_status sk_prefs_open(const char* path, size_t path_size, const sk_prefs_options* options,
                               sk_prefs** out);
/* Waits for background saves, then releases the store. NULL is fine. */
SK_API void sk_prefs_close(sk_prefs* prefs);

SK_API sk_status sk_prefs_set_int(sk_prefs* prefs, const char* key, size_t key_size, int64_t value);
SK_API sk_status sk_prefs_set_float(sk_prefs* prefs, const char* key, size_t key_size, double value);
SK_API sk_status sk_prefs_set_string(sk_prefs* prefs, const char* key, size_t key_size, const char* value,
                                     size_t value_size);
SK_API sk_status sk_prefs_set_bytes(sk_prefs* prefs, const char* key, size_t key_size, const uint8_t* value,
                                    size_t value_size);

/* SK_NOT_FOUND when there is no entry, SK_WRONG_TYPE when it holds another type. */
SK_API sk_status sk_prefs_get_int(const sk_prefs* prefs, const char* key, size_t key_size, int64_t* out);
SK_API sk_status sk_prefs_get_float(const sk_prefs* prefs, const char* key, size_t key_size, double* out);
/* Into out[0..capacity): *needed is always set to the value's size (no NUL is added). */
SK_API sk_status sk_prefs_get_string(const sk_prefs* prefs, const char* key, size_t key_size, char* out,
                                     size_t capacity, size_t* needed);
/* A bytes entry (or a string entry's bytes). */
SK_API sk_status sk_prefs_get_bytes(const sk_prefs* prefs, const char* key, size_t key_size, uint8_t* out,
                                    size_t capacity, size_t* needed);

SK_API sk_status sk_prefs_has_key(const sk_prefs* prefs, const char* key, size_t key_size, int32_t* out);
/* SK_NOT_FOUND if absent. */
SK_API sk_status sk_prefs_delete_key(sk_prefs* prefs, const char* key, size_t key_size);
SK_API sk_status sk_prefs_delete_all(sk_prefs* prefs);
/* Every key, sorted, into *out: each as a 4-byte little-endian length, then its bytes;
 * *count is how many. */
SK_API sk_status sk_prefs_keys(const sk_prefs* prefs, sk_buffer* out, size_t* count);

/* What an entry holds (savekit::value_type's numbers): objects and sealed entries are
 * written from C++; sk_prefs_get_raw reads any of them. */
#define SK_TYPE_INT 1
#define SK_TYPE_FLOAT 2
#define SK_TYPE_STRING 3
#define SK_TYPE_BYTES 4
#define SK_TYPE_MSGPACK 5         /* an object, MessagePack map form */
#define SK_TYPE_MSGPACK_COMPACT 6 /* an object, MessagePack compact form */
#define SK_TYPE_JSON 7            /* an object, JSON text */
#define SK_TYPE_SEALED 8          /* a sealed entry */
/* SK_NOT_FOUND if absent. */
SK_API sk_status sk_prefs_type(const sk_prefs* prefs, const char* key, size_t key_size, int32_t* out);
/* An entry's stored bytes and its SK_TYPE_ (an int as MessagePack, a float as float64
 * MessagePack, an object as written): any entry, for tools and bindings. */
SK_API sk_status sk_prefs_get_raw(const sk_prefs* prefs, const char* key, size_t key_size, int32_t* type,
                                  sk_buffer* out);

/* Commits every change since the last save, durably (fsync) before it returns SK_OK. */
SK_API sk_status sk_prefs_save(sk_prefs* prefs);
/* The same on the store's background thread; done(user, status) runs on that thread once
 * the commit is durable or has failed (it may call back into the store, but not close it). */
typedef void (*sk_done_callback)(void* user, sk_status status);
SK_API sk_status sk_prefs_save_async(sk_prefs* prefs, sk_done_callback done, void* user);

/* What opening had to repair (a torn or damaged tail left out), if anything. */
typedef struct sk_recovery {
  int32_t recovered;
  uint64_t commits_loaded;
  uint64_t bytes_discarded;
  sk_buffer detail;       /* what was wrong */
  sk_buffer damaged_copy; /* where the damaged file was kept, if it was */
} sk_recovery;
SK_API sk_status sk_prefs_recovery(const sk_prefs* prefs, sk_recovery* out);
SK_API void sk_recovery_free(sk_recovery* recovery);

/* ---- sealed saves: compression, a MAC or encryption (zstd and libsodium) ------------------ */

/* Keys that seal and open saves: 32 bytes each, under a number of the game's choosing. A
 * library built without zstd and libsodium answers SK_UNSUPPORTED_ALGORITHM here. */
typedef struct sk_keyring sk_keyring;
#define SK_SEAL_KEY_BYTES 32

SK_API sk_status sk_keyring_new(sk_keyring** out);
SK_API void sk_keyring_free(sk_keyring* keys); /* NULL is fine */
/* Adds a key (exactly SK_SEAL_KEY_BYTES bytes); the first added seals until sk_keyring_use. */
SK_API sk_status sk_keyring_add(sk_keyring* keys, uint32_t id, const uint8_t* key, size_t key_size);
/* A new key from the system's random source, added under id; its bytes are written to
 * key_out (key_out_size >= SK_SEAL_KEY_BYTES) for the game to keep. */
SK_API sk_status sk_keyring_generate(sk_keyring* keys, uint32_t id, uint8_t* key_out, size_t key_out_size);
/* Seal with this key from now on (SK_KEY_NOT_HELD if it was not added). */
SK_API sk_status sk_keyring_use(sk_keyring* keys, uint32_t id);

#define SK_COMPRESSION_NONE 0
#define SK_COMPRESSION_ZSTD 1
#define SK_PROTECTION_NONE 0 /* a digest: finds damage, not forgery */
#define SK_PROTECTION_MAC 1  /* proves a key holder wrote it */
#define SK_PROTECTION_AEAD 2 /* the same, and encrypted */

typedef struct sk_seal_options {
  size_t struct_size;         /* sizeof(sk_seal_options): set by sk_seal_options_init */
  int32_t compression;        /* SK_COMPRESSION_ZSTD */
  int32_t level;              /* zstd's level, 1..19: 3 */
  int32_t protection;         /* what sealing adds: SK_PROTECTION_AEAD */
  int32_t minimum_protection; /* the least a save must carry to open; -1 (the default): MAC
                                 when a key is held, none otherwise */
} sk_seal_options;
SK_API void sk_seal_options_init(sk_seal_options* options);

/* What a sealed save is bound to: opened with any other context, it is SK_TAMPERED. */
typedef struct sk_seal_context {
  size_t struct_size; /* sizeof(sk_seal_context) */
  const char* name;   /* the save's name (a slot's, a key's) */
  size_t name_size;
  uint32_t schema_version; /* of the game's save layout */
  const char* player;      /* a player id, or empty */
  size_t player_size;
} sk_seal_context;

/* Seal plain into *out; keys may be NULL for SK_PROTECTION_NONE. options and context may be
 * NULL (the defaults; an empty name). A failure is kept with the calling thread. */
SK_API sk_status sk_seal(const uint8_t* plain, size_t plain_size, const sk_keyring* keys, const sk_seal_options* options,
                         const sk_seal_context* context, sk_buffer* out);
/* Check, decrypt and decompress: SK_TAMPERED, SK_KEY_NOT_HELD, SK_DAMAGED, ... */
SK_API sk_status sk_unseal(const uint8_t* sealed, size_t sealed_size, const sk_keyring* keys,
                           const sk_seal_options* options, const sk_seal_context* context, sk_buffer* out);

/* ---- save slots: a folder of named saves with a load menu ----------------------------- */

typedef struct sk_slots sk_slots;

typedef struct sk_slots_options {
  size_t struct_size;         /* sizeof(sk_slots_options): set by sk_slots_options_init */
  uint32_t keep_generations;  /* per slot, the newest included: 3 */
  int32_t read_only;          /* list and read beside a game that writes; no lock taken */
  int32_t create_if_missing;  /* 1; 0: a missing folder is SK_NOT_FOUND */
  uint64_t max_payload_bytes; /* a larger generation file is not read */
  /* Seal every payload written, and open sealed ones, with these keys (copied at open;
   * NULL: no sealing), these options (NULL: the defaults) and this player id. */
  const sk_keyring* keyring;
  const sk_seal_options* seal;
  const char* player;
  size_t player_size;
  int32_t accept_unsealed; /* with keys: read saves written before the game sealed */
} sk_slots_options;
SK_API void sk_slots_options_init(sk_slots_options* options);

/* Opens (creating it) the folder at path and locks it: a second open is SK_LOCKED. */
SK_API sk_status sk_slots_open(const char* path, size_t path_size, const sk_slots_options* options, sk_slots** out);
/* Waits for queued writes (their callbacks run), then releases the folder. NULL is fine. */
SK_API void sk_slots_close(sk_slots* slots);

/* What a payload's bytes are. A slot written from C is the game's own bytes by default;
 * MessagePack and JSON must be one well-formed document (C++ then reads them as objects,
 * and the tools show them). */
#define SK_ENCODING_MSGPACK 0
#define SK_ENCODING_MSGPACK_COMPACT 1
#define SK_ENCODING_JSON 2
#define SK_ENCODING_BYTES 3

typedef struct sk_string_pair {
  const char* key;
  size_t key_size;
  const char* value;
  size_t value_size;
} sk_string_pair;

/* How a save is written, and what the load menu shows of it. */
typedef struct sk_slot_write_options {
  size_t struct_size;      /* sizeof(sk_slot_write_options): set by sk_slot_write_options_init */
  int32_t encoding;        /* SK_ENCODING_BYTES */
  uint32_t schema_version; /* of the game's save layout, at least 1: 1 */
  const char* title;       /* UTF-8 */
  size_t title_size;
  int64_t playtime_seconds;
  double progress; /* 0..1 by convention */
  const uint8_t* thumbnail;
  size_t thumbnail_size;
  const sk_string_pair* user; /* the game's own fields, UTF-8 */
  size_t user_count;
  int32_t sealed; /* -1 (the default): when the folder has keys; 0; 1 */
} sk_slot_write_options;
SK_API void sk_slot_write_options_init(sk_slot_write_options* options);

/* Writes payload as the slot's newest generation, durably: SK_OK means it is on disk; on
 * failure the slot is as it was. options may be NULL (the defaults). */
SK_API sk_status sk_slots_write(sk_slots* slots, const char* name, size_t name_size, const uint8_t* payload,
                                size_t payload_size, const sk_slot_write_options* options);
/* The same on the slots' worker thread (the bytes are copied before it returns); writes
 * keep their order per slot, and one still queued is superseded by a newer one of the same
 * slot. SK_OK means the write was taken: done(user, status) then runs exactly once, on the
 * worker thread once the write is durable or has failed, or, for a write refused at once
 * (a bad name or schema version, a payload that is not well-formed), on the calling thread
 * before this returns. Any other status means the arguments could not be read (a bad
 * handle, options or pointer) and done never runs. done may be NULL; it may call any
 * sk_slots_ function but sk_slots_close. */
SK_API sk_status sk_slots_write_async(sk_slots* slots, const char* name, size_t name_size, const uint8_t* payload,
                                      size_t payload_size, const sk_slot_write_options* options,
                                      sk_done_callback done, void* user);
/* Waits for every queued write; the first failure since the last flush, if any. */
SK_API sk_status sk_slots_flush(sk_slots* slots);

/* A string in memory the list that holds it owns. */
typedef struct sk_string {
  const char* data;
  size_t size;
} sk_string;

/* One slot in the load menu, or one generation in a history. Read-only; fields may be
 * added at the end in later releases (the library allocates these). */
typedef struct sk_slot_info {
  sk_string name;
  uint64_t generation;     /* counts up per slot from 1 */
  int64_t saved_at_us;     /* microseconds since the Unix epoch, UTC */
  uint32_t schema_version; /* of the game's save layout */
  int32_t encoding;        /* SK_ENCODING_... */
  uint64_t bytes;          /* the payload's size (sealed, when sealed) */
  uint64_t thumbnail_bytes;
  uint64_t restored_from; /* the generation restore() copied, or 0 */
  int32_t sealed;
  sk_string title;
  int64_t playtime_seconds;
  double progress;
  const sk_string_pair* user;
  size_t user_count;
  int32_t damaged;          /* set aside as damaged (history only) */
  sk_status problem_status; /* why it cannot be read: SK_OK when it can */
  sk_string problem;
  uint64_t damaged_newer; /* newer generations found damaged: the slot fell back (load menu) */
} sk_slot_info;

typedef struct sk_slot_list sk_slot_list;
/* The load menu: every slot's newest intact generation, newest first (headers only). */
SK_API sk_status sk_slots_list(sk_slots* slots, sk_slot_list** out);
/* One slot's entry in the load menu, as a list of one. */
SK_API sk_status sk_slots_info(sk_slots* slots, const char* name, size_t name_size, sk_slot_list** out);
/* A slot's kept generations, newest first; damaged ones included and marked. */
SK_API sk_status sk_slots_history(sk_slots* slots, const char* name, size_t name_size, sk_slot_list** out);
SK_API size_t sk_slot_list_count(const sk_slot_list* list);
/* NULL past the end. Valid until sk_slot_list_free. */
SK_API const sk_slot_info* sk_slot_list_at(const sk_slot_list* list, size_t index);
SK_API void sk_slot_list_free(sk_slot_list* list); /* NULL is fine */

/* What a read found; the caller sets struct_size, the library fills what fits. */
typedef struct sk_payload_info {
  size_t struct_size; /* sizeof(sk_payload_info) */
  int32_t encoding;
  uint32_t schema_version;
  uint64_t generation; /* the generation read */
  int32_t sealed;      /* it was sealed (the bytes are opened) */
  uint32_t skipped;    /* newer generations found damaged: the slot fell back */
} sk_payload_info;

/* The payload of the slot's newest intact generation, opened if sealed; info may be NULL. */
SK_API sk_status sk_slots_read(sk_slots* slots, const char* name, size_t name_size, sk_buffer* out,
                               sk_payload_info* info);
/* One kept generation's payload, every section checked. */
SK_API sk_status sk_slots_read_generation(sk_slots* slots, const char* name, size_t name_size, uint64_t generation,
                                          sk_buffer* out, sk_payload_info* info);
SK_API sk_status sk_slots_thumbnail(sk_slots* slots, const char* name, size_t name_size, sk_buffer* out);
/* A copy of that generation becomes the newest. */
SK_API sk_status sk_slots_restore(sk_slots* slots, const char* name, size_t name_size, uint64_t generation);
SK_API sk_status sk_slots_remove(sk_slots* slots, const char* name, size_t name_size); /* every generation */
/* from's newest becomes to's newest; SK_ALREADY_EXISTS (rename) if to is a slot. */
SK_API sk_status sk_slots_copy(sk_slots* slots, const char* from, size_t from_size, const char* to, size_t to_size);
SK_API sk_status sk_slots_rename(sk_slots* slots, const char* from, size_t from_size, const char* to,
                                 size_t to_size);

/* ---- MessagePack <-> JSON ------------------------------------------------------------- */

/* Any MessagePack document as JSON text (pretty: indented); any language can then read a
 * save without its types. */
SK_API sk_status sk_msgpack_to_json(const uint8_t* data, size_t size, int32_t pretty, sk_buffer* out);
SK_API sk_status sk_json_to_msgpack(const char* text, size_t size, sk_buffer* out);

#ifdef __cplusplus
}
#endif

#endif /* SAVEKIT_H */
