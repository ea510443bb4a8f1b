// Payloads the game encoded itself (slots::write_bytes): what the C ABI and the bindings
// write, since reflection stays in C++. MessagePack and JSON are checked here, once, so that
// everything that reads a slot as a document (read<T>, migrations, the tools) can.
#include "savekit/slots.hpp"

#include "slots_state.hpp"

namespace savekit {

namespace {

status check_payload(std::string_view payload, object_encoding encoding, const object_options& limits) {
  if (encoding == object_encoding::bytes) return {};
  if (encoding != object_encoding::msgpack && encoding != object_encoding::msgpack_compact &&
      encoding != object_encoding::json)
    return error{errc::invalid_value, 0, "not an object_encoding"};
  const document_limits document_options{limits.max_depth, limits.max_memory};
  const bool json = encoding == object_encoding::json;
  result<document> parsed =
      json ? document::from_json(payload, document_options) : document::from_msgpack(payload, document_options);
  if (parsed) return {};
  error e = std::move(parsed).error();
  return error{e.code(), e.offset(),
               std::string{"the payload is not one well-formed "} + (json ? "JSON" : "MessagePack") +
                   " document (write object_encoding::bytes for the game's own format): " + e.message(),
               e.path()};
}

}  // namespace

result<slots::encoded_save> slots::take_bytes(std::string_view name, std::string_view payload, object_encoding encoding,
                                              std::uint32_t schema_version, const slot_meta& meta,
                                              const write_options& options) {
  if (status valid = check_name(name); !valid) return std::move(valid).error();
  if (schema_version == 0) return error{errc::invalid_value, 0, "a schema version is at least 1"};
  if (status valid = check_payload(payload, encoding, limits()); !valid) return std::move(valid).error();
  result<encoded_save> save{std::in_place};
  save->payload.assign(payload);
  save->sealed = options.sealed;
  save->encoding = encoding;
  save->schema_version = schema_version;
  save->meta = meta;
  return save;
}

status slots::write_bytes(std::string_view name, std::string_view payload, object_encoding encoding,
                          std::uint32_t schema_version, const slot_meta& meta, write_options options) {
  result<encoded_save> save = take_bytes(name, payload, encoding, schema_version, meta, options);
  if (!save) return std::move(save).error();
  return write_encoded(name, std::move(*save));
}

void slots::write_bytes_async(std::string_view name, std::string_view payload, object_encoding encoding,
                              std::uint32_t schema_version, const slot_meta& meta, std::function<void(status)> done,
                              write_options options) {
  result<encoded_save> save = take_bytes(name, payload, encoding, schema_version, meta, options);
  if (!save) return deliver(std::move(done), std::move(save).error());
  queue_write(
      name, [save = std::move(*save)]() mutable -> result<encoded_save> { return std::move(save); }, std::move(done));
}

}  // namespace savekit
