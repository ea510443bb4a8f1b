// savekit's ways of saving, in the shape every peer adapter has (peer.hpp).
#pragma once

#include <savekit/savekit.hpp>

#include <span>

#include <string>
#include <vector>

namespace bench::ways {

struct savekit_way {
  static constexpr bool found = true;
  static constexpr const char* library = "savekit";
  static std::string version() { return savekit::version; }
};

struct savekit_json : savekit_way {
  using buffer = std::string;
  static constexpr const char* name = "savekit JSON";
  template <class T>
  static void write(const T& value, buffer& out) {
    savekit::to_json(value, out);
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    return savekit::from_json(in, value).has_value();
  }
};

template <savekit::msgpack_form Form>
struct savekit_msgpack : savekit_way {
  using buffer = std::vector<std::byte>;
  static constexpr const char* name =
      Form == savekit::msgpack_form::map ? "savekit MessagePack map" : "savekit MessagePack compact";
  template <class T>
  static void write(const T& value, buffer& out) {
    savekit::to_msgpack(value, out, {.form = Form});
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    return savekit::from_msgpack(in, value).has_value();
  }
  template <class T>
  static bool read(std::string_view in, T& value) {
    return savekit::from_msgpack(in, value).has_value();
  }
};

// MessagePack as text, for a store that keeps only strings (PlayerPrefs): the compact
// form as Base64, or the map form transcoded to JSON and back before reading.
enum class text_of_msgpack { base64, json };

template <text_of_msgpack Text>
struct savekit_msgpack_as_text : savekit_way {
  using buffer = std::string;
  static constexpr bool base64 = Text == text_of_msgpack::base64;
  static constexpr const char* name = base64 ? "savekit MessagePack / Base64" : "savekit MessagePack / JSON";
  template <class T>
  static void write(const T& value, buffer& out) {
    thread_local std::vector<std::byte> packed;
    savekit::to_msgpack(value, packed, {.form = base64 ? savekit::msgpack_form::compact : savekit::msgpack_form::map});
    if constexpr (base64)
      savekit::base64_encode(packed, out);
    else if (!savekit::msgpack_to_json(packed, out))
      out.clear();
  }
  template <class T>
  static bool read(std::string_view in, T& value) {
    thread_local std::vector<std::byte> packed;
    bool decoded =
        base64 ? savekit::base64_decode(in, packed).has_value() : savekit::json_to_msgpack(in, packed).has_value();
    return decoded && savekit::from_msgpack(packed, value).has_value();
  }
};

}  // namespace bench::ways
