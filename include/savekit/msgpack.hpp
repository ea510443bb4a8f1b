// savekit/msgpack.hpp — MessagePack straight from and into C++ objects.
//
//   std::vector<std::byte> bytes = savekit::to_msgpack(status);              // map form
//   auto compact = savekit::to_msgpack(status, {.form = savekit::msgpack_form::compact});
//   savekit::result<Status> back = savekit::from_msgpack<Status>(bytes);      // either form
//
// Map form: a struct is a map from field name to value, so a reader survives added,
// removed and reordered fields. Compact form: a struct is an array indexed by each
// field's key (savekit::field(...).with_key(n); by default its position), with nil in
// unused slots — like MessagePack-CSharp's [Key(n)]. The reader accepts both forms and
// every valid encoding of a value; strings are byte-clean (no UTF-8 check: any byte
// survives). The writer always picks the smallest encoding.
//
// Mapping as in json.hpp, except: std::vector<std::byte> is bin, floats are float32 /
// float64 (NaN and infinities survive), and integer map keys are integers.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "savekit/base64.hpp"
#include "savekit/detail/bytes.hpp"
#include "savekit/detail/json_text.hpp"
#include "savekit/detail/msgpack_wire.hpp"
#include "savekit/error.hpp"
#include "savekit/reflect.hpp"

namespace savekit {

enum class msgpack_form : std::uint8_t {
  map,      // structs as {name: value}: self-describing, tolerant of schema changes
  compact,  // structs as [value, ...] indexed by key: smaller and faster
};

struct msgpack_options {
  msgpack_form form = msgpack_form::map;        // how structs are written; readers accept both
  std::uint32_t max_depth = default_max_depth;  // deeper nesting is errc::depth_exceeded (reading and writing)
  // Memory the elements of arrays and maps read, and the objects pointers own, may take:
  // errc::value_too_large beyond it.
  std::uint64_t max_memory = default_max_memory;
};

namespace detail {

template <class T>
inline constexpr bool msgpack_always_false = false;

// ---- writer -----------------------------------------------------------------------------

// A Checked writer also counts nesting against max_depth (for types that contain
// themselves; other types are bounded at compile time).
template <class Container, bool Checked = false>
struct msgpack_typed_writer {
  msgpack_writer<Container> wire;
  msgpack_form form;
  std::uint32_t max_depth = default_max_depth;
  std::uint32_t depth = 0;
  bool too_deep = false;

