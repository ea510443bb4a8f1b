// savekit/inspect_diff.hpp — what changed between two saves: their inspection trees
// (inspect.hpp) compared node by node, maps aligned by key, arrays by position or, for
// arrays of objects, by an id member; what `savekit diff` and the inspector page show.
//
//   auto changes = savekit::inspect::diff(*before, *after, {.id_field = "id", .ignore = {"stats.*.seen"}});
//
// Two values are the same when kind, wire format and value are: an integer re-written in
// another width is a change (it is one on the wire), a MessagePack float32 1.5 and float64
// 1.5 differ. A map key moved within its map is not a change.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "savekit/inspect.hpp"

namespace savekit::inspect {

struct diff_options {
  // Arrays whose elements are all maps with this member are aligned by its value: an element
  // moved is not a change, one whose id is new is added, one whose id is gone is removed.
  std::string id_field = {};
  // Paths left out, with their children: "stats.seen", "items[*].seen", "log.*". A '*'
  // stands for one key or index (no '.' or '[' in it).
  std::vector<std::string> ignore = {};
  std::size_t max_changes = 100'000;  // then diff stops; truncated says so
};

struct change {
  enum class what : std::uint8_t { changed, added, removed };
  what kind = what::changed;
  std::string path;         // in b's terms for added, a's otherwise (the same when aligned by key)
  const node* a = nullptr;  // nullptr when added
  const node* b = nullptr;  // nullptr when removed
};

struct diff_result {
  std::vector<change> changes;
  bool truncated = false;  // more than max_changes
};

diff_result diff(const node& a, const node& b, const diff_options& o = {});

// Whether path is matched by pattern (as diff_options::ignore reads it), or lies under it.
bool path_matches(std::string_view pattern, std::string_view path);

}  // namespace savekit::inspect
