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

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "savekit/base64.hpp"
#include "savekit/detail/bytes.hpp"
#include "savekit/detail/msgpack_wire.hpp"
#include "savekit/detail/numbers.hpp"
#include "savekit/detail/path.hpp"
#include "savekit/detail/read_rules.hpp"
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
  static constexpr bool checked = Checked;
  // A constructor, not an aggregate: see output's first window.
  msgpack_typed_writer(Container& out, msgpack_form form_, std::uint32_t max_depth_ = default_max_depth)
      : wire{output<Container>{out}}, form(form_), max_depth(max_depth_) {}
  msgpack_typed_writer(const msgpack_typed_writer&) = delete;
  msgpack_typed_writer& operator=(const msgpack_typed_writer&) = delete;

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

// ---- values of bounded size: one reservation for a run of them ----------------------------
//
// Scalars, and structs and small fixed arrays made only of them, take at most a number of
// bytes known at compile time. Runs of such values — the members of a struct between two
// strings, each element of a vector of small structs — are written into one reservation
// with no check per value. (A Checked writer counts the depth of every struct it enters,
// so for it only scalars are bounded.)

inline constexpr std::size_t max_bounded_msgpack_bytes = 1024;

template <class T, bool Checked = false>
consteval std::size_t bounded_msgpack_size();

template <class T>
consteval std::size_t msgpack_struct_header_bytes() {
  constexpr std::size_t n = reflection<T>::size > compact_length<T>() ? reflection<T>::size : compact_length<T>();
  return n < 16 ? 1 : n <= 0xFFFF ? 3 : 5;
}

// Either form: the compact form's slots (gaps are nil) or the map form's keys and values.
template <class T>
consteval std::size_t bounded_msgpack_struct_size() {
  using R = reflection<T>;
  return [&]<std::size_t... I>(std::index_sequence<I...>)->std::size_t {
    constexpr std::size_t members[] = {
        0, bounded_msgpack_size<std::remove_cvref_t<decltype(R::template get<I>(std::declval<T&>()))>>()...};
    std::size_t values = 0;
    for (std::size_t i = 1; i < sizeof...(I) + 1; ++i) {
      if (members[i] == 0) return 0;
      values += members[i];
    }
    const std::size_t gaps = compact_length<T>() - R::size;
    const std::size_t keys = (std::size_t{0} + ... + msgpack_key<T, I>::size);
    const std::size_t most = msgpack_struct_header_bytes<T>() + values + (keys > gaps ? keys : gaps);
    return most <= max_bounded_msgpack_bytes ? most : 0;
  }
  (std::make_index_sequence<R::size>{});
}

template <class T, bool Checked>
consteval std::size_t bounded_msgpack_size() {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (kind == value_kind::boolean) {
    return 1;
  } else if constexpr (kind == value_kind::integer) {
    return 1 + sizeof(T);
  } else if constexpr (kind == value_kind::enumeration && !has_enum_names<T>) {
    return 1 + sizeof(T);
  } else if constexpr (kind == value_kind::floating) {
    return std::is_same_v<T, float> ? 5 : 9;
  } else if constexpr (Checked) {
    return 0;
  } else if constexpr (kind == value_kind::structure) {
    return bounded_msgpack_struct_size<T>();
  } else if constexpr (kind == value_kind::fixed_array) {
    constexpr std::size_t n = fixed_size<T>();
    constexpr std::size_t element =
        bounded_msgpack_size<std::remove_cvref_t<decltype(*std::begin(std::declval<T&>()))>>();
    constexpr std::size_t most = max_header_bytes + n * element;
    return element != 0 && most <= max_bounded_msgpack_bytes ? most : 0;
  } else {
    return 0;
  }
}

template <class T>
SAVEKIT_ALWAYS_INLINE char* put_bounded_msgpack(char* p, const T& value, msgpack_form form);
template <class T>
inline char* put_bounded_msgpack_aggregate(char* p, const T& value, msgpack_form form);
template <class T>
SAVEKIT_ALWAYS_INLINE char* put_sized_msgpack(char* p, const T& value, msgpack_form form);
template <class T>
char* put_sized_msgpack_struct(char* p, const T& value, msgpack_form form);

// Item K of a struct's encoding in one form, the header first: for the compact form slot
// K - 1 (a gap is nil), for the map form field K - 1 with its key.
template <class T, bool Compact, bool Checked>
struct msgpack_struct_items {
  using R = reflection<T>;
  static constexpr bool compact = Compact;
  static constexpr std::size_t count = 1 + (Compact ? compact_length<T>() : R::size);

  template <std::size_t K>
  static constexpr int field_of() {  // -1: a gap
    if constexpr (Compact)
      return compact_slots<T>[K - 1];
    else
      return static_cast<int>(K - 1);
  }
  template <int F>
  using field_type =
      std::remove_cvref_t<decltype(R::template get<static_cast<std::size_t>(F < 0 ? 0 : F)>(std::declval<const T&>()))>;

  template <std::size_t K>
  static consteval std::size_t item_bound() {
    if constexpr (K == 0) {
      return msgpack_struct_header_bytes<T>();
    } else if constexpr (constexpr int f = field_of<K>(); f < 0) {
      return 1;
    } else {
      constexpr std::size_t most = bounded_msgpack_size<field_type<f>, Checked>();
      if constexpr (Compact)
        return most;
      else
        return most == 0 ? 0 : msgpack_key<T, K - 1>::size + most;
    }
  }
  // bounds[K]: the most bytes item K takes, 0 if that is not bounded; runs[K]: the bytes
  // items K, K + 1, ... take up to the first of unbounded size.
  static constexpr auto bounds = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<std::size_t, count>{item_bound<K>()...};
  }
  (std::make_index_sequence<count>{});
  static constexpr auto runs = reservation_runs(bounds);

  // Item K, bounded, at p.
  template <std::size_t K>
  SAVEKIT_ALWAYS_INLINE static char* put(char* p, const T& value) {
    if constexpr (K == 0) {
      return Compact ? put_array_header(p, count - 1) : put_map_header(p, count - 1);
    } else if constexpr (constexpr int f = field_of<K>(); f < 0) {
      *p = static_cast<char>(mp::nil);
      return p + 1;
    } else {
      if constexpr (!Compact) {
        std::memcpy(p, msgpack_key<T, K - 1>::bytes.data(), msgpack_key<T, K - 1>::size);
        p += msgpack_key<T, K - 1>::size;
      }
      return put_sized_msgpack(p, R::template get<static_cast<std::size_t>(f)>(value),
                               Compact ? msgpack_form::compact : msgpack_form::map);
    }
  }

  // Item K, of unbounded size, through the writer.
  template <std::size_t K, class Writer>
  static void write(Writer& w, const T& value) {
    constexpr int f = field_of<K>();
    if constexpr (!Compact) w.wire.out.append(msgpack_key<T, K - 1>::bytes.data(), msgpack_key<T, K - 1>::size);
    write_msgpack(w, R::template get<static_cast<std::size_t>(f)>(value));
  }
};

// Item K: a bounded item opens its run's one reservation (if it is the first) and closes it
// (if it is the last); the position p passes from one to the next by value. (Not through a
// reference or a lambda's captures: every byte stored through a char* could alias those,
// and would make the compiler reload them after each store.)
template <class Items, std::size_t K, class Writer, class T>
SAVEKIT_ALWAYS_INLINE char* write_msgpack_item(Writer& w, const T& value, char* p) {
  if constexpr (Items::bounds[K] == 0) {
    Items::template write<K>(w, value);
  } else {
    if constexpr (K == 0 || Items::bounds[K - 1] == 0) p = w.wire.out.reserve(Items::runs[K]);
    p = Items::template put<K>(p, value);
    if constexpr (Items::runs[K + 1] == 0) w.wire.out.advance_to(p);
  }
  return p;
}

template <class Items, class Writer, class T, std::size_t... K>
SAVEKIT_ALWAYS_INLINE void write_msgpack_items(Writer& w, const T& value, std::index_sequence<K...>) {
  char* p = nullptr;
  ((p = write_msgpack_item<Items, K>(w, value, p)), ...);
}

// Every item of a bounded struct at p.
template <class Items, class T, std::size_t... K>
SAVEKIT_ALWAYS_INLINE char* put_msgpack_items(char* p, const T& value, std::index_sequence<K...>) {
  ((p = Items::template put<K>(p, value)), ...);
  return p;
}

