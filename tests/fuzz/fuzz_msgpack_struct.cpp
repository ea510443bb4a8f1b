// MessagePack into the seed structs: never crashes; whatever is accepted survives a
// round trip in both forms.
#include <savekit/msgpack.hpp>

#include "fuzz_common.hpp"

namespace {

template <class T>
void check(std::string_view bytes) {
  T value{};
  if (!savekit::from_msgpack(bytes, value)) return;
  for (auto form : {savekit::msgpack_form::map, savekit::msgpack_form::compact}) {
    auto once = savekit::to_msgpack(value, {.form = form});
    T again{};
    FUZZ_CHECK(savekit::from_msgpack(once, again));
    FUZZ_CHECK(savekit::to_msgpack(again, {.form = form}) == once);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes = fuzz::as_text(data, size);
  check<seeds::SaveGame>(bytes);
  check<seeds::Status>(bytes);
  check<fuzz::World>(bytes);
  return 0;
}
