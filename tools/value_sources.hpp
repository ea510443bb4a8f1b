// What `savekit show`, `diff`, `edit` and `schema` look at: a value named by a path and,
// inside a store or a slots folder, a key or a slot — read as bytes savekit::inspect can
// open, and (for edit) written back as a new commit or generation.
//
//   a MessagePack or JSON file      the file is the value
//   a store file + KEY               that entry (integers, floats, strings, bytes, objects)
//   a slots folder + SLOT            the slot's newest intact generation (--generation N: that one)
//   a slot generation file           its payload (a copy of it is opened, never the folder around it)
//
// A sealed entry or payload is opened with the keys (--key-file); without them, only its
// header is shown and it cannot be edited.
#pragma once

#include <savekit/inspect_edit.hpp>
#include <savekit/sealer.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace savekit_cli {

enum class source_kind { file, store_entry, slot };

struct value_source {
  std::string path;                                       // the file or folder
  std::string key;                                        // an entry's key or a slot's name
  std::optional<std::uint64_t> generation;                // a slot's older generation
  std::shared_ptr<const savekit::payload_sealer> sealer;  // --key-file
};

struct opened_value {
  source_kind kind = source_kind::file;
  std::string bytes;  // what the tree is read from
  savekit::inspect::wire wire = savekit::inspect::wire::msgpack;
  std::string description;  // "store entry (msgpack)", "slot 'a', generation 3 (json, sealed)"
  // A store entry stored as raw bytes or text (set_string, set_bytes) is shown as one
  // MessagePack str or bin value; raw says so, and edit stores the value's bytes again.
  bool raw = false;
  std::uint8_t stored_type = 0;  // savekit::value_type of a store entry
  std::uint8_t encoding = 0;     // savekit::object_encoding of a slot
  std::uint32_t schema_version = 0;
  std::uint64_t generation = 0;
  bool sealed = false;
  std::string sealed_header;  // a sealed value not opened: what its header says
  bool lone_file = false;     // a generation file opened on its own: shown, never written back
  std::string as_stored;      // a store entry's stored bytes when read: edit checks them again before it writes
};

// What a path names, told by stat and the file's first bytes (its magic): only those are read.
enum class file_kind { folder, store, slot_file, other };
savekit::result<file_kind> kind_of(const std::string& path);

// Reads the value source names (see above).
savekit::result<opened_value> open_value(const value_source& source);

// What a store or a slots folder holds, as lines for a terminal, when path is one and no
// key was given; nullopt when path is a single value.
savekit::result<std::optional<std::string>> describe_container(const std::string& path);

// Writes a changed value back where it came from: a store entry as one new commit, a slot as
// a new generation (the newest one's metadata and thumbnail kept), a file through a
// temporary file and a rename. Returns what was written ("a new commit", "generation 4").
// Refused (errc::already_exists, nothing written) when the entry or the slot changed since
// it was opened — the game saved while the person edited — and for a lone generation file.
savekit::result<std::string> write_value(const value_source& source, const opened_value& opened,
                                         const std::string& new_bytes);

// What is stored for new_bytes (the edited value's bytes): those bytes, or for a raw value
// its string's or bytes' content, which must stay a string or bytes. (write_value uses it;
// the inspector page too, for the game's own IndexedDB saves.)
savekit::result<std::string> stored_form(const opened_value& opened, const std::string& new_bytes);

}  // namespace savekit_cli
