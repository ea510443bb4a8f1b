// savekit/reflect.hpp — what a type's fields are, known at compile time.
//
// Plain aggregates need nothing: savekit counts their fields and reads their names
// from the compiler. Everything else is declared once, beside the type:
//
//   class Player {                       // private members: declare inside the class
//     std::string name_; int hp_ = 10;
//    public:
//     static constexpr auto savekit_fields() {
//       return savekit::fields(savekit::field("name", &Player::name_),
//                              savekit::field("health", &Player::hp_).with_key(3).renamed_from("hp"));
//     }
//   };
//
//   template <> struct savekit::meta<Monster> {   // or beside it, for a type you don't own
//     static constexpr auto fields() { return savekit::fields(savekit::field("id", &Monster::id)); }
//   };
//
// Members left out of a declaration are skipped. with_key(n) gives a member a stable
// position in MessagePack's compact array form (like MessagePack-CSharp's [Key(n)]);
// by default a member's key is its index in the list. renamed_from("old") lets readers
// take a member under a name it had before (JSON and the map form; up to 4 old names);
// writers use the current name.
//
// Leaf types (a vec3 written as [x,y,z], a uuid as a string) plug in through
// savekit::adapter<T>; enums are written by name when savekit::enum_names<E> exists.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "savekit/detail/visit_members.hpp"
#include "savekit/error.hpp"

namespace savekit {

// How deeply values may nest by default, for readers and writers alike (json_options and
// msgpack_options::max_depth): deeper input is errc::depth_exceeded instead of a stack overflow.
inline constexpr std::uint32_t default_max_depth = 256;

// How much memory the elements of a document's arrays and maps, and the objects its
// pointers own, may take by default (json_options, msgpack_options and object_options::
// max_memory): a one-byte element can stand for a large object, so without a bound a
// small hostile file could take all memory. Strings take only what the input holds.
inline constexpr std::uint64_t default_max_memory = std::uint64_t{1} << 30;  // 1 GiB

// ---- declarations ---------------------------------------------------------------------

// Specialize for a type you cannot change: static constexpr auto fields().
template <class T>
struct meta;

// One declared member: its key in JSON / the MessagePack map form, the member pointer,
// and its index in the compact array form.
template <class Class, class Member>
struct field_descriptor {
  using class_type = Class;
  using member_type = Member;
  std::string_view name;
  Member Class::*member;
  int key = -1;                                 // -1: position in the declaration
  std::array<std::string_view, 4> old_names{};  // renamed_from, in order
  std::size_t old_name_count = 0;

