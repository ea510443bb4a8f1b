// A slot generation file with every checksum made valid, so that fuzzers get past them to
// what the checksums guard (sizes, metadata, payload, the seal).
#pragma once

#include <string>

#include "crc32c.hpp"
#include "little_endian.hpp"
#include "slot_format.hpp"

namespace fuzz {

// With the first byte odd, the rest gets valid checksums wherever its sizes allow, so
// that the fuzzer gets past them to the sizes, the metadata and the payload.
inline std::string with_checksums(std::string file) {
  using namespace savekit::detail;
  if (file.size() < slot_header_size) return file;
  auto put = [&](std::size_t at, std::uint32_t v) {
    std::string le;
    put_u32(le, v);
    file.replace(at, 4, le);
  };
  const std::uint64_t name = get_u32(file.data() + 48), meta = get_u32(file.data() + 52);
  const std::uint64_t thumbnail = get_u32(file.data() + 56), payload = get_u64(file.data() + 60);
  const std::uint64_t size = file.size() - slot_header_size;
  if (name + meta <= size) put(68, crc32c(file.data() + slot_header_size, name + meta));
  if (name + meta + thumbnail <= size) put(72, crc32c(file.data() + slot_header_size + name + meta, thumbnail));
  if (payload <= size && name + meta + thumbnail + payload == size)
    put(76, crc32c(file.data() + slot_header_size + name + meta + thumbnail, payload));
  put(80, crc32c(file.data(), 80));
  return file;
}

}  // namespace fuzz
