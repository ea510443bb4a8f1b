// Any bytes as a save the inspector opens (savekit/inspect.hpp), as MessagePack and as JSON:
// never a crash; what the codecs' own document reader takes, the inspector takes too (it
// reads every valid value: the shared parsing path), covering the whole input; every node
// lies inside its parent; rendering and paths hold up on whatever was read.
#include <savekit/document.hpp>
#include <savekit/inspect.hpp>

#include "fuzz_common.hpp"

namespace {

void check_nested(const savekit::inspect::node& n) {
  for (const savekit::inspect::node& child : n.items) {
    FUZZ_CHECK(child.offset >= n.offset && child.offset + child.size <= n.offset + n.size);
    check_nested(child);
  }
}

void look_at(const savekit::inspect::node& root, std::size_t size) {
  FUZZ_CHECK(root.offset + root.size <= size);
  check_nested(root);
  (void)savekit::inspect::render(root);
  (void)savekit::inspect::at(root, "a[0].\"b\\\"c\"[12]");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  auto packed = savekit::inspect::read_msgpack(text);
  if (packed) {
    FUZZ_CHECK(packed->offset == 0 && packed->size == size);
    look_at(*packed, size);
  }
  if (savekit::document::from_msgpack(text)) FUZZ_CHECK(packed);

  auto json = savekit::inspect::read_json(text);
  if (json) look_at(*json, size);
  if (savekit::document::from_json(text)) FUZZ_CHECK(json);
  return 0;
}