// A value of bounded size at p, which has room for it (bounded_msgpack_size). A scalar is
// written inline where it is; an array or struct of them by a function of its own, which the
// compiler may inline or not.
template <class T>
SAVEKIT_ALWAYS_INLINE char* put_bounded_msgpack(char* p, const T& value, msgpack_form form) {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (kind == value_kind::boolean) {
    *p = static_cast<char>(value ? mp::true_ : mp::false_);
    return p + 1;
  } else if constexpr (kind == value_kind::integer) {
    return put_integer(p, value);
  } else if constexpr (kind == value_kind::enumeration) {
    return put_integer(p, static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (std::is_same_v<T, float>) {
    return put_float32(p, value);
  } else if constexpr (kind == value_kind::floating) {
    return put_float64(p, static_cast<double>(value));
  } else {
    return put_bounded_msgpack_aggregate(p, value, form);
  }
}

template <class T>
inline char* put_bounded_msgpack_aggregate(char* p, const T& value, msgpack_form form) {
  if constexpr (kind_v<T> == value_kind::fixed_array) {
    p = put_array_header(p, fixed_size<T>());
    for (const auto& element : value) p = put_bounded_msgpack(p, element, form);
    return p;
  } else {
    using compact = msgpack_struct_items<T, true, false>;
    using map = msgpack_struct_items<T, false, false>;
    return form == msgpack_form::compact
               ? put_msgpack_items<compact>(p, value, std::make_index_sequence<compact::count>{})
               : put_msgpack_items<map>(p, value, std::make_index_sequence<map::count>{});
  }
}

// ---- values of sized encoding: one reservation for a whole struct ------------------------
//
// A struct made only of bounded values, strings, byte vectors, sequences of bounded
// elements, optionals of those and structs of those takes at most a number of bytes that
// its lengths give. The usual save is such a struct, and small: it is written into one
// reservation, with no check per member (glaze reserves once per object too).

template <class T>
consteval bool is_sized_msgpack() {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (bounded_msgpack_size<T>() != 0 || kind == value_kind::string || kind == value_kind::bytes) {
    return true;
  } else if constexpr (kind == value_kind::sequence || kind == value_kind::fixed_array) {
    return bounded_msgpack_size<std::remove_cvref_t<decltype(element_value(*std::begin(std::declval<T&>())))>>() != 0;
  } else if constexpr (!depth_is_bounded<T>) {
    return false;  // (a type that contains itself, through a pointer)
  } else if constexpr (kind == value_kind::nullable) {
    return is_sized_msgpack<std::remove_cv_t<typename held<T>::type>>();
  } else if constexpr (kind == value_kind::structure) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (true && ... &&
              is_sized_msgpack<std::remove_cvref_t<decltype(reflection<T>::template get<I>(std::declval<T&>()))>>());
    }
    (std::make_index_sequence<reflection<T>::size>{});
  } else {
    return false;
  }
}

template <class T>
inline constexpr bool sized_msgpack = is_sized_msgpack<T>();

// A sized struct larger than this goes item by item, its sequences in chunks: a reused
// buffer is not grown far past what a save takes (growing a std::vector fills it).
inline constexpr std::size_t max_sized_reservation = 4096;

// The most bytes a sized value takes, in either form; past max_sized_reservation, only
// some number over it. (Capped at each length, not computed and then compared: a count
// times an element's bound wraps where std::size_t has 32 bits — WebAssembly — and a
// few MB of one-byte structs with 1,000-slot compact forms would seem to fit.)
template <class T>
SAVEKIT_ALWAYS_INLINE std::size_t sized_msgpack_bound(const T& value) {
  constexpr std::size_t over = max_sized_reservation + 1;
  constexpr value_kind kind = kind_v<T>;
  if constexpr (constexpr std::size_t most = bounded_msgpack_size<T>(); most != 0) {
    return most;
  } else if constexpr (kind == value_kind::string || kind == value_kind::bytes) {
    const std::size_t n = value.size();
    return n < max_sized_reservation ? max_header_bytes + n : over;
  } else if constexpr (kind == value_kind::sequence || kind == value_kind::fixed_array) {
    using Element = std::remove_cvref_t<decltype(element_value(*std::begin(value)))>;
    constexpr std::size_t element = bounded_msgpack_size<Element>();
    const std::size_t n = std::size(value);
    return n <= max_sized_reservation / element ? max_header_bytes + n * element : over;
  } else if constexpr (kind == value_kind::nullable) {
    return value ? sized_msgpack_bound(*value) : 1;
  } else {
    using R = reflection<T>;
    // (Each member's bound is at most over, or 1,024 for a bounded one: no sum wraps.)
    const std::size_t sum = [&]<std::size_t... I>(std::index_sequence<I...>) {
      constexpr std::size_t gaps = compact_length<T>() - R::size;
      constexpr std::size_t keys = (std::size_t{0} + ... + msgpack_key<T, I>::size);
      constexpr std::size_t fixed = msgpack_struct_header_bytes<T>() + (keys > gaps ? keys : gaps);
      return (fixed + ... + sized_msgpack_bound(R::template get<I>(value)));
    }
    (std::make_index_sequence<R::size>{});
    return sum < over ? sum : over;
  }
}

// A sized value at p, which has room for it (sized_msgpack_bound).
template <class T>
SAVEKIT_ALWAYS_INLINE char* put_sized_msgpack(char* p, const T& value, msgpack_form form) {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (bounded_msgpack_size<T>() != 0) {
    return put_bounded_msgpack(p, value, form);
  } else if constexpr (kind == value_kind::string) {
    const std::size_t n = value.size();
    p = put_str_header(p, n);
    copy_bytes(p, value.data(), n);
    return p + n;
  } else if constexpr (kind == value_kind::bytes) {
    const std::size_t n = value.size();
    p = put_bin_header(p, n);
    if (n != 0) std::memcpy(p, value.data(), n);
    return p + n;
  } else if constexpr (kind == value_kind::sequence || kind == value_kind::fixed_array) {
    p = put_array_header(p, std::size(value));
    for (const auto& element : value) p = put_bounded_msgpack(p, element_value(element), form);
    return p;
  } else if constexpr (kind == value_kind::nullable) {
    if (value) return put_sized_msgpack(p, *value, form);
    *p = static_cast<char>(mp::nil);
    return p + 1;
  } else {
    return put_sized_msgpack_struct(p, value, form);
  }
}

// (One function per struct, not inline in each struct that holds it: a struct nested in
// several costs its code once.)
template <class T>
char* put_sized_msgpack_struct(char* p, const T& value, msgpack_form form) {
  using compact = msgpack_struct_items<T, true, false>;
  using map = msgpack_struct_items<T, false, false>;
  return form == msgpack_form::compact
             ? put_msgpack_items<compact>(p, value, std::make_index_sequence<compact::count>{})
             : put_msgpack_items<map>(p, value, std::make_index_sequence<map::count>{});
}

// That rare path is a call per item, each to a writer shared by every struct: a second,
// inline copy of each struct's members would only cost compile time.
template <class Writer, class T>
[[gnu::noinline]] void write_msgpack_by_call(Writer& w, const T& value) {
  write_msgpack(w, value);
}

template <class Items, std::size_t K, class Writer, class T>
SAVEKIT_ALWAYS_INLINE void write_msgpack_item_by_call(Writer& w, const T& value) {
  if constexpr (K == 0) {
    if constexpr (Items::compact)
      w.wire.array_header(Items::count - 1);
    else
      w.wire.map_header(Items::count - 1);
  } else if constexpr (constexpr int f = Items::template field_of<K>(); f < 0) {
    w.wire.byte(mp::nil);
  } else {
    if constexpr (!Items::compact) w.wire.out.append(msgpack_key<T, K - 1>::bytes.data(), msgpack_key<T, K - 1>::size);
    write_msgpack_by_call(w, Items::R::template get<static_cast<std::size_t>(f)>(value));
  }
}

template <class Items, class Writer, class T, std::size_t... K>
void write_msgpack_items_by_call(Writer& w, const T& value, std::index_sequence<K...>) {
  (write_msgpack_item_by_call<Items, K>(w, value), ...);
}

template <class Writer, class T>
void write_msgpack_struct(Writer& w, const T& value) {
  if (!w.enter()) return;
  using compact = msgpack_struct_items<T, true, Writer::checked>;
  using map = msgpack_struct_items<T, false, Writer::checked>;
  if constexpr (!Writer::checked && bounded_msgpack_size<T>() == 0 && sized_msgpack<T>) {
    if (const std::size_t most = sized_msgpack_bound(value); SAVEKIT_LIKELY(most <= max_sized_reservation)) {
      char* p = w.wire.out.reserve(most);
      w.wire.out.advance_to(put_sized_msgpack(p, value, w.form));
    } else if (w.form == msgpack_form::map) {
      write_msgpack_items_by_call<map>(w, value, std::make_index_sequence<map::count>{});
    } else {
      write_msgpack_items_by_call<compact>(w, value, std::make_index_sequence<compact::count>{});
    }
  } else if (w.form == msgpack_form::map) {
    write_msgpack_items<map>(w, value, std::make_index_sequence<map::count>{});
  } else {
    write_msgpack_items<compact>(w, value, std::make_index_sequence<compact::count>{});
  }
  w.leave();
}

