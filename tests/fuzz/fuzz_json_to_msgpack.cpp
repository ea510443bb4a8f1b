// Any accepted JSON document converts to MessagePack and back to the same values.
#include <savekit/transcode.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto packed = savekit::json_to_msgpack(fuzz::as_text(data, size));
  if (!packed) return 0;
  auto text = savekit::msgpack_to_json(*packed);
  FUZZ_CHECK(text);  // everything JSON can say, MessagePack can say back
  auto again = savekit::json_to_msgpack(*text);
  FUZZ_CHECK(again);
  FUZZ_CHECK(*again == *packed);
  return 0;
}
