// Any bytes as a store file: opening never crashes; whatever it loads, a commit on top
// of it survives a power cut and a reopen.
#include <savekit/prefs.hpp>

#include "../support/fault_fs.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  test_support::fault_fs fs;
  fs.plant("/s.prefs", std::string(fuzz::as_text(data, size)));
  auto p = savekit::prefs::open(savekit::make_file_backend("/s.prefs", fs, {.compact_min_bytes = 512}));
  if (!p) return 0;
  FUZZ_CHECK(p->set_string("fuzz", "after"));
  FUZZ_CHECK(p->save());
  fs.power_cut();
  auto again = savekit::prefs::open(savekit::make_file_backend("/s.prefs", fs));
  FUZZ_CHECK(again);
  FUZZ_CHECK(again->keys() == p->keys());
  for (const auto& key : p->keys()) {
    auto before = p->get_raw(key);
    auto after = again->get_raw(key);
    FUZZ_CHECK(before && after && before->type == after->type && before->bytes == after->bytes);
  }
  return 0;
}
