// JSON into the seed structs: never crashes; whatever is accepted survives a round trip.
#include <savekit/json.hpp>

#include "fuzz_common.hpp"

namespace {

template <class T>
void check(std::string_view text) {
  T value{};
  if (!savekit::from_json(text, value)) return;
  // NaN (from null) is not equal to itself; compare the canonical text instead.
  std::string once = savekit::to_json(value);
  T again{};
  FUZZ_CHECK(savekit::from_json(once, again));
  FUZZ_CHECK(savekit::to_json(again) == once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  check<seeds::SaveGame>(text);
  check<seeds::Status>(text);
  check<fuzz::World>(text);
  (void)savekit::from_json<seeds::SaveGame>(text, {.error_on_unknown_keys = true, .error_on_missing_keys = true});
  return 0;
}
