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

// Appends "PATH@KEY=NAME" for each member of each struct reachable from T, PATH being
// where the struct sits ("$", "$.items[]", "$.stats{}", "$.pet?", "$.shape<1>", "$.pair(0)").
template <class T, class... Visiting>
void append_compact_layout(std::vector<std::string>& out, const std::string& path) {
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
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((out.push_back(path + "@" + std::to_string(R::keys[I]) + "=" + std::string{R::names[I]}),
        append_compact_layout<std::remove_cvref_t<decltype(R::template get<I>(std::declval<T&>()))>, T, Visiting...>(
            out, path + "." + std::string{R::names[I]})),
       ...);
    }
    (std::make_index_sequence<R::size>{});
  }
}

template <class T>
std::vector<std::string> compact_layout() {
  std::vector<std::string> out;
  append_compact_layout<T>(out, "$");
  std::sort(out.begin(), out.end());
  return out;
}

// The first position of a saved layout that names another member in T's, as
// "PATH@KEY: saved NAME, now NAME"; empty when every saved position means the same member
// (or no member) now.
template <class T>
std::string compact_layout_conflict(const std::vector<std::string>& saved) {
  const std::vector<std::string> now = compact_layout<T>();
  for (const std::string& entry : saved) {
    std::size_t equals = entry.find('=');
    if (equals == std::string::npos) return "'" + entry + "' is not a layout entry";
    std::string_view position = std::string_view{entry}.substr(0, equals + 1);  // "PATH@KEY="
    auto it = std::lower_bound(now.begin(), now.end(), position);
    if (it == now.end() || std::string_view{*it}.substr(0, position.size()) != position) continue;  // gone: skipped
    if (*it != entry)
      return std::string{position.substr(0, position.size() - 1)} + ": saved as " + entry.substr(equals + 1) +
             ", now " + it->substr(equals + 1);
  }
  return {};
}

}  // namespace savekit::detail
