// savekit/inspect.hpp — a save's value as a tree whose every node keeps what the bytes
// said: its exact wire format (a MessagePack integer's width, float32 or float64, str or
// bin, an ext's type code; a JSON number as written), its byte offset and size in the
// input. What `savekit show` prints and the inspector page draws; the same parser for both.
//
//   savekit::result<savekit::inspect::node> tree = savekit::inspect::read_msgpack(bytes);
//   std::cout << savekit::inspect::render(*tree);
//
// Nothing is converted on the way in: a uint64 stays its 20 digits, a float32 its own
// shortest digits, a JSON number the text it was written as. Bad input is an error with
// the offset where it went wrong; nesting and the node count are bounded (a small hostile
// input cannot take all memory or the stack).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/error.hpp"

namespace savekit::inspect {

enum class kind : std::uint8_t { null, boolean, integer, floating, string, bytes, array, map, ext };

struct node {
  inspect::kind kind = kind::null;
  std::string_view format = {};  // the wire's name: "uint16", "negative fixint", "float32", "str8", "number"…
  std::uint64_t offset = 0;      // where the node starts in the input
  std::uint64_t size = 0;        // its bytes there, header and children included
  // A scalar's value as text: an integer in decimal; a float as the shortest digits that
  // read back to it in its own width ("NaN", "Infinity", "-Infinity" too); a JSON number as
  // written; a string's bytes; bytes and an ext's data as they are (render shows hex).
  std::string text = {};
  std::int8_t ext_type = 0;      // ext: its type code
  std::vector<node> items = {};  // array: the elements; map: key, value, key, value…
};

struct limits {
  std::uint32_t max_depth = 256;         // nesting
  std::uint64_t max_nodes = 10'000'000;  // nodes in the tree (each costs ~100 bytes)
};

// One MessagePack value: the whole input (trailing bytes are errc::trailing_characters).
result<node> read_msgpack(std::span<const std::byte> bytes, const limits& l = {});
result<node> read_msgpack(std::string_view bytes, const limits& l = {});
// One JSON value, numbers kept as written.
result<node> read_json(std::string_view text, const limits& l = {});

struct render_options {
  bool offsets = true;           // "@offset +size" after each node
  std::size_t max_bytes = 32;    // bytes and ext data shown (hex), then "…"
  std::size_t max_string = 200;  // string bytes shown, then "…"
  bool children = true;          // false: the node's own line only
};
// The tree, a node a line, indented; strings quoted with escapes (terminal-safe: control
// characters, C1 ones included, and bytes that are not UTF-8 are escaped).
std::string render(const node& root, const render_options& o = {});

// The node at path ("" the root; "hp", "items[2].name", "stats.\"a.b\""), nullptr if none.
// Map keys are matched by their text (an integer key by its decimal digits).
const node* at(const node& root, std::string_view path);

}  // namespace savekit::inspect