// The elements of a sequence or fixed array. Elements of bounded size are written in
// chunks, each one reservation (a chunk's worst case stays small: a reused buffer is not
// grown far past what the elements take).
template <class Writer, class Sequence>
void write_msgpack_elements(Writer& w, const Sequence& value) {
  using Element = std::remove_cvref_t<decltype(element_value(*std::begin(value)))>;
  constexpr std::size_t most = bounded_msgpack_size<Element, Writer::checked>();
  const std::size_t n = std::size(value);
  w.wire.array_header(n);
  if constexpr (most == 0) {
    for (const auto& element : value) write_msgpack(w, element_value(element));
  } else {
    constexpr std::size_t per_chunk = most < 4096 ? 4096 / most : 1;
    auto it = std::begin(value);
    for (std::size_t left = n; left != 0;) {
      const std::size_t chunk = left < per_chunk ? left : per_chunk;
      char* p = w.wire.out.reserve(chunk * most);
      for (std::size_t i = 0; i < chunk; ++i, ++it) p = put_bounded_msgpack(p, element_value(*it), w.form);
      w.wire.out.advance_to(p);
      left -= chunk;
    }
  }
}

template <class Writer, class T>
void write_msgpack(Writer& w, const T& value) {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (kind == value_kind::adapted) {
    write_msgpack(w, adapter<T>::to_wire(value));
  } else if constexpr (kind == value_kind::boolean) {
    w.wire.byte(value ? mp::true_ : mp::false_);
  } else if constexpr (kind == value_kind::enumeration) {
    if constexpr (has_enum_names<T>) {
      std::string_view name = enum_to_name(value);
      if (!name.empty()) return w.wire.str(name.data(), name.size());
    }
    w.wire.integer(static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (kind == value_kind::integer) {
    w.wire.integer(value);
  } else if constexpr (std::is_same_v<T, float>) {
    w.wire.float32(value);
  } else if constexpr (kind == value_kind::floating) {
    w.wire.float64(static_cast<double>(value));
  } else if constexpr (kind == value_kind::string) {
    w.wire.str(value.data(), value.size());
  } else if constexpr (kind == value_kind::bytes) {
    w.wire.bin(value.data(), value.size());
  } else if constexpr (kind == value_kind::fixed_array || kind == value_kind::sequence) {
    if (!w.enter()) return;
    write_msgpack_elements(w, value);
    w.leave();
  } else if constexpr (kind == value_kind::nullable) {
    if (value)
      write_msgpack(w, *value);
    else
      w.wire.byte(mp::nil);
  } else if constexpr (kind == value_kind::variant) {
    if (!w.enter()) return;
    w.wire.array_header(2);
    w.wire.unsigned_integer(value.index());
    std::visit([&](const auto& alternative) { write_msgpack(w, alternative); }, value);
    w.leave();
  } else if constexpr (kind == value_kind::tuple) {
    if (!w.enter()) return;
    w.wire.array_header(std::tuple_size_v<T>);
    std::apply([&](const auto&... element) { (write_msgpack(w, element), ...); }, value);
    w.leave();
  } else if constexpr (kind == value_kind::map) {
    static_assert(std::is_same_v<typename T::key_type, std::string> || std::is_integral_v<typename T::key_type>,
                  "map keys must be std::string or integers");
    if (!w.enter()) return;
    w.wire.map_header(value.size());
    for (const auto& [key, mapped] : value) {
      write_msgpack(w, key);
      write_msgpack(w, mapped);
    }
    w.leave();
  } else if constexpr (kind == value_kind::structure) {
    write_msgpack_struct(w, value);
  } else {
    static_assert(msgpack_always_false<T>, "savekit cannot write this type; see savekit::adapter");
  }
}

// ---- reader -----------------------------------------------------------------------------
//
// One function per kind of value (value_kind), each short; read_msgpack dispatches. The
// rules that do not depend on the format (adapters, null gaps, variant switches, repeated
// map keys, memory accounting) are in detail/read_rules.hpp.

template <class T>
bool read_msgpack(msgpack_cursor& c, T& value);
template <class T>
bool read_msgpack_value(msgpack_cursor& c, T& value);

// The next value is not what the target wants (or is not MessagePack at all).
inline bool msgpack_mismatch(msgpack_cursor& c, const char* expected) {
  if (*c.p == mp::never_used) return c.fail(errc::invalid_msgpack, c.p, "byte 0xc1 is never used in MessagePack");
  return c.fail(errc::type_mismatch, c.p, expected);
}

// A typed read that must find its type: another type is a mismatch.
inline bool required(msgpack_cursor& c, probe found, const char* expected) {
  return found == probe::read || (found == probe::other_type && msgpack_mismatch(c, expected));
}

template <class Int>
bool read_msgpack_wide_integer(msgpack_cursor& c, Int& value) {
  const unsigned char* start = c.p;
  std::uint64_t v = 0;
  bool negative = false;
  if (!required(c, c.integer(v, negative), "expected an integer")) return false;
  integer_fit fit = integer_from_magnitude(negative, negative ? 0 - v : v, value);
  return fit == integer_fit::fits || c.fail(errc::number_out_of_range, start, integer_fit_message(fit));
}

// gap_keeps_value: a compact slot, where nil marks a gap (the integer keeps its value).
inline constexpr bool gap_keeps_value = true;

// v into out if T holds it, then p past the `size` bytes it took; false (nothing read) if not.
template <class T, class V>
SAVEKIT_ALWAYS_INLINE bool fits_flat(T& out, V v, const unsigned char*& p, int size) {
  if constexpr (std::is_signed_v<V>) {
    if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min())) return false;
    if (v > 0 && static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      return false;
  } else {
    if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return false;
  }
  out = static_cast<T>(v);
  p += size;
  return true;
}

// Positive fixints (0..127: levels, counts, enums) and uint8/16/32 that fit read inline;
// the rest, and every error, out of line. The caller has checked that a byte is there
// (msgpack_cursor::more()). With NilKeepsValue, nil (a compact slot's gap) leaves value
// as it is.
template <bool NilKeepsValue = false, class Int>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_integer(msgpack_cursor& c, Int& value) {
  std::uint8_t marker = *c.p;
  if (SAVEKIT_LIKELY(marker < 0x80)) {
    value = static_cast<Int>(marker);
    ++c.p;
    return true;
  }
  // Each width its own branch, its room checked and its size a constant, so that what
  // follows does not wait for the marker's decoding (and the input's last value, which has
  // no room for a wider one after it, stays inline too).
  if (marker >= mp::uint8 && marker <= mp::uint32) {
    const unsigned char* p = c.p;
    const std::size_t room = c.remaining();
    const bool fits = marker == mp::uint8    ? room > 1 && fits_flat(value, p[1], p, 2)
                      : marker == mp::uint16 ? room > 2 && fits_flat(value, load_big_endian(p + 1, 2), p, 3)
                                             : room > 4 && fits_flat(value, load_big_endian(p + 1, 4), p, 5);
    if (fits) {
      c.p = p;
      return true;
    }
  }
  if constexpr (NilKeepsValue) {
    if (marker == mp::nil) {
      ++c.p;
      return true;
    }
  }
  return read_msgpack_wide_integer(c, value);
}

// A float or double from float32, float64 or any integer.
template <class Float>
bool read_msgpack_any_float(msgpack_cursor& c, Float& value) {
  const unsigned char* start = c.p;
  double d = 0;
  bool single = false;
  if (probe found = c.floating(d, single); found != probe::other_type) {
    if (found == probe::failed) return false;
    if constexpr (std::is_same_v<Float, float>) {
      if (!single && std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
        return c.fail(errc::number_out_of_range, start, "number out of range for float");
    }
    value = static_cast<Float>(d);
    return true;
  }
  std::uint64_t bits = 0;
  bool negative = false;
  if (!required(c, c.integer(bits, negative), "expected a number")) return false;
  value = negative ? static_cast<Float>(static_cast<std::int64_t>(bits)) : static_cast<Float>(bits);
  return true;
}

// A float from float32 or a double from float64, what savekit writes, read inline (heights,
// positions: arrays of thousands); every other encoding, and every error, out of line.
// The caller has checked that a byte is there.
template <class Float>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_float(msgpack_cursor& c, Float& value) {
  if constexpr (std::is_same_v<Float, float> || std::is_same_v<Float, double>) {
    constexpr std::uint8_t marker = std::is_same_v<Float, float> ? mp::float32 : mp::float64;
    if (SAVEKIT_LIKELY(*c.p == marker && c.remaining() > sizeof(Float))) {
      using Bits = std::conditional_t<std::is_same_v<Float, float>, std::uint32_t, std::uint64_t>;
      auto bits = static_cast<Bits>(load_big_endian(c.p + 1, sizeof(Float)));
      std::memcpy(&value, &bits, sizeof(Float));
      c.p += 1 + sizeof(Float);
      return true;
    }
  }
  return read_msgpack_any_float(c, value);
}

inline bool read_msgpack_nil(msgpack_cursor& c) {
  if (*c.p != mp::nil) return false;
  ++c.p;
  return true;
}

inline bool read_msgpack_bool(msgpack_cursor& c, bool& value) {
  if (*c.p != mp::true_ && *c.p != mp::false_) return msgpack_mismatch(c, "expected true or false");
  value = *c.p++ == mp::true_;
  return true;
}

// A str or bin payload as text (kind tells which).
inline probe read_msgpack_payload(msgpack_cursor& c, std::string_view& text, payload_kind& kind) {
  const unsigned char* data = nullptr;
  std::uint64_t length = 0;
  probe found = c.string_or_binary(data, length, kind);
  if (found == probe::read)
    text = std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(length));
  return found;
}

template <class Enum>
bool read_msgpack_enum(msgpack_cursor& c, Enum& value) {
  if constexpr (has_enum_names<Enum>) {
    const unsigned char* start = c.p;
    std::string_view name;
    payload_kind kind{};
    if (probe found = read_msgpack_payload(c, name, kind); found != probe::other_type) {
      if (found == probe::failed) return false;
      return enum_from_name(name, value) || c.fail(errc::unknown_enum_name, start, "unknown enum name");
    }
  }
  std::underlying_type_t<Enum> number{};
  if (!read_msgpack_integer(c, number)) return false;
  value = static_cast<Enum>(number);
  return true;
}

inline bool read_msgpack_string(msgpack_cursor& c, std::string& value) {
  std::string_view text;
  payload_kind kind{};
  if (!required(c, read_msgpack_payload(c, text, kind), "expected a string")) return false;
  assign_string(value, text);
  return true;
}

inline bool read_msgpack_bytes(msgpack_cursor& c, std::vector<std::byte>& value) {
  std::string_view payload;
  payload_kind kind{};
  if (!required(c, read_msgpack_payload(c, payload, kind), "expected binary data")) return false;
  if (kind == payload_kind::str) {
    // A str where binary data belongs: MessagePack that went through JSON (where bytes
    // are Base64 text) and back. Decoded as the JSON reader and the transcoder do.
    std::size_t offset = 0;
    errc code = base64_decode_to(payload, value, base64_alphabet::standard, offset);
    if (code != errc::ok)
      return c.fail(code, reinterpret_cast<const unsigned char*>(payload.data()) + offset, base64_error_message(code));
    return true;
  }
  value.resize(payload.size());
  if (!payload.empty()) std::memcpy(value.data(), payload.data(), payload.size());
  return true;
}

// An array or map header of the kind wanted; another kind is a mismatch at the header.
inline bool read_msgpack_any_header(msgpack_cursor& c, container_kind wanted, std::uint64_t& count,
                                    const char* expected) {
  const unsigned char* start = c.p;
  container_kind kind{};
  if (!required(c, c.container(count, kind), expected)) return false;
  if (kind != wanted) return c.fail(errc::type_mismatch, start, expected);
  return true;
}

// The header of an array or a map (wanted), whose first byte is there: a fixarray or
// fixmap whose entries fit in the rest of the input read inline, the rest out of line.
SAVEKIT_ALWAYS_INLINE bool read_msgpack_header(msgpack_cursor& c, container_kind wanted, std::uint64_t& count,
                                               const char* expected) {
  const bool array = wanted == container_kind::array;
  std::uint8_t b = *c.p;
  if (SAVEKIT_LIKELY((b & 0xf0) == (array ? 0x90 : 0x80))) {
    std::uint64_t n = b & 0x0fu;
    if (SAVEKIT_LIKELY((array ? n : 2 * n) < c.remaining())) {
      count = n;
      ++c.p;
      return true;
    }
  }
  return read_msgpack_any_header(c, wanted, count, expected);
}

// ---- flat elements: arrays of numbers and of small structs of numbers ----------------------
//
// An inventory is thousands of small structs of integers; a height map, thousands of
// floats. Their usual encodings are read in one tight loop over a local position (kept in a
// register, where the cursor's own, written back after every value, made each element wait
// on the last), and so are a save's two items; anything else — another encoding, a nil
// gap, a value out of range, a value cut off by the input's end — stops the loop where it
// is, and the general reader goes on from that element, with its checks and its errors.

template <class T>
constexpr bool compact_keys_in_order() {
  constexpr const auto& keys = reflection<T>::keys;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (static_cast<std::size_t>(keys[i]) != i) return false;
  return true;
}

template <class T>
consteval bool is_flat_scalar() {
  return !std::is_same_v<T, bool> &&
         (kind_v<T> == value_kind::integer || std::is_same_v<T, float> || std::is_same_v<T, double>);
}

template <class T>
consteval bool is_flat_element() {
  if constexpr (is_flat_scalar<T>()) {
    return true;
  } else if constexpr (kind_v<T> == value_kind::structure) {
    using R = reflection<T>;
    if constexpr (R::size == 0 || R::size >= 16 || !compact_keys_in_order<T>()) {
      return false;
    } else {
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return (is_flat_scalar<std::remove_cvref_t<decltype(R::template get<I>(std::declval<T&>()))>>() && ...);
      }
      (std::make_index_sequence<R::size>{});
    }
  } else {
    return false;
  }
}

