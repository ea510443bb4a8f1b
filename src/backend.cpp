// What every backend shares: value-type names and applying a commit to a committed state.
#include "savekit/backend.hpp"

namespace savekit {

std::string_view to_string(value_type type) noexcept {
  switch (type) {
    case value_type::integer:
      return "int";
    case value_type::floating:
      return "float";
    case value_type::string:
      return "string";
    case value_type::bytes:
      return "bytes";
    case value_type::msgpack:
      return "msgpack";
    case value_type::msgpack_compact:
      return "msgpack_compact";
    case value_type::json:
      return "json";
    case value_type::sealed:
      return "sealed";
    case value_type::end_of_known_types:
      break;
  }
  return "unknown";
}

void apply_changes(committed_state& state, const change_set& changes) {
  if (changes.clear_all) state.clear();
  for (const change& c : changes.changes) {
    auto it = state.find(c.key);
    if (c.erase) {
      if (it != state.end()) state.erase(it);
      continue;
    }
    if (it == state.end()) it = state.emplace(std::string{c.key}, stored_value{}).first;
    it->second.type = c.type;
    it->second.bytes.assign(c.value);
  }
}

}  // namespace savekit