  // One more level of nesting: false (and nothing more is written) past max_depth.
  SAVEKIT_ALWAYS_INLINE bool enter() {
    if constexpr (Checked) {
      if (++depth > max_depth) {
        too_deep = true;
        return false;
      }
    }
    return true;
  }
  SAVEKIT_ALWAYS_INLINE void leave() {
    if constexpr (Checked) --depth;
  }
};

template <class Writer, class T>
void write_msgpack(Writer& w, const T& value);

// Field keys of the map form, encoded once at compile time: fixstr or str8 header + name.
template <class T, std::size_t I>
struct msgpack_key {
  static constexpr std::string_view name = reflection<T>::names[I];
  static constexpr std::size_t size = name.size() + (name.size() < 32 ? 1 : 2);
  static constexpr auto bytes = [] {
    std::array<char, size> out{};
    std::size_t at = 0;
    if (name.size() < 32) {
      out[at++] = static_cast<char>(0xa0 | name.size());
    } else {
      out[at++] = static_cast<char>(mp::str8);
      out[at++] = static_cast<char>(name.size());
    }
    for (char c : name) out[at++] = c;
    return out;
  }();
};

// For each compact slot, the index of the field with that key, or -1.
template <class T>
inline constexpr auto compact_slots = [] {
  std::array<int, compact_length<T>()> slots{};
  for (auto& s : slots) s = -1;
  for (std::size_t i = 0; i < reflection<T>::size; ++i)
    slots[static_cast<std::size_t>(reflection<T>::keys[i])] = int(i);
  return slots;
}();

template <class Writer, class T>
void write_msgpack_struct(Writer& w, const T& value) {
  using R = reflection<T>;
  if (!w.enter()) return;
  if (w.form == msgpack_form::map) {
    w.wire.map_header(R::size);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((w.wire.out.append(msgpack_key<T, I>::bytes.data(), msgpack_key<T, I>::size),
        write_msgpack(w, R::template get<I>(value))),
       ...);
    }
    (std::make_index_sequence<R::size>{});
  } else {
    constexpr auto& slots = compact_slots<T>;
    w.wire.array_header(slots.size());
    [&]<std::size_t... S>(std::index_sequence<S...>) {
      ((slots[S] < 0 ? w.wire.byte(mp::nil)
                     : write_msgpack(w, R::template get<static_cast<std::size_t>(slots[S] < 0 ? 0 : slots[S])>(value))),
       ...);
    }
    (std::make_index_sequence<slots.size()>{});
  }
  w.leave();
}

template <class Writer, class T>
void write_msgpack(Writer& w, const T& value) {
  if constexpr (has_adapter<T>) {
    write_msgpack(w, adapter<T>::to_wire(value));
  } else if constexpr (std::is_same_v<T, bool>) {
    w.wire.byte(value ? mp::true_ : mp::false_);
  } else if constexpr (std::is_enum_v<T>) {
    if constexpr (has_enum_names<T>) {
      std::string_view name = enum_to_name(value);
      if (!name.empty()) return w.wire.str(name.data(), name.size());
    }
    w.wire.integer(static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (std::is_integral_v<T>) {
    w.wire.integer(value);
  } else if constexpr (std::is_same_v<T, float>) {
    w.wire.float32(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    w.wire.float64(static_cast<double>(value));
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
    w.wire.str(value.data(), value.size());
  } else if constexpr (is_byte_vector<T>) {
    w.wire.bin(value.data(), value.size());
  } else if constexpr (std::is_array_v<T> || is_std_array<T> || is_sequence<T>) {
    if (!w.enter()) return;
    w.wire.array_header(std::size(value));
    for (const auto& element : value) write_msgpack(w, element_value(element));
    w.leave();
  } else if constexpr (is_specialization_v<T, std::optional> || is_smart_pointer<T>) {
    if (value)
      write_msgpack(w, *value);
    else
      w.wire.byte(mp::nil);
  } else if constexpr (is_specialization_v<T, std::variant>) {
    if (!w.enter()) return;
    w.wire.array_header(2);
    w.wire.unsigned_integer(value.index());
    std::visit([&](const auto& alternative) { write_msgpack(w, alternative); }, value);
    w.leave();
  } else if constexpr (is_tuple_like<T>) {
    if (!w.enter()) return;
    w.wire.array_header(std::tuple_size_v<T>);
    std::apply([&](const auto&... element) { (write_msgpack(w, element), ...); }, value);
    w.leave();
  } else if constexpr (is_map<T>) {
    static_assert(std::is_same_v<typename T::key_type, std::string> || std::is_integral_v<typename T::key_type>,
                  "map keys must be std::string or integers");
    if (!w.enter()) return;
    w.wire.map_header(value.size());
    for (const auto& [key, mapped] : value) {
      write_msgpack(w, key);
      write_msgpack(w, mapped);
    }
    w.leave();
  } else if constexpr (is_reflected<T>) {
    static_assert(names_are_valid<T>(), "field names must be unique, non-empty and need no JSON escaping");
    static_assert(keys_are_valid<T>(), "compact keys must be unique and within 0..4095");
    write_msgpack_struct(w, value);
  } else {
    static_assert(msgpack_always_false<T>, "savekit cannot write this type; see savekit::adapter");
  }
}

// ---- reader -----------------------------------------------------------------------------

template <class T>
bool read_msgpack(msgpack_cursor& c, T& value);

inline bool msgpack_mismatch(msgpack_cursor& c, const char* expected) {
  if (*c.p == mp::never_used) return c.fail(errc::invalid_msgpack, c.p, "byte 0xc1 is never used in MessagePack");
  return c.fail(errc::type_mismatch, c.p, expected);
}

template <class Int>
bool read_msgpack_wide_integer(msgpack_cursor& c, Int& value) {
  const unsigned char* start = c.p;
  std::uint64_t v = 0;
  bool negative = false, is_integer = false;
  if (!c.integer(v, negative, is_integer)) {
    if (is_integer) return false;
    return msgpack_mismatch(c, "expected an integer");
  }
  if (negative) {
    auto s = static_cast<std::int64_t>(v);
    if constexpr (std::is_signed_v<Int>) {
      if (s < std::numeric_limits<Int>::min()) return c.fail(errc::number_out_of_range, start, "integer out of range");
      value = static_cast<Int>(s);
      return true;
    } else {
      return c.fail(errc::number_out_of_range, start, "negative value for an unsigned integer");
    }
  }
  if (v > static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))
    return c.fail(errc::number_out_of_range, start, "integer out of range");
  value = static_cast<Int>(v);
  return true;
}

// Positive fixints (0..127: levels, counts, enums) read inline; the rest out of line. The
// caller has checked that a byte is there (msgpack_cursor::more()).
template <class Int>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_integer(msgpack_cursor& c, Int& value) {
  if (SAVEKIT_LIKELY(*c.p < 0x80)) {
    value = static_cast<Int>(*c.p);
    ++c.p;
    return true;
  }
  return read_msgpack_wide_integer(c, value);
}

template <class Float>
bool read_msgpack_float(msgpack_cursor& c, Float& value) {
  const unsigned char* start = c.p;
  std::uint64_t bits = 0;
  if (*c.p == mp::float32) {
    if (!c.field(4, bits)) return false;
    float f = 0;
    auto b32 = static_cast<std::uint32_t>(bits);
    std::memcpy(&f, &b32, 4);
    value = static_cast<Float>(f);
    return true;
  }
  if (*c.p == mp::float64) {
    if (!c.field(8, bits)) return false;
    double d = 0;
    std::memcpy(&d, &bits, 8);
    if constexpr (std::is_same_v<Float, float>) {
      if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
        return c.fail(errc::number_out_of_range, start, "number out of range for float");
    }
    value = static_cast<Float>(d);
    return true;
  }
  bool negative = false, is_integer = false;
  if (!c.integer(bits, negative, is_integer)) {
    if (is_integer) return false;
    return msgpack_mismatch(c, "expected a number");
  }
  value = negative ? static_cast<Float>(static_cast<std::int64_t>(bits)) : static_cast<Float>(bits);
  return true;
}

inline bool read_msgpack_nil(msgpack_cursor& c) {
  if (*c.p != mp::nil) return false;
  ++c.p;
  return true;
}

// Reads an array header, requiring an array.
inline bool read_msgpack_array_header(msgpack_cursor& c, std::uint64_t& count, const char* expected) {
  char kind = 0;
  if (!c.container(count, kind)) return kind != 0 ? false : msgpack_mismatch(c, expected);
  if (kind != 'a') return c.fail(errc::type_mismatch, c.p - 1, expected);
  return true;
}

template <class T>
bool read_msgpack_elements(msgpack_cursor& c, T& container, std::uint64_t count) {
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!read_msgpack(c, container[i])) {
      c.err.prepend_path(path_index(i));
      return false;
    }
  }
  return true;
}

// The elements of a sequence of count elements. Existing elements are read into (reusing
// their capacity); new ones are added as they arrive, after a reservation bounded by
// max_reserved_bytes — a header's count alone (which may be a lie) never allocates
// count × sizeof(element): memory follows the elements actually read.
inline constexpr std::size_t max_reserved_bytes = std::size_t{1} << 20;

template <class Sequence>
bool read_msgpack_sequence_elements(msgpack_cursor& c, Sequence& sequence, std::uint64_t count) {
  using Element = typename Sequence::value_type;
  if (count <= sequence.size()) {
    sequence.resize(static_cast<std::size_t>(count));
    return read_msgpack_elements(c, sequence, count);
  }
  std::size_t existing = sequence.size();
  if (!read_msgpack_elements(c, sequence, existing)) return false;
  if constexpr (requires { sequence.reserve(std::size_t{}); }) {
    constexpr std::uint64_t cap = max_reserved_bytes / sizeof(Element) > 16 ? max_reserved_bytes / sizeof(Element) : 16;
    std::uint64_t wanted = count < existing + cap ? count : existing + cap;
    if (sequence.capacity() < wanted) sequence.reserve(static_cast<std::size_t>(wanted));
  }
  for (std::uint64_t i = existing; i < count; ++i) {
    if (!c.spend(sizeof(Element), c.p)) return false;
    sequence.emplace_back();
    if (!read_msgpack(c, sequence.back())) {
      c.err.prepend_path(path_index(i));
      return false;
    }
  }
  return true;
}

// Per-field readers of T for the map form, indexed at run time in O(1).
template <class T>
struct msgpack_field_table {
  using R = reflection<T>;