// Unchecked, true; Checked, whether bytes are left at p. (A function: a lambda is not
// inlined for its caller's always_inline — see read_flat_members — and here it was not.)
template <bool Checked>
SAVEKIT_ALWAYS_INLINE bool has_room(const unsigned char* p, const unsigned char* end, std::ptrdiff_t bytes) {
  return !Checked || end - p >= bytes;
}

// One number in its usual encoding at p, or false with nothing read. Unchecked, p has room
// for the widest encoding read here (flat_most_bytes, below); Checked (the input's last
// bytes), each encoding checks its own.
template <bool Checked, class T>
SAVEKIT_ALWAYS_INLINE bool read_flat_scalar(const unsigned char*& p, const unsigned char* end, T& out) {
  if (!has_room<Checked>(p, end, 1)) return false;
  const std::uint8_t marker = *p;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    constexpr std::uint8_t expected = std::is_same_v<T, float> ? mp::float32 : mp::float64;
    if (marker != expected || !has_room<Checked>(p, end, static_cast<std::ptrdiff_t>(1 + sizeof(T)))) return false;
    using Bits = std::conditional_t<std::is_same_v<T, float>, std::uint32_t, std::uint64_t>;
    auto bits = static_cast<Bits>(load_big_endian(p + 1, sizeof(T)));
    std::memcpy(&out, &bits, sizeof(T));
    p += 1 + sizeof(T);
    return true;
  } else {
    if (marker < 0x80) {
      out = static_cast<T>(marker);
      ++p;
      return true;
    }
    // Each width its own branch and its size a constant: the next value's position then
    // follows the predicted branch instead of waiting for this marker's decoding.
    switch (marker) {
      case mp::uint8:
        return has_room<Checked>(p, end, 2) && fits_flat(out, p[1], p, 2);
      case mp::uint16:
        return has_room<Checked>(p, end, 3) && fits_flat(out, load_big_endian(p + 1, 2), p, 3);
      case mp::uint32:
        return has_room<Checked>(p, end, 5) && fits_flat(out, load_big_endian(p + 1, 4), p, 5);
      default:
        break;
    }
    if constexpr (sizeof(T) == 8) {  // (timestamps, ids: what savekit writes for a 64-bit member)
      if (marker == mp::uint64) return has_room<Checked>(p, end, 9) && fits_flat(out, load_big_endian(p + 1, 8), p, 9);
      if (std::is_signed_v<T> && marker == mp::int64)
        return has_room<Checked>(p, end, 9) &&
               fits_flat(out, static_cast<std::int64_t>(load_big_endian(p + 1, 8)), p, 9);
    }
    if constexpr (std::is_signed_v<T>) {
      switch (marker) {
        case mp::int8:
          return has_room<Checked>(p, end, 2) && fits_flat(out, static_cast<std::int8_t>(p[1]), p, 2);
        case mp::int16:
          return has_room<Checked>(p, end, 3) &&
                 fits_flat(out, static_cast<std::int16_t>(load_big_endian(p + 1, 2)), p, 3);
        case mp::int32:
          return has_room<Checked>(p, end, 5) &&
                 fits_flat(out, static_cast<std::int32_t>(load_big_endian(p + 1, 4)), p, 5);
        default:
          if (marker >= 0xe0) return fits_flat(out, static_cast<std::int8_t>(marker), p, 1);
          break;
      }
    }
    return false;
  }
}

