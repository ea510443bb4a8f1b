#include <savekit/savekit.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  const char* folder = argc > 1 ? argv[1] : "saves";
  const char* save = "{\"level\": 12, \"name\": \"Ada\"}"; /* the game's own JSON */
  sk_slots* slots = NULL;
  sk_slot_write_options how;
  sk_slot_list* menu = NULL;
  size_t i;

  if (sk_slots_open(folder, strlen(folder), NULL, &slots) != SK_OK) return 1;
  sk_slot_write_options_init(&how);
  how.encoding = SK_ENCODING_JSON; /* checked: C++ and the tools read it as an object */
  how.title = "Chapter 2";
  how.title_size = strlen(how.title);
  how.playtime_seconds = 11520;
  if (sk_slots_write(slots, "slot1", 5, (const uint8_t*)save, strlen(save), &how) != SK_OK) {
    sk_error e; /* what went wrong: a status, a message, a byte offset */
    sk_last_error(slots, &e);
    fprintf(stderr, "not saved: %.*s\n", (int)e.message.size, (const char*)e.message.data);
    sk_error_free(&e);
    return 1;
  }
  sk_slots_list(slots, &menu); /* the load menu: headers only, newest first */
  for (i = 0; i < sk_slot_list_count(menu); ++i) {
    const sk_slot_info* slot = sk_slot_list_at(menu, i);
    printf("%.*s: %.*s, %llds played\n", (int)slot->name.size, slot->name.data, (int)slot->title.size,
           slot->title.data, (long long)slot->playtime_seconds);
  }
  sk_slot_list_free(menu);
  sk_slots_close(slots);
  return 0;
}
