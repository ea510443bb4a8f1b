// savekit/json.hpp — JSON straight from and into C++ objects.
//
//   struct Item { int Id; int Quantity; };
//   struct SaveGame { std::string Name; int HighScore; std::vector<Item> Inventory; };
//
//   std::string text = savekit::to_json(save);               // {"Name":"Speed Run",...}
//   savekit::result<SaveGame> loaded = savekit::from_json<SaveGame>(text);
//   savekit::status ok = savekit::from_json(text, save);      // reuses save's capacity
//
// Output is minimal (no spaces) unless json_options::pretty; strings are raw UTF-8.
// Reading accepts any key order and whitespace, skips unknown keys and leaves absent
// members at their current value (both can be made errors), validates UTF-8 and
// escapes, and rejects numbers that do not fit the target. When a key appears twice
// the last one wins. Errors carry the byte offset and the field path.
//
// Mapping: bool, integers, floats (NaN/Inf are written as null; null reads as NaN),
// std::string, std::vector<std::byte> (a Base64 string), sequences and std::array /
// C arrays (arrays), maps with string or integer keys (objects), std::optional and
// smart pointers (null when empty), std::variant ([index, value]), std::pair and
// std::tuple (arrays), enums (numbers, or names with savekit::enum_names), structs
// (objects).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fast_float/fast_float.h>

#include "savekit/base64.hpp"
#include "savekit/detail/bytes.hpp"
#include "savekit/detail/json_text.hpp"
#include "savekit/detail/numbers.hpp"
#include "savekit/detail/read_rules.hpp"
#include "savekit/error.hpp"
#include "savekit/reflect.hpp"

namespace savekit {

// Whether text is valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
// U+10FFFF) — what JSON strings must be; MessagePack strings may be any bytes.
inline bool is_valid_utf8(std::string_view text) noexcept {
  return detail::find_invalid_utf8(text.data(), text.size()) == text.size();
}

// Any JSON value kept as its text: read validated without interpreting it, written back
// verbatim, unvalidated (an empty text is written as null). Pretty output re-indents it —
// unless a raw_json's text is not one JSON value: then the whole output stays compact, as
// the re-indenting pass would misread what follows it. For documents whose parts have no
// fixed type.
struct raw_json {
  std::string text;
  bool operator==(const raw_json&) const = default;
};

struct json_options {
  bool pretty = false;                          // newlines and indentation
  bool skip_null_members = false;               // leave out struct members that are empty optionals or null pointers
  std::uint8_t indent_width = 2;                // spaces per level when pretty
  bool error_on_unknown_keys = false;           // an input key the struct lacks is errc::unknown_key
  bool error_on_missing_keys = false;           // a struct member absent from the input is errc::missing_key
  std::uint32_t max_depth = default_max_depth;  // deeper nesting is errc::depth_exceeded (reading and writing)
  // Memory the elements of arrays and maps read, and the objects pointers own, may take:
  // errc::value_too_large beyond it.
  std::uint64_t max_memory = default_max_memory;
};

namespace detail {

template <class T>
inline constexpr bool always_false = false;

// ---- writer -----------------------------------------------------------------------------

// Writes JSON into a caller's string. A Checked writer also counts nesting against
// options.max_depth (for types that contain themselves; other types are bounded at compile time).
template <bool Checked>
struct basic_json_writer {
  static constexpr bool counts_depth = Checked;
  // A constructor, not an aggregate: see output's first window.
  basic_json_writer(std::string& text, const json_options& options_) : out{text}, options(options_) {}
  basic_json_writer(const basic_json_writer&) = delete;
  basic_json_writer& operator=(const basic_json_writer&) = delete;

  output<std::string> out;
  const json_options& options;
  std::uint32_t depth = 0;
  bool too_deep = false;
  bool cannot_indent = false;  // a raw_json text is not one JSON value (see write_json_text)

  // One more level of nesting: false (and nothing more is written) past max_depth.
  SAVEKIT_ALWAYS_INLINE bool enter() {
    if constexpr (Checked) {
      if (++depth > options.max_depth) {
        too_deep = true;
        return false;
      }
    }
    return true;
  }
  SAVEKIT_ALWAYS_INLINE void leave() {
    if constexpr (Checked) --depth;
  }