  constexpr field_descriptor with_key(int compact_key) const {
    field_descriptor copy = *this;
    copy.key = compact_key;
    return copy;
  }
  // A name the member had in older saves: readers accept it too.
  constexpr field_descriptor renamed_from(std::string_view old_name) const {
    field_descriptor copy = *this;
    if (copy.old_name_count == copy.old_names.size()) std::abort();  // at most 4: a compile-time error
    copy.old_names[copy.old_name_count++] = old_name;
    return copy;
  }
};

template <class Class, class Member>
constexpr field_descriptor<Class, Member> field(std::string_view name, Member Class::*member) {
  return {name, member, -1, {}, 0};
}

template <class... Fields>
constexpr std::tuple<Fields...> fields(Fields... list) {
  return {list...};
}

// Custom leaf types: convert to and from a type savekit already knows.
//
//   template <> struct savekit::adapter<vec3> {
//     using wire_type = std::array<float, 3>;
//     static wire_type to_wire(const vec3& v) { return {v.x, v.y, v.z}; }
//     static bool from_wire(const wire_type& w, vec3& v) { v = {w[0], w[1], w[2]}; return true; }
//   };
//
// from_wire returns false (errc::invalid_value) to refuse a value, or void.
template <class T>
struct adapter;

// Enums are written as numbers; specialize this to write them as names:
//
//   template <> struct savekit::enum_names<Color> {
//     static constexpr std::pair<Color, std::string_view> values[] = {
//         {Color::red, "red"}, {Color::green, "green"}};
//   };
//
// Readers accept the name or the number; a value missing from the list is written as a number.
template <class E>
struct enum_names;

namespace detail {

// ---- type categories shared by every codec ---------------------------------------------

template <class T, template <class...> class Template>
inline constexpr bool is_specialization_v = false;
template <template <class...> class Template, class... Args>
inline constexpr bool is_specialization_v<Template<Args...>, Template> = true;

template <class T>
concept has_adapter = requires {
  typename adapter<T>::wire_type;
};

template <class E>
concept has_enum_names = std::is_enum_v<E> && requires {
  enum_names<E>::values;
};

template <class T>
concept has_member_fields = requires {
  T::savekit_fields();
};

template <class T>
concept has_meta_fields = requires {
  meta<T>::fields();
};

template <class T>
concept is_std_array = requires {
  std::tuple_size<T>::value;
  typename T::value_type;
}
&&std::is_same_v<T, std::array<typename T::value_type, std::tuple_size<T>::value>>;

// Element count of a C array or std::array.
template <class T>
consteval std::size_t fixed_size() {
  if constexpr (std::is_array_v<T>)
    return std::extent_v<T>;
  else
    return std::tuple_size<T>::value;
}

// std::vector<bool> hands out proxy objects, not bools (libc++'s are not even convertible
// implicitly in every context): elements are read through this.
template <class Element>
decltype(auto) element_value(const Element& element) {
  if constexpr (std::is_class_v<Element> && std::is_convertible_v<Element, bool>)
    return static_cast<bool>(element);
  else
    return (element);
}

template <class T>
concept is_tuple_like = is_specialization_v<T, std::tuple> || is_specialization_v<T, std::pair>;

template <class T>
concept is_string = std::is_same_v<T, std::string>;

template <class T>
concept is_byte_vector = std::is_same_v<T, std::vector<std::byte>>;

template <class T>
concept is_sequence = !is_string<T> && !is_byte_vector<T> && requires(T & c) {
  typename T::value_type;
  c.push_back(std::declval<typename T::value_type>());
  c.resize(std::size_t{});
  c.begin();
  c.end();
};

template <class T>
concept is_map = requires(T& m) {
  typename T::key_type;
  typename T::mapped_type;
  m.try_emplace(std::declval<typename T::key_type>());
};

template <class T>
concept is_smart_pointer = is_specialization_v<T, std::unique_ptr> || is_specialization_v<T, std::shared_ptr>;

// Converts to any field type (raw pointers excepted, so that smart pointers' constructors
// are not ambiguous). Used only in unevaluated probes, but defined: a probe of
// std::optional<X> instantiates optional's constexpr constructor, which names the
// conversion, and clang rejects a declared-only function of a type with internal linkage
// (-Wundefined-internal: any struct in an anonymous namespace).
struct any_field {
  template <class U>
  requires(!std::is_pointer_v<U> && !std::is_null_pointer_v<U>) operator U() const {
    std::abort();  // never called
  }
};

// Counts an aggregate's fields: the largest N for which T{{any}, {any}, ...} compiles.
// Each braced initializer initializes exactly one member (no brace elision), so C arrays
// and nested aggregates count as one field each.
template <class T, class... Probe>
consteval std::size_t count_aggregate_fields() {
  if constexpr (sizeof...(Probe) > max_reflected_fields) {
    return sizeof...(Probe);
  } else if constexpr (requires { T{{Probe{}}..., {any_field{}}}; }) {
    return count_aggregate_fields<T, Probe..., any_field>();
  } else {
    return sizeof...(Probe);
  }
}

// ---- field names of aggregates, read from the compiler ---------------------------------

// The address of a subobject of a never-defined object is a constant expression that
// can be a template argument; the compiler spells its member name in __PRETTY_FUNCTION__.
template <class T>
struct external_wrapper {
  const T value;
};
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#pragma clang diagnostic ignored "-Wundefined-internal"
#endif
template <class T>
extern const external_wrapper<T> external_object;

// Wrapped: clang 14 rejects a bare pointer to a subobject as a template argument.
template <class M>
struct member_address {
  const M* address;
};

template <auto Address>
consteval std::string_view pretty_signature() {
  return __PRETTY_FUNCTION__;
}

template <class T, std::size_t N>
consteval auto member_addresses() {
  return visit_members<N>(external_object<T>.value, [](const auto&... member) {
    return std::tuple{member_address<std::remove_cvref_t<decltype(member)>>{&member}...};
  });
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

struct savekit_calibration {
  int savekit_calibration_member;
};

inline constexpr std::string_view calibration_signature =
    pretty_signature<std::get<0>(member_addresses<savekit_calibration, 1>())>();
inline constexpr std::string_view calibration_name = "savekit_calibration_member";
// What the compiler prints after the member's name: ")}; std::string_view = ...]" (g++) or "}]" (clang).
inline constexpr std::size_t signature_suffix_length =
    calibration_signature.size() - calibration_signature.rfind(calibration_name) - calibration_name.size();

consteval bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

consteval std::string_view name_from_signature(std::string_view signature) {
  std::size_t end = signature.size() - signature_suffix_length;
  std::size_t begin = end;
  while (begin > 0 && is_identifier_char(signature[begin - 1])) --begin;
  return signature.substr(begin, end - begin);
}

static_assert(name_from_signature(calibration_signature) == calibration_name,
              "savekit cannot read member names from this compiler's __PRETTY_FUNCTION__");

template <class T, std::size_t N, std::size_t I>
consteval std::string_view aggregate_field_name() {
  constexpr auto addresses = member_addresses<T, N>();
  return name_from_signature(pretty_signature<std::get<I>(addresses)>());
}

// ---- one interface over aggregates and declared types --------------------------------------

template <class T>
concept is_declared = has_member_fields<T> || has_meta_fields<T>;

template <class T>
concept is_reflected_aggregate = std::is_class_v<T> && std::is_aggregate_v<T> && !std::is_union_v<T> &&
                                 !is_std_array<T> && !is_declared<T> && !has_adapter<T>;

template <class T>
concept is_reflected = (is_declared<T> && !has_adapter<T>) || is_reflected_aggregate<T>;

// What kind of value a T is, decided in one place for every codec's reader and writer and
// every compile-time walk. The order of the tests is the rule: an adapter wins over
// everything; strings and byte vectors before sequences; fixed arrays before sequences.
enum class value_kind : std::uint8_t {
  adapted,  // savekit::adapter<T>: read and written as its wire type
  boolean,
  enumeration,  // by name when it has names, else its number
  integer,
  floating,
  string,       // std::string (and std::string_view, written only)
  bytes,        // std::vector<std::byte>
  fixed_array,  // C arrays and std::array: exactly N elements
  sequence,     // vector, deque, list, ...
  nullable,     // optional, unique_ptr, shared_ptr: null or the value
  variant,      // [index, value]
  tuple,        // tuple and pair: a fixed-length array
  map,          // string or integer keys
  structure,    // reflected: an aggregate or a declared type
  unsupported,
};

template <class T>
consteval value_kind kind_of() {
  if constexpr (has_adapter<T>)
    return value_kind::adapted;
  else if constexpr (std::is_same_v<T, bool>)
    return value_kind::boolean;
  else if constexpr (std::is_enum_v<T>)
    return value_kind::enumeration;
  else if constexpr (std::is_integral_v<T>)
    return value_kind::integer;
  else if constexpr (std::is_floating_point_v<T>)
    return value_kind::floating;
  else if constexpr (is_string<T> || std::is_same_v<T, std::string_view>)
    return value_kind::string;
  else if constexpr (is_byte_vector<T>)
    return value_kind::bytes;
  else if constexpr (std::is_array_v<T> || is_std_array<T>)
    return value_kind::fixed_array;
  else if constexpr (is_sequence<T>)
    return value_kind::sequence;
  else if constexpr (is_specialization_v<T, std::optional> || is_smart_pointer<T>)
    return value_kind::nullable;
  else if constexpr (is_specialization_v<T, std::variant>)
    return value_kind::variant;
  else if constexpr (is_tuple_like<T>)
    return value_kind::tuple;
  else if constexpr (is_map<T>)
    return value_kind::map;
  else if constexpr (is_reflected<T>)
    return value_kind::structure;
  else
    return value_kind::unsupported;
}

template <class T>
inline constexpr value_kind kind_v = kind_of<T>();

// The rules for what a declaration (savekit_fields, meta) may say: names unique, non-empty,
// at most 255 bytes and needing no JSON escaping, an old name neither a current one nor two
// members'; compact keys unique and within 0..4095. (A reflected aggregate's names are its
// identifiers and its keys 0..N-1: it keeps them by construction.)
template <std::size_t N, std::size_t A>
consteval bool declared_names_are_valid(const std::array<std::string_view, N>& names,
                                        const std::array<std::pair<std::string_view, std::size_t>, A>& aliases) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i].empty() || names[i].size() > 255) return false;
    for (char c : names[i])
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
    for (std::size_t j = i + 1; j < N; ++j)
      if (names[i] == names[j]) return false;
  }
  for (std::size_t i = 0; i < A; ++i) {
    if (aliases[i].first.empty()) return false;
    for (std::string_view name : names)
      if (aliases[i].first == name) return false;
    for (std::size_t j = i + 1; j < A; ++j)
      if (aliases[i].first == aliases[j].first) return false;
  }
  return true;
}

