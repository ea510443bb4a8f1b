// Structural diff of two inspection trees (savekit/inspect_diff.hpp). Maps are aligned by key
// (an index of b's keys, so a map of n entries costs O(n), not O(n²)); arrays by position,
// or by an id member when every element of both has it and the ids are unique.
#include "savekit/inspect_diff.hpp"

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "savekit/inspect_edit.hpp"

namespace savekit::inspect {
namespace {

bool same_scalar(const node& a, const node& b) {
  return a.kind == b.kind && a.format == b.format && a.text == b.text && a.ext_type == b.ext_type;
}

class differ {
 public:
  differ(const diff_options& o, diff_result& out) : o_(o), out_(out) {}

  void compare(const node& a, const node& b, const std::string& path) {
    if (full() || ignored(path)) return;
    const bool containers =
        (a.kind == kind::map && b.kind == kind::map) || (a.kind == kind::array && b.kind == kind::array);
    if (!containers) {
      if (!same_scalar(a, b) || a.kind == kind::map || a.kind == kind::array || b.kind == kind::map ||
          b.kind == kind::array)
        add(change::what::changed, path, &a, &b);
      return;
    }
    // A container's own format (fixmap or map16) follows its size; its children say what changed.
    if (a.kind == kind::map)
      maps(a, b, path);
    else
      arrays(a, b, path);
  }

 private:
  bool full() {
    if (out_.changes.size() < o_.max_changes) return false;
    out_.truncated = true;
    return true;
  }
  bool ignored(const std::string& path) const {
    for (const std::string& pattern : o_.ignore)
      if (path_matches(pattern, path)) return true;
    return false;
  }
  void add(change::what kind, const std::string& path, const node* a, const node* b) {
    if (full() || ignored(path)) return;
    out_.changes.push_back({kind, path, a, b});
  }

  static bool keyed(const node& n) { return n.kind == kind::string || n.kind == kind::integer; }

  // A key's identity: a string's or an integer's text (1 and "1" are one key to the JSON
  // side, and a change of its kind is reported), anything else by its kind and value.
  static std::string identity(const node& key) {
    if (keyed(key)) return key.text;
    std::string line = render(key, {.offsets = false, .max_bytes = SIZE_MAX, .max_string = SIZE_MAX, .children = true});
    return std::string(1, '\0') + line;
  }

  // (A key repeated in one map is compared as the readers take it: the last one.)
  void maps(const node& a, const node& b, const std::string& path) {
    std::unordered_map<std::string, std::size_t> in_b;  // key identity -> index of the value; the last wins
    for (std::size_t k = 0; k + 1 < b.items.size(); k += 2) in_b[identity(b.items[k])] = k + 1;
    std::unordered_map<std::string, std::size_t> in_a;
    for (std::size_t k = 0; k + 1 < a.items.size(); k += 2) in_a[identity(a.items[k])] = k + 1;
    for (std::size_t k = 0; k + 1 < a.items.size(); k += 2) {
      const node& key = a.items[k];
      const std::string id = identity(key);
      if (in_a[id] != k + 1) continue;  // a repeated key, read over
      const std::string inner = child_path(path, key);
      const auto found = in_b.find(id);
      if (found == in_b.end()) {
        add(change::what::removed, inner, &a.items[k + 1], nullptr);
        continue;
      }
      const node& b_key = b.items[found->second - 1];
      if (b_key.kind != key.kind)  // "1" and 1: the key itself changed kind
        add(change::what::changed, inner, &a.items[k + 1], &b.items[found->second]);
      else
        compare(a.items[k + 1], b.items[found->second], inner);
    }
    for (std::size_t k = 0; k + 1 < b.items.size(); k += 2) {
      const std::string id = identity(b.items[k]);
      if (in_b[id] == k + 1 && !in_a.count(id))
        add(change::what::added, child_path(path, b.items[k]), nullptr, &b.items[k + 1]);
    }
  }

  // The id of each element, when every element is a map with the id member (a string or an
  // integer) and no two share one.
  std::optional<std::vector<std::string_view>> ids(const node& array) const {
    std::vector<std::string_view> out;
    std::unordered_map<std::string_view, bool> seen;
    for (const node& element : array.items) {
      const node* id = element.kind == kind::map ? at(element, quoted_key(o_.id_field)) : nullptr;
      if (!id || !keyed(*id) || !seen.emplace(id->text, true).second) return std::nullopt;
      out.push_back(id->text);
    }
    return out;
  }
  static std::string quoted_key(const std::string& name) {
    node key;
    key.kind = kind::string;
    key.text = name;
    return child_path("", key);
  }

  void arrays(const node& a, const node& b, const std::string& path) {
    if (!o_.id_field.empty() && !a.items.empty() && !b.items.empty()) {
      std::optional<std::vector<std::string_view>> a_ids = ids(a), b_ids = ids(b);
      if (a_ids && b_ids) {
        std::unordered_map<std::string_view, std::size_t> in_b;
        for (std::size_t i = 0; i < b_ids->size(); ++i) in_b[(*b_ids)[i]] = i;
        std::unordered_map<std::string_view, std::size_t> in_a;
        for (std::size_t i = 0; i < a_ids->size(); ++i) in_a[(*a_ids)[i]] = i;
        for (std::size_t i = 0; i < a_ids->size(); ++i) {
          const auto found = in_b.find((*a_ids)[i]);
          if (found == in_b.end())
            add(change::what::removed, child_path(path, i), &a.items[i], nullptr);
          else
            compare(a.items[i], b.items[found->second], child_path(path, found->second));
        }
        for (std::size_t i = 0; i < b_ids->size(); ++i)
          if (!in_a.count((*b_ids)[i])) add(change::what::added, child_path(path, i), nullptr, &b.items[i]);
        return;
      }
    }
    const std::size_t common = std::min(a.items.size(), b.items.size());
    for (std::size_t i = 0; i < common; ++i) compare(a.items[i], b.items[i], child_path(path, i));
    for (std::size_t i = common; i < a.items.size(); ++i)
      add(change::what::removed, child_path(path, i), &a.items[i], nullptr);
    for (std::size_t i = common; i < b.items.size(); ++i)
      add(change::what::added, child_path(path, i), nullptr, &b.items[i]);
  }

  const diff_options& o_;
  diff_result& out_;
};

// Matches one pattern segment run against the path from the given positions.
bool glob(std::string_view pattern, std::string_view path) {
  std::size_t p = 0, s = 0;
  while (p < pattern.size()) {
    if (pattern[p] == '*') {
      // A '*' takes one key or index: up to the next '.', '[' or ']'.
      std::size_t end = s;
      while (end < path.size() && path[end] != '.' && path[end] != '[' && path[end] != ']') {
        if (path[end] == '"') {  // a quoted key, taken whole
          ++end;
          while (end < path.size() && path[end] != '"') end += path[end] == '\\' ? 2 : 1;
        }
        ++end;
      }
      if (end == s) return false;
      s = std::min(end, path.size());
      ++p;
      continue;
    }
    if (s >= path.size() || pattern[p] != path[s]) return false;
    ++p;
    ++s;
  }
  // The whole path, or a path under it.
  return s == path.size() || path[s] == '.' || path[s] == '[';
}

}  // namespace

bool path_matches(std::string_view pattern, std::string_view path) { return glob(pattern, path); }

diff_result diff(const node& a, const node& b, const diff_options& o) {
  diff_result out;
  differ d(o, out);
  d.compare(a, b, "");
  return out;
}

}  // namespace savekit::inspect
