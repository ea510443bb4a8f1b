// savekit/json_schema.hpp — a JSON Schema (draft 2020-12) of the JSON savekit writes for a
// type, from the type itself: what an editor or an inspector checks an edited save against.
//
//   std::string schema = savekit::json_schema<SaveGame>();
//
// It says what the JSON codec writes and what its strict reader takes (from_json with
// error_on_missing_keys): member names as written (renamed members under their current
// name, skipped members absent), every member required (with skip_null_members, members
// that may be null are not), integers within their type's range, floats as numbers or null
// (NaN and the infinities are written as null), bytes as Base64 strings, enums by name or
// by number, fixed-size arrays with their size, maps as objects (integer keys as decimal
// strings), variants as [index, value], tuples as fixed arrays, raw_json as anything.
// Structs are $defs, referenced where they appear: a type that contains itself works.
//
// Unknown members are allowed (the reader skips them) unless additional_members is false.
// What a schema cannot say is left to the reader: a number written as 1.0 or 1e2 is an
// integer to JSON Schema, not to savekit's reader; an adapter's own checks (from_wire)
// are not in the schema. The 64-bit ranges are exact, but a validator that holds numbers
// as doubles (JavaScript's, ajv) cannot tell the last 2^11 values before a limit from the
// first past it; savekit's reader can.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "savekit/json.hpp"
#include "savekit/reflect.hpp"

namespace savekit {

struct json_schema_options {
  bool skip_null_members = false;  // as json_options: members that may be null are then optional
  bool additional_members = true;  // false: unknown members are refused (as error_on_unknown_keys)
  std::string_view title = {};     // the schema's "title"
};

namespace detail {

// A type's name as the compiler spells it (for $defs: readable, unique per type).
template <class T>
constexpr std::string_view schema_type_signature() {
  return __PRETTY_FUNCTION__;
}

class schema_writer {
 public:
  explicit schema_writer(const json_schema_options& o) : options_(o) {}

  template <class T>
  std::string root() {
    std::string body = of<T>();
    std::string out = R"({"$schema":"https://json-schema.org/draft/2020-12/schema")";
    if (!options_.title.empty()) out += ",\"title\":" + quoted(options_.title);
    if (!defs_.empty()) {
      out += ",\"$defs\":{";
      bool first = true;
      for (const auto& [name, def] : defs_) {
        if (!first) out += ',';
        first = false;
        out += quoted(name) + ":" + def;
      }
      out += '}';
    }
    // The root's own keywords beside $schema and $defs ("{...}" without its braces).
    if (body.size() > 2) out += "," + body.substr(1, body.size() - 2);
    out += '}';
    return out;
  }

  template <class T>
  std::string of() {
    constexpr value_kind kind = kind_v<T>;
    if constexpr (std::is_same_v<T, raw_json>) {
      return "{}";
    } else if constexpr (kind == value_kind::adapted) {
      return of<typename adapter<T>::wire_type>();
    } else if constexpr (kind == value_kind::boolean) {
      return R"({"type":"boolean"})";
    } else if constexpr (kind == value_kind::enumeration) {
      const std::string number = integer_range<std::underlying_type_t<T>>();
      if constexpr (has_enum_names<T>) {
        std::string names;
        for (const auto& [v, name] : enum_names<T>::values) names += (names.empty() ? "" : ",") + quoted(name);
        return R"({"anyOf":[{"enum":[)" + names + "]}," + number + "]}";
      } else {
        return number;
      }
    } else if constexpr (kind == value_kind::integer) {
      return integer_range<T>();
    } else if constexpr (kind == value_kind::floating) {
      return R"({"type":["number","null"]})";  // NaN and the infinities are written as null
    } else if constexpr (kind == value_kind::string) {
      return R"({"type":"string"})";
    } else if constexpr (kind == value_kind::bytes) {
      return R"({"type":"string","contentEncoding":"base64"})";
    } else if constexpr (kind == value_kind::fixed_array) {
      using element = std::remove_cvref_t<decltype(std::declval<T&>()[0])>;
      constexpr std::size_t n = sizeof(T) / sizeof(element);
      return R"({"type":"array","items":)" + of<element>() + ",\"minItems\":" + std::to_string(n) +
             ",\"maxItems\":" + std::to_string(n) + "}";
    } else if constexpr (kind == value_kind::sequence) {
      return R"({"type":"array","items":)" + of<typename T::value_type>() + "}";
    } else if constexpr (kind == value_kind::nullable) {
      return R"({"anyOf":[)" + of<std::remove_cvref_t<decltype(*std::declval<const T&>())>>() + R"(,{"type":"null"}]})";
    } else if constexpr (kind == value_kind::variant) {
      return variant_of<T>(std::make_index_sequence<std::variant_size_v<T>>{});
    } else if constexpr (kind == value_kind::tuple) {
      return tuple_of<T>(std::make_index_sequence<std::tuple_size_v<T>>{});
    } else if constexpr (kind == value_kind::map) {
      using key = typename T::key_type;
      std::string out = R"({"type":"object","additionalProperties":)" + of<typename T::mapped_type>();
      if constexpr (std::is_integral_v<key>) out += R"(,"propertyNames":{"pattern":"^-?[0-9]+$"})";
      return out + "}";
    } else if constexpr (kind == value_kind::structure) {
      return struct_ref<T>();
    } else {
      static_assert(kind != value_kind::unsupported, "savekit cannot save this type, so it has no schema");
      return "{}";
    }
  }

