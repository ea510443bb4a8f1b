// savekit/object_codec.hpp — a whole object to bytes and back in the encoding a store
// records beside them: what prefs' set/get and slots' write/read share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "savekit/detail/config.hpp"
#include "savekit/error.hpp"
#include "savekit/json.hpp"
#include "savekit/msgpack.hpp"
#include "savekit/reflect.hpp"

namespace savekit {

// How an object is encoded (prefs::set, slots::write).
enum class object_encoding : std::uint8_t {
  msgpack,          // MessagePack map form (default): survives schema changes
  msgpack_compact,  // MessagePack compact array form: smallest
  json,             // JSON: readable in any tool
  // The game's own bytes (its serializer's, through the C ABI and the bindings): stored and
  // read back as they are (slots::write_bytes, read_payload), never decoded into a type.
  bytes,
};

// Limits for stored objects: writing refuses a value nesting deeper than max_depth (it
// could not be read back with the same limit); reading uses both.
struct object_options {
  std::uint32_t max_depth = default_max_depth;
  // Memory the object's arrays, maps and pointed-to objects may take when read (see
  // json_options::max_memory); writing refuses a larger one.
  std::uint64_t max_memory = default_max_memory;
};

namespace detail {

inline error bytes_encoding_is_not_for_objects() {
  return error{errc::invalid_value, 0,
               "object_encoding::bytes holds bytes the game encoded itself (slots::write_bytes): an object is "
               "written as MessagePack or JSON"};
}

inline error bytes_are_not_an_object() {
  return error{errc::type_mismatch, 0,
               "the payload is the game's own bytes (object_encoding::bytes), not an object savekit can decode: "
               "read it as bytes (slots::read_payload)"};
}

// Encodes value into out (replacing what it held). Fails only for a value that could not
// be read back with the same limits: too deep, or too large in memory.
template <class T>
status encode_object(const T& value, object_encoding encoding, std::string& out, const object_options& options) {
  if (encoding == object_encoding::bytes) return bytes_encoding_is_not_for_objects();
  if constexpr (depth_is_bounded<T>) {
    if (nesting_depth<T>() > options.max_depth) return too_deep_to_write(options.max_depth);
  }
  if (std::uint64_t footprint = memory_footprint(value); footprint > options.max_memory)
    return error{errc::value_too_large, 0,
                 "the object takes " + std::to_string(footprint) + " bytes in memory, more than max_memory (" +
                     std::to_string(options.max_memory) + "): it could not be read back, so it is not stored"};
  status encoded;  // only a type that contains itself can fail to encode (too deep)
  const msgpack_form form = encoding == object_encoding::msgpack_compact ? msgpack_form::compact : msgpack_form::map;
  if (encoding == object_encoding::json) {
    if constexpr (depth_is_bounded<T>)
      savekit::to_json(value, out, {.max_depth = options.max_depth});
    else
      encoded = savekit::to_json(value, out, {.max_depth = options.max_depth});
  } else {
    if constexpr (depth_is_bounded<T>)
      savekit::to_msgpack(value, out, {.form = form, .max_depth = options.max_depth});
    else
      encoded = savekit::to_msgpack(value, out, {.form = form, .max_depth = options.max_depth});
  }
  return encoded;
}

// Reads bytes written by encode_object with that encoding into `into`, in place.
// (Inline, so that no string_view or options struct is copied through memory to get here:
// see read_msgpack_document.)
template <class T>
SAVEKIT_ALWAYS_INLINE status decode_object(std::string_view bytes, object_encoding encoding, T& into,
                                           const object_options& options) {
  if (encoding == object_encoding::bytes) return bytes_are_not_an_object();
  if (encoding == object_encoding::json)
    return savekit::from_json(bytes, into, {.max_depth = options.max_depth, .max_memory = options.max_memory});
  return savekit::from_msgpack(bytes, into, {.max_depth = options.max_depth, .max_memory = options.max_memory});
}

}  // namespace detail
}  // namespace savekit