// One flat element at p: a number, or a struct's compact form holding every member in
// order. False (p unchanged) if it is not in that form (or, Checked, not all there).
// (Functions, not lambdas: a lambda is not inlined for its caller's always_inline, and the
// position, passed to it, would go to memory.)
template <bool Checked, class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE bool read_flat_members(const unsigned char*& p, const unsigned char* end, T& out,
                                             std::index_sequence<I...>) {
  return (read_flat_scalar<Checked>(p, end, reflection<T>::template get<I>(out)) && ...);
}

template <bool Checked, class T>
SAVEKIT_ALWAYS_INLINE bool read_flat_element(const unsigned char*& p, const unsigned char* end, T& out) {
  if constexpr (is_flat_scalar<T>()) {
    return read_flat_scalar<Checked>(p, end, out);
  } else {
    constexpr std::size_t n = reflection<T>::size;
    const unsigned char* at = p;
    if ((Checked && at == end) || *at != (0x90 | n)) return false;
    ++at;
    if (!read_flat_members<Checked>(at, end, out, std::make_index_sequence<n>{})) return false;
    p = at;
    return true;
  }
}

// The most bytes read_flat_element<false> may read for a T: the widest encoding it takes
// for each number (up to uint32/int32 for an integer of up to 32 bits — uint16 into an int8
// that holds its value included — uint64/int64 for a 64-bit one, float32 or float64 for a
// float), not the widest the writer would use for T (bounded_msgpack_size: 2 bytes for an
// int8).
template <class T>
consteval std::size_t flat_most_bytes() {
  if constexpr (std::is_same_v<T, float>) {
    return 5;
  } else if constexpr (std::is_same_v<T, double>) {
    return 9;
  } else if constexpr (is_flat_scalar<T>()) {
    return sizeof(T) == 8 ? 9 : 5;
  } else {
    using R = reflection<T>;
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (std::size_t{1} + ... +
              flat_most_bytes<std::remove_cvref_t<decltype(R::template get<I>(std::declval<T&>()))>>());
    }
    (std::make_index_sequence<R::size>{});
  }
}

// Reads elements into out[0], out[1], ... up to count while they are flat; returns how
// many it read. While room for the largest encoding of an element remains, one check per
// element; then (an inventory's last items, or all of a save's two) one per value.
template <class E>
SAVEKIT_ALWAYS_INLINE std::uint64_t read_flat_run(const unsigned char*& p, const unsigned char* const end, E* out,
                                                  std::uint64_t count) {
  constexpr std::size_t most = flat_most_bytes<E>();
  std::uint64_t i = 0;
  if constexpr (std::is_floating_point_v<E>) {
    // A float has one encoding of one size: four at a time, with one check of their
    // markers (a height map is thousands of them).
    constexpr std::uint8_t marker = std::is_same_v<E, float> ? mp::float32 : mp::float64;
    constexpr std::size_t size = 1 + sizeof(E);
    while (count - i >= 4 && static_cast<std::size_t>(end - p) >= 4 * size && p[0] == marker && p[size] == marker &&
           p[2 * size] == marker && p[3 * size] == marker) {
      for (std::size_t k = 0; k < 4; ++k) read_flat_scalar<false>(p, end, out[i + k]);
      i += 4;
    }
  }
  while (i < count && static_cast<std::size_t>(end - p) >= most && read_flat_element<false>(p, end, out[i])) ++i;
  while (i < count && read_flat_element<true>(p, end, out[i])) ++i;
  return i;
}

// The same at the cursor (the position in a local meanwhile, so in a register).
template <class E>
std::uint64_t read_flat_elements(msgpack_cursor& c, E* out, std::uint64_t count) {
  if constexpr (kind_v<E> == value_kind::structure) {
    if (c.depth + 1 > c.max_depth) return 0;  // the general reader says so, at the element
  }
  const unsigned char* p = c.p;
  const std::uint64_t read = read_flat_run(p, c.end, out, count);
  c.p = p;
  return read;
}

// Elements [from, to) of a container that already has them.
template <class T>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_elements(msgpack_cursor& c, T& container, std::uint64_t from,
                                                 std::uint64_t to) {
  using Element = std::remove_cvref_t<decltype(container[0])>;
  std::uint64_t i = from;
  if constexpr (is_flat_element<Element>() && std::contiguous_iterator<decltype(std::begin(container))>) {
    if (i != to) i += read_flat_elements(c, &container[i], to - i);
  }
  for (; i < to; ++i) {
    if (!c.more() || !read_msgpack_element(c, container[i])) {
      c.err.prepend_path(path_index(i));
      return false;
    }
  }
  return true;
}
// An array of exactly n elements (fixed arrays, tuples): read_all() reads them.
template <std::size_t n, class ReadAll>
bool read_msgpack_fixed_elements(msgpack_cursor& c, const char* length_differs, ReadAll read_all) {
  const unsigned char* start = c.p;
  std::uint64_t count = 0;
  if (!read_msgpack_header(c, container_kind::array, count, "expected an array")) return false;
  if (count != n) return c.fail(errc::length_mismatch, start, length_differs);
  if (!c.enter(start) || !read_all()) return false;
  c.leave();
  return true;
}

template <class Array>
bool read_msgpack_fixed_array(msgpack_cursor& c, Array& array) {
  constexpr std::size_t n = fixed_size<Array>();
  return read_msgpack_fixed_elements<n>(c, "array length differs from the fixed-size target",
                                        [&] { return read_msgpack_elements(c, array, 0, n); });
}

template <class Tuple>
bool read_msgpack_tuple(msgpack_cursor& c, Tuple& tuple) {
  constexpr std::size_t n = std::tuple_size_v<Tuple>;
  return read_msgpack_fixed_elements<n>(c, "array length differs from the tuple", [&] {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::size_t failed = n;
      bool all = ((read_msgpack(c, std::get<I>(tuple)) || (failed = I, false)) && ...);
      if (!all) c.err.prepend_path(path_index(failed));
      return all;
    }
    (std::make_index_sequence<n>{});
  });
}

// The elements of a sequence of count elements. A header's count alone (which may be a
// lie) never makes more than one batch of new elements — max_reserved_bytes of them, or 16
// of a larger size — nor more than max_memory allows: beyond that, memory follows the
// elements actually read.
inline constexpr std::size_t max_reserved_bytes = std::size_t{1} << 20;

template <class Sequence>
bool read_msgpack_bool_sequence(msgpack_cursor& c, Sequence& sequence, std::uint64_t count) {
  sequence.resize(static_cast<std::size_t>(count));  // std::vector<bool> has no bool& to read into
  for (std::uint64_t i = 0; i < count; ++i) {
    bool element = false;
    if (!read_msgpack(c, element)) {
      c.err.prepend_path(path_index(i));
      return false;
    }
    sequence[i] = element;
  }
  return true;
}

// More elements than the sequence has: the existing ones are read into, reusing their
// capacity; new ones are made a batch at a time — as many as one reservation
// (max_reserved_bytes) holds and max_memory affords — and read in place, the next batch
// made only once this one is read. (On an error the elements not read yet are default
// ones: into may be partly updated.)
template <class Element>
inline constexpr std::uint64_t batch_most = std::max<std::uint64_t>(max_reserved_bytes / sizeof(Element), 16);

template <class Sequence>
bool read_msgpack_growing_sequence(msgpack_cursor& c, Sequence& sequence, std::uint64_t count) {
  using Element = typename Sequence::value_type;
  std::uint64_t made = sequence.size();
  for (std::uint64_t read = 0;;) {
    if (!read_msgpack_elements(c, sequence, read, made)) return false;
    if (made == count) return true;
    read = made;
    const std::uint64_t batch =
        std::min(std::min<std::uint64_t>(count - made, batch_most<Element>), c.memory_left / sizeof(Element));
    if (batch == 0) return c.spend(sizeof(Element), c.p);  // over max_memory: fails, at the next element
    c.memory_left -= batch * sizeof(Element);
    made += batch;
    sequence.resize(static_cast<std::size_t>(made));
  }
}

