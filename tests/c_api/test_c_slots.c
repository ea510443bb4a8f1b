/* Save slots and sealed saves through the C ABI (savekit/savekit.h) from plain C99: every
 * sk_slots_, sk_slot_list_, sk_keyring_ and sk_seal function, and bad arguments to each.
 * Compiled with -std=c99 -pedantic -Werror. Usage: test_c_slots SCRATCH_FOLDER */
#include <savekit/savekit.h>

#include <stdlib.h>
#include <string.h>

#include "check.h"

static char folder[4096];

static sk_slots* open_folder(const sk_slots_options* options) {
  sk_slots* slots = NULL;
  CHECK_STATUS(sk_slots_open(folder, strlen(folder), options, &slots), SK_OK);
  return slots;
}

static sk_status last_status(const void* handle) {
  sk_error e;
  sk_status s;
  if (sk_last_error(handle, &e) != SK_OK) return -1;
  s = e.status;
  sk_error_free(&e);
  return s;
}

static int same(sk_string s, const char* text, size_t size) { return s.size == size && memcmp(s.data, text, size) == 0; }

/* Write bytes with metadata and a thumbnail; the load menu, info, read, thumbnail. */
static void writing_and_the_load_menu(sk_slots* slots) {
  const uint8_t save1[] = {0, 1, 2, 0xff, 0};
  const uint8_t save2[] = {'s', 'a', 'v', 'e', '\0', '2'};
  const uint8_t picture[] = {0x89, 'P', 'N', 'G', 0};
  const sk_string_pair user[] = {{"level", 5, "12", 2}, {"k\0ey", 4, "v\0al", 4}};
  sk_slot_write_options how;
  sk_slot_list* list = NULL;
  const sk_slot_info* info;
  sk_buffer read = {NULL, 0};
  sk_payload_info found;

  sk_slot_write_options_init(&how);
  CHECK(how.encoding == SK_ENCODING_BYTES && how.schema_version == 1 && how.sealed == -1);
  CHECK_STATUS(sk_slots_write(slots, "first", 5, save1, sizeof save1, NULL), SK_OK);
  how.title = "Chapter 2 \xe2\x80\x94 The Forest";
  how.title_size = strlen(how.title);
  how.playtime_seconds = 3612;
  how.progress = 0.5;
  how.thumbnail = picture;
  how.thumbnail_size = sizeof picture;
  how.user = user;
  how.user_count = 2;
  how.schema_version = 4;
  CHECK_STATUS(sk_slots_write(slots, "second", 6, save2, sizeof save2, &how), SK_OK);

  CHECK_STATUS(sk_slots_list(slots, &list), SK_OK);
  CHECK(sk_slot_list_count(list) == 2);
  info = sk_slot_list_at(list, 0); /* newest first */
  CHECK(info && same(info->name, "second", 6));
  if (info) {
    CHECK(same(info->title, how.title, how.title_size));
    CHECK(info->playtime_seconds == 3612 && info->progress == 0.5);
    CHECK(info->thumbnail_bytes == sizeof picture && info->bytes == sizeof save2);
    CHECK(info->schema_version == 4 && info->encoding == SK_ENCODING_BYTES && info->generation == 1);
    CHECK(info->sealed == 0 && info->damaged == 0 && info->problem_status == SK_OK && info->damaged_newer == 0);
    CHECK(info->saved_at_us > 1700000000LL * 1000000);
    CHECK(info->user_count == 2);
    if (info->user_count == 2) { /* sorted by key; NUL kept */
      CHECK(info->user[0].key_size == 4 && memcmp(info->user[0].value, "v\0al", 4) == 0);
      CHECK(info->user[1].key_size == 5 && memcmp(info->user[1].value, "12", 2) == 0);
    }
  }
  CHECK(sk_slot_list_at(list, 2) == NULL);
  sk_slot_list_free(list);

  CHECK_STATUS(sk_slots_info(slots, "first", 5, &list), SK_OK);
  CHECK(sk_slot_list_count(list) == 1 && same(sk_slot_list_at(list, 0)->name, "first", 5));
  sk_slot_list_free(list);

  found.struct_size = sizeof found;
  CHECK_STATUS(sk_slots_read(slots, "second", 6, &read, &found), SK_OK);
  CHECK(read.size == sizeof save2 && memcmp(read.data, save2, sizeof save2) == 0);
  CHECK(found.encoding == SK_ENCODING_BYTES && found.schema_version == 4 && found.generation == 1);
  CHECK(found.sealed == 0 && found.skipped == 0);
  sk_buffer_free(&read);
  /* An older caller's smaller struct is filled as far as it reaches. */
  found.struct_size = sizeof(size_t) + sizeof(int32_t);
  found.schema_version = 77;
  CHECK_STATUS(sk_slots_read(slots, "second", 6, &read, &found), SK_OK);
  CHECK(found.encoding == SK_ENCODING_BYTES && found.schema_version == 77);
  sk_buffer_free(&read);
  CHECK_STATUS(sk_slots_read(slots, "second", 6, &read, NULL), SK_OK);
  sk_buffer_free(&read);

  CHECK_STATUS(sk_slots_thumbnail(slots, "second", 6, &read), SK_OK);
  CHECK(read.size == sizeof picture && memcmp(read.data, picture, sizeof picture) == 0);
  sk_buffer_free(&read);
  CHECK_STATUS(sk_slots_read(slots, "third", 5, &read, NULL), SK_NOT_FOUND);
  CHECK(read.data == NULL && last_status(slots) == SK_NOT_FOUND);
}

