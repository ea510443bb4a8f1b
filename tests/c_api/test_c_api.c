/* The C ABI (savekit/savekit.h) from plain C99, every function: what a game in C, and each
 * binding, relies on. Compiled with -std=c99 -pedantic -Werror. Prints each failed check;
 * exits 1 if any failed. Usage: test_c_api SCRATCH_FOLDER */
#include <savekit/savekit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static char path[4096];

static const char* in_scratch(const char* folder, const char* name) {
  sprintf(path, "%s/%s", folder, name);
  return path;
}

static int saved_async_status = -1;
static void on_saved(void* user, sk_status status) {
  *(int*)user = 1;
  saved_async_status = status;
}

/* Asks for the failure's details from inside the callback. */
static size_t async_detail_size = 0;
static void on_failed_save(void* user, sk_status status) {
  sk_error e;
  if (status != SK_OK && sk_last_error(user, &e) == SK_OK && e.status == status) async_detail_size = e.message.size;
  sk_error_free(&e);
}

static void versions_and_names(void) {
  CHECK(sk_abi_version() == SAVEKIT_ABI_VERSION);
  CHECK(strlen(sk_version()) >= 5);
  CHECK(strcmp(sk_status_name(SK_OK), "ok") == 0);
  CHECK(strcmp(sk_status_name(SK_NOT_FOUND), "not_found") == 0);
  CHECK(strcmp(sk_status_name(SK_UNSUPPORTED_ALGORITHM), "unsupported_algorithm") == 0);
  CHECK(strcmp(sk_status_name(SK_BUFFER_TOO_SMALL), "buffer_too_small") == 0);
  CHECK(strcmp(sk_status_name(99), "unknown") == 0);
  CHECK(strcmp(sk_status_name(-1), "unknown") == 0);
}

