/* A C program that finds savekit with find_package and links savekit::c. */
#include <savekit/savekit.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  const char* json = "{\"level\":3}";
  sk_buffer packed = {NULL, 0}, back = {NULL, 0};
  if (sk_abi_version() != SAVEKIT_ABI_VERSION) return 1;
  if (sk_json_to_msgpack(json, strlen(json), &packed) != SK_OK) return 1;
  if (sk_msgpack_to_json(packed.data, packed.size, 0, &back) != SK_OK) return 1;
  printf("%.*s\n", (int)back.size, (const char*)back.data);
  sk_buffer_free(&packed);
  sk_buffer_free(&back);
  return 0;
}
