// The compact form's layout: which member each position (compact key) of every struct in a
// type stands for. The compact form carries no names, so a save records its layout and a
// reader compares it with its own: a position may gain a member (an appended one) or lose
// one (skipped), but never come to mean another — that would be read as the wrong member.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/reflect.hpp"

namespace savekit::detail {

// What a type's compact layout says, and what else a reader of it needs to know.
struct layout_lists {
  std::vector<std::string> positions;  // "PATH@KEY=NAME" (what a save records)
  std::vector<std::string> old_names;  // "PATH@KEY=OLD" for renamed_from names: a saved position may use them
  std::vector<std::string> nullable;   // "PATH.NAME" of members that hold null (optional, pointers), paths without '?'
};

// Appends the entries for each member of each struct reachable from T, PATH being where the
// struct sits ("$", "$.items[]", "$.stats{}", "$.pet?", "$.shape<1>", "$.pair(0)").
template <class T, class... Visiting>
void append_compact_layout(layout_lists& out, const std::string& path) {
  if constexpr ((std::is_same_v<T, Visiting> || ...)) {
    return;  // a type that contains itself: described where it first appears
  } else if constexpr (has_adapter<T>) {
    append_compact_layout<typename adapter<T>::wire_type, T, Visiting...>(out, path);
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || is_string<T> || is_byte_vector<T> ||
                       std::is_same_v<T, std::string_view>) {
    return;
  } else if constexpr (std::is_array_v<T>) {
    append_compact_layout<std::remove_cv_t<std::remove_extent_t<T>>, T, Visiting...>(out, path + "[]");
  } else if constexpr (is_map<T>) {
    append_compact_layout<typename T::mapped_type, T, Visiting...>(out, path + "{}");
  } else if constexpr (is_std_array<T> || is_sequence<T>) {
    append_compact_layout<typename T::value_type, T, Visiting...>(out, path + "[]");
  } else if constexpr (is_specialization_v<T, std::optional> || is_smart_pointer<T>) {
    append_compact_layout<std::remove_cv_t<typename held<T>::type>, T, Visiting...>(out, path + "?");
  } else if constexpr (is_specialization_v<T, std::variant>) {
    [&]<class... A>(std::variant<A...>*) {
      std::size_t i = 0;
      ((append_compact_layout<A, T, Visiting...>(out, path + "<" + std::to_string(i++) + ">")), ...);
    }(static_cast<T*>(nullptr));
  } else if constexpr (is_tuple_like<T>) {
    [&]<template <class...> class Tuple, class... A>(Tuple<A...>*) {
      std::size_t i = 0;
      ((append_compact_layout<std::remove_cv_t<A>, T, Visiting...>(out, path + "(" + std::to_string(i++) + ")")), ...);
    }(static_cast<T*>(nullptr));
  } else if constexpr (is_reflected<T>) {
    using R = reflection<T>;
    std::string plain = path;  // the nullable list's paths have no '?'
    std::erase(plain, '?');
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (
          [&] {
            using member = std::remove_cvref_t<decltype(R::template get<I>(std::declval<T&>()))>;
            out.positions.push_back(path + "@" + std::to_string(R::keys[I]) + "=" + std::string{R::names[I]});
            if constexpr (is_specialization_v<member, std::optional> || is_smart_pointer<member>)
              out.nullable.push_back(plain + "." + std::string{R::names[I]});
            append_compact_layout<member, T, Visiting...>(out, path + "." + std::string{R::names[I]});
          }(),
          ...);
    }
    (std::make_index_sequence<R::size>{});
    for (const auto& [old_name, index] : R::aliases)
      out.old_names.push_back(path + "@" + std::to_string(R::keys[index]) + "=" + std::string{old_name});
  }
}

template <class T>
layout_lists compact_layout_lists() {
  layout_lists out;
  append_compact_layout<T>(out, "$");
  std::sort(out.positions.begin(), out.positions.end());
  std::sort(out.old_names.begin(), out.old_names.end());
  std::sort(out.nullable.begin(), out.nullable.end());
  return out;
}

// What a compact save of T records: "PATH@KEY=NAME" for every member, sorted.
template <class T>
std::vector<std::string> compact_layout() {
  return compact_layout_lists<T>().positions;
}

// An entry with its path's '?' marks taken out: whether a struct sits in an optional or a
// pointer does not change its positions (a compact reader takes either).
inline std::string without_optional_marks(std::string entry) {
  std::erase(entry, '?');
  return entry;
}

// The first position of a saved layout that names another member in T's (by its name or
// an old one), as "PATH@KEY: saved NAME, now NAME"; empty when every saved position means
// the same member (or no member) now. (A member name holding '=' or '?' cannot be told
// apart here: such a save is refused, never misread.)
template <class T>
std::string compact_layout_conflict(const std::vector<std::string>& saved) {
  const layout_lists lists = compact_layout_lists<T>();
  std::vector<std::string> now, old_names;
  for (const std::string& e : lists.positions) now.push_back(without_optional_marks(e));
  for (const std::string& e : lists.old_names) old_names.push_back(without_optional_marks(e));
  std::sort(now.begin(), now.end());
  std::sort(old_names.begin(), old_names.end());
  for (const std::string& saved_entry : saved) {
    const std::string entry = without_optional_marks(saved_entry);
    std::size_t equals = entry.rfind('=');
    if (equals == std::string::npos) return "'" + entry + "' is not a layout entry";
    std::string_view position = std::string_view{entry}.substr(0, equals + 1);  // "PATH@KEY="
    auto it = std::lower_bound(now.begin(), now.end(), position);
    if (it == now.end() || std::string_view{*it}.substr(0, position.size()) != position) continue;  // gone: skipped
    if (*it == entry || std::binary_search(old_names.begin(), old_names.end(), entry)) continue;
    return std::string{position.substr(0, position.size() - 1)} + ": saved as " + entry.substr(equals + 1) + ", now " +
           it->substr(equals + 1);
  }
  return {};
}

}  // namespace savekit::detail