/* Keys and values are byte-clean; strings are UTF-8; every getter says why it cannot. */
static void values(sk_prefs* store) {
  const char nul_key[] = {'a', '\0', 'b'};
  const char nul_text[] = {'x', '\0', 'y'};
  const uint8_t bytes[] = {0, 255, 1, 0xc0};
  int64_t i = 0;
  double d = 0;
  char text[16];
  uint8_t raw[16];
  size_t needed = 0;
  int32_t has = -1;
  sk_error e;

  CHECK_STATUS(sk_prefs_set_int(store, "level", 5, -42), SK_OK);
  CHECK_STATUS(sk_prefs_set_float(store, "speed", 5, 1.5), SK_OK);
  CHECK_STATUS(sk_prefs_set_string(store, nul_key, sizeof nul_key, nul_text, sizeof nul_text), SK_OK);
  CHECK_STATUS(sk_prefs_set_bytes(store, "blob", 4, bytes, sizeof bytes), SK_OK);
  CHECK_STATUS(sk_prefs_set_string(store, "empty", 5, NULL, 0), SK_OK);

  CHECK_STATUS(sk_prefs_get_int(store, "level", 5, &i), SK_OK);
  CHECK(i == -42);
  CHECK_STATUS(sk_prefs_get_float(store, "speed", 5, &d), SK_OK);
  CHECK(d == 1.5);
  CHECK_STATUS(sk_prefs_get_string(store, nul_key, sizeof nul_key, text, sizeof text, &needed), SK_OK);
  CHECK(needed == 3 && memcmp(text, nul_text, 3) == 0);
  CHECK_STATUS(sk_prefs_get_bytes(store, "blob", 4, raw, sizeof raw, &needed), SK_OK);
  CHECK(needed == 4 && memcmp(raw, bytes, 4) == 0);
  CHECK_STATUS(sk_prefs_get_string(store, "empty", 5, NULL, 0, &needed), SK_OK);
  CHECK(needed == 0);

  /* Each entry's type, and its stored bytes whatever the type. */
  {
    int32_t type = 0;
    sk_buffer stored = {NULL, 0};
    CHECK_STATUS(sk_prefs_type(store, "level", 5, &type), SK_OK);
    CHECK(type == SK_TYPE_INT);
    CHECK_STATUS(sk_prefs_type(store, nul_key, sizeof nul_key, &type), SK_OK);
    CHECK(type == SK_TYPE_STRING);
    CHECK_STATUS(sk_prefs_type(store, "blob", 4, &type), SK_OK);
    CHECK(type == SK_TYPE_BYTES);
    CHECK_STATUS(sk_prefs_type(store, "nothing", 7, &type), SK_NOT_FOUND);
    CHECK_STATUS(sk_prefs_get_raw(store, "speed", 5, &type, &stored), SK_OK);
    CHECK(type == SK_TYPE_FLOAT && stored.size == 9 && stored.data[0] == 0xcb); /* float64 */
    sk_buffer_free(&stored);
    CHECK_STATUS(sk_prefs_get_raw(store, "blob", 4, &type, &stored), SK_OK);
    CHECK(type == SK_TYPE_BYTES && stored.size == 4 && memcmp(stored.data, bytes, 4) == 0);
    sk_buffer_free(&stored);
    CHECK_STATUS(sk_prefs_get_raw(store, "nothing", 7, &type, &stored), SK_NOT_FOUND);
    CHECK_STATUS(sk_prefs_get_raw(store, "blob", 4, NULL, &stored), SK_NULL_ARGUMENT);
    CHECK_STATUS(sk_prefs_type(store, "blob", 4, NULL), SK_NULL_ARGUMENT);
  }

  /* The size query: too small or NULL says how much. */
  CHECK_STATUS(sk_prefs_get_bytes(store, "blob", 4, raw, 2, &needed), SK_BUFFER_TOO_SMALL);
  CHECK(needed == 4);
  CHECK_STATUS(sk_prefs_get_bytes(store, "blob", 4, NULL, 0, &needed), SK_BUFFER_TOO_SMALL);
  CHECK(needed == 4);

  /* Why a getter cannot, with the details kept on the handle. */
  CHECK_STATUS(sk_prefs_get_int(store, "nothing", 7, &i), SK_NOT_FOUND);
  CHECK_STATUS(sk_last_error(store, &e), SK_OK);
  CHECK(e.status == SK_NOT_FOUND && e.message.size > 0);
  CHECK(e.path.size > 3 && memcmp(e.path.data, "$[", 2) == 0);
  sk_error_free(&e);
  CHECK(e.message.data == NULL && e.message.size == 0);
  CHECK_STATUS(sk_prefs_get_int(store, "speed", 5, &i), SK_WRONG_TYPE);
  CHECK_STATUS(sk_prefs_get_float(store, "level", 5, &d), SK_WRONG_TYPE);

  /* A string value is UTF-8 (bytes take anything); the offset names the bad byte. */
  CHECK_STATUS(sk_prefs_set_string(store, "name", 4, "ok\xff", 3), SK_INVALID_UTF8);
  CHECK_STATUS(sk_last_error(store, &e), SK_OK);
  CHECK(e.status == SK_INVALID_UTF8 && e.offset == 2);
  sk_error_free(&e);
  CHECK_STATUS(sk_prefs_set_int(store, "", 0, 1), SK_INVALID_KEY);

  CHECK_STATUS(sk_prefs_has_key(store, "level", 5, &has), SK_OK);
  CHECK(has == 1);
  CHECK_STATUS(sk_prefs_delete_key(store, "level", 5), SK_OK);
  CHECK_STATUS(sk_prefs_has_key(store, "level", 5, &has), SK_OK);
  CHECK(has == 0);
  CHECK_STATUS(sk_prefs_delete_key(store, "level", 5), SK_NOT_FOUND);
}