template <std::size_t N>
consteval bool declared_keys_are_valid(const std::array<int, N>& keys) {
  for (std::size_t i = 0; i < N; ++i) {
    if (keys[i] < 0 || keys[i] > 4095) return false;
    for (std::size_t j = i + 1; j < N; ++j)
      if (keys[i] == keys[j]) return false;
  }
  return true;
}

// Whether two declared fields name one member (a pointer-to-member compares equal only to
// one of its own type). Such a member would be read twice per struct, and the memory its
// vector takes counted twice against max_memory.
template <class List, std::size_t I, std::size_t J>
consteval bool fields_name_one_member(const List& list) {
  if constexpr (std::is_same_v<decltype(std::get<I>(list).member), decltype(std::get<J>(list).member)>)
    return std::get<I>(list).member == std::get<J>(list).member;
  else
    return false;
}

template <class List, std::size_t I, std::size_t... J>
consteval bool member_named_again(const List& list, std::index_sequence<J...>) {
  return (fields_name_one_member<List, I, I + 1 + J>(list) || ...);
}

template <class List, std::size_t... I>
consteval bool declared_members_are_distinct(const List& list, std::index_sequence<I...>) {
  constexpr std::size_t n = sizeof...(I);
  return !(member_named_again<List, I>(list, std::make_index_sequence<n - 1 - I>{}) || ...);
}