// Sizes sequence to count elements when the new ones, if any, fit in one batch (a fresh
// object's inventory, a reused one's), spending their memory; false, with nothing changed,
// when they do not (then they are made a batch at a time, as they are read).
template <class Sequence>
SAVEKIT_ALWAYS_INLINE bool size_in_one_batch(Sequence& sequence, std::uint64_t count, std::uint64_t& memory_left) {
  using Element = typename Sequence::value_type;
  const std::size_t existing = sequence.size();
  if (count > existing) {
    const std::uint64_t added = count - existing;
    if (added > batch_most<Element> || added > memory_left / sizeof(Element)) return false;
    memory_left -= added * sizeof(Element);
    // An empty vector without room (a fresh object's): a new one of count elements,
    // made inline, where resize is a call.
    bool made = false;
    if constexpr (std::is_same_v<Sequence, std::vector<Element, typename Sequence::allocator_type>>) {
      if ((made = sequence.capacity() == 0))
        sequence = Sequence(static_cast<std::size_t>(count), sequence.get_allocator());
    }
    if (!made) sequence.resize(static_cast<std::size_t>(count));
  } else if (count < existing) {
    sequence.resize(static_cast<std::size_t>(count));  // not called at the same size: resize is a call
  }
  return true;
}

template <class Sequence>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_sequence_elements(msgpack_cursor& c, Sequence& sequence, std::uint64_t count) {
  if constexpr (std::is_same_v<typename Sequence::value_type, bool>) {
    return read_msgpack_bool_sequence(c, sequence, count);
  } else {
    if (!size_in_one_batch(sequence, count, c.memory_left)) return read_msgpack_growing_sequence(c, sequence, count);
    return read_msgpack_elements(c, sequence, 0, count);
  }
}

template <class Sequence>
bool read_msgpack_sequence(msgpack_cursor& c, Sequence& sequence) {
  const unsigned char* start = c.p;
  std::uint64_t count = 0;
  if (!read_msgpack_header(c, container_kind::array, count, "expected an array")) return false;
  if (!c.enter(start) || !read_msgpack_sequence_elements(c, sequence, count)) return false;
  c.leave();
  return true;
}

template <class Nullable>
bool read_msgpack_nullable(msgpack_cursor& c, Nullable& value) {
  if (read_msgpack_nil(c)) {
    value.reset();
    return true;
  }
  if (reading_allocates(value) && !c.spend(sizeof(typename held<Nullable>::type), c.p)) return false;
  return read_msgpack(c, object_to_read_into(value));
}

template <class Variant>
bool read_msgpack_variant(msgpack_cursor& c, Variant& variant) {
  const unsigned char* start = c.p;
  std::uint64_t count = 0;
  if (!read_msgpack_header(c, container_kind::array, count, "expected a [index, value] array")) return false;
  if (count != 2) return c.fail(errc::length_mismatch, start, "expected a [index, value] array");
  if (!c.enter(start) || !c.more()) return false;
  const unsigned char* index_at = c.p;
  std::size_t index = 0;
  if (!read_msgpack_integer(c, index)) return false;
  if (index >= std::variant_size_v<Variant>)
    return c.fail(errc::unknown_variant_index, index_at, "variant index out of range");
  if (!read_variant_alternative(variant, index, [&](auto& alternative) { return read_msgpack(c, alternative); })) {
    c.err.prepend_path("[1]");
    return false;
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
    std::string_view text;
    payload_kind kind{};
    if (probe found = read_msgpack_payload(c, text, kind); found != probe::other_type) {
      if (found == probe::failed) return false;
      if (kind != payload_kind::str || !integer_key_from_text(text, key))
        return c.fail(errc::type_mismatch, at, "expected an integer key");
      return true;
    }
  }
  return read_msgpack(c, key);
}

template <class Map>
bool read_msgpack_map(msgpack_cursor& c, Map& map) {
  const unsigned char* start = c.p;
  std::uint64_t count = 0;
  if (!read_msgpack_header(c, container_kind::map, count, "expected a map")) return false;
  if (!c.enter(start)) return false;
  map_refill refill{map};
  for (std::uint64_t i = 0; i < count; ++i) {
    using Key = typename Map::key_type;
    typename Map::value_type* entry = nullptr;
    if (!c.more()) return false;
    if constexpr (std::is_same_v<Key, std::string>) {
      std::string_view text;
      payload_kind kind{};
      if (!required(c, read_msgpack_payload(c, text, kind), "expected a string")) return false;
      if (!c.more() || !c.spend(map_node_size<Map>, c.p)) return false;
      entry = &refill.entry_for(text);
    } else {
      Key key{};
      if (!read_msgpack_map_key(c, key) || !c.more() || !c.spend(map_node_size<Map>, c.p)) return false;
      entry = &refill.entry_for(key);
    }
    auto& [stored_key, mapped] = *entry;
    if (!read_msgpack(c, mapped)) {
      if constexpr (std::is_same_v<typename Map::key_type, std::string>)
        c.err.prepend_path(path_key(stored_key));
      else
        c.err.prepend_path("[" + std::to_string(stored_key) + "]");
      return false;
    }
  }
  c.leave();
  return true;
}

// A member of a struct, whose first byte is there. The most common ones, integers and
// floats, are read inline rather than through a call per value.
template <class M>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_member(msgpack_cursor& c, M& member) {
  if constexpr (kind_v<M> == value_kind::integer)
    return read_msgpack_integer(c, member);
  else if constexpr (kind_v<M> == value_kind::floating)
    return read_msgpack_float(c, member);
  else
    return read_msgpack_value(c, member);
}

// A slot of the compact form or an element of an array, whose first byte is there: as a
// member, and a small struct's compact form inline too (where it is most likely; the map
// form's fields, whose structs are maps, call it out of line).
template <class M>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_element(msgpack_cursor& c, M& element) {
  if constexpr (kind_v<M> == value_kind::structure)
    return read_msgpack_struct(c, element);
  else
    return read_msgpack_member(c, element);
}

// How the map form reads field I of T (field_readers makes the tables).
template <class T>
struct msgpack_field_table {
  using R = reflection<T>;

  template <std::size_t I>
  static int read_field(msgpack_cursor& c, T& value) {
    return c.more() && read_msgpack_member(c, R::template get<I>(value));
  }
};

template <class T>
using msgpack_fields = field_readers<T, msgpack_field_table<T>, msgpack_cursor>;

// Slot I of the compact form into field I (nil marks a gap: the field keeps its value).
template <std::size_t I, class T>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_compact_slot(msgpack_cursor& c, T& value) {
  if (!c.more()) return false;
  auto& field = reflection<T>::template get<I>(value);
  using M = std::remove_cvref_t<decltype(field)>;
  if constexpr (kind_v<M> == value_kind::integer) {
    if (read_msgpack_integer<gap_keeps_value>(c, field)) return true;  // nil looked for only off the fast path
  } else {
    if constexpr (!can_hold_null<M>) {
      if (read_msgpack_nil(c)) return true;
    }
    if (read_msgpack_element(c, field)) return true;
  }
  c.err.prepend_path(path_key(reflection<T>::names[I]));
  return false;
}

// Every slot of the compact form, in order, unrolled at compile time (and inlined into
// the struct's reader, so the cursor stays in registers from slot to slot).
template <class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_slots_in_order(msgpack_cursor& c, T& value, std::index_sequence<I...>) {
  return (read_msgpack_compact_slot<I>(c, value) && ...);
}

template <class T>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_compact_in_order(msgpack_cursor& c, T& value) {
  return read_msgpack_slots_in_order(c, value, std::make_index_sequence<reflection<T>::size>{});
}

// Whether field I of T can hold nil itself (else nil in its compact slot is a gap).
template <class T>
inline constexpr auto slot_holds_null = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<bool, sizeof...(I) + 1>{
      can_hold_null<std::remove_cvref_t<decltype(reflection<T>::template get<I>(std::declval<T&>()))>>..., false};
}
(std::make_index_sequence<reflection<T>::size>{});

// The compact form: element i is the field whose key is i.
template <class T>
bool read_msgpack_struct_slots(msgpack_cursor& c, T& value, std::uint64_t count) {
  using R = reflection<T>;
  constexpr std::size_t n = R::size;
  // What savekit writes for a type without renumbered keys: every field, in order. Read
  // with the fields unrolled at compile time, not dispatched per slot at run time. (A
  // struct of fewer than 16 fields has been read so by read_msgpack_struct already, from
  // its fixarray header, or by the fast path; here it would be a second copy of that code
  // for a header savekit does not write.)
  if constexpr (compact_keys_in_order<T>() && n >= 16) {
    if (count == n) return read_msgpack_compact_in_order(c, value);
  }
  for (std::uint64_t slot = 0; slot < count; ++slot) {
    std::size_t index = find_field_by_key<T>(slot);
    if (!c.more()) return false;
    if (index == n) {
      if (!c.skip_value()) return false;  // a removed field's nil, or a newer field we do not know
      continue;
    }
    // Off the in-order path (renumbered keys, a partial or longer array): each slot
    // through the per-field table, a nil gap first.
    if (!slot_holds_null<T>[index] && read_msgpack_nil(c)) continue;
    if (msgpack_fields<T>::read[index](c, value) == 0) {
      c.err.prepend_path(path_key(R::names[index]));
      return false;
    }
  }
  return true;
}

