// Reading a save written by an older version of the game's types: the stored payload as a
// document, a compact one given its member names from the layout kept in the generation's
// metadata, then the game's migration steps (document.hpp, migrate), then the map form that
// today's type reads. slots::read<T> (slots.hpp) calls it when the stored schema_version is
// older and steps lead from it; docs/slots.md, "Schema versions", says what a game writes.
#include <charconv>
#include <map>
#include <set>
#include <string>

#include "savekit/slots.hpp"

namespace savekit::detail {

namespace {

// The layout's entries by struct path: PATH -> (key -> name).
using named_positions = std::map<std::string, std::map<std::uint64_t, std::string>, std::less<>>;

named_positions positions_of(const std::vector<std::string>& layout) {
  named_positions out;
  for (const std::string& entry : layout) {
    std::size_t equals = entry.find('='), at = entry.rfind('@', equals);
    if (equals == std::string::npos || at == std::string::npos) continue;
    std::uint64_t key = 0;
    auto [end, ec] = std::from_chars(entry.data() + at + 1, entry.data() + equals, key);
    if (ec != std::errc{} || end != entry.data() + equals) continue;
    out[entry.substr(0, at)][key] = entry.substr(equals + 1);
  }
  return out;
}

bool any_under(const named_positions& positions, const std::string& prefix) {
  auto it = positions.lower_bound(prefix);
  return it != positions.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

struct naming {
  named_positions positions;
  std::set<std::string, std::less<>> nullable;  // "PATH.NAME", no '?'
};

document named(document value, std::string path, const naming& n, std::uint32_t depth) {
  if (depth > default_max_depth || value.is_null()) return value;
  const named_positions& positions = n.positions;
  // An optional's or a pointer's value is described under PATH?: the document has no
  // wrapper for it, so the path steps through.
  if (!any_under(positions, path + "[") && !any_under(positions, path + "{") && !any_under(positions, path + "<") &&
      !any_under(positions, path + "(") && !positions.count(path) && any_under(positions, path + "?"))
    path += "?";
  auto structure = positions.find(path);
  if (structure != positions.end() && value.is_array()) {
    const std::string& at = structure->first;
    std::string plain = at;
    std::erase(plain, '?');
    document object = document::object();
    const document::array_type& slots = value.elements();
    for (std::size_t k = 0; k < slots.size(); ++k) {
      auto name = structure->second.find(k);
      if (name == structure->second.end()) continue;  // a position gone
      // nil: a gap (the member keeps its default) unless the member holds null itself.
      if (slots[k].is_null() && !n.nullable.count(plain + "." + name->second)) continue;
      (void)object.set(name->second, named(slots[k], at + "." + name->second, n, depth + 1));
    }
    return object;
  }
  if (value.is_array() && any_under(positions, path + "<") && value.size() == 2) {  // a variant: [index, value]
    const std::optional<std::uint64_t> index = value.element(0)->as_uint();
    if (index) {
      document::array_type pair{*value.element(0),
                                named(*value.element(1), path + "<" + std::to_string(*index) + ">", n, depth + 1)};
      return document{std::move(pair)};
    }
  }
  if (value.is_array() && any_under(positions, path + "(")) {  // a tuple or pair: each element its own path
    document::array_type elements;
    for (std::size_t i = 0; i < value.size(); ++i)
      elements.push_back(named(*value.element(i), path + "(" + std::to_string(i) + ")", n, depth + 1));
    return document{std::move(elements)};
  }
  if (value.is_array()) {
    document::array_type elements;
    for (const document& e : value.elements()) elements.push_back(named(e, path + "[]", n, depth + 1));
    return document{std::move(elements)};
  }
  if (value.is_object()) {
    document::object_type members;
    for (const auto& [key, v] : value.members()) members.emplace_back(key, named(v, path + "{}", n, depth + 1));
    return document{std::move(members)};
  }
  return value;
}

}  // namespace

document name_compact_document(document compact, const std::vector<std::string>& layout,
                               const std::vector<std::string>& nullable) {
  naming n{positions_of(layout), {nullable.begin(), nullable.end()}};
  return named(std::move(compact), "$", n, 0);
}

result<std::string> migrate_payload(const slots::payload& stored, const std::vector<migration_step>& steps,
                                    std::uint32_t to_version, const object_options& limits,
                                    const std::vector<std::string>& nullable) {
  if (stored.encoding == object_encoding::bytes) return bytes_are_not_an_object();
  const document_limits document_options{limits.max_depth, limits.max_memory};
  result<document> d = stored.encoding == object_encoding::json
                           ? document::from_json(stored.bytes, document_options)
                           : document::from_msgpack(stored.bytes, document_options);
  if (!d) return std::move(d).error();
  if (stored.encoding == object_encoding::msgpack_compact)
    *d = name_compact_document(std::move(*d), stored.compact_layout, nullable);
  if (status done = migrate(*d, steps, stored.schema_version, to_version); !done) return std::move(done).error();
  std::string out;
  d->to_msgpack(out);
  return out;
}

}  // namespace savekit::detail