  // The writers make compact JSON only; json_options::pretty re-indents it afterwards
  // (indent_json), so no type's writer carries a second, indenting copy of its code.
  SAVEKIT_ALWAYS_INLINE void separator(bool first) {
    if (!first) out.put(',');
  }
};
using json_writer = basic_json_writer<false>;

template <class W, class T>
void write_json(W& w, const T& value);

template <class W, class Int>
SAVEKIT_ALWAYS_INLINE void write_json_integer(W& w, Int value) {
  char* p = w.out.reserve(24);
  w.out.advance(static_cast<std::size_t>(write_integer(p, value) - p));
}

template <class W, class Float>
void write_json_float(W& w, Float value) {
  if (!std::isfinite(value)) {
    w.out.append_literal("null");  // JSON has no NaN or infinity
    return;
  }
  char* p = w.out.reserve(max_float_chars);
  w.out.advance(static_cast<std::size_t>(write_float(p, value) - p));
}

template <class W, class Range>
void write_json_array(W& w, const Range& range) {
  if (!w.enter()) return;
  w.out.put('[');
  bool first = true;
  for (const auto& element : range) {
    w.separator(first);
    first = false;
    write_json(w, element_value(element));
  }
  w.out.put(']');
  w.leave();
}

template <class W, class Key>
void write_json_key(W& w, const Key& key) {
  if constexpr (std::is_same_v<Key, std::string>) {
    write_json_string(w.out, key.data(), key.size());
  } else if constexpr (std::is_integral_v<Key>) {
    w.out.put('"');
    write_json_integer(w, key);
    w.out.put('"');
  } else {
    static_assert(always_false<Key>, "map keys must be std::string or integers");
  }
}

// `"name":` for field I of T, with a leading ',' after the first field: one copy per key.
template <class T, std::size_t I>
consteval auto key_prefix() {
  constexpr std::string_view name = reflection<T>::names[I];
  constexpr std::size_t comma = I == 0 ? 0 : 1;
  std::array<char, comma + name.size() + 3> out{};
  if (comma) out[0] = ',';
  out[comma] = '"';
  for (std::size_t k = 0; k < name.size(); ++k) out[comma + 1 + k] = name[k];
  out[comma + name.size() + 1] = '"';
  out[comma + name.size() + 2] = ':';
  return out;
}

// In static storage, so that writing a key is one copy from read-only data.
template <class T, std::size_t I>
inline constexpr auto key_prefix_v = key_prefix<T, I>();

template <class M>
bool is_null_member(const M& member) {
  if constexpr (is_specialization_v<M, std::optional> || is_smart_pointer<M>)
    return !member;
  else
    return false;
}

// The most bytes the compact JSON of a T can take, when that is bounded and known at
// compile time (integers, bools, floats, structs of those): 0 otherwise.
template <class T>
consteval std::size_t bounded_json_size() {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (kind == value_kind::boolean) {
    return 5;
  } else if constexpr (kind == value_kind::integer) {
    return std::numeric_limits<T>::digits10 + 2;  // sign and every digit
  } else if constexpr (kind == value_kind::floating) {
    return max_float_chars;
  } else if constexpr (kind == value_kind::structure && !std::is_same_v<T, raw_json>) {
    using R = reflection<T>;
    return [&]<std::size_t... I>(std::index_sequence<I...>)->std::size_t {
      constexpr std::size_t members[] = {
          0, bounded_json_size<std::remove_cvref_t<decltype(R::template get<I>(std::declval<T&>()))>>()...};
      for (std::size_t i = 1; i < sizeof...(I) + 1; ++i)
        if (members[i] == 0) return 0;
      return (std::size_t{2} + ... + (key_prefix_v<T, I>.size() + members[I + 1]));
    }
    (std::make_index_sequence<R::size>{});
  } else {
    return 0;
  }
}

template <class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE char* write_bounded_members(char* p, const T& value, std::index_sequence<I...>);

// A value of bounded size written at p, which has room for it: no check per member.
template <class T>
SAVEKIT_ALWAYS_INLINE char* write_bounded_json(char* p, const T& value) {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (kind == value_kind::boolean) {
    std::memcpy(p, value ? "true" : "false", value ? 4 : 5);
    return p + (value ? 4 : 5);
  } else if constexpr (kind == value_kind::integer) {
    return write_integer(p, value);
  } else if constexpr (kind == value_kind::floating) {
    if (!std::isfinite(value)) {
      std::memcpy(p, "null", 4);  // JSON has no NaN or infinity
      return p + 4;
    }
    return write_float(p, value);
  } else {
    *p++ = '{';
    p = write_bounded_members(p, value, std::make_index_sequence<reflection<T>::size>{});
    *p++ = '}';
    return p;
  }
}

// Every member of a bounded struct with its key. (A function, not a lambda: g++ does not
// inline a lambda for its caller's always_inline, and p would go to memory.)
template <class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE char* write_bounded_members(char* p, const T& value, std::index_sequence<I...>) {
  ((std::memcpy(p, key_prefix_v<T, I>.data(), key_prefix_v<T, I>.size()), p += key_prefix_v<T, I>.size(),
    p = write_bounded_json(p, reflection<T>::template get<I>(value))),
   ...);
  return p;
}

// The members of T with their keys, as runs: bounds[I] is the most bytes member I takes
// with its key when that is bounded (0 otherwise), runs[I] what members I, I + 1, ... take
// up to the first unbounded one. A run is written into one reservation, the position
// passed from member to member by value: the writer's cursor is loaded and stored once
// per run, not once per member (in WebAssembly, where nothing keeps it in a register
// across the byte stores, that was most of a struct of numbers' time).
template <class W, class T>
struct json_member_runs {
  using R = reflection<T>;
  template <std::size_t I>
  static consteval std::size_t bound() {
    using M = std::remove_cvref_t<decltype(R::template get<I>(std::declval<const T&>()))>;
    constexpr std::size_t most = bounded_json_size<M>();
    if constexpr (most == 0 || (W::counts_depth && kind_v<M> == value_kind::structure))
      return 0;
    else
      return key_prefix_v<T, I>.size() + most;
  }
  static constexpr auto bounds = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::size_t, R::size>{bound<I>()...};
  }
  (std::make_index_sequence<R::size>{});
  static constexpr auto runs = reservation_runs(bounds);
};

// Member I of T with its key (compact output): a member of bounded size inline, in its
// run's reservation (opened by the run's first member, closed by its last); the rest
// through write_json.
template <std::size_t I, class Runs, class W, class T>
SAVEKIT_ALWAYS_INLINE char* write_json_member(W& w, const T& value, char* p) {
  constexpr auto& key = key_prefix_v<T, I>;
  const auto& member = reflection<T>::template get<I>(value);
  if constexpr (Runs::bounds[I] == 0) {
    w.out.append(key.data(), key.size());
    write_json(w, member);
  } else {
    if constexpr (I == 0 || Runs::bounds[I - 1] == 0) p = w.out.reserve(Runs::runs[I]);
    std::memcpy(p, key.data(), key.size());
    p = write_bounded_json(p + key.size(), member);
    if constexpr (Runs::runs[I + 1] == 0) w.out.advance_to(p);
  }
  return p;
}

// Member I of T after the members before it, under skip_null_members: a null member is
// left out, and the first member written has no comma before its key.
template <std::size_t I, class W, class T>
void write_json_member_unless_null(W& w, const T& value, bool& first) {
  const auto& member = reflection<T>::template get<I>(value);
  if (is_null_member(member)) return;
  constexpr auto& key = key_prefix_v<T, I>;
  const std::size_t comma = I != 0 && first ? 1 : 0;
  w.out.append(key.data() + comma, key.size() - comma);
  first = false;
  write_json(w, member);
}

// Every member with its key, in order (a function, not a lambda: see write_bounded_members).
template <class W, class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE void write_json_members(W& w, const T& value, std::index_sequence<I...>) {
  char* p = nullptr;
  ((p = write_json_member<I, json_member_runs<W, T>>(w, value, p)), ...);
}

template <class T>
inline constexpr bool has_nullable_members = []<std::size_t... I>(std::index_sequence<I...>) {
  return (false || ... ||
          can_hold_null<std::remove_cvref_t<decltype(reflection<T>::template get<I>(std::declval<const T&>()))>>);
}
(std::make_index_sequence<reflection<T>::size>{});

template <class W, class T>
void write_json_struct(W& w, const T& value) {
  using R = reflection<T>;
  if (!w.enter()) return;
  if constexpr (constexpr std::size_t most = bounded_json_size<T>(); most != 0 && !W::counts_depth) {
    // Every member of bounded size: room reserved once for the whole object. (A writer
    // that counts depth, for types that contain themselves, counts each nested object.)
    char* p = w.out.reserve(most);
    w.out.advance(static_cast<std::size_t>(write_bounded_json(p, value) - p));
  } else {
    w.out.put('{');
    if constexpr (has_nullable_members<T>) {
      if (w.options.skip_null_members) {
        bool first = true;
        [&]<std::size_t... I>(std::index_sequence<I...>) { (write_json_member_unless_null<I>(w, value, first), ...); }
        (std::make_index_sequence<R::size>{});
        w.out.put('}');
        w.leave();
        return;
      }
    }
    write_json_members(w, value, std::make_index_sequence<R::size>{});
    w.out.put('}');
  }
  w.leave();
}

template <class W, class T>
void write_json(W& w, const T& value) {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (std::is_same_v<T, raw_json>) {
    if (value.text.empty())
      w.out.append_literal("null");
    else
      w.out.append(value.text.data(), value.text.size());
    if (w.options.pretty && !w.cannot_indent) w.cannot_indent = !is_one_json_value(value.text);
  } else if constexpr (kind == value_kind::adapted) {
    write_json(w, adapter<T>::to_wire(value));
  } else if constexpr (kind == value_kind::boolean) {
    if (value)
      w.out.append_literal("true");
    else
      w.out.append_literal("false");
  } else if constexpr (kind == value_kind::enumeration) {
    if constexpr (has_enum_names<T>) {
      std::string_view name = enum_to_name(value);
      if (!name.empty()) {
        write_json_string(w.out, name.data(), name.size());
        return;
      }
    }
    write_json_integer(w, static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (kind == value_kind::integer) {
    write_json_integer(w, value);
  } else if constexpr (kind == value_kind::floating) {
    write_json_float(w, value);
  } else if constexpr (kind == value_kind::string) {
    write_json_string(w.out, value.data(), value.size());
  } else if constexpr (kind == value_kind::bytes) {
    write_json_base64(w.out, value.data(), value.size());
  } else if constexpr (kind == value_kind::fixed_array || kind == value_kind::sequence) {
    write_json_array(w, value);
  } else if constexpr (kind == value_kind::nullable) {
    if (value)
      write_json(w, *value);
    else
      w.out.append_literal("null");
  } else if constexpr (kind == value_kind::variant) {
    if (!w.enter()) return;
    w.out.put('[');
    write_json_integer(w, value.index());
    w.out.put(',');
    std::visit([&](const auto& alternative) { write_json(w, alternative); }, value);
    w.out.put(']');
    w.leave();
  } else if constexpr (kind == value_kind::tuple) {
    if (!w.enter()) return;
    w.out.put('[');
    std::apply(
        [&](const auto&... element) {
          bool first = true;
          ((w.separator(first), first = false, write_json(w, element)), ...);
        },
        value);
    w.out.put(']');
    w.leave();
  } else if constexpr (kind == value_kind::map) {
    if (!w.enter()) return;
    w.out.put('{');
    bool first = true;
    for (const auto& [key, mapped] : value) {
      w.separator(first);
      first = false;
      write_json_key(w, key);
      w.out.put(':');
      write_json(w, mapped);
    }
    w.out.put('}');
    w.leave();
  } else if constexpr (kind == value_kind::structure) {
    write_json_struct(w, value);
  } else {
    static_assert(always_false<T>, "savekit cannot write this type; see savekit::adapter");
  }
}

// ---- reader -----------------------------------------------------------------------------

struct json_reader {
  json_cursor cursor;
  const json_options& options;
};

template <class T>
bool read_json(json_reader& r, T& value);

template <class Float>
bool read_json_float(json_cursor& c, Float& value) {
  if (*c.p == 'n') {
    if (!c.literal("null", 4)) return false;
    value = std::numeric_limits<Float>::quiet_NaN();
    return true;
  }
  const char* start = c.p;
  if (*c.p != '-' && (*c.p < '0' || *c.p > '9')) return json_mismatch(c, "expected a number");
  decimal_parts parts;
  if (!c.scan_decimal(parts)) return false;
  if (float_from_decimal_quickly(parts, value)) return true;
  auto parsed = fast_float::from_chars(start, c.p, value);
  if (parsed.ptr != c.p || std::isinf(value)) return c.fail(errc::number_out_of_range, start, "number out of range");
  return true;
}

template <class Sequence>
bool read_json_sequence(json_reader& r, Sequence& sequence) {
  json_cursor& c = r.cursor;
  if (*c.p != '[') return json_mismatch(c, "expected an array");
  if (!c.enter(c.p)) return false;
  ++c.p;
  std::size_t count = 0;
  bool more = false;
  for (bool first = true;; first = false) {
    if (!c.next_element(']', first, more)) return false;
    if (!more) break;
    bool ok = false;
    if constexpr (std::is_same_v<typename Sequence::value_type, bool>) {
      bool element = false;  // std::vector<bool> has no bool& to read into
      ok = read_json(r, element);
      if (count < sequence.size())
        sequence[count] = element;
      else
        sequence.push_back(element);
    } else {
      // Reuse existing elements (and their capacity) before growing. An empty vector
      // starts with room for a few: one allocation instead of three for small arrays.
      if (count == sequence.size()) {
        if (!c.spend(sizeof(typename Sequence::value_type), c.p)) return false;
        if constexpr (requires { sequence.reserve(std::size_t{}); }) {
          if (sequence.capacity() == 0) sequence.reserve(4);
        }
        sequence.emplace_back();
      }
      ok = read_json(r, sequence[count]);
    }
    if (!ok) {
      c.err.prepend_path(path_index(count));
      return false;
    }
    ++count;
  }
  c.leave();
  sequence.resize(count);
  return true;
}

// A JSON array of exactly n elements; read_element(i) reads element i.
template <std::size_t n, class ReadElement>
bool read_json_fixed_elements(json_reader& r, const char* what, ReadElement read_element) {
  json_cursor& c = r.cursor;
  if (*c.p != '[') return json_mismatch(c, "expected an array");
  const char* start = c.p;
  if (!c.enter(c.p)) return false;
  ++c.p;
  std::size_t count = 0;
  bool more = false;
  for (bool first = true;; first = false) {
    if (!c.next_element(']', first, more)) return false;
    if (!more) break;
    if (count == n) return c.fail(errc::length_mismatch, start, what);
    if (!read_element(count)) {
      c.err.prepend_path(path_index(count));
      return false;
    }
    ++count;
  }
  if (count != n) return c.fail(errc::length_mismatch, start, what);
  c.leave();
  return true;
}

// std::array and C arrays: exactly N elements.
template <class Array>
bool read_json_fixed_array(json_reader& r, Array& array) {
  return read_json_fixed_elements<fixed_size<Array>()>(r, "array length differs from the fixed-size target",
                                                       [&](std::size_t i) { return read_json(r, array[i]); });
}

template <class Tuple>
bool read_json_tuple(json_reader& r, Tuple& tuple) {
  constexpr std::size_t n = std::tuple_size_v<Tuple>;
  return read_json_fixed_elements<n>(r, "array length differs from the tuple", [&](std::size_t i) {
    return with_index<n>(i, [&](auto index) { return read_json(r, std::get<index.value>(tuple)); });
  });
}

template <class Variant>
bool read_json_variant(json_reader& r, Variant& variant) {
  json_cursor& c = r.cursor;
  constexpr std::size_t n = std::variant_size_v<Variant>;
  if (*c.p != '[') return json_mismatch(c, "expected a [index, value] array");
  const char* start = c.p;
  if (!c.enter(c.p)) return false;
  ++c.p;
  bool more = false;
  if (!c.next_element(']', true, more)) return false;
  if (!more) return c.fail(errc::length_mismatch, start, "expected a [index, value] array");
  const char* index_at = c.p;
  std::size_t index = 0;
  if (!read_json_integer(c, index)) return false;
  if (index >= n) return c.fail(errc::unknown_variant_index, index_at, "variant index out of range");
  if (!c.next_element(']', false, more)) return false;
  if (!more) return c.fail(errc::length_mismatch, start, "expected a [index, value] array");
  if (!read_variant_alternative(variant, index, [&](auto& alternative) { return read_json(r, alternative); })) {
    c.err.prepend_path("[1]");
    return false;
  }
  if (!c.next_element(']', false, more)) return false;
  if (more) return c.fail(errc::length_mismatch, start, "expected a [index, value] array");
  c.leave();
  return true;
}

template <class Map>
bool read_json_map(json_reader& r, Map& map) {
  using Key = typename Map::key_type;
  json_cursor& c = r.cursor;
  if (*c.p != '{') return json_mismatch(c, "expected an object");
  if (!c.enter(c.p)) return false;
  ++c.p;
  map_refill refill{map};
  bool more = false;
  for (bool first = true;; first = false) {
    if (!c.next_element('}', first, more)) return false;
    if (!more) break;
    const char* key_at = c.p;
    std::string_view text;
    if (!c.read_member_key(text) || !c.next_token()) return false;
    typename Map::value_type* entry = nullptr;
    if constexpr (std::is_same_v<Key, std::string>) {
      if (!c.spend(map_node_size<Map>, key_at)) return false;
      entry = &refill.entry_for(text);
    } else if constexpr (std::is_integral_v<Key>) {
      Key key{};
      if (!integer_key_from_text(text, key)) return c.fail(errc::type_mismatch, key_at, "expected an integer key");
      if (!c.spend(map_node_size<Map>, key_at)) return false;
      entry = &refill.entry_for(key);
    } else {
      static_assert(always_false<Key>, "map keys must be std::string or integers");
    }
    if (!read_json(r, entry->second)) {
      c.err.prepend_path(path_key(c.key_text_at(key_at)));
      return false;
    }
  }
  c.leave();
  return true;
}

// How JSON reads field I of T (field_readers makes the tables).
template <class T>
struct json_field_table {
  using R = reflection<T>;

  template <std::size_t I>
  static int read_field(json_reader& r, T& value) {
    return read_member(r, R::template get<I>(value));
  }
  // Reads field I if the input is at it as the writer puts it: `"name":` after the opening
  // brace, `,"name":` after field I-1. -1 if not (nothing consumed), else whether it read.
  template <std::size_t I>
  SAVEKIT_ALWAYS_INLINE static int read_in_order(json_reader& r, T& value) {
    constexpr auto& prefix = key_prefix_v<T, I>;
    json_cursor& c = r.cursor;
    if (static_cast<std::size_t>(c.end - c.p) <= prefix.size() || !equal_bytes<prefix.size()>(c.p, prefix.data()))
      return -1;
    c.p += prefix.size();
    return c.next_token() && read_member(r, R::template get<I>(value));
  }
  // Integers, the most common members, are parsed inline.
  template <class M>
  SAVEKIT_ALWAYS_INLINE static bool read_member(json_reader& r, M& member) {
    if constexpr (std::is_integral_v<M> && !std::is_same_v<M, bool> && !has_adapter<M>)
      return read_json_integer(r.cursor, member);
    else
      return read_json(r, member);
  }
};

template <class T>
using json_fields = field_readers<T, json_field_table<T>, json_reader>;

// The members in declaration order, while they come so; how many in done. (A function,
// not a lambda: clang kept the lambda out of line with done and the outcome in memory,
// and Status's JSON read took 1.5x as long as under g++, in WebAssembly too.)
template <class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE int read_json_in_order(json_reader& r, T& value, std::size_t& done, std::index_sequence<I...>) {
  int outcome = 1;
  (void)(((outcome = json_field_table<T>::template read_in_order<I>(r, value)) == 1 && (++done, true)) && ...);
  return outcome;
}

template <class T>
bool read_json_struct(json_reader& r, T& value) {
  using R = reflection<T>;
  constexpr std::size_t n = R::size;
  json_cursor& c = r.cursor;
  if (*c.p != '{') return json_mismatch(c, "expected an object");
  if (!c.enter(c.p)) return false;
  ++c.p;
  // Fast path: members in declaration order, minified, as savekit writes them — each key
  // compared with its compile-time text, comma included, in one go. The loop below takes
  // over at the first member that is not the next one (whitespace, another order, a
  // missing or unknown member), with everything still checked.
  std::size_t done = 0;
  if (read_json_in_order(r, value, done, std::make_index_sequence<n>{}) == 0) {
    c.err.prepend_path(path_key(R::names[done]));
    return false;
  }
  if (done == n && c.p < c.end && *c.p == '}') {  // every member, in order, and the end: done
    ++c.p;
    c.leave();
    return true;
  }
  bool seen[n + 1] = {};
  for (std::size_t i = 0; i < done; ++i) seen[i] = true;
  std::size_t hint = done;
  bool more = false;
  for (bool first = done == 0;; first = false) {
    if (!c.next_element('}', first, more)) return false;
    if (!more) break;
    // Off the writer's layout (whitespace, another order, a missing or unknown member): the
    // key read and looked up (the one expected next compared first), its value read
    // through the per-field table. The in-order path above is the one inlined.
    const char* key_at = c.p;
    std::string_view key;
    if (!c.read_member_key(key) || !c.next_token()) return false;
    const std::size_t index = find_field<T>(key, hint);
    if (index == n) {
      if (r.options.error_on_unknown_keys) {
        c.fail(errc::unknown_key, key_at, "unknown key");
        c.err.prepend_path(path_key(key));
        return false;
      }
      if (!c.skip_value()) return false;
      continue;
    }
    const int outcome = json_fields<T>::read[index](r, value);
    if (outcome == 0) {
      c.err.prepend_path(path_key(R::names[index]));
      return false;
    }
    seen[index] = true;
    hint = index + 1;
  }
  c.leave();
  if (r.options.error_on_missing_keys) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!seen[i]) {
        c.fail(errc::missing_key, c.p - 1, "missing member");
        c.err.prepend_path(path_key(R::names[i]));
        return false;
      }
    }
  }
  return true;
}