/* Null handles, null out-pointers and null pointers with a length: a status, never a crash. */
static void bad_arguments(sk_prefs* store) {
  int64_t i = 0;
  size_t needed = 0;
  sk_buffer b = {NULL, 0};
  sk_error e;
  CHECK_STATUS(sk_prefs_set_int(NULL, "k", 1, 1), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_prefs_get_int(NULL, "k", 1, &i), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_prefs_get_int(store, "k", 1, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_prefs_set_int(store, NULL, 3, 1), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_prefs_set_bytes(store, "k", 1, NULL, 3), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_prefs_get_string(store, "k", 1, NULL, 0, NULL), SK_NULL_ARGUMENT);
  /* Out-parameters are set on failure too: freeing them afterwards is safe. */
  needed = 12345;
  CHECK_STATUS(sk_prefs_get_string(store, "nothing", 7, NULL, 0, &needed), SK_NOT_FOUND);
  CHECK(needed == 0);
  b.data = (uint8_t*)&needed; /* garbage a careless caller left */
  b.size = 99;
  CHECK_STATUS(sk_msgpack_to_json(NULL, 2, 0, &b), SK_NULL_ARGUMENT);
  CHECK(b.data == NULL && b.size == 0);
  {
    sk_prefs* never = (sk_prefs*)&b;
    CHECK_STATUS(sk_prefs_open(NULL, 5, NULL, &never), SK_NULL_ARGUMENT);
    CHECK(never == NULL);
  }
  CHECK_STATUS(sk_prefs_keys(store, NULL, &needed), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_prefs_save(NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_prefs_open(NULL, 4, NULL, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_msgpack_to_json(NULL, 2, 0, &b), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_last_error(NULL, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_last_error(NULL, &e), SK_OK);
  CHECK(e.status == SK_NULL_ARGUMENT);
  sk_error_free(&e);
  sk_prefs_close(NULL);
  sk_buffer_free(NULL);
  sk_error_free(NULL);
  sk_recovery_free(NULL);
  sk_prefs_options_init(NULL);
}

static void keys(sk_prefs* store) {
  sk_buffer b = {NULL, 0};
  size_t count = 0, at = 0, seen = 0;
  CHECK_STATUS(sk_prefs_keys(store, &b, &count), SK_OK);
  CHECK(count == 4); /* a\0b, blob, empty, speed */
  while (at + 4 <= b.size) {
    uint32_t n = (uint32_t)b.data[at] | (uint32_t)b.data[at + 1] << 8 | (uint32_t)b.data[at + 2] << 16 |
                 (uint32_t)b.data[at + 3] << 24;
    at += 4 + n;
    ++seen;
  }
  CHECK(seen == count && at == b.size);
  CHECK(b.size >= 7 && b.data[4] == 'a' && b.data[5] == '\0' && b.data[6] == 'b'); /* sorted: "a\0b" first */
  sk_buffer_free(&b);
  CHECK(b.data == NULL && b.size == 0);
}

static void transcoding(void) {
  const uint8_t map[] = {0x81, 0xa1, 'a', 0x01}; /* {"a":1} */
  sk_buffer json = {NULL, 0}, packed = {NULL, 0};
  sk_error e;
  CHECK_STATUS(sk_msgpack_to_json(map, sizeof map, 0, &json), SK_OK);
  CHECK(json.size == 7 && memcmp(json.data, "{\"a\":1}", 7) == 0);
  CHECK_STATUS(sk_json_to_msgpack((const char*)json.data, json.size, &packed), SK_OK);
  CHECK(packed.size == sizeof map && memcmp(packed.data, map, sizeof map) == 0);
  sk_buffer_free(&json);
  sk_buffer_free(&packed);
  CHECK_STATUS(sk_json_to_msgpack("{\"a\":", 5, &packed), SK_UNEXPECTED_END);
  CHECK_STATUS(sk_last_error(NULL, &e), SK_OK);
  CHECK(e.status == SK_UNEXPECTED_END && e.offset == 5);
  sk_error_free(&e);
  CHECK_STATUS(sk_msgpack_to_json((const uint8_t*)"\xc1", 1, 1, &json), SK_INVALID_MSGPACK);
}

int main(int argc, char** argv) {
  sk_prefs* store = NULL;
  sk_prefs* second = NULL;
  sk_prefs_options options;
  sk_recovery recovery;
  int64_t i = 0;
  int called = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: test_c_api SCRATCH_FOLDER\n");
    return 2;
  }
  versions_and_names();

  sk_prefs_options_init(&options);
  CHECK(options.struct_size == sizeof options && options.create_if_missing == 1 && options.read_only == 0);
  in_scratch(argv[1], "c.prefs");
  CHECK_STATUS(sk_prefs_open(path, strlen(path), &options, &store), SK_OK);
  if (!store) return 1;
  values(store);
  bad_arguments(store);
  keys(store);
  CHECK_STATUS(sk_prefs_save(store), SK_OK);
  /* Delete all: no key is left (committed by the save below). */
  {
    sk_buffer b = {NULL, 0};
    size_t count = 99;
    CHECK_STATUS(sk_prefs_delete_all(store), SK_OK);
    CHECK_STATUS(sk_prefs_keys(store, &b, &count), SK_OK);
    CHECK(count == 0 && b.size == 0);
    sk_buffer_free(&b);
    CHECK_STATUS(sk_prefs_delete_all(NULL), SK_NULL_ARGUMENT);
  }
  CHECK_STATUS(sk_prefs_set_int(store, "later", 5, 7), SK_OK);
  CHECK_STATUS(sk_prefs_save_async(store, on_saved, &called), SK_OK);
  CHECK_STATUS(sk_prefs_recovery(store, &recovery), SK_OK);
  CHECK(recovery.recovered == 0);
  sk_recovery_free(&recovery);

  /* One writer per store: a second open is refused while the first holds it. */
  CHECK_STATUS(sk_prefs_open(path, strlen(path), NULL, &second), SK_LOCKED);
  CHECK(second == NULL);
  sk_prefs_close(store); /* waits for the background save */
  CHECK(called == 1 && saved_async_status == SK_OK);

  /* What was saved is there after a reopen, read-only this time. */
  options.read_only = 1;
  CHECK_STATUS(sk_prefs_open(path, strlen(path), &options, &store), SK_OK);
  CHECK_STATUS(sk_prefs_get_int(store, "later", 5, &i), SK_OK);
  CHECK(i == 7);
  CHECK_STATUS(sk_prefs_set_int(store, "x", 1, 1), SK_OK);
  CHECK(sk_prefs_save(store) != SK_OK); /* read-only: the commit fails */
  /* A background save that fails while the store closes still finds its details. */
  async_detail_size = 0;
  CHECK_STATUS(sk_prefs_save_async(store, on_failed_save, store), SK_OK);
  sk_prefs_close(store); /* waits for it */
  CHECK(async_detail_size > 0);

  /* An options struct from a newer caller (larger than this library knows) is refused. */
  options.struct_size = sizeof options + 8;
  CHECK_STATUS(sk_prefs_open(path, strlen(path), &options, &store), SK_INVALID_OPTIONS);
  options.struct_size = sizeof options;
  options.read_only = 0;
  options.create_if_missing = 0;
  in_scratch(argv[1], "missing.prefs");
  CHECK_STATUS(sk_prefs_open(path, strlen(path), &options, &store), SK_NOT_FOUND);

  /* A NUL inside a path would name another file: refused, with its offset. */
  {
    const char nul_path[] = {'a', '.', 'p', '\0', 'x'};
    sk_error e;
    CHECK_STATUS(sk_prefs_open(nul_path, sizeof nul_path, NULL, &store), SK_INVALID_PATH);
    CHECK_STATUS(sk_last_error(NULL, &e), SK_OK);
    CHECK(e.status == SK_INVALID_PATH && e.offset == 3);
    sk_error_free(&e);
  }

  transcoding();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("all checks passed\n");
  return failures ? 1 : 0;
}
