// savekit/inspect_edit.hpp — changing a save through its inspection tree (inspect.hpp), with
// every value's wire type kept: what `savekit edit` and the inspector page's edits do.
//
//   auto tree = savekit::inspect::read_msgpack(bytes);
//   auto json = savekit::inspect::to_editable_json(*tree);          // what the person edits
//   auto edited = savekit::inspect::apply_edit(*tree, changed_json, savekit::inspect::wire::msgpack);
//   auto out = savekit::inspect::write(*edited, bytes, savekit::inspect::wire::msgpack);
//
// The rule that makes an edit safe: a node whose size is not 0 still stands for its bytes in
// the original input, and is written back as those bytes, unchanged; a node of size 0 is new
// or changed and is written from its kind, format and text. An edit that changes nothing
// therefore writes the original byte for byte, and an edit of one value leaves every byte
// outside that value and its enclosing containers' headers as it was.
//
// Types are kept: an integer stays an integer (in its wire width when the new value fits,
// else the next width that holds it, as savekit writes), a float32 stays float32, bytes stay
// bytes (shown as Base64), a string stays a string. A value of another kind in the edit is
// refused with its path and offset unless edit_options::allow_type_changes; null may
// replace anything (an optional emptied) and anything may replace null.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "savekit/error.hpp"
#include "savekit/inspect.hpp"

namespace savekit::inspect {

// What the bytes of a tree are: MessagePack, or JSON text.
enum class wire : std::uint8_t { msgpack, json };

// The tree written back (see above), then read back: errc::invalid_value for a changed node
// whose text does not read as its kind (a tree built by hand; apply_edit never makes one),
// and the readers' error for a result they would refuse (nested past their depth limit).
result<std::string> write(const node& root, std::string_view original, wire w);

// The tree as JSON a person edits, indented: bytes and ext data as Base64 (an ext as
// {"ext": TYPE, "base64": "..."}), NaN and the infinities as the strings "NaN",
// "Infinity", "-Infinity", integer map keys as their digits. errc::unsupported_type, with
// the offset, for what JSON cannot show without loss: a map key that is neither a string
// nor an integer, a string that is not UTF-8.
result<std::string> to_editable_json(const node& root);
// The same refusals, without writing the text: whether paths name every value of the tree
// (a map key that is not a string or an integer, or one repeated, has no path of its own).
status editable(const node& root);

struct edit_options {
  bool allow_type_changes = false;   // a value may change kind (an integer becomes a string)
  inspect::limits json_limits = {};  // on the edited JSON
};

// The edited JSON (to_editable_json's form) read against the original tree: values at the
// same path keep the original's types; unchanged ones keep their bytes. An error carries the
// offset in edited_json and, in its message, the path ("items[2].hp: ...").
result<node> apply_edit(const node& original, std::string_view edited_json, wire w, const edit_options& o = {});

// ---- single edits (the inspector page) ------------------------------------------------
// Each changes the tree in place and marks the changed node and its containers for writing
// again; json_value is a JSON value in to_editable_json's form, kept to the type already at
// the path (a new element takes the type of its siblings).

// Sets the value at path.
status set_value(node& root, std::string_view path, std::string_view json_value, wire w, const edit_options& o = {});
// Removes an array's element or a map's entry.
status remove_value(node& root, std::string_view path);
// Adds to the array at path (at index, or at the end when index is past it) or to the map
// at path (under key, which must be new to it: errc::already_exists otherwise).
status insert_value(node& root, std::string_view path, std::string_view key_or_index, std::string_view json_value,
                    wire w, const edit_options& o = {});

// The path of a container's child, as at() reads it: "items[2]", "stats.hp", "stats.\"a.b\"".
std::string child_path(std::string_view parent, std::size_t index);
std::string child_path(std::string_view parent, const node& key);

}  // namespace savekit::inspect