inline bool read_json_bool(json_cursor& c, bool& value) {
  if (*c.p == 't') {
    value = true;
    return c.literal("true", 4);
  }
  if (*c.p == 'f') {
    value = false;
    return c.literal("false", 5);
  }
  return json_mismatch(c, "expected true or false");
}

template <class Enum>
bool read_json_enum(json_cursor& c, Enum& value) {
  if constexpr (has_enum_names<Enum>) {
    if (*c.p == '"') {
      const char* start = c.p;
      std::string_view name;
      if (!c.read_key(name)) return false;
      return enum_from_name(name, value) || c.fail(errc::unknown_enum_name, start, "unknown enum name");
    }
  }
  std::underlying_type_t<Enum> number{};
  if (!read_json_integer(c, number)) return false;
  value = static_cast<Enum>(number);
  return true;
}

inline bool read_json_string(json_cursor& c, std::string& value) {
  if (*c.p != '"') return json_mismatch(c, "expected a string");
  value.clear();
  return c.read_string(&value);
}

inline bool read_json_bytes(json_cursor& c, std::vector<std::byte>& value) {
  if (*c.p != '"') return json_mismatch(c, "expected a Base64 string");
  const char* start = c.p;
  std::string_view text;
  if (!c.read_key(text)) return false;
  std::size_t offset = 0;
  errc code = base64_decode_to(text, value, base64_alphabet::standard, offset);
  return code == errc::ok || c.fail(code, start + 1 + offset, base64_error_message(code));
}

