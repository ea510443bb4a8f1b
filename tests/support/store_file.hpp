// Store files built from docs/store-format.md alone — its own CRC-32C, its own encoding — so
// that tests can plant files savekit did not write: records with flags or types from a
// "newer" savekit, damaged lengths, zero-filled tails, crafted keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace test_support {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), one bit at a time.
inline std::uint32_t crc32c_bitwise(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (char c : bytes) {
    crc ^= static_cast<unsigned char>(c);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

inline void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

inline void put_leb128(std::string& out, std::uint64_t v) {
  do {
    auto b = static_cast<std::uint8_t>(v & 0x7F);
    v >>= 7;
    out.push_back(static_cast<char>(v ? b | 0x80 : b));
  } while (v);
}

inline std::string store_header(std::uint32_t version = 1) {
  std::string out = std::string("SKPREFS", 7) + '\0';
  put_le(out, version, 4);
  put_le(out, crc32c_bitwise(out), 4);
  return out;
}

struct store_op {
  bool erase = false;
  std::string key;
  std::uint8_t type = 3;  // string
  std::string value;
};

// A record around any payload: length, checksum, payload.
inline std::string framed(std::string_view payload) {
  std::string out;
  put_le(out, payload.size(), 4);
  put_le(out, crc32c_bitwise(payload), 4);
  out.append(payload);
  return out;
}

// A commit record: kind, sequence number, flags, operations.
inline std::string commit_record(std::uint64_t sequence, const std::vector<store_op>& ops, std::uint8_t flags = 0,
                                 std::uint8_t kind = 1) {
  std::string payload;
  payload.push_back(static_cast<char>(kind));
  put_le(payload, sequence, 8);
  payload.push_back(static_cast<char>(flags));
  put_leb128(payload, ops.size());
  for (const store_op& op : ops) {
    payload.push_back(op.erase ? 2 : 1);
    put_leb128(payload, op.key.size());
    payload += op.key;
    if (op.erase) continue;
    payload.push_back(static_cast<char>(op.type));
    put_leb128(payload, op.value.size());
    payload += op.value;
  }
  return framed(payload);
}

}  // namespace test_support
