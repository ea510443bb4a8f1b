#include "store_format.hpp"

#include <cstring>
#include <vector>

#include "crc32c.hpp"
#include "little_endian.hpp"

namespace savekit::detail {

namespace {

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
  std::string_view rest() const { return {p_, static_cast<std::size_t>(end_ - p_)}; }

 private:
  const char* p_;
  const char* end_;
};

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

void encode_snapshot_record(std::string& out, std::uint64_t sequence, const committed_state& state) {
  std::size_t start = 0;
  begin_record(out, start);
  out.push_back(static_cast<char>(record_kind_commit));
  put_u64(out, sequence);
  out.push_back(static_cast<char>(flag_clear_all));
  put_varint(out, state.size());
  for (const auto& [key, value] : state) put_entry(out, key, value.type, value.bytes);
  end_record(out, start);
}

std::uint64_t commit_payload_size(const change_set& changes) {
  std::uint64_t size = minimum_payload_size - 1 + varint_size(changes.changes.size());
  for (const change& c : changes.changes)
    size += c.erase ? 1 + varint_size(c.key.size()) + c.key.size() : encoded_entry_size(c.key, c.value);
  return size;
}

std::uint64_t encoded_entry_size(std::string_view key, std::string_view value) {
  return 2 + varint_size(key.size()) + key.size() + varint_size(value.size()) + value.size();
}

namespace {

// How one record at a position reads.
enum class record_read {
  intact,
  incomplete_header,  // fewer than record_header_size bytes left
  overrun,            // the declared length runs past the end of the file
  checksum,           // the payload does not match its checksum
  malformed,          // intact checksum, but not a record savekit writes (or out of sequence)
  newer,              // intact checksum, with kinds, flags, operations or types from a newer savekit
};

struct operation {
  std::uint8_t op = 0;
  value_type type = value_type::bytes;
  std::string_view key, value;
};

struct record_view {
  std::size_t size = 0;  // header and payload
  std::uint64_t sequence = 0;
  bool clear_all = false;
  std::uint64_t count = 0;      // operations
  std::string_view operations;  // their bytes, validated
  std::string problem;
};

// Reads the operation at the reader: malformed or newer if it is not one savekit writes.
record_read read_operation(payload_reader& reader, operation& o, std::string& problem) {
  if (!reader.byte(o.op)) return record_read::malformed;
  if (o.op != op_put && o.op != op_erase) {
    problem = "operation " + std::to_string(o.op);
    return record_read::newer;
  }
  if (!reader.text(o.key) || o.key.empty() || o.key.size() > max_key_size) return record_read::malformed;
  if (o.op == op_put) {
    std::uint8_t type = 0;
    if (!reader.byte(type)) return record_read::malformed;
    o.type = static_cast<value_type>(type);
    if (!is_known(o.type)) {
      problem = "value type " + std::to_string(type);
      return record_read::newer;
    }
    if (!reader.text(o.value) || o.value.size() > max_value_size) return record_read::malformed;
  }
  return record_read::intact;
}

// Parses a payload whose checksum holds; expected_sequence is 0 for the first record
// (anything goes). The whole record is validated — without keeping its operations, so
// that a record of millions of tiny operations costs no memory — before any of it is
// applied (apply_record reads them again).
record_read parse_payload(std::string_view payload, std::uint64_t expected_sequence, record_view& record) {
  record.problem.clear();
  payload_reader reader(payload);
  std::uint8_t kind = 0, flags = 0;
  if (!reader.byte(kind)) return record_read::malformed;
  if (kind != record_kind_commit) {
    record.problem = "record kind " + std::to_string(kind);
    return record_read::newer;
  }
  if (!reader.u64(record.sequence) || !reader.byte(flags) || !reader.varint(record.count))
    return record_read::malformed;
  if (flags & ~known_flags) {
    record.problem = "record flags " + std::to_string(flags);
    return record_read::newer;
  }
  record.clear_all = (flags & flag_clear_all) != 0;
  if (expected_sequence != 0 && record.sequence != expected_sequence) {
    record.problem = "out of sequence";
    return record_read::malformed;
  }
  record.operations = reader.rest();
  operation o;
  for (std::uint64_t i = 0; i < record.count; ++i)
    if (record_read r = read_operation(reader, o, record.problem); r != record_read::intact) return r;
  if (!reader.at_end()) return record_read::malformed;
  return record_read::intact;
}

// Reads the record at pos; expected_sequence is 0 for the first record (anything goes).
record_read read_record(std::string_view content, std::size_t pos, std::uint64_t expected_sequence,
                        record_view& record) {
  record.problem.clear();
  std::size_t left = content.size() - pos;
  if (left < record_header_size) return record_read::incomplete_header;
  std::uint32_t length = get_u32(content.data() + pos);
  if (length > left - record_header_size) return record_read::overrun;
  std::string_view payload = content.substr(pos + record_header_size, length);
  if (crc32c(payload.data(), payload.size()) != get_u32(content.data() + pos + 4)) return record_read::checksum;
  record.size = record_header_size + length;
  return parse_payload(payload, expected_sequence, record);
}

void apply_record(committed_state& state, const record_view& record) {
  if (record.clear_all) state.clear();
  payload_reader reader(record.operations);
  operation o;
  std::string unused;
  for (std::uint64_t i = 0; i < record.count; ++i) {
    (void)read_operation(reader, o, unused);  // validated by parse_payload
    auto it = state.find(o.key);
    if (o.op == op_erase) {
      if (it != state.end()) state.erase(it);
      continue;
    }
    if (it == state.end()) it = state.emplace(std::string{o.key}, stored_value{}).first;
    it->second.type = o.type;
    it->second.bytes.assign(o.value);
  }
}

bool all_zero(std::string_view bytes) {
  for (char c : bytes)
    if (c != 0) return false;
  return true;
}

// How much checksumming the search for intact records past a bad one may do: a few passes
// over the tail, so that a file crafted to be full of near-misses costs linear time.
// Past the budget the tail counts as damage (a copy is kept either way).
std::uint64_t search_budget(std::size_t tail) { return 4 * std::uint64_t{tail} + (std::uint64_t{1} << 20); }

struct later_records {
  std::uint64_t found = 0;  // intact records found past the bad one
  bool gave_up = false;     // the budget ran out first
};

// Later records that are intact prove that the bad record at pos is not an interrupted
// last append, whatever its length field says. A record starts where the payload's kind
// byte and sequence number (the sync marker of the format) name a later commit — at most
// a few more than the records that fit since the last known one — and it counts when its
// checksum and content hold. With no intact record before it (have_sequence false), the
// first one found may carry any sequence number: a compacted store starts anywhere.
later_records intact_records_after(std::string_view content, std::size_t pos, bool have_sequence,
                                   std::uint64_t last_sequence) {
  const std::size_t minimum_record = record_header_size + minimum_payload_size;
  // Records damaged by lost bytes (a lossy copy) take less room than whole ones: the
  // sequence gap may exceed what fits by a few.
  constexpr std::uint64_t slack = 16;
  std::uint64_t budget = search_budget(content.size() - pos);
  later_records out;
  std::uint64_t newest = last_sequence;
  std::size_t since = pos;  // where the last known record ended
  for (std::size_t q = pos + 1; q + minimum_record <= content.size();) {
    const char* at = content.data() + q;
    std::uint32_t length = get_u32(at);
    std::uint64_t sequence = get_u64(at + record_header_size + 1);
    bool plausible =
        static_cast<std::uint8_t>(at[record_header_size]) == record_kind_commit && length >= minimum_payload_size &&
        length <= content.size() - q - record_header_size &&
        (!have_sequence || (sequence > newest && sequence - newest <= (q - since) / minimum_record + slack));
    if (!plausible) {
      ++q;
      continue;
    }
    if (length > budget) {
      out.gave_up = true;
      return out;
    }
    budget -= length;
    record_view record;
    // A record from a newer savekit is as much proof of later data as an intact one.
    if (record_read r = read_record(content, q, 0, record); r == record_read::intact || r == record_read::newer) {
      ++out.found;
      have_sequence = true;
      newest = record.sequence;
      q += record.size;
      since = q;
    } else {
      ++q;
    }
  }
  return out;
}

// Whether the overrunning record at pos is really shorter: some prefix of what follows
// its header matches its checksum and parses as the expected commit. Then its length
// field was damaged — an interrupted append leaves a prefix, never a whole record. Within
// the budget only; past it the answer is "yes" (damage: a copy is kept).
bool has_intact_prefix(std::string_view content, std::size_t pos, bool have_sequence, std::uint64_t expected_sequence) {
  std::string_view payload = content.substr(pos + record_header_size);
  if (payload.size() < minimum_payload_size || static_cast<std::uint8_t>(payload[0]) != record_kind_commit)
    return false;
  if (have_sequence && get_u64(payload.data() + 1) != expected_sequence) return false;
  const std::uint32_t stored = get_u32(content.data() + pos + 4);
  std::uint64_t budget = search_budget(payload.size());
  std::uint32_t crc = crc32c(payload.data(), minimum_payload_size - 1);
  record_view record;
  for (std::size_t length = minimum_payload_size; length <= payload.size(); ++length) {
    crc = crc32c(payload.data() + length - 1, 1, crc);
    if (crc != stored) continue;
    if (length > budget) return true;
    budget -= length;
    if (parse_payload(payload.substr(0, length), have_sequence ? expected_sequence : 0, record) == record_read::intact)
      return true;
  }
  return false;
}

}  // namespace

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
  record_view record;
  record_read read = record_read::intact;
  while (pos < content.size()) {
    std::uint64_t expected = out.commits == 0 ? 0 : out.last_sequence + 1;
    read = read_record(content, pos, expected, record);
    if (read != record_read::intact) break;
    apply_record(out.state, record);
    out.last_record_at = pos;
    out.last_sequence = record.sequence;
    ++out.commits;
    pos += record.size;
    out.valid_end = pos;
  }
  if (pos == content.size()) return out;
  if (read == record_read::newer)
    return error{errc::unsupported_version, pos,
                 "record at byte " + std::to_string(pos) + " uses " + record.problem +
                     ", unknown to this savekit: the store was written by a newer version"};

