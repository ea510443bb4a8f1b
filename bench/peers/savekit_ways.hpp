// savekit's ways of saving, in the shape every peer adapter has:
//   buffer, name, write(const T&, buffer&), read(const buffer&, T&) -> bool.
#pragma once

#include <savekit/savekit.hpp>

#include <string>
#include <vector>

namespace bench::ways {

struct savekit_json {
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
struct savekit_msgpack {
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

}  // namespace bench::ways
