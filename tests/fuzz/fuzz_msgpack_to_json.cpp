// Any MessagePack document either converts to JSON that reads back to the same JSON,
// or is refused with an error.
#include <savekit/transcode.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = savekit::msgpack_to_json(fuzz::as_text(data, size));
  if (!text) return 0;
  auto packed = savekit::json_to_msgpack(*text);
  FUZZ_CHECK(packed);  // our JSON output is always valid JSON
  auto again = savekit::msgpack_to_json(*packed);
  FUZZ_CHECK(again);
  FUZZ_CHECK(*again == *text);
  return 0;
}