// Any JSON value, validated and kept as its text.
inline bool read_json_raw(json_cursor& c, raw_json& value) {
  const char* start = c.p;
  if (!c.skip_value()) return false;
  value.text.assign(start, static_cast<std::size_t>(c.p - start));
  return true;
}

template <class Nullable>
bool read_json_nullable(json_reader& r, Nullable& value) {
  json_cursor& c = r.cursor;
  if (*c.p == 'n') {
    value.reset();
    return c.literal("null", 4);
  }
  if (reading_allocates(value) && !c.spend(sizeof(typename held<Nullable>::type), c.p)) return false;
  return read_json(r, object_to_read_into(value));
}

template <class T>
bool read_json(json_reader& r, T& value) {
  json_cursor& c = r.cursor;
  constexpr value_kind kind = kind_v<T>;
  if constexpr (std::is_same_v<T, raw_json>) {
    return read_json_raw(c, value);
  } else if constexpr (kind == value_kind::adapted) {
    const char* start = c.p;
    return read_adapted(
        value, [&](auto& wire) { return read_json(r, wire); },
        [&] { return c.fail(errc::invalid_value, start, adapter_refused); });
  } else if constexpr (kind == value_kind::boolean) {
    return read_json_bool(c, value);
  } else if constexpr (kind == value_kind::enumeration) {
    return read_json_enum(c, value);
  } else if constexpr (kind == value_kind::integer) {
    return read_json_integer(c, value);
  } else if constexpr (kind == value_kind::floating) {
    return read_json_float(c, value);
  } else if constexpr (kind == value_kind::string && std::is_same_v<T, std::string>) {
    return read_json_string(c, value);
  } else if constexpr (kind == value_kind::bytes) {
    return read_json_bytes(c, value);
  } else if constexpr (kind == value_kind::fixed_array) {
    return read_json_fixed_array(r, value);
  } else if constexpr (kind == value_kind::sequence) {
    return read_json_sequence(r, value);
  } else if constexpr (kind == value_kind::nullable) {
    return read_json_nullable(r, value);
  } else if constexpr (kind == value_kind::variant) {
    return read_json_variant(r, value);
  } else if constexpr (kind == value_kind::tuple) {
    return read_json_tuple(r, value);
  } else if constexpr (kind == value_kind::map) {
    return read_json_map(r, value);
  } else if constexpr (kind == value_kind::structure) {
    return read_json_struct(r, value);
  } else {
    static_assert(always_false<T>, "savekit cannot read this type; see savekit::adapter");
    return false;
  }
}

