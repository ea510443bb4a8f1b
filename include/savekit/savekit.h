/* savekit's C ABI: the prefs store and MessagePack <-> JSON from C, and from any language
 * that can call C (the C# and Python bindings build on it). C99; no C++ type, exception or
 * allocator crosses it. Library: savekit_c (libsavekit_c.so, or the static libsavekit_c.a).
 *
 * Rules that hold for every function:
 *  1. Every call returns an sk_status: SK_OK (0), or one of the stable numbers below; the
 *     numbers never change meaning (a new failure gets a new number). sk_status_name()
 *     names each.
 *  2. Text and bytes go as pointer + length, byte-clean: a NUL inside a key or a value is
 *     kept. A null pointer with a length of 0 is the empty string; with any other length
 *     it is SK_NULL_ARGUMENT. Keys are any bytes (1 to 256 of them); string values are
 *     UTF-8 (else SK_INVALID_UTF8); bytes values are any bytes. A path holds no NUL
 *     (SK_INVALID_PATH): the system would read it as a shorter one.
 *  3. Results come back in caller-owned memory with a size query (a buffer too small, or
 *     NULL, gives SK_BUFFER_TOO_SMALL and sets *needed), or in an sk_buffer the library
 *     allocates and sk_buffer_free() releases.
 *  4. A failure leaves its details — message, byte offset, JSONPath — with the handle it
 *     came from, or, for a call without a handle, with the calling thread: sk_last_error().
 *     A handle may be used from several threads at once.
 *  5. Options structs begin with their own size (set by their _init function), so that a
 *     later release can add fields and still read an older caller's struct.
 *  6. Nothing a caller passes crashes the library short of a pointer to memory it does not
 *     own, or a handle used after it was closed.
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

/* ---- MessagePack <-> JSON ------------------------------------------------------------- */

/* Any MessagePack document as JSON text (pretty: indented); any language can then read a
 * save without its types. */
SK_API sk_status sk_msgpack_to_json(const uint8_t* data, size_t size, int32_t pretty, sk_buffer* out);
SK_API sk_status sk_json_to_msgpack(const char* text, size_t size, sk_buffer* out);

#ifdef __cplusplus
}
#endif

#endif /* SAVEKIT_H */