/* MessagePack and JSON written from C are checked: C++ reads them as objects. */
static void encodings(sk_slots* slots) {
  const uint8_t map[] = {0x81, 0xa1, 'a', 0x01};
  const uint8_t truncated[] = {0x92, 0x01};
  const char* json = "{\"a\": 1}";
  sk_slot_write_options how;
  sk_buffer text = {NULL, 0};
  sk_error e;
  sk_slot_write_options_init(&how);
  how.encoding = SK_ENCODING_MSGPACK;
  CHECK_STATUS(sk_slots_write(slots, "packed", 6, map, sizeof map, &how), SK_OK);
  CHECK_STATUS(sk_slots_write(slots, "packed", 6, truncated, sizeof truncated, &how), SK_LENGTH_EXCEEDS_INPUT);
  how.encoding = SK_ENCODING_JSON;
  CHECK_STATUS(sk_slots_write(slots, "text", 4, (const uint8_t*)json, strlen(json), &how), SK_OK);
  CHECK_STATUS(sk_slots_write(slots, "text", 4, (const uint8_t*)json, 5, &how), SK_UNEXPECTED_END);
  CHECK_STATUS(sk_last_error(slots, &e), SK_OK);
  CHECK(e.status == SK_UNEXPECTED_END && e.offset == 5 && e.message.size > 0);
  sk_error_free(&e);
  how.encoding = 9;
  CHECK_STATUS(sk_slots_write(slots, "text", 4, map, sizeof map, &how), SK_INVALID_VALUE);
  how.encoding = SK_ENCODING_BYTES;
  how.schema_version = 0;
  CHECK_STATUS(sk_slots_write(slots, "text", 4, map, sizeof map, &how), SK_INVALID_VALUE);
  /* What was written reads back; the refused writes changed nothing. */
  CHECK_STATUS(sk_slots_read(slots, "packed", 6, &text, NULL), SK_OK);
  CHECK(text.size == sizeof map && memcmp(text.data, map, sizeof map) == 0);
  sk_buffer_free(&text);
  CHECK_STATUS(sk_msgpack_to_json(map, sizeof map, 0, &text), SK_OK);
  CHECK(text.size == 7 && memcmp(text.data, "{\"a\":1}", 7) == 0);
  sk_buffer_free(&text);
}

