// A JSON Schema "pattern" (ECMA-262) without groups or alternation: literals, '.', classes
// ([a-z0-9_], [^...], \d \w \s and their negations), anchors ^ and $, and the quantifiers
// * + ? {n} {n,} {n,m} (greedy) on a single atom. Matching is a search, unanchored unless the
// pattern says, as the draft requires; it backtracks over a bounded count of steps, so a
// hostile pattern ends with "too costly" instead of hanging.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/error.hpp"

namespace savekit::detail {

class schema_pattern {
 public:
  // errc::unsupported_type for what is beyond the subset above, errc::syntax_error for a
  // pattern that is not one.
  static result<schema_pattern> compile(std::string_view pattern);
  // Whether text (UTF-8, matched by code point) contains a match; nullopt when the match
  // took more than its budget of steps.
  std::optional<bool> search(std::string_view text) const;

 private:
  struct range {
    std::uint32_t from = 0, to = 0;
  };
  struct atom {
    bool any = false;      // '.': anything but a line end
    bool negated = false;  // [^...]
    std::vector<range> ranges;
    std::uint32_t min = 1, max = 1;  // max UINT32_MAX: unbounded
  };
  bool anchored_start_ = false;
  bool anchored_end_ = false;
  std::vector<atom> atoms_;

  bool matches(const atom& a, std::uint32_t c) const;
  bool match_here(std::size_t atom_index, const std::vector<std::uint32_t>& text, std::size_t at,
                  std::uint64_t& budget) const;
};

}  // namespace savekit::detail
