// The strict decoder accepts only canonical text: re-encoding gives the input back.
#include <savekit/base64.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  if (auto standard = savekit::base64_decode(text)) {
    FUZZ_CHECK(savekit::base64_encode(*standard) == text);
  }
  if (auto url = savekit::base64_decode(text, savekit::base64_alphabet::url)) {
    std::string_view unpadded = text.substr(0, text.find_last_not_of('=') + 1);
    if (text.empty()) unpadded = text;
    FUZZ_CHECK(savekit::base64_encode(*url, savekit::base64_alphabet::url) == unpadded);
  }
  return 0;
}