template <class T>
struct reflection;

template <class T>
requires is_declared<T>
struct reflection<T> {
  static constexpr auto list = [] {
    if constexpr (has_member_fields<T>)
      return T::savekit_fields();
    else
      return meta<T>::fields();
  }();
  static constexpr std::size_t size = std::tuple_size_v<decltype(list)>;
  static constexpr auto names = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, size>{std::get<I>(list).name...};
  }
  (std::make_index_sequence<size>{});
  static constexpr auto keys = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<int, size>{(std::get<I>(list).key < 0 ? int(I) : std::get<I>(list).key)...};
  }
  (std::make_index_sequence<size>{});
  // Old names (renamed_from) and the index of the member each now names.
  static constexpr std::size_t alias_count = []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + std::get<I>(list).old_name_count);
  }
  (std::make_index_sequence<size>{});
  static constexpr auto aliases = []<std::size_t... I>(std::index_sequence<I...>) {
    std::array<std::pair<std::string_view, std::size_t>, alias_count> out{};
    std::size_t at = 0;
    (
        [&] {
          const auto& f = std::get<I>(list);
          for (std::size_t k = 0; k < f.old_name_count; ++k) out[at++] = {f.old_names[k], I};
        }(),
        ...);
    return out;
  }
  (std::make_index_sequence<size>{});
  // Checked here, where every writer, reader and bound of a declared type starts.
  static_assert(declared_names_are_valid(names, aliases),
                "field names (and renamed_from names) must be unique, non-empty and need no JSON escaping");
  static_assert(declared_keys_are_valid(keys), "compact keys must be unique and within 0..4095");
  static_assert(declared_members_are_distinct(list, std::make_index_sequence<size>{}),
                "two declared fields name one member");

  template <std::size_t I>
  static constexpr auto& get(T& object) {
    return object.*(std::get<I>(list).member);
  }
  template <std::size_t I>
  static constexpr const auto& get(const T& object) {
    return object.*(std::get<I>(list).member);
  }
};

template <class T>
requires is_reflected_aggregate<T>
struct reflection<T> {
  static constexpr std::size_t size = count_aggregate_fields<T>();
  static_assert(size <= max_reflected_fields, "too many fields to reflect; declare the type with savekit::meta");
  static constexpr auto names = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, size>{aggregate_field_name<T, size, I>()...};
  }
  (std::make_index_sequence<size>{});
  static constexpr auto keys = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<int, size>{int(I)...};
  }
  (std::make_index_sequence<size>{});
  static constexpr std::array<std::pair<std::string_view, std::size_t>, 0> aliases{};

  template <std::size_t I, class Object>
  static constexpr auto& get(Object& object) {
    return visit_members<size>(
        object, [](auto&... member) -> auto& { return std::get<I>(std::tie(member...)); });
  }
};