  // Reads field I if the input is at its key exactly: -1 if not, else whether it read.
  template <std::size_t I>
  static int read_if_expected(msgpack_cursor& c, T& value) {
    using key = msgpack_key<T, I>;
    if (c.remaining() <= key::size || !equal_bytes<key::size>(c.p, key::bytes.data())) return -1;
    c.p += key::size;
    return read_msgpack(c, R::template get<I>(value));
  }
  template <std::size_t I>
  static int read_field(msgpack_cursor& c, T& value) {
    return read_msgpack(c, R::template get<I>(value));
  }

  using reader = int (*)(msgpack_cursor&, T&);
  static constexpr auto expected = table_of<reader, R::size>([]<std::size_t I>() { return &read_if_expected<I>; });
  static constexpr auto read = table_of<reader, R::size>([]<std::size_t I>() { return &read_field<I>; });
};

template <class T>
constexpr bool compact_keys_in_order() {
  constexpr const auto& keys = reflection<T>::keys;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (static_cast<std::size_t>(keys[i]) != i) return false;
  return true;
}

// Slot I of the compact form into field I (nil marks a gap: the field keeps its value).
template <std::size_t I, class T>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_compact_slot(msgpack_cursor& c, T& value) {
  if (!c.more()) return false;
  auto& field = reflection<T>::template get<I>(value);
  using Field = std::remove_cvref_t<decltype(field)>;
  if constexpr (!is_specialization_v<Field, std::optional> && !is_smart_pointer<Field>) {
    if (read_msgpack_nil(c)) return true;
  }
  if (read_msgpack(c, field)) return true;
  c.err.prepend_path(path_key(reflection<T>::names[I]));
  return false;
}

// Every slot of the compact form, in order, unrolled at compile time — in WebAssembly
// builds only, where the per-slot run-time dispatch costs most: there it halved the
// compact read of the seed's Status; natively (g++ 12) study A's MessagePack loads ran
// 10–20% slower with it, map form included, so native builds keep the loop.
#if defined(__EMSCRIPTEN__)
inline constexpr bool unroll_compact_reads = true;
#else
inline constexpr bool unroll_compact_reads = false;
#endif

template <class T>
bool read_msgpack_compact_in_order(msgpack_cursor& c, T& value) {
  auto read_all = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return (read_msgpack_compact_slot<I>(c, value) && ...);
  };
  if (!read_all(std::make_index_sequence<reflection<T>::size>{})) return false;
  c.leave();
  return true;
}

