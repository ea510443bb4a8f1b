// Sealed saves: unseal of arbitrary bytes never crashes and never opens what was not
// sealed with the key; a save sealed here opens to its bytes, and the same save with one
// byte changed or cut short never opens.
//   data[0]: the mode (compression, protection) and the path: raw input, or seal + change
//   data[1]: where to change the sealed save (0: nowhere), data[2]: how
#include <savekit/seal.hpp>

#include <array>

#include "fuzz_common.hpp"

namespace {

const savekit::keyring& keys() {
  static const savekit::keyring ring = [] {
    std::array<std::byte, savekit::seal_key_bytes> bytes;
    bytes.fill(std::byte{0x5A});
    return savekit::keyring{*savekit::seal_key::from_bytes(1, bytes)};
  }();
  return ring;
}

const savekit::seal_context context{.name = "slot1", .schema_version = 2, .player = "p"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  savekit::unseal_options limits;
  limits.max_original_bytes = 1 << 20;
  const auto compression = static_cast<savekit::seal_compression>(data[0] & 1);
  const auto protection = static_cast<savekit::seal_protection>((data[0] >> 1) % 3);
  const std::string_view rest = fuzz::as_text(data + 3, size - 3);
  if (data[0] & 0x80) {  // raw: whatever the bytes are. Only the key's holder writes a
    // save this reader opens (it wants a MAC or AEAD): arbitrary bytes never open.
    FUZZ_CHECK(!savekit::unseal(rest, &keys(), context, limits).has_value());
    // A reader without keys checks a digest only: what opens must be within the limit.
    if (auto opened = savekit::unseal(rest, nullptr, context, limits))
      FUZZ_CHECK(opened->size() <= limits.max_original_bytes);
    return 0;
  }
  auto sealed =
      savekit::seal(rest, {.compression = compression, .level = 1, .protection = protection}, context, &keys());
  FUZZ_CHECK(sealed.has_value());
  limits.minimum_protection = protection;  // the reader expects what the writer chose
  std::string changed = *sealed;
  if (data[1] != 0) {
    const std::size_t at = (data[1] * 131u + data[2]) % changed.size();
    if (data[2] & 1)
      changed.resize(at);  // cut short
    else
      changed[at] = static_cast<char>(changed[at] ^ (data[2] | 1));
  }
  auto opened = savekit::unseal(changed, &keys(), context, limits);
  if (data[1] == 0) {
    FUZZ_CHECK(opened.has_value() || (!opened && opened.error().code() == savekit::errc::value_too_large));
    if (opened) FUZZ_CHECK(*opened == rest);
  } else {
    FUZZ_CHECK(!opened.has_value());
  }
  return 0;
}