// Length of the compact array form: one slot per key up to the largest.
template <class T>
consteval std::size_t compact_length() {
  int largest = -1;
  for (int key : reflection<T>::keys) largest = key > largest ? key : largest;
  return static_cast<std::size_t>(largest + 1);
}

template <class Entry, std::size_t N, class Make>
consteval std::array<Entry, N> table_of(Make make) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Entry, N>{make.template operator()<I>()...};
  }
  (std::make_index_sequence<N>{});
}

// Calls f(std::integral_constant<std::size_t, I>{}) for the runtime index I < N; returns its result.
template <std::size_t N, class F>
constexpr bool with_index(std::size_t index, F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    bool ok = false;
    (void)((index == I && (ok = f(std::integral_constant<std::size_t, I>{}), true)) || ...);
    return ok;
  }
  (std::make_index_sequence<N>{});
}

// Index of the field called key, trying hint (where the next field usually is) first; size if none.
template <class T>
constexpr std::size_t find_field(std::string_view key, std::size_t hint) {
  constexpr const auto& names = reflection<T>::names;
  if (hint < names.size() && names[hint] == key) return hint;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == key) return i;
  for (const auto& [old_name, index] : reflection<T>::aliases)  // a member's name in older saves
    if (old_name == key) return index;
  return names.size();
}

// Index of the field whose compact-form key is key; size if none.
template <class T>
constexpr std::size_t find_field_by_key(std::size_t key) {
  constexpr const auto& keys = reflection<T>::keys;
  if (key < keys.size() && static_cast<std::size_t>(keys[key]) == key) return key;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (static_cast<std::size_t>(keys[i]) == key) return i;
  return keys.size();
}

// What a map entry costs a reader's memory budget: the key and value, and a node's links.
template <class Map>
inline constexpr std::uint64_t map_node_size = sizeof(typename Map::value_type) + 4 * sizeof(void*);

// ---- nesting depth ----------------------------------------------------------------------

// How deeply a type's values nest, counted as the readers count against max_depth: one
// level for each struct, sequence, fixed array, map, variant and tuple on the way down.
// Types that contain themselves (a tree of nodes, a linked chain) have no bound.
inline constexpr std::uint32_t unbounded_depth = 0xFFFFFFFFu;

// What an optional or a smart pointer holds.
template <class T>
struct held {
  using type = typename T::value_type;
};
template <class T, class D>
struct held<std::unique_ptr<T, D>> {
  using type = T;
};
template <class T>
struct held<std::shared_ptr<T>> {
  using type = T;
};

consteval std::uint32_t one_deeper(std::uint32_t depth) { return depth == unbounded_depth ? depth : depth + 1; }

template <class T, class... Visiting>
consteval std::uint32_t nesting_depth();

template <class... Types>
struct deepest_of {
  template <class... Visiting>
  static consteval std::uint32_t in() {
    std::uint32_t deepest = 0;
    ((deepest = nesting_depth<Types, Visiting...>() > deepest ? nesting_depth<Types, Visiting...>() : deepest), ...);
    return deepest;
  }
};

template <class T, std::size_t... I>
auto reflected_field_types(std::index_sequence<I...>)
    -> deepest_of<std::remove_cvref_t<decltype(reflection<T>::template get<I>(std::declval<T&>()))>...>;