// Entry K of the map form, if its key is field K's: compared with the key's encoding known
// at compile time, the value read inline. False when the order breaks here (read stays)
// or on an error in the value (read becomes -1). A function, not a lambda over the
// cursor: a closure the optimizer leaves in memory (clang did, for WebAssembly) makes
// every field reload the cursor and the object through it.
template <std::size_t K, class T>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_member_in_order(msgpack_cursor& c, T& value, std::uint64_t count,
                                                        std::ptrdiff_t& read) {
  using key = msgpack_key<T, K>;
  if (K >= count || c.remaining() <= key::size || !equal_bytes<key::size>(c.p, key::bytes.data())) return false;
  c.p += key::size;  // a byte is left for the value: remaining() was above key::size
  if (!read_msgpack_member(c, reflection<T>::template get<K>(value))) {
    c.err.prepend_path(path_key(reflection<T>::names[K]));
    read = -1;
    return false;
  }
  ++read;
  return true;
}

// The map form as savekit writes it: every field, in order, unrolled at compile time (not
// a call per field through a table). Returns how many entries it read — up to the first
// key that is not the next field's, which the general loop then reads — or -1 on an error
// in a value.
template <class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE std::ptrdiff_t read_msgpack_members_in_order([[maybe_unused]] msgpack_cursor& c,
                                                                   [[maybe_unused]] T& value,
                                                                   [[maybe_unused]] std::uint64_t count,
                                                                   std::index_sequence<I...>) {
  std::ptrdiff_t read = 0;
  [[maybe_unused]] const bool all = (read_msgpack_member_in_order<I>(c, value, count, read) && ...);
  return read;
}

// The map form: fields by name, in any order; unknown names are skipped.
template <class T>
bool read_msgpack_struct_members(msgpack_cursor& c, T& value, std::uint64_t count) {
  using R = reflection<T>;
  constexpr std::size_t n = R::size;
  const std::ptrdiff_t in_order = read_msgpack_members_in_order(c, value, count, std::make_index_sequence<n>{});
  if (in_order < 0) return false;
  std::size_t hint = static_cast<std::size_t>(in_order);
  for (auto entry = static_cast<std::uint64_t>(in_order); entry < count; ++entry) {
    if (!c.more()) return false;
    std::string_view key;
    payload_kind kind{};
    probe found = read_msgpack_payload(c, key, kind);
    if (found == probe::failed) return false;
    if (found == probe::other_type) {  // an integer key etc.: not a field
      if (!c.skip_value() || !c.skip_value()) return false;
      continue;
    }
    if (!c.more()) return false;
    const std::size_t index = find_field<T>(key, hint);
    if (index == n) {
      if (!c.skip_value()) return false;
      continue;
    }
    if (msgpack_fields<T>::read[index](c, value) == 0) {
      c.err.prepend_path(path_key(R::names[index]));
      return false;
    }
    hint = index + 1;
  }
  return true;
}

template <class T>
bool read_msgpack_any_struct(msgpack_cursor& c, T& value) {
  const unsigned char* start = c.p;
  std::uint64_t count = 0;
  container_kind kind{};
  if (!required(c, c.container(count, kind), "expected a map or an array") || !c.enter(start)) return false;
  bool ok = kind == container_kind::array ? read_msgpack_struct_slots(c, value, count)
                                          : read_msgpack_struct_members(c, value, count);
  if (!ok) return false;
  c.leave();
  return true;
}

// ---- the compact form's fast path ----
//
// A struct in the compact form savekit writes (a fixarray of every field, in order) whose
// fields are numbers, strings, vectors of flat elements and such structs, read with the
// position in a local — a register — and no call per field. Anything else (a nil gap,
// an encoding savekit does not write, a short input, a number out of range) returns false
// with nothing reported, and the general reader reads the struct again from its start and
// reports what it finds where it is. Reading twice is safe: the fast path starts only
// where the general reader would start reading fields too (the header and the room for
// them checked first), so the second read overwrites what the first wrote; both size a
// vector to the input's count, and the memory a vector took is spent once, by whichever
// read grew it (two declared fields never name one member: reflection checks).

template <class T>
struct is_plain_vector : std::false_type {};
template <class E>
struct is_plain_vector<std::vector<E>> : std::true_type {};

// How deep the fast path nests (enter() counts each struct and each vector), or 0 when T
// is not read by it.
template <class T>
consteval std::uint32_t fast_compact_depth();

template <class T>
consteval std::uint32_t fast_field_depth() {  // 0: not read by the fast path; 1: no nesting
  if constexpr (is_flat_scalar<T>() || (kind_v<T> == value_kind::string && std::is_same_v<T, std::string>)) {
    return 1;
  } else if constexpr (kind_v<T> == value_kind::sequence && is_plain_vector<T>::value) {
    using E = typename T::value_type;
    if constexpr (is_flat_element<E>())
      return kind_v<E> == value_kind::structure ? 3 : 2;
    else
      return 0;
  } else if constexpr (kind_v<T> == value_kind::structure) {
    constexpr std::uint32_t d = fast_compact_depth<T>();
    return d == 0 ? 0 : d + 1;
  } else {
    return 0;
  }
}

template <class T>
consteval std::uint32_t fast_compact_depth() {
  using R = reflection<T>;
  if constexpr (R::size == 0 || R::size >= 16 || !compact_keys_in_order<T>()) {
    return 0;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      std::uint32_t deepest = 1;
      for (std::uint32_t d :
           {fast_field_depth<std::remove_cvref_t<decltype(R::template get<I>(std::declval<T&>()))>>()...}) {
        if (d == 0) return std::uint32_t{0};
        deepest = std::max(deepest, d);
      }
      return deepest;
    }
    (std::make_index_sequence<R::size>{});
  }
}

// The header of a str or an array as savekit writes it: its count (a str's length, an
// array's elements) into count, p past it; false if the byte at p is another one.
template <std::uint8_t fix_mask, std::uint8_t fix_marker, std::uint8_t marker8, std::uint8_t marker16,
          std::uint8_t marker32>
SAVEKIT_ALWAYS_INLINE bool read_fast_header(const unsigned char*& p, const unsigned char* end, std::size_t& count) {
  if (p == end) return false;
  const std::uint8_t b = *p;
  if ((b & fix_mask) == fix_marker) {
    count = b & static_cast<std::uint8_t>(~fix_mask);
    ++p;
  } else if (marker8 != 0 && b == marker8 && end - p >= 2) {
    count = p[1];
    p += 2;
  } else if (b == marker16 && end - p >= 3) {
    count = static_cast<std::size_t>(load_big_endian(p + 1, 2));
    p += 3;
  } else if (b == marker32 && end - p >= 5) {
    count = static_cast<std::size_t>(load_big_endian(p + 1, 4));
    p += 5;
  } else {
    return false;
  }
  return count <= static_cast<std::size_t>(end - p);  // a str's bytes, an array's one byte each
}

template <class T>
SAVEKIT_ALWAYS_INLINE bool read_fast_compact(const unsigned char*& p, const unsigned char* end, T& value,
                                             std::uint64_t& memory_left);

// A struct field's integer in an encoding the fast path does not read inline: p past it,
// or null if it is none it reads. (Inline, each such field was a dozen branches, in every
// fast-path struct: a third of their code, and of the compiler's time.)
template <class T>
SAVEKIT_NOINLINE const unsigned char* read_other_fast_integer(const unsigned char* p, const unsigned char* end,
                                                              T& out) {
  return read_flat_scalar<true>(p, end, out) ? p : nullptr;
}

template <class M>
SAVEKIT_ALWAYS_INLINE bool read_fast_field(const unsigned char*& p, const unsigned char* end, M& field,
                                           std::uint64_t& memory_left) {
  if constexpr (std::is_integral_v<M> && is_flat_scalar<M>()) {  // not bool: 0x00 and 0x01 are no bools
    // What a save's counters mostly are, fixints and uint8/16 that fit, inline; the rest
    // (and what does not fit) through one out-of-line copy per type.
    if (SAVEKIT_LIKELY(p != end && *p < 0x80)) {
      field = static_cast<M>(*p++);
      return true;
    }
    if (end - p >= 3 && *p == mp::uint16 && fits_flat(field, load_big_endian(p + 1, 2), p, 3)) return true;
    if (end - p >= 2 && *p == mp::uint8 && fits_flat(field, p[1], p, 2)) return true;
    const unsigned char* next = read_other_fast_integer(p, end, field);
    if (next == nullptr) return false;  // p stays within the input: see read_fast_compact
    p = next;
    return true;
  } else if constexpr (is_flat_scalar<M>()) {
    return read_flat_scalar<true>(p, end, field);
  } else if constexpr (std::is_same_v<M, std::string>) {
    std::size_t length = 0;
    if (!read_fast_header<0xe0, 0xa0, mp::str8, mp::str16, mp::str32>(p, end, length)) return false;
    assign_string(field, std::string_view(reinterpret_cast<const char*>(p), length));
    p += length;
    return true;
  } else if constexpr (kind_v<M> == value_kind::sequence) {
    std::size_t count = 0;
    if (!read_fast_header<0xf0, 0x90, 0, mp::array16, mp::array32>(p, end, count) ||
        !size_in_one_batch(field, count, memory_left))
      return false;
    return count == 0 || read_flat_run(p, end, field.data(), count) == count;
  } else {
    return read_fast_compact(p, end, field, memory_left);
  }
}

