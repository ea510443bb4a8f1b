// JSON Schema patterns, the subset schema_pattern.hpp names.
#include "schema_pattern.hpp"

#include <limits>

namespace savekit::detail {
namespace {

constexpr std::uint32_t unbounded = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t max_pattern_bytes = 4096;
constexpr std::uint64_t step_budget = 2'000'000;

// UTF-8 to code points; a byte that is not UTF-8 stands for itself (it then matches nothing
// a pattern names but '.' and negated classes).
std::vector<std::uint32_t> code_points(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    if (i + n > s.size()) n = 1;
    std::uint32_t cp = n == 1 ? b : b & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

}  // namespace

result<schema_pattern> schema_pattern::compile(std::string_view pattern) {
  auto unsupported = [&](std::string what) {
    return error{errc::unsupported_type, 0, "pattern \"" + std::string{pattern} + "\": " + std::move(what)};
  };
  auto bad = [&](std::string what) {
    return error{errc::syntax_error, 0, "pattern \"" + std::string{pattern} + "\": " + std::move(what)};
  };
  if (pattern.size() > max_pattern_bytes) return unsupported("longer than 4096 bytes");
  schema_pattern out;
  const std::vector<std::uint32_t> p = code_points(pattern);
  std::size_t i = 0;
  if (i < p.size() && p[i] == '^') {
    out.anchored_start_ = true;
    ++i;
  }
  // A class escape (\d \w \s, negated by their capitals) into ranges; false for another.
  auto class_escape = [](std::uint32_t c, std::vector<range>& ranges, bool& negated) {
    switch (c) {
      case 'D':
        negated = true;
        [[fallthrough]];
      case 'd':
        ranges.push_back({'0', '9'});
        return true;
      case 'W':
        negated = true;
        [[fallthrough]];
      case 'w':
        ranges.insert(ranges.end(), {{'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {'_', '_'}});
        return true;
      case 'S':
        negated = true;
        [[fallthrough]];
      case 's':
        ranges.insert(ranges.end(), {{' ', ' '}, {'\t', '\r'}, {0xA0, 0xA0}, {0x2028, 0x2029}, {0xFEFF, 0xFEFF}});
        return true;
      default:
        return false;
    }
  };
  auto escaped_char = [](std::uint32_t c) -> std::optional<std::uint32_t> {
    switch (c) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'f':
        return '\f';
      case 'v':
        return '\v';
      case '0':
        return 0;
      default:
        // Punctuation stands for itself; a letter or digit escape not named above is not supported.
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '1' && c <= '9')) return std::nullopt;
        return c;
    }
  };
  while (i < p.size()) {
    const std::uint32_t c = p[i];
    if (c == '$' && i + 1 == p.size()) {
      out.anchored_end_ = true;
      ++i;
      break;
    }
    if (c == '(' || c == ')' || c == '|') return unsupported("groups and alternation are not supported");
    if (c == '^' || c == '$') return unsupported("an anchor inside the pattern is not supported");
    if (c == '*' || c == '+' || c == '?' || c == '{') return bad("a quantifier with nothing before it");
    atom a;
    if (c == '.') {
      a.any = true;
      ++i;
    } else if (c == '\\') {
      if (i + 1 >= p.size()) return bad("it ends with '\\'");
      const std::uint32_t e = p[i + 1];
      if (!class_escape(e, a.ranges, a.negated)) {
        std::optional<std::uint32_t> ch = escaped_char(e);
        if (!ch) return unsupported(std::string{"the escape \\"} + static_cast<char>(e) + " is not supported");
        a.ranges.push_back({*ch, *ch});
      }
      i += 2;
    } else if (c == '[') {
      ++i;
      if (i < p.size() && p[i] == '^') {
        a.negated = true;
        ++i;
      }
      bool closed = false;
      bool first = true;
      while (i < p.size()) {
        std::uint32_t from = p[i];
        if (from == ']' && !first) {
          closed = true;
          ++i;
          break;
        }
        first = false;
        if (from == '\\') {
          if (i + 1 >= p.size()) return bad("it ends inside a class");
          bool class_negated = false;
          std::vector<range> inner;
          if (class_escape(p[i + 1], inner, class_negated)) {
            if (class_negated) return unsupported("a negated class escape inside [...] is not supported");
            a.ranges.insert(a.ranges.end(), inner.begin(), inner.end());
            i += 2;
            continue;
          }
          std::optional<std::uint32_t> ch = p[i + 1] == 'b' ? std::optional<std::uint32_t>{8} : escaped_char(p[i + 1]);
          if (!ch) return unsupported("an escape inside [...] is not supported");
          from = *ch;
          i += 2;
        } else {
          ++i;
        }
        std::uint32_t to = from;
        if (i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
          to = p[i + 1];
          if (to == '\\') return unsupported("an escape as a range's end is not supported");
          i += 2;
          if (to < from) return bad("a range whose end is before its start");
        }
        a.ranges.push_back({from, to});
      }
      if (!closed) return bad("a '[' without its ']'");
    } else {
      a.ranges.push_back({c, c});
      ++i;
    }
    // Its quantifier, if any.
    if (i < p.size()) {
      const std::uint32_t q = p[i];
      if (q == '*' || q == '+' || q == '?') {
        a.min = q == '+' ? 1 : 0;
        a.max = q == '?' ? 1 : unbounded;
        ++i;
      } else if (q == '{') {
        std::size_t k = i + 1;
        auto number = [&](std::uint32_t& into) {
          const std::size_t start = k;
          std::uint64_t v = 0;
          while (k < p.size() && p[k] >= '0' && p[k] <= '9' && v <= 100000) v = v * 10 + (p[k++] - '0');
          into = static_cast<std::uint32_t>(v);
          return k > start && v <= 100000;
        };
        std::uint32_t low = 0, high = 0;
        if (!number(low)) return bad("a '{' that is not a count");
        high = low;
        if (k < p.size() && p[k] == ',') {
          ++k;
          high = unbounded;
          if (k < p.size() && p[k] != '}' && !number(high)) return bad("a '{' that is not a count");
        }
        if (k >= p.size() || p[k] != '}' || high < low) return bad("a '{' that is not a count");
        a.min = low;
        a.max = high;
        i = k + 1;
      }
      if (i < p.size() && p[i] == '?') return unsupported("lazy quantifiers are not supported");
      if (i < p.size() && (p[i] == '*' || p[i] == '+' || p[i] == '{')) return bad("a quantifier after a quantifier");
    }
    out.atoms_.push_back(std::move(a));
  }
  return out;
}

bool schema_pattern::matches(const atom& a, std::uint32_t c) const {
  if (a.any) return c != '\n' && c != '\r' && c != 0x2028 && c != 0x2029;
  bool in = false;
  for (const range& r : a.ranges) in |= c >= r.from && c <= r.to;
  return in != a.negated;
}

bool schema_pattern::match_here(std::size_t atom_index, const std::vector<std::uint32_t>& text, std::size_t at,
                                std::uint64_t& budget) const {
  if (budget == 0) return false;
  --budget;
  if (atom_index == atoms_.size()) return !anchored_end_ || at == text.size();
  const atom& a = atoms_[atom_index];
  // Greedy: as many as the atom takes, then fewer.
  std::size_t taken = 0;
  while (taken < a.max && at + taken < text.size() && matches(a, text[at + taken])) {
    ++taken;
    if (budget == 0) return false;
    --budget;  // each character looked at is a step: ".*.*.*!" over a long text is bounded too
  }
  for (std::size_t n = taken + 1; n-- > a.min;) {
    if (match_here(atom_index + 1, text, at + n, budget)) return true;
    if (budget == 0) return false;
  }
  return false;
}

std::optional<bool> schema_pattern::search(std::string_view text) const {
  const std::vector<std::uint32_t> cps = code_points(text);
  std::uint64_t budget = step_budget;
  for (std::size_t start = 0; start <= cps.size(); ++start) {
    if (match_here(0, cps, start, budget)) return true;
    if (budget == 0) return std::nullopt;
    if (anchored_start_) break;
  }
  return false;
}

}  // namespace savekit::detail