/* Generations, restore, copy, rename, remove. */
static void managing(sk_slots* slots) {
  uint8_t save[1];
  int i;
  sk_slot_list* list = NULL;
  sk_buffer read = {NULL, 0};
  sk_payload_info found;
  found.struct_size = sizeof found;
  for (i = 1; i <= 4; ++i) {
    save[0] = (uint8_t)i;
    CHECK_STATUS(sk_slots_write(slots, "gens", 4, save, 1, NULL), SK_OK);
  }
  CHECK_STATUS(sk_slots_history(slots, "gens", 4, &list), SK_OK);
  CHECK(sk_slot_list_count(list) == 3); /* keep_generations */
  CHECK(sk_slot_list_at(list, 0)->generation == 4 && sk_slot_list_at(list, 2)->generation == 2);
  CHECK(same(sk_slot_list_at(list, 1)->name, "gens", 4));
  sk_slot_list_free(list);
  CHECK_STATUS(sk_slots_read_generation(slots, "gens", 4, 2, &read, &found), SK_OK);
  CHECK(read.size == 1 && read.data[0] == 2 && found.generation == 2);
  sk_buffer_free(&read);
  CHECK_STATUS(sk_slots_read_generation(slots, "gens", 4, 1, &read, NULL), SK_NOT_FOUND);

  CHECK_STATUS(sk_slots_restore(slots, "gens", 4, 2), SK_OK);
  CHECK_STATUS(sk_slots_read(slots, "gens", 4, &read, &found), SK_OK);
  CHECK(read.size == 1 && read.data[0] == 2 && found.generation == 5);
  sk_buffer_free(&read);
  CHECK_STATUS(sk_slots_info(slots, "gens", 4, &list), SK_OK);
  CHECK(sk_slot_list_at(list, 0)->restored_from == 2);
  sk_slot_list_free(list);

  CHECK_STATUS(sk_slots_copy(slots, "gens", 4, "copied", 6), SK_OK);
  CHECK_STATUS(sk_slots_rename(slots, "copied", 6, "renamed", 7), SK_OK);
  CHECK_STATUS(sk_slots_rename(slots, "renamed", 7, "gens", 4), SK_ALREADY_EXISTS);
  CHECK_STATUS(sk_slots_read(slots, "renamed", 7, &read, NULL), SK_OK);
  CHECK(read.size == 1 && read.data[0] == 2);
  sk_buffer_free(&read);
  CHECK_STATUS(sk_slots_remove(slots, "renamed", 7), SK_OK);
  CHECK_STATUS(sk_slots_remove(slots, "renamed", 7), SK_NOT_FOUND);
  CHECK_STATUS(sk_slots_read(slots, "copied", 6, &read, NULL), SK_NOT_FOUND);
  CHECK_STATUS(sk_slots_restore(slots, "gens", 4, 99), SK_NOT_FOUND);
}

static int written = 0;
static sk_status last_async = -1;
static void on_written(void* user, sk_status status) {
  ++*(int*)user;
  last_async = status;
}

static void background_writes(sk_slots* slots) {
  uint8_t save[8];
  int i;
  sk_buffer read = {NULL, 0};
  for (i = 0; i < 10; ++i) {
    memset(save, '0' + i, sizeof save);
    CHECK_STATUS(sk_slots_write_async(slots, "bg", 2, save, sizeof save, NULL, on_written, &written), SK_OK);
  }
  memset(save, 'x', sizeof save); /* copied before write_async returned */
  CHECK_STATUS(sk_slots_flush(slots), SK_OK);
  CHECK(written == 10 && last_async == SK_OK);
  CHECK_STATUS(sk_slots_read(slots, "bg", 2, &read, NULL), SK_OK);
  CHECK(read.size == 8 && read.data[0] == '9');
  sk_buffer_free(&read);
  /* A write refused at once reports through the callback too. */
  CHECK_STATUS(sk_slots_write_async(slots, "a/b\n", 4, save, 1, NULL, on_written, &written), SK_OK);
  CHECK_STATUS(sk_slots_flush(slots), SK_OK);
  CHECK(written == 11 && last_async == SK_INVALID_NAME);
  /* Arguments that cannot be read: the status says so, and done never runs. */
  {
    sk_slot_write_options bad;
    sk_slot_write_options_init(&bad);
    bad.struct_size = sizeof bad + 8;
    CHECK_STATUS(sk_slots_write_async(slots, "bg", 2, save, 1, &bad, on_written, &written), SK_INVALID_OPTIONS);
    CHECK_STATUS(sk_slots_write_async(slots, "bg", 2, NULL, 1, NULL, on_written, &written), SK_NULL_ARGUMENT);
    CHECK_STATUS(sk_slots_flush(slots), SK_OK);
    CHECK(written == 11);
  }
  CHECK_STATUS(sk_slots_write_async(slots, "bg", 2, save, 1, NULL, NULL, NULL), SK_OK); /* no callback */
  CHECK_STATUS(sk_slots_flush(slots), SK_OK);
}