template <class T>
bool read_msgpack_struct(msgpack_cursor& c, T& value) {
  using R = reflection<T>;
  constexpr std::size_t n = R::size;
  const unsigned char* start = c.p;
  std::uint64_t count = 0;
  char kind = 0;
  if (!c.container(count, kind)) return kind != 0 ? false : msgpack_mismatch(c, "expected a map or an array");
  if (!c.enter(start)) return false;
  if (kind == 'a') {  // compact form: element i is the field with key i
    // What savekit writes for a type without renumbered keys: every field, in order. Read
    // with the fields unrolled at compile time, not dispatched per slot at run time.
    if constexpr (unroll_compact_reads && compact_keys_in_order<T>()) {
      if (count == n) return read_msgpack_compact_in_order(c, value);
    }
    for (std::uint64_t slot = 0; slot < count; ++slot) {
      std::size_t index = find_field_by_key<T>(slot);
      if (!c.more()) return false;
      if (index == n) {
        if (!c.skip_value()) return false;  // a removed field's nil, or a newer field we do not know
        continue;
      }
      bool ok = with_index<n>(index, [&](auto i) {
        auto& field = R::template get<i.value>(value);
        using Field = std::remove_cvref_t<decltype(field)>;
        // nil in a slot marks a gap (a field another version does not have): a field
        // that cannot hold nil keeps its value.
        if constexpr (!is_specialization_v<Field, std::optional> && !is_smart_pointer<Field>) {
          if (read_msgpack_nil(c)) return true;
        }
        return read_msgpack(c, field);
      });
      if (!ok) {
        c.err.prepend_path(path_key(R::names[index]));
        return false;
      }
    }
  } else {
    std::size_t hint = 0;
    for (std::uint64_t entry = 0; entry < count; ++entry) {
      if (!c.more()) return false;
      // Fast path: the key expected next, compared with its encoding known at compile time.
      int outcome = hint < n ? msgpack_field_table<T>::expected[hint](c, value) : -1;
      std::size_t index = hint;
      if (outcome < 0) {
        const unsigned char* data = nullptr;
        std::uint64_t length = 0;
        char key_kind = 0;
        if (!c.string_or_binary(data, length, key_kind)) {
          if (key_kind != 0) return false;                       // a broken str or bin
          if (!c.skip_value() || !c.skip_value()) return false;  // an integer key etc.: not a field
          continue;
        }
        std::string_view key(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
        if (!c.more()) return false;
        index = find_field<T>(key, hint);
        if (index == n) {
          if (!c.skip_value()) return false;
          continue;
        }
        outcome = msgpack_field_table<T>::read[index](c, value);
      }
      if (outcome == 0) {
        c.err.prepend_path(path_key(R::names[index]));
        return false;
      }
      hint = index + 1;
    }
  }
  c.leave();
  return true;
}

// A map key. Integer keys may also come as decimal strings: MessagePack that went through
// JSON (whose keys are strings) and back, as the JSON reader takes them.
template <class Key>
bool read_msgpack_map_key(msgpack_cursor& c, Key& key) {
  if constexpr (std::is_integral_v<Key>) {
    const unsigned char* at = c.p;
    const unsigned char* data = nullptr;
    std::uint64_t length = 0;
    char kind = 0;
    if (c.string_or_binary(data, length, kind)) {
      std::string_view text(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
      if (kind != 's' || !integer_key_from_text(text, key))
        return c.fail(errc::type_mismatch, at, "expected an integer key");
      return true;
    }
    if (kind != 0) return false;
  }
  return read_msgpack(c, key);
}

template <class Map>
bool read_msgpack_map(msgpack_cursor& c, Map& map) {
  using Key = typename Map::key_type;
  const unsigned char* start = c.p;
  std::uint64_t count = 0;
  char kind = 0;
  if (!c.container(count, kind)) return kind != 0 ? false : msgpack_mismatch(c, "expected a map");
  if (kind != 'm') return c.fail(errc::type_mismatch, start, "expected a map");
  if (!c.enter(start)) return false;
  map.clear();
  for (std::uint64_t entry = 0; entry < count; ++entry) {
    if (!c.more()) return false;
    Key key{};
    if (!read_msgpack_map_key(c, key)) return false;
    if (!c.more()) return false;
    if (!c.spend(map_node_size<Map>, c.p)) return false;
    auto [it, inserted] = map.try_emplace(std::move(key));
    if (!inserted) it->second = typename Map::mapped_type{};  // a repeated key: the last one wins
    if (!read_msgpack(c, it->second)) {
      if constexpr (std::is_same_v<Key, std::string>)
        c.err.prepend_path(path_key(it->first));
      else
        c.err.prepend_path("[" + std::to_string(it->first) + "]");
      return false;
    }
  }
  c.leave();
  return true;
}

template <class T>
bool read_msgpack(msgpack_cursor& c, T& value) {
  if (!c.more()) return false;
  if constexpr (has_adapter<T>) {
    typename adapter<T>::wire_type wire{};
    const unsigned char* start = c.p;
    if (!read_msgpack(c, wire)) return false;
    if (!adapter_from_wire(wire, value)) return c.fail(errc::invalid_value, start, adapter_refused);
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (*c.p == mp::true_ || *c.p == mp::false_) {
      value = *c.p++ == mp::true_;
      return true;
    }
    return msgpack_mismatch(c, "expected true or false");
  } else if constexpr (std::is_enum_v<T>) {
    if constexpr (has_enum_names<T>) {
      const unsigned char* start = c.p;
      const unsigned char* data = nullptr;
      std::uint64_t length = 0;
      char kind = 0;
      if (c.string_or_binary(data, length, kind)) {
        std::string_view name(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
        if (!enum_from_name(name, value)) return c.fail(errc::unknown_enum_name, start, "unknown enum name");
        return true;
      }
      if (kind != 0) return false;
    }
    std::underlying_type_t<T> number{};
    if (!read_msgpack_integer(c, number)) return false;
    value = static_cast<T>(number);
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    return read_msgpack_integer(c, value);
  } else if constexpr (std::is_floating_point_v<T>) {
    return read_msgpack_float(c, value);
  } else if constexpr (std::is_same_v<T, std::string> || is_byte_vector<T>) {
    const unsigned char* data = nullptr;
    std::uint64_t length = 0;
    char kind = 0;
    if (!c.string_or_binary(data, length, kind))
      return kind != 0
                 ? false
                 : msgpack_mismatch(c, std::is_same_v<T, std::string> ? "expected a string" : "expected binary data");
    if constexpr (is_byte_vector<T>) {
      if (kind == 's') {
        // A str where binary data belongs: MessagePack that went through JSON (where bytes
        // are Base64 text) and back. Decoded as the JSON reader and the transcoder do.
        std::string_view text(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
        std::size_t offset = 0;
        errc code = base64_decode_to(text, value, base64_alphabet::standard, offset);
        if (code != errc::ok) return c.fail(code, data + offset, base64_error_message(code));
        return true;
      }
    }
    value.resize(static_cast<std::size_t>(length));
    if (length != 0) std::memcpy(value.data(), data, static_cast<std::size_t>(length));
    return true;
  } else if constexpr (std::is_array_v<T> || is_std_array<T>) {
    constexpr std::size_t n = fixed_size<T>();
    const unsigned char* start = c.p;
    std::uint64_t count = 0;
    if (!read_msgpack_array_header(c, count, "expected an array")) return false;
    if (count != n) return c.fail(errc::length_mismatch, start, "array length differs from the fixed-size target");
    if (!c.enter(start)) return false;
    if (!read_msgpack_elements(c, value, count)) return false;
    c.leave();
    return true;
  } else if constexpr (is_sequence<T>) {
    const unsigned char* start = c.p;
    std::uint64_t count = 0;
    if (!read_msgpack_array_header(c, count, "expected an array")) return false;
    if (!c.enter(start)) return false;
    if constexpr (std::is_same_v<typename T::value_type, bool>) {
      value.resize(static_cast<std::size_t>(count));
      for (std::uint64_t i = 0; i < count; ++i) {
        bool element = false;
        if (!read_msgpack(c, element)) {
          c.err.prepend_path(path_index(i));
          return false;
        }
        value[i] = element;
      }
    } else if (!read_msgpack_sequence_elements(c, value, count)) {
      return false;
    }
    c.leave();
    return true;
  } else if constexpr (is_specialization_v<T, std::optional> || is_smart_pointer<T>) {
    if (read_msgpack_nil(c)) {
      value.reset();
      return true;
    }
    if (reading_allocates(value) && !c.spend(sizeof(typename held<T>::type), c.p)) return false;
    return read_msgpack(c, object_to_read_into(value));
  } else if constexpr (is_specialization_v<T, std::variant>) {
    constexpr std::size_t n = std::variant_size_v<T>;
    const unsigned char* start = c.p;
    std::uint64_t count = 0;
    if (!read_msgpack_array_header(c, count, "expected a [index, value] array")) return false;
    if (count != 2) return c.fail(errc::length_mismatch, start, "expected a [index, value] array");
    if (!c.enter(start)) return false;
    if (!c.more()) return false;
    const unsigned char* index_at = c.p;
    std::size_t index = 0;
    if (!read_msgpack_integer(c, index)) return false;
    if (index >= n) return c.fail(errc::unknown_variant_index, index_at, "variant index out of range");
    bool ok = with_index<n>(index, [&](auto i) {
      if (value.index() != i.value) value.template emplace<i.value>();
      return read_msgpack(c, std::get<i.value>(value));
    });
    if (!ok) {
      c.err.prepend_path("[1]");
      return false;
    }
    c.leave();
    return true;
  } else if constexpr (is_tuple_like<T>) {
    constexpr std::size_t n = std::tuple_size_v<T>;
    const unsigned char* start = c.p;
    std::uint64_t count = 0;
    if (!read_msgpack_array_header(c, count, "expected an array")) return false;
    if (count != n) return c.fail(errc::length_mismatch, start, "array length differs from the tuple");
    if (!c.enter(start)) return false;
    bool ok = [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::size_t failed = n;
      bool all = ((read_msgpack(c, std::get<I>(value)) || (failed = I, false)) && ...);
      if (!all) c.err.prepend_path(path_index(failed));
      return all;
    }
    (std::make_index_sequence<n>{});
    if (!ok) return false;
    c.leave();
    return true;
  } else if constexpr (is_map<T>) {
    return read_msgpack_map(c, value);
  } else if constexpr (is_reflected<T>) {
    return read_msgpack_struct(c, value);
  } else {
    static_assert(msgpack_always_false<T>, "savekit cannot read this type; see savekit::adapter");
    return false;
  }
}

inline std::span<const std::byte> as_byte_span(std::string_view text) {
  return std::as_bytes(std::span{text.data(), text.size()});
}

}  // namespace detail

namespace detail {

// Writes value into out (a std::vector<std::byte> or a std::string's bytes); see to_msgpack.
template <class T, class Container>
write_result<T, void> write_msgpack_to(const T& value, Container& out, const msgpack_options& options) {
  if constexpr (depth_is_bounded<T>) {
    static_assert(nesting_depth<T>() <= default_max_depth,
                  "this type nests deeper than the readers' default max_depth: it could not be read back");
    msgpack_typed_writer<Container> writer{{output<Container>{out}}, options.form};
    write_msgpack(writer, value);
    writer.wire.out.finish();
  } else {
    msgpack_typed_writer<Container, true> writer{{output<Container>{out}}, options.form, options.max_depth};
    write_msgpack(writer, value);
    writer.wire.out.finish();
    if (writer.too_deep) {
      out.clear();
      return too_deep_to_write(options.max_depth);
    }
    return {};
  }
}

}  // namespace detail

// Writes value as MessagePack into out, replacing its content and reusing its capacity.
// Returns nothing — or, for a type that contains itself (a tree, a linked chain), a
// status: errc::depth_exceeded when the value nests deeper than options.max_depth,
// which the readers would refuse (out is then empty). What cannot be read back is not written.
template <class T>
detail::write_result<T, void> to_msgpack(const T& value, std::vector<std::byte>& out, msgpack_options options = {}) {
  return detail::write_msgpack_to(value, out, options);
}

// The same into a std::string's bytes (the store keeps values in strings).
template <class T>
detail::write_result<T, void> to_msgpack(const T& value, std::string& out, msgpack_options options = {}) {
  return detail::write_msgpack_to(value, out, options);
}

template <class T>
detail::write_result<T, std::vector<std::byte>> to_msgpack(const T& value, msgpack_options options = {}) {
  std::vector<std::byte> out;
  if constexpr (detail::depth_is_bounded<T>) {
    to_msgpack(value, out, options);
  } else {
    if (status written = to_msgpack(value, out, options); !written) return std::move(written).error();
  }
  return out;
}

// Reads MessagePack (either form) into an existing object, reusing its capacity.
template <class T>
status from_msgpack(std::span<const std::byte> bytes, T& into, msgpack_options options = {}) {
  detail::msgpack_cursor c{bytes.data(), bytes.size(), options.max_depth};
  c.memory_left = options.max_memory;
  if (!detail::read_msgpack(c, into) || !c.finish()) return std::move(c.err);
  return {};
}

template <class T>
status from_msgpack(std::string_view bytes, T& into, msgpack_options options = {}) {
  return from_msgpack(detail::as_byte_span(bytes), into, options);
}

template <class T>
result<T> from_msgpack(std::span<const std::byte> bytes, msgpack_options options = {}) {
  result<T> out{std::in_place};
  status read = from_msgpack(bytes, *out, options);
  if (!read) return std::move(read).error();
  return out;
}

template <class T>
result<T> from_msgpack(std::string_view bytes, msgpack_options options = {}) {
  return from_msgpack<T>(detail::as_byte_span(bytes), options);
}

}  // namespace savekit