// (A function, not a lambda: see read_flat_members.)
template <class T, std::size_t... I>
SAVEKIT_ALWAYS_INLINE bool read_fast_fields(const unsigned char*& p, const unsigned char* end, T& value,
                                            std::uint64_t& memory_left, std::index_sequence<I...>) {
  return (read_fast_field(p, end, reflection<T>::template get<I>(value), memory_left) && ...);
}

// On failure p is left somewhere in [its start, end], never past it nor null: the caller
// starts over from where it began, the general way, and reports from there.
template <class T>
SAVEKIT_ALWAYS_INLINE bool read_fast_compact(const unsigned char*& p, const unsigned char* end, T& value,
                                             std::uint64_t& memory_left) {
  constexpr std::size_t n = reflection<T>::size;
  // The general reader refuses a struct with fewer bytes left than fields before it reads
  // any: so must this, or a cut-off save would leave fields written that it leaves alone.
  if (static_cast<std::size_t>(end - p) <= n || *p != (0x90 | n)) return false;
  ++p;
  return read_fast_fields(p, end, value, memory_left, std::make_index_sequence<n>{});
}

// A struct, whose first byte is there. What the compact form of a small struct is — a
// fixarray of every field, in order — is read inline where the struct is (an element of
// a long array, a member): one byte says so, and each slot still checks that its bytes
// are there. A struct the fast path reads has no second inline copy of its fields: what
// the fast path declines (a nil gap, another writer's encoding, an error to report) goes
// the general way, out of line — the compiler's time goes into the code it generates.
// Everything else out of line.
template <class T>
consteval bool has_fast_compact_path() {
  if constexpr (kind_v<T> == value_kind::structure)
    return fast_compact_depth<T>() != 0 && !is_flat_element<T>();
  else
    return false;
}

template <class T>
SAVEKIT_ALWAYS_INLINE bool read_msgpack_struct(msgpack_cursor& c, T& value) {
  constexpr std::size_t n = reflection<T>::size;
  constexpr bool has_fast_path = has_fast_compact_path<T>();
  if constexpr (has_fast_path) {
    if (c.depth + fast_compact_depth<T>() <= c.max_depth) {
      const unsigned char* p = c.p;
      if (read_fast_compact(p, c.end, value, c.memory_left)) {
        c.p = p;
        return true;
      }
    }
  }
  if constexpr (n < 16 && compact_keys_in_order<T>() && !has_fast_path) {
    const unsigned char* start = c.p;
    if (*c.p == (0x90 | n) && n < c.remaining()) {
      ++c.p;
      if (!c.enter(start) || !read_msgpack_compact_in_order(c, value)) return false;
      c.leave();
      return true;
    }
  }
  return read_msgpack_any_struct(c, value);
}

// A value of T at the cursor, which has at least one byte left.
template <class T>
bool read_msgpack_value(msgpack_cursor& c, T& value) {
  constexpr value_kind kind = kind_v<T>;
  if constexpr (kind == value_kind::adapted) {
    const unsigned char* start = c.p;
    return read_adapted(
        value, [&](auto& wire) { return read_msgpack(c, wire); },
        [&] { return c.fail(errc::invalid_value, start, adapter_refused); });
  } else if constexpr (kind == value_kind::boolean) {
    return read_msgpack_bool(c, value);
  } else if constexpr (kind == value_kind::enumeration) {
    return read_msgpack_enum(c, value);
  } else if constexpr (kind == value_kind::integer) {
    return read_msgpack_integer(c, value);
  } else if constexpr (kind == value_kind::floating) {
    return read_msgpack_float(c, value);
  } else if constexpr (kind == value_kind::string && std::is_same_v<T, std::string>) {
    return read_msgpack_string(c, value);
  } else if constexpr (kind == value_kind::bytes) {
    return read_msgpack_bytes(c, value);
  } else if constexpr (kind == value_kind::fixed_array) {
    return read_msgpack_fixed_array(c, value);
  } else if constexpr (kind == value_kind::sequence) {
    return read_msgpack_sequence(c, value);
  } else if constexpr (kind == value_kind::nullable) {
    return read_msgpack_nullable(c, value);
  } else if constexpr (kind == value_kind::variant) {
    return read_msgpack_variant(c, value);
  } else if constexpr (kind == value_kind::tuple) {
    return read_msgpack_tuple(c, value);
  } else if constexpr (kind == value_kind::map) {
    return read_msgpack_map(c, value);
  } else if constexpr (kind == value_kind::structure) {
    return read_msgpack_struct(c, value);
  } else {
    static_assert(msgpack_always_false<T>, "savekit cannot read this type; see savekit::adapter");
    return false;
  }
}

template <class T>
SAVEKIT_ALWAYS_INLINE bool read_msgpack(msgpack_cursor& c, T& value) {
  return c.more() && read_msgpack_value(c, value);
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
    msgpack_typed_writer<Container> writer{out, options.form};
    write_msgpack(writer, value);
    writer.wire.out.finish();
  } else {
    msgpack_typed_writer<Container, true> writer{out, options.form, options.max_depth};
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
SAVEKIT_ALWAYS_INLINE detail::write_result<T, void> to_msgpack(const T& value, std::vector<std::byte>& out,
                                                               msgpack_options options = {}) {
  return detail::write_msgpack_to(value, out, options);
}

// The same into a std::string's bytes (the store keeps values in strings).
template <class T>
SAVEKIT_ALWAYS_INLINE detail::write_result<T, void> to_msgpack(const T& value, std::string& out,
                                                               msgpack_options options = {}) {
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

namespace detail {
// The general reader over a whole document, with memory_left what the budget still allows.
// Out of line behind the fast path: its cursor and error holder need a frame and registers
// that, inline, every fast read would set up and restore too (SaveGame's compact read:
// 0.89 of the time, reused; Status 0.84).
template <class T>
SAVEKIT_NOINLINE status read_msgpack_document_generally(const std::byte* data, std::size_t size, T& into,
                                                        const msgpack_options& options, std::uint64_t memory_left) {
  msgpack_cursor c{data, size, options.max_depth};
  c.memory_left = memory_left;  // less what a vector the fast path grew took
  if constexpr (has_fast_compact_path<T>()) {
    if (!c.more() || !read_msgpack_any_struct(c, into) || !c.finish()) return std::move(c.err).take();
  } else {
    if (!read_msgpack(c, into) || !c.finish()) return std::move(c.err).take();
  }
  return {};
}

// What from_msgpack does, its input as a pointer and a length and its options by reference.
// In WebAssembly a span or a struct passed by value is a copy through memory, built by
// 32-bit stores and copied by 64-bit loads, which wait for those stores to retire: a
// stall at each such call (perf, study A's loads in node). from_msgpack, inline where it
// is called, hands this scalars.
//
// A document that is one struct the compact fast path reads is tried on it right here, the
// position in a register and no call; what it declines (trailing bytes included) is read
// again from the start by the general reader, which reports what it finds.
// (Before the cursor exists: a cursor whose address a call has taken would be reloaded
// from memory, its error holder too, to destroy it.)
template <class T>
status read_msgpack_document(const std::byte* data, std::size_t size, T& into, const msgpack_options& options) {
  std::uint64_t memory_left = options.max_memory;
  if constexpr (has_fast_compact_path<T>()) {
    const auto* p = reinterpret_cast<const unsigned char*>(data);
    const unsigned char* end = p + size;
    if (fast_compact_depth<T>() <= options.max_depth && read_fast_compact(p, end, into, memory_left) && p == end)
      return {};
  }
  return read_msgpack_document_generally(data, size, into, options, memory_left);
}
}  // namespace detail

// Reads MessagePack (either form) into an existing object, reusing its capacity.
template <class T>
SAVEKIT_ALWAYS_INLINE status from_msgpack(std::span<const std::byte> bytes, T& into, msgpack_options options = {}) {
  return detail::read_msgpack_document(bytes.data(), bytes.size(), into, options);
}

template <class T>
SAVEKIT_ALWAYS_INLINE status from_msgpack(std::string_view bytes, T& into, msgpack_options options = {}) {
  return detail::read_msgpack_document(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), into, options);
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
