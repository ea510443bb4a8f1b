#include "store_format.hpp"

#include <cstring>
#include <vector>

#include "crc32c.hpp"

namespace savekit::detail {

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out.append(b, 4);
}

void put_u64(std::string& out, std::uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out.append(b, 8);
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

std::uint32_t get_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// Reads the payload of one record; false if it does not parse.
class payload_reader {
 public:
  explicit payload_reader(std::string_view payload) : p_(payload.data()), end_(payload.data() + payload.size()) {}

  bool byte(std::uint8_t& v) {
    if (p_ == end_) return false;
    v = static_cast<std::uint8_t>(*p_++);
    return true;
  }
  bool u64(std::uint64_t& v) {
    if (end_ - p_ < 8) return false;
    v = get_u64(p_);
    p_ += 8;
    return true;
  }
  bool varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      std::uint8_t b = 0;
      if (!byte(b)) return false;
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool text(std::string_view& v) {
    std::uint64_t n = 0;
    if (!varint(n) || n > static_cast<std::uint64_t>(end_ - p_)) return false;
    v = std::string_view(p_, static_cast<std::size_t>(n));
    p_ += n;
    return true;
  }
  bool at_end() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
};

bool valid_type(std::uint8_t type) { return type >= 1 && type <= 7; }

void begin_record(std::string& out, std::size_t& start) {
  start = out.size();
  out.append(record_header_size, '\0');  // length and CRC, filled by end_record
}

void end_record(std::string& out, std::size_t start) {
  std::size_t payload_size = out.size() - start - record_header_size;
  const char* payload = out.data() + start + record_header_size;
  std::uint32_t crc = crc32c(payload, payload_size);
  for (int i = 0; i < 4; ++i) {
    out[start + i] = static_cast<char>((payload_size >> (8 * i)) & 0xFF);
    out[start + 4 + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  }
}

void put_entry(std::string& out, std::string_view key, value_type type, std::string_view value) {
  out.push_back(static_cast<char>(op_put));
  put_varint(out, key.size());
  out.append(key);
  out.push_back(static_cast<char>(type));
  put_varint(out, value.size());
  out.append(value);
}

}  // namespace

std::string encode_store_header() {
  std::string header(store_magic, sizeof store_magic);
  put_u32(header, store_format_version);
  put_u32(header, crc32c(header.data(), header.size()));
  return header;
}

void encode_commit_record(std::string& out, std::uint64_t sequence, const change_set& changes) {
  std::size_t start = 0;
  begin_record(out, start);
  out.push_back(static_cast<char>(record_kind_commit));
  put_u64(out, sequence);
  out.push_back(static_cast<char>(changes.clear_all ? flag_clear_all : 0));
  put_varint(out, changes.changes.size());
  for (const change& c : changes.changes) {
    if (c.erase) {
      out.push_back(static_cast<char>(op_erase));
      put_varint(out, c.key.size());
      out.append(c.key);
    } else {
      put_entry(out, c.key, c.type, c.value);
    }
  }
  end_record(out, start);
}

void encode_snapshot_record(std::string& out, std::uint64_t sequence,
                            const std::map<std::string, stored_value, std::less<>>& state) {
  std::size_t start = 0;
  begin_record(out, start);
  out.push_back(static_cast<char>(record_kind_commit));
  put_u64(out, sequence);
  out.push_back(static_cast<char>(flag_clear_all));
  put_varint(out, state.size());
  for (const auto& [key, value] : state) put_entry(out, key, value.type, value.bytes);
  end_record(out, start);
}

std::uint64_t encoded_entry_size(std::string_view key, std::string_view value) {
  return 2 + varint_size(key.size()) + key.size() + varint_size(value.size()) + value.size();
}

result<parse_outcome> parse_store(std::string_view content) {
  if (content.size() < store_header_size || std::memcmp(content.data(), store_magic, sizeof store_magic) != 0)
    return error{errc::corrupt_store, 0, "not a savekit store (bad or missing header)"};
  if (crc32c(content.data(), 12) != get_u32(content.data() + 12))
    return error{errc::corrupt_store, 12, "store header checksum mismatch"};
  std::uint32_t version = get_u32(content.data() + 8);
  if (version > store_format_version)
    return error{errc::unsupported_version, 8,
                 "store format version " + std::to_string(version) + " is newer than this savekit reads (" +
                     std::to_string(store_format_version) + ")"};
  if (version == 0) return error{errc::corrupt_store, 8, "store format version 0"};

  parse_outcome out;
  std::size_t pos = store_header_size;
  out.valid_end = pos;
  while (pos < content.size()) {
    auto stop = [&](bool torn, std::string what) {
      out.torn_tail = torn;
      out.damaged = !torn;
      out.problem = std::move(what) + " at byte " + std::to_string(pos);
    };
    if (content.size() - pos < record_header_size) {
      stop(true, "incomplete record header");
      break;
    }
    std::uint32_t length = get_u32(content.data() + pos);
    std::uint32_t crc = get_u32(content.data() + pos + 4);
    if (length > content.size() - pos - record_header_size) {
      stop(true, "record cut short");
      break;
    }
    std::string_view payload = content.substr(pos + record_header_size, length);
    bool last = pos + record_header_size + length == content.size();
    if (crc32c(payload.data(), payload.size()) != crc) {
      // The last record of the file is where an interrupted append lands.
      stop(last, last ? "last record incomplete (checksum mismatch)" : "damaged record (checksum mismatch)");
      break;
    }
    // A record that passes its checksum must also parse; if not, the file is damaged.
    payload_reader reader(payload);
    std::uint8_t kind = 0, flags = 0;
    std::uint64_t sequence = 0, count = 0;
    bool ok = reader.byte(kind) && kind == record_kind_commit && reader.u64(sequence) && reader.byte(flags) &&
              reader.varint(count) && (out.commits == 0 || sequence == out.last_sequence + 1);
    // Validate the whole record before applying any of it.
    struct op_view {
      std::uint8_t op = 0, type = 0;
      std::string_view key, value;
    };
    std::vector<op_view> ops;
    for (std::uint64_t i = 0; ok && i < count; ++i) {
      op_view v{0, 0, {}, {}};
      ok = reader.byte(v.op) && reader.text(v.key) && (v.op == op_erase || v.op == op_put);
      if (ok && v.op == op_put) ok = reader.byte(v.type) && valid_type(v.type) && reader.text(v.value);
      if (ok) ops.push_back(v);
    }
    if (!ok || !reader.at_end()) {
      stop(false, "record does not parse");
      break;
    }
    if (flags & flag_clear_all) out.state.clear();
    for (const op_view& v : ops) {
      if (v.op == op_erase) {
        if (auto it = out.state.find(v.key); it != out.state.end()) out.state.erase(it);
      } else {
        auto it = out.state.find(v.key);
        if (it == out.state.end()) it = out.state.emplace(std::string{v.key}, stored_value{}).first;
        it->second.type = static_cast<value_type>(v.type);
        it->second.bytes.assign(v.value);
      }
    }
    out.last_sequence = sequence;
    ++out.commits;
    pos += record_header_size + length;
    out.valid_end = pos;
  }
  return out;
}

}  // namespace savekit::detail