 private:
  // A JSON string, as the codec writes one.
  static std::string quoted(std::string_view text) { return savekit::to_json(std::string{text}); }

  template <class I>
  static std::string integer_range() {
    return R"({"type":"integer","minimum":)" + std::to_string(std::numeric_limits<I>::min()) +
           ",\"maximum\":" + std::to_string(std::numeric_limits<I>::max()) + "}";
  }

  template <class T, std::size_t... I>
  std::string variant_of(std::index_sequence<I...>) {
    std::string out = R"({"anyOf":[)";
    bool first = true;
    ((out += (first ? "" : ","), first = false,
      out += R"({"type":"array","prefixItems":[{"const":)" + std::to_string(I) + "}," +
             of<std::variant_alternative_t<I, T>>() + R"(],"items":false,"minItems":2})"),
     ...);
    return out + "]}";
  }

  template <class T, std::size_t... I>
  std::string tuple_of(std::index_sequence<I...>) {
    std::string out = R"({"type":"array","prefixItems":[)";
    bool first = true;
    ((out += (first ? "" : ","), first = false, out += of<std::tuple_element_t<I, T>>()), ...);
    return out + R"(],"items":false,"minItems":)" + std::to_string(sizeof...(I)) + "}";
  }

  // A struct is a $def of its own, written once: its members may name it again.
  template <class T>
  std::string struct_ref() {
    const std::string_view signature = schema_type_signature<T>();
    auto [it, fresh] = names_.try_emplace(std::string{signature}, std::string{});
    if (fresh) {
      it->second = def_name(signature);
      defs_[it->second] = "{}";  // taken: a member of T that is T again refers to it
      defs_[it->second] = struct_of<T>(std::make_index_sequence<reflection<T>::size>{});
    }
    return R"({"$ref":"#/$defs/)" + it->second + "\"}";
  }

  template <class T, std::size_t... I>
  std::string struct_of(std::index_sequence<I...>) {
    using R = reflection<T>;
    std::string properties, required;
    (
        [&] {
          using member = std::remove_cvref_t<decltype(R::template get<I>(std::declval<const T&>()))>;
          properties += (I == 0 ? "" : ",") + quoted(R::names[I]) + ":" + of<member>();
          if (!(options_.skip_null_members && can_hold_null<member>))
            required += (required.empty() ? "" : ",") + quoted(R::names[I]);
        }(),
        ...);
    std::string out = R"({"type":"object","properties":{)" + properties + "},\"required\":[" + required + "]";
    if (!options_.additional_members) out += R"(,"additionalProperties":false)";
    return out + "}";
  }

  // The type's name, cut to what a JSON pointer needs no escaping for, made unique.
  std::string def_name(std::string_view signature) {
    const std::size_t from = signature.find("T = ");
    std::string_view name = from == std::string_view::npos ? signature : signature.substr(from + 4);
    if (const std::size_t end = name.find_first_of(";]"); end != std::string_view::npos) name = name.substr(0, end);
    // The anonymous namespace as g++ ("{anonymous}") and clang ("(anonymous namespace)") spell it.
    std::string spelled{name};
    for (std::string_view anonymous : {"(anonymous namespace)", "{anonymous}"})
      for (std::size_t at = spelled.find(anonymous); at != std::string::npos; at = spelled.find(anonymous))
        spelled.replace(at, anonymous.size(), "anonymous");
    std::string out;
    for (char c : spelled) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      if (plain)
        out += c;
      else if (c == ':' || c == '<' || c == ',' || c == '.' || c == ' ')
        out += out.empty() || out.back() == '.' ? "" : ".";
    }
    while (!out.empty() && out.back() == '.') out.pop_back();
    if (out.empty()) out = "type";
    std::string unique = out;
    for (int n = 2; defs_.contains(unique); ++n) unique = out + "." + std::to_string(n);
    return unique;
  }

  json_schema_options options_;
  std::map<std::string, std::string> names_;  // signature -> $defs name
  std::map<std::string, std::string> defs_;   // $defs name -> schema
};

}  // namespace detail

// The JSON Schema of T's JSON, as one compact JSON document.
template <class T>
std::string json_schema(const json_schema_options& options = {}) {
  return detail::schema_writer{options}.root<T>();
}

}  // namespace savekit
