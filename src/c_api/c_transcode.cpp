// MessagePack <-> JSON through the C ABI (savekit/savekit.h): any language can read a save
// without its types.
#include <savekit/transcode.hpp>

#include "c_handles.hpp"

using namespace savekit::c_api;

extern "C" {

sk_status sk_msgpack_to_json(const uint8_t* data, size_t size, int32_t pretty, sk_buffer* out) {
  std::string_view bytes;
  if (out) *out = sk_buffer{nullptr, 0};
  if (!out || !view_of(data, size, bytes)) return null_argument(nullptr);
  return guarded(nullptr, [&]() -> sk_status {
    savekit::result<std::string> text = savekit::msgpack_to_json(bytes, {.pretty = pretty != 0});
    if (!text) return fail(nullptr, text.error());
    if (!fill(out, *text)) return fail(nullptr, SK_OUT_OF_MEMORY, "out of memory");
    return SK_OK;
  });
}

sk_status sk_json_to_msgpack(const char* text, size_t size, sk_buffer* out) {
  std::string_view json;
  if (out) *out = sk_buffer{nullptr, 0};
  if (!out || !view_of(text, size, json)) return null_argument(nullptr);
  return guarded(nullptr, [&]() -> sk_status {
    savekit::result<std::vector<std::byte>> packed = savekit::json_to_msgpack(json);
    if (!packed) return fail(nullptr, packed.error());
    if (!fill(out, {reinterpret_cast<const char*>(packed->data()), packed->size()}))
      return fail(nullptr, SK_OUT_OF_MEMORY, "out of memory");
    return SK_OK;
  });
}

}  // extern "C"