  // Something follows the intact records. Only an interrupted append of the last record
  // may be cut off silently-but-reported; everything else is damage.
  std::string_view tail = content.substr(pos);
  std::string at = " at byte " + std::to_string(pos);
  std::uint64_t expected = out.commits == 0 ? 0 : out.last_sequence + 1;
  if (all_zero(tail)) {
    out.torn_tail = true;
    out.problem = std::to_string(tail.size()) + " zero bytes" + at +
                  " (what a file system leaves of an append interrupted by a crash)";
    return out;
  }
  const bool have_sequence = out.commits > 0;
  later_records later = intact_records_after(content, pos, have_sequence, out.last_sequence);
  out.intact_records_after_damage = later.found;
  bool looks_torn =
      read == record_read::incomplete_header ||
      (read == record_read::overrun && !has_intact_prefix(content, pos, have_sequence, expected)) ||
      (read == record_read::checksum && pos + record_header_size + get_u32(content.data() + pos) == content.size());
  if (looks_torn && later.found == 0 && !later.gave_up) {
    out.torn_tail = true;
    out.problem =
        (read == record_read::checksum ? "last record incomplete (checksum mismatch)" : "last record cut short") + at;
    return out;
  }
  out.damaged = true;
  switch (read) {
    case record_read::incomplete_header:
    case record_read::overrun:
      out.problem = "damaged record length";
      break;
    case record_read::checksum:
      out.problem = "damaged record (checksum mismatch)";
      break;
    default:
      out.problem = "record does not parse" + (record.problem.empty() ? std::string{} : " (" + record.problem + ")");
      break;
  }
  out.problem += at;
  if (later.found > 0) out.problem += "; " + std::to_string(later.found) + " intact record(s) after it";
  if (later.gave_up) out.problem += "; not all that follows could be searched for intact records (the copy keeps it)";
  return out;
}

}  // namespace savekit::detail