static void bad_arguments(sk_slots* slots) {
  sk_slot_list* list = NULL;
  sk_buffer b = {NULL, 0};
  sk_slot_write_options how;
  sk_string_pair broken = {NULL, 3, "v", 1};
  sk_slots_options options;
  sk_slots* other = NULL;
  CHECK_STATUS(sk_slots_write(NULL, "a", 1, NULL, 0, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_write(slots, NULL, 1, NULL, 0, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 4, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_write(slots, "", 0, NULL, 0, NULL), SK_INVALID_NAME);
  sk_slot_write_options_init(&how);
  how.user = &broken;
  how.user_count = 1;
  CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 0, &how), SK_NULL_ARGUMENT);
  how.user = NULL;
  CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 0, &how), SK_NULL_ARGUMENT);
  sk_slot_write_options_init(&how);
  how.struct_size = sizeof how + 8;
  CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 0, &how), SK_INVALID_OPTIONS);
  how.struct_size = sizeof how;
  how.sealed = 1; /* no keys */
  CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 0, &how), SK_KEY_NOT_HELD);
  /* Text the load menu shows is UTF-8, checked at the write. */
  how.sealed = -1;
  how.title = "bad \xff title";
  how.title_size = strlen(how.title);
  CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 0, &how), SK_INVALID_UTF8);
  {
    sk_error e;
    CHECK_STATUS(sk_last_error(slots, &e), SK_OK);
    CHECK(e.status == SK_INVALID_UTF8 && e.offset == 4);
    sk_error_free(&e);
  }
  how.title = NULL;
  how.title_size = 0;
  {
    sk_string_pair odd = {"k", 1, "\xc0", 1};
    how.user = &odd;
    how.user_count = 1;
    CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 0, &how), SK_INVALID_UTF8);
    how.user = NULL;
    how.user_count = 0;
  }
  /* A bad options struct is kept with the handle, as every failure of a call on one. */
  how.struct_size = 1000;
  CHECK_STATUS(sk_slots_write(slots, "a", 1, NULL, 0, &how), SK_INVALID_OPTIONS);
  CHECK(last_status(slots) == SK_INVALID_OPTIONS);
  how.struct_size = sizeof how;
  /* Out-parameters are set on failure too. */
  list = (sk_slot_list*)&b;
  CHECK_STATUS(sk_slots_list(NULL, &list), SK_NULL_ARGUMENT);
  CHECK(list == NULL);
  b.data = (uint8_t*)&b;
  b.size = 7;
  CHECK_STATUS(sk_slots_read(NULL, "a", 1, &b, NULL), SK_NULL_ARGUMENT);
  CHECK(b.data == NULL && b.size == 0);
  /* A list call given something else frees nothing. */
  sk_slot_list_free((sk_slot_list*)(void*)slots);
  CHECK(sk_slot_list_count((const sk_slot_list*)(void*)slots) == 0);
  CHECK_STATUS(sk_slots_list(slots, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_list(NULL, &list), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_read(slots, "a", 1, NULL, NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_copy(slots, "a", 1, NULL, 2), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_flush(NULL), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_slots_open(NULL, 1, NULL, &other), SK_NULL_ARGUMENT);
  /* A handle of another kind is refused, not used. */
  CHECK_STATUS(sk_slots_list((sk_slots*)(void*)&b, &list), SK_INVALID_VALUE);
  /* The folder is locked: a second open is refused; a read-only one is not. */
  CHECK_STATUS(sk_slots_open(folder, strlen(folder), NULL, &other), SK_LOCKED);
  CHECK(other == NULL);
  sk_slots_options_init(&options);
  options.read_only = 1;
  CHECK_STATUS(sk_slots_open(folder, strlen(folder), &options, &other), SK_OK);
  CHECK_STATUS(sk_slots_list(other, &list), SK_OK);
  CHECK(sk_slot_list_count(list) > 0);
  sk_slot_list_free(list);
  CHECK(sk_slots_write(other, "a", 1, NULL, 0, NULL) != SK_OK);
  sk_slots_close(other);
  options.struct_size = 2; /* too small to be any caller's */
  CHECK_STATUS(sk_slots_open(folder, strlen(folder), &options, &other), SK_INVALID_OPTIONS);
  sk_slots_options_init(&options);
  options.create_if_missing = 0;
  CHECK_STATUS(sk_slots_open("/nonexistent/savekit", 20, &options, &other), SK_NOT_FOUND);
  sk_slots_close(NULL);
  sk_slot_list_free(NULL);
  CHECK(sk_slot_list_count(NULL) == 0 && sk_slot_list_at(NULL, 0) == NULL);
  sk_slots_options_init(NULL);
  sk_slot_write_options_init(NULL);
}

/* Seal and unseal; keyrings; a slots folder that seals. */
static void sealing(const char* scratch) {
  const uint8_t plain[] = "a save worth protecting, a save worth protecting";
  uint8_t key[SK_SEAL_KEY_BYTES];
  sk_keyring* keys = NULL;
  sk_keyring* other_keys = NULL;
  sk_buffer sealed = {NULL, 0}, opened = {NULL, 0};
  sk_seal_options options;
  sk_seal_context context;
  sk_slots_options slots_options;
  sk_slots* slots = NULL;
  sk_slot_list* list = NULL;
  sk_payload_info found;
  char sealed_folder[4096];

  sk_seal_options_init(&options);
  CHECK(options.compression == SK_COMPRESSION_ZSTD && options.protection == SK_PROTECTION_AEAD);
  memset(&context, 0, sizeof context);
  context.struct_size = sizeof context;
  context.name = "slot1";
  context.name_size = 5;
  context.schema_version = 2;

  CHECK_STATUS(sk_keyring_new(&keys), SK_OK);
  CHECK_STATUS(sk_seal(plain, sizeof plain, keys, NULL, &context, &sealed), SK_KEY_NOT_HELD); /* no key yet */
  CHECK_STATUS(sk_keyring_generate(keys, 7, key, sizeof key), SK_OK);
  CHECK_STATUS(sk_keyring_generate(keys, 8, key, 4), SK_BUFFER_TOO_SMALL);
  CHECK_STATUS(sk_seal(plain, sizeof plain, keys, &options, &context, &sealed), SK_OK);
  CHECK(sealed.size > 24 && memcmp(sealed.data + 40, plain, 8) != 0); /* encrypted */
  CHECK_STATUS(sk_unseal(sealed.data, sealed.size, keys, NULL, &context, &opened), SK_OK);
  CHECK(opened.size == sizeof plain && memcmp(opened.data, plain, sizeof plain) == 0);
  sk_buffer_free(&opened);

  /* Another slot's name, another key, or a flipped byte: refused. */
  context.name = "slot2";
  CHECK_STATUS(sk_unseal(sealed.data, sealed.size, keys, NULL, &context, &opened), SK_TAMPERED);
  context.name = "slot1";
  CHECK_STATUS(sk_keyring_new(&other_keys), SK_OK);
  {
    uint8_t wrong[SK_SEAL_KEY_BYTES];
    memset(wrong, 3, sizeof wrong);
    CHECK_STATUS(sk_keyring_add(other_keys, 7, wrong, sizeof wrong), SK_OK);
    CHECK_STATUS(sk_keyring_add(other_keys, 9, wrong, 31), SK_INVALID_VALUE);
  }
  CHECK_STATUS(sk_unseal(sealed.data, sealed.size, other_keys, NULL, &context, &opened), SK_TAMPERED);
  sealed.data[sealed.size - 1] ^= 1;
  CHECK_STATUS(sk_unseal(sealed.data, sealed.size, keys, NULL, &context, &opened), SK_TAMPERED);
  CHECK(opened.data == NULL);
  sk_buffer_free(&sealed);
  /* The same key added again by its bytes opens what the first sealed. */
  CHECK_STATUS(sk_keyring_add(other_keys, 7, key, sizeof key), SK_OK);
  CHECK_STATUS(sk_keyring_use(other_keys, 7), SK_OK);
  CHECK_STATUS(sk_keyring_use(other_keys, 12), SK_KEY_NOT_HELD);
  CHECK_STATUS(sk_seal(plain, sizeof plain, other_keys, NULL, &context, &sealed), SK_OK);
  CHECK_STATUS(sk_unseal(sealed.data, sealed.size, keys, NULL, &context, &opened), SK_OK);
  sk_buffer_free(&opened);
  sk_buffer_free(&sealed);
  /* Compression only, no key: anyone can open it, so a keyring asks for more. */
  options.protection = SK_PROTECTION_NONE;
  CHECK_STATUS(sk_seal(plain, sizeof plain, NULL, &options, NULL, &sealed), SK_OK);
  CHECK(sealed.size < sizeof plain + 60);
  CHECK_STATUS(sk_unseal(sealed.data, sealed.size, NULL, NULL, NULL, &opened), SK_OK);
  sk_buffer_free(&opened);
  CHECK_STATUS(sk_unseal(sealed.data, sealed.size, keys, NULL, NULL, &opened), SK_TAMPERED);
  sk_buffer_free(&sealed);
  options.level = 40;
  CHECK_STATUS(sk_seal(plain, sizeof plain, NULL, &options, NULL, &sealed), SK_INVALID_VALUE);
  sk_seal_options_init(&options);
  CHECK_STATUS(sk_seal(NULL, 3, keys, NULL, NULL, &sealed), SK_NULL_ARGUMENT);
  CHECK_STATUS(sk_keyring_add(NULL, 1, key, sizeof key), SK_NULL_ARGUMENT);

  /* A folder that seals: the load menu needs no key; the payload opens only with one. */
  sprintf(sealed_folder, "%s/sealed", scratch);
  sk_slots_options_init(&slots_options);
  slots_options.keyring = keys;
  slots_options.player = "player-1";
  slots_options.player_size = 8;
  CHECK_STATUS(sk_slots_open(sealed_folder, strlen(sealed_folder), &slots_options, &slots), SK_OK);
  CHECK_STATUS(sk_slots_write(slots, "s", 1, plain, sizeof plain, NULL), SK_OK);
  found.struct_size = sizeof found;
  CHECK_STATUS(sk_slots_read(slots, "s", 1, &opened, &found), SK_OK);
  CHECK(opened.size == sizeof plain && found.sealed == 1);
  sk_buffer_free(&opened);
  sk_slots_close(slots);
  slots_options.keyring = NULL;
  CHECK_STATUS(sk_slots_open(sealed_folder, strlen(sealed_folder), &slots_options, &slots), SK_OK);
  CHECK_STATUS(sk_slots_list(slots, &list), SK_OK);
  CHECK(sk_slot_list_count(list) == 1 && sk_slot_list_at(list, 0)->sealed == 1);
  sk_slot_list_free(list);
  CHECK_STATUS(sk_slots_read(slots, "s", 1, &opened, NULL), SK_KEY_NOT_HELD);
  sk_slots_close(slots);
  slots_options.keyring = other_keys; /* the same key 7, another player */
  slots_options.player = "player-2";
  CHECK_STATUS(sk_slots_open(sealed_folder, strlen(sealed_folder), &slots_options, &slots), SK_OK);
  CHECK_STATUS(sk_slots_read(slots, "s", 1, &opened, NULL), SK_TAMPERED);
  sk_slots_close(slots);

  sk_keyring_free(keys);
  sk_keyring_free(other_keys);
  sk_keyring_free(NULL);
}

int main(int argc, char** argv) {
  sk_slots* slots;
  if (argc != 2) {
    fprintf(stderr, "usage: test_c_slots SCRATCH_FOLDER\n");
    return 2;
  }
  sprintf(folder, "%s/saves", argv[1]);
  slots = open_folder(NULL);
  if (!slots) return 1;
  writing_and_the_load_menu(slots);
  encodings(slots);
  managing(slots);
  background_writes(slots);
  bad_arguments(slots);
  sk_slots_close(slots);
  sealing(argv[1]);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("all checks passed\n");
  return failures ? 1 : 0;
}
