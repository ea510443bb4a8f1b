// Any bytes as a save the inspector opens (savekit/inspect.hpp), as MessagePack and as JSON:
// never a crash; what the codecs' own document reader takes, the inspector takes too (it
// reads every valid value: the shared parsing path), covering the whole input; every node
// lies inside its parent; rendering and paths hold up on whatever was read. The edit path
// `savekit edit` and the inspector page share (inspect_edit.hpp): the tree written back is
// the input byte for byte, and so is its editable JSON read back against it; a diff of a
// value with itself is empty; the input read as a JSON Schema never crashes the checker.
#include <savekit/document.hpp>
#include <savekit/inspect.hpp>
#include <savekit/inspect_diff.hpp>
#include <savekit/inspect_edit.hpp>
#include <savekit/schema_check.hpp>

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

// Written back untouched, and through its editable JSON unchanged: the same bytes.
void round_trip(const savekit::inspect::node& root, std::string_view input, savekit::inspect::wire w) {
  auto same = savekit::inspect::write(root, input, w);
  FUZZ_CHECK(same && *same == input);
  FUZZ_CHECK(savekit::inspect::diff(root, root).changes.empty());
  auto json = savekit::inspect::to_editable_json(root);
  if (!json) return;  // (a key or string JSON cannot show: refused, not lost)
  auto edited = savekit::inspect::apply_edit(root, *json, w);
  FUZZ_CHECK(edited);
  auto back = savekit::inspect::write(*edited, input, w);
  FUZZ_CHECK(back && *back == input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  auto packed = savekit::inspect::read_msgpack(text);
  if (packed) {
    FUZZ_CHECK(packed->offset == 0 && packed->size == size);
    look_at(*packed, size);
    round_trip(*packed, text, savekit::inspect::wire::msgpack);
  }
  if (savekit::document::from_msgpack(text)) FUZZ_CHECK(packed);

  auto json = savekit::inspect::read_json(text);
  if (json) {
    look_at(*json, size);
    round_trip(*json, text, savekit::inspect::wire::json);
    if (auto schema = savekit::inspect::schema::parse(text)) {
      (void)schema->check(*json);
      if (packed) (void)schema->check(*packed);
    }
  }
  if (savekit::document::from_json(text)) FUZZ_CHECK(json);
  return 0;
}
