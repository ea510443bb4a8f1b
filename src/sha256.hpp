// SHA-256 (FIPS 180-4), for what must name a save's content the same on every device (the
// cloud sync's content identity). Not for secrets: sealed saves use libsodium.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace savekit::detail {

class sha256 {
 public:
  sha256();
  void update(std::string_view bytes);
  std::array<std::uint8_t, 32> finish();  // once; the object is spent after it
  // The digest of everything updated, as 64 lowercase hex digits.
  std::string hex();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

inline std::string sha256_hex(std::string_view bytes) {
  sha256 h;
  h.update(bytes);
  return h.hex();
}

}  // namespace savekit::detail