template <class T, class... Visiting>
consteval std::uint32_t nesting_depth() {
  if constexpr ((std::is_same_v<T, Visiting> || ...)) {
    return unbounded_depth;  // T contains itself
  } else if constexpr (has_adapter<T>) {
    return nesting_depth<typename adapter<T>::wire_type, T, Visiting...>();
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || is_string<T> ||
                       std::is_same_v<T, std::string_view> || is_byte_vector<T>) {
    return 0;
  } else if constexpr (std::is_array_v<T>) {
    return one_deeper(nesting_depth<std::remove_cv_t<std::remove_extent_t<T>>, T, Visiting...>());
  } else if constexpr (is_std_array<T> || is_sequence<T>) {
    return one_deeper(nesting_depth<typename T::value_type, T, Visiting...>());
  } else if constexpr (is_specialization_v<T, std::optional> || is_smart_pointer<T>) {
    return nesting_depth<std::remove_cv_t<typename held<T>::type>, T, Visiting...>();
  } else if constexpr (is_specialization_v<T, std::variant>) {
    return one_deeper([]<class... A>(std::variant<A...>*) {
      return deepest_of<A...>::template in<T, Visiting...>();
    }(static_cast<T*>(nullptr)));
  } else if constexpr (is_tuple_like<T>) {
    return one_deeper([]<template <class...> class Tuple, class... A>(Tuple<A...>*) {
      return deepest_of<A...>::template in<T, Visiting...>();
    }(static_cast<T*>(nullptr)));
  } else if constexpr (is_map<T>) {
    return one_deeper(nesting_depth<typename T::mapped_type, T, Visiting...>());
  } else if constexpr (is_reflected<T>) {
    using fields = decltype(reflected_field_types<T>(std::make_index_sequence<reflection<T>::size>{}));
    return one_deeper(fields::template in<T, Visiting...>());
  } else {
    return 0;
  }
}

// Whether writing a T can nest deeper than any limit (only types that contain themselves).
template <class T>
inline constexpr bool depth_is_bounded = nesting_depth<T>() != unbounded_depth;

inline error too_deep_to_write(std::uint32_t max_depth) {
  return error{errc::depth_exceeded, 0,
               "the value nests deeper than max_depth (" + std::to_string(max_depth) +
                   "): it could not be read back, so it is not written"};
}

// Whether a T can own memory the readers count against max_memory (elements of sequences
// and maps, objects behind pointers), anywhere inside it.
template <class T, class... Visiting>
consteval bool owns_counted_memory() {
  if constexpr ((std::is_same_v<T, Visiting> || ...)) {
    return true;  // T contains itself, through a pointer or a container
  } else if constexpr (has_adapter<T>) {
    return owns_counted_memory<typename adapter<T>::wire_type, T, Visiting...>();
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || is_string<T> ||
                       std::is_same_v<T, std::string_view> || is_byte_vector<T>) {
    return false;
  } else if constexpr (std::is_array_v<T>) {
    return owns_counted_memory<std::remove_cv_t<std::remove_extent_t<T>>, T, Visiting...>();
  } else if constexpr (is_std_array<T> || is_specialization_v<T, std::optional>) {
    return owns_counted_memory<std::remove_cv_t<typename held<T>::type>, T, Visiting...>();
  } else if constexpr (is_sequence<T> || is_map<T> || is_smart_pointer<T>) {
    return true;
  } else if constexpr (is_specialization_v<T, std::variant>) {
    return []<class... A>(std::variant<A...>*) {
      return (owns_counted_memory<A, T, Visiting...>() || ...);
    }(static_cast<T*>(nullptr));
  } else if constexpr (is_tuple_like<T>) {
    return []<template <class...> class Tuple, class... A>(Tuple<A...>*) {
      return (owns_counted_memory<A, T, Visiting...>() || ...);
    }(static_cast<T*>(nullptr));
  } else if constexpr (is_reflected<T>) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (owns_counted_memory<std::remove_cvref_t<decltype(reflection<T>::template get<I>(std::declval<T&>()))>, T,
                                  Visiting...>() ||
              ...);
    }
    (std::make_index_sequence<reflection<T>::size>{});
  } else {
    return false;
  }
}