struct compact_json_written {
  bool written;        // false (out empty): it nests deeper than options.max_depth
  bool cannot_indent;  // options.pretty, and a raw_json text is not one JSON value
};

// Compact JSON of value into out; not written when it nests deeper than
// options.max_depth, which only a type that contains itself can.
template <class T>
compact_json_written write_compact_json(const T& value, std::string& out, const json_options& options) {
  if constexpr (depth_is_bounded<T>) {
    static_assert(nesting_depth<T>() <= default_max_depth,
                  "this type nests deeper than the readers' default max_depth: it could not be read back");
    json_writer writer{out, options};
    write_json(writer, value);
    writer.out.finish();
    return {true, writer.cannot_indent};
  } else {
    basic_json_writer<true> writer{out, options};
    write_json(writer, value);
    writer.out.finish();
    if (writer.too_deep) out.clear();
    return {!writer.too_deep, writer.cannot_indent};
  }
}

// The same, re-indented when options.pretty.
template <class T>
bool write_json_text(const T& value, std::string& out, const json_options& options) {
  if (!options.pretty) return write_compact_json(value, out, options).written;
  std::string compact;
  const compact_json_written result = write_compact_json(value, compact, options);
  if (!result.written)
    out.clear();
  else if (result.cannot_indent)  // the pass would misread what follows: left as it is
    out = std::move(compact);
  else
    indent_json(compact, options.indent_width, out);
  return result.written;
}

}  // namespace detail