// Whether a copy of a T shares nothing with the original, so that another thread may read
// the copy while the original changes: plain values, strings, containers and aggregates of
// them. Pointers (which a copy shares), adapted and declared (non-aggregate) types (whose
// copy constructors savekit cannot see into) are not.
template <class T, class... Visiting>
consteval bool copy_is_independent() {
  if constexpr ((std::is_same_v<T, Visiting> || ...)) {
    return true;  // T contains itself: decided by its other parts
  } else if constexpr (!std::is_copy_constructible_v<T> || has_adapter<T> || std::is_pointer_v<T> ||
                       is_smart_pointer<T>) {
    return false;
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || is_string<T> || is_byte_vector<T>) {
    return true;
  } else if constexpr (std::is_array_v<T>) {
    return copy_is_independent<std::remove_cv_t<std::remove_extent_t<T>>, T, Visiting...>();
  } else if constexpr (is_map<T>) {
    return copy_is_independent<std::remove_cv_t<typename T::key_type>, T, Visiting...>() &&
           copy_is_independent<typename T::mapped_type, T, Visiting...>();
  } else if constexpr (is_std_array<T> || is_sequence<T> || is_specialization_v<T, std::optional>) {
    return copy_is_independent<std::remove_cv_t<typename held<T>::type>, T, Visiting...>();
  } else if constexpr (is_specialization_v<T, std::variant>) {
    return []<class... A>(std::variant<A...>*) {
      return (copy_is_independent<A, T, Visiting...>() && ...);
    }(static_cast<T*>(nullptr));
  } else if constexpr (is_tuple_like<T>) {
    return []<template <class...> class Tuple, class... A>(Tuple<A...>*) {
      return (copy_is_independent<std::remove_cv_t<A>, T, Visiting...>() && ...);
    }(static_cast<T*>(nullptr));
  } else if constexpr (is_reflected<T> && std::is_aggregate_v<T>) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (copy_is_independent<std::remove_cvref_t<decltype(reflection<T>::template get<I>(std::declval<T&>()))>, T,
                                  Visiting...>() &&
              ...);
    }
    (std::make_index_sequence<reflection<T>::size>{});
  } else {
    return false;
  }
}

// The memory a reader counts against max_memory to read value back into a new object:
// what a writer checks so as not to write what could not be read back with the same limit.
template <class T>
std::uint64_t memory_footprint(const T& value) {
  if constexpr (!owns_counted_memory<T>()) {
    return 0;
  } else if constexpr (has_adapter<T>) {
    return memory_footprint(adapter<T>::to_wire(value));
  } else if constexpr (std::is_array_v<T> || is_std_array<T>) {
    std::uint64_t total = 0;
    for (const auto& element : value) total += memory_footprint(element);
    return total;
  } else if constexpr (is_sequence<T>) {
    using E = typename T::value_type;
    if constexpr (std::is_same_v<E, bool>) {
      return 0;  // bits, bounded by the input
    } else {
      std::uint64_t total = std::uint64_t{value.size()} * sizeof(E);
      if constexpr (owns_counted_memory<E>())
        for (const auto& element : value) total += memory_footprint(element);
      return total;
    }
  } else if constexpr (is_map<T>) {
    std::uint64_t total = std::uint64_t{value.size()} * map_node_size<T>;
    if constexpr (owns_counted_memory<typename T::mapped_type>())
      for (const auto& [key, mapped] : value) total += memory_footprint(mapped);
    return total;
  } else if constexpr (is_smart_pointer<T>) {
    return value ? sizeof(typename held<T>::type) + memory_footprint(*value) : 0;
  } else if constexpr (is_specialization_v<T, std::optional>) {
    return value ? memory_footprint(*value) : 0;
  } else if constexpr (is_specialization_v<T, std::variant>) {
    return std::visit([](const auto& alternative) { return memory_footprint(alternative); }, value);
  } else if constexpr (is_tuple_like<T>) {
    return std::apply([](const auto&... element) { return (std::uint64_t{0} + ... + memory_footprint(element)); },
                      value);
  } else if constexpr (is_reflected<T>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (std::uint64_t{0} + ... + memory_footprint(reflection<T>::template get<I>(value)));
    }
    (std::make_index_sequence<reflection<T>::size>{});
  } else {
    return 0;
  }
}

// What a writer returns: nothing for a type of bounded depth (checked at compile time
// against the readers' default limit), a status for a type that contains itself.
template <class T, class Value>
using write_result = std::conditional_t<depth_is_bounded<T>, Value, result<Value>>;

// The name of an enum value from enum_names<E>, or an empty view.
template <class E>
constexpr std::string_view enum_to_name(E value) {
  for (const auto& [v, name] : enum_names<E>::values)
    if (v == value) return name;
  return {};
}

template <class E>
constexpr bool enum_from_name(std::string_view name, E& value) {
  for (const auto& [v, n] : enum_names<E>::values)
    if (n == name) {
      value = v;
      return true;
    }
  return false;
}

}  // namespace detail

// The field names savekit sees for T, in declaration order (handy in tests and tools).
template <class T>
requires detail::is_reflected<T>
constexpr const auto& field_names() { return detail::reflection<T>::names; }

template <class T>
requires detail::is_reflected<T>
constexpr std::size_t field_count() { return detail::reflection<T>::size; }

}  // namespace savekit