// Writes value as JSON into out, replacing its content and reusing its capacity.
// Returns nothing — or, for a type that contains itself (a tree, a linked chain), a
// status: errc::depth_exceeded when the value nests deeper than options.max_depth,
// which the readers would refuse (out is then empty). What cannot be read back is not written.
// (Inline, the options handed on by reference: see read_msgpack_document.)
template <class T>
SAVEKIT_ALWAYS_INLINE detail::write_result<T, void> to_json(const T& value, std::string& out,
                                                            json_options options = {}) {
  if constexpr (detail::depth_is_bounded<T>) {
    detail::write_json_text(value, out, options);
  } else {
    if (!detail::write_json_text(value, out, options)) return detail::too_deep_to_write(options.max_depth);
    return {};
  }
}

template <class T>
detail::write_result<T, std::string> to_json(const T& value, json_options options = {}) {
  std::string out;
  if constexpr (detail::depth_is_bounded<T>) {
    to_json(value, out, options);
  } else {
    if (status written = to_json(value, out, options); !written) return std::move(written).error();
  }
  return out;
}

// Reads JSON into an existing object, reusing the capacity of its strings and vectors.
// On error, into may be partly updated.
namespace detail {
// What from_json does, its text as a pointer and a length and its options by reference
// (see read_msgpack_document: in WebAssembly a struct passed by value stalls the call).
template <class T>
status read_json_document(const char* text, std::size_t size, T& into, const json_options& options) {
  json_reader reader{json_cursor{std::string_view(text, size), options.max_depth}, options};
  json_cursor& c = reader.cursor;
  c.memory_left = options.max_memory;
  if (!c.next_token() || !read_json(reader, into) || !c.finish()) return std::move(c.err).take();
  return {};
}
}  // namespace detail

template <class T>
SAVEKIT_ALWAYS_INLINE status from_json(std::string_view text, T& into, json_options options = {}) {
  return detail::read_json_document(text.data(), text.size(), into, options);
}

template <class T>
result<T> from_json(std::string_view text, json_options options = {}) {
  result<T> out{std::in_place};
  status read = from_json(text, *out, options);
  if (!read) return std::move(read).error();
  return out;
}

}  // namespace savekit
