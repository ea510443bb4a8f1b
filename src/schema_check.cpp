// JSON Schema checking over an inspection tree (savekit/schema_check.hpp). The schema is
// itself read as an inspection tree (numbers kept as written), walked once at parse to
// refuse what cannot be checked, then walked beside the value. Numbers are compared as
// exact decimals. $ref chains and nesting are bounded, so a schema that refers to itself
// ends in a problem, not in a stack overflow.
#include "savekit/schema_check.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <unordered_map>

#include "savekit/base64.hpp"
#include "savekit/inspect_edit.hpp"
#include "schema_pattern.hpp"

namespace savekit::inspect {
namespace {

constexpr std::uint32_t max_evaluation_depth = 512;

// ---- exact decimals ------------------------------------------------------------------------

// A finite number as sign, significant digits (no leading or trailing zeros) and the
// exponent of its first digit: 123.5 is {+, "1235", 3}, 0.05 is {+, "5", -1}.
struct decimal {
  bool negative = false;
  std::string digits;  // empty: zero
  std::int64_t exponent = 0;
};

std::optional<decimal> decimal_of(std::string_view text) {
  decimal d;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) d.negative = text[i++] == '-';
  std::int64_t point = -1;  // digits before the point
  std::int64_t count = 0;
  bool any = false;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      if (point >= 0) return std::nullopt;
      point = count;
      continue;
    }
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    any = true;
    d.digits += text[i];
    ++count;
  }
  if (!any) return std::nullopt;
  if (point < 0) point = count;
  std::int64_t e = 0;
  if (i < text.size()) {
    ++i;
    bool minus = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) minus = text[i++] == '-';
    if (i == text.size()) return std::nullopt;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      if (e < 1'000'000'000) e = e * 10 + (text[i] - '0');
    }
    if (minus) e = -e;
  }
  const std::size_t lead = d.digits.find_first_not_of('0');
  if (lead == std::string::npos) return decimal{};  // zero, of either sign
  d.digits.erase(0, lead);
  point -= static_cast<std::int64_t>(lead);
  d.digits.erase(d.digits.find_last_not_of('0') + 1);
  d.exponent = point + e;
  return d;
}

int compare(const decimal& a, const decimal& b) {
  const bool a_zero = a.digits.empty(), b_zero = b.digits.empty();
  if (a_zero && b_zero) return 0;
  const int sign_a = a_zero ? 0 : a.negative ? -1 : 1;
  const int sign_b = b_zero ? 0 : b.negative ? -1 : 1;
  if (sign_a != sign_b) return sign_a < sign_b ? -1 : 1;
  int magnitude = 0;
  if (a.exponent != b.exponent)
    magnitude = a.exponent < b.exponent ? -1 : 1;
  else
    magnitude = a.digits.compare(b.digits) < 0 ? -1 : a.digits == b.digits ? 0 : 1;
  return sign_a < 0 ? -magnitude : magnitude;
}

bool is_whole(const decimal& d) { return d.digits.empty() || static_cast<std::int64_t>(d.digits.size()) <= d.exponent; }

// ---- the value as JSON sees it -----------------------------------------------------------

enum class json_type { null, boolean, number, string, array, object, none };

bool non_finite(const node& n) {
  return n.kind == kind::floating && (n.text == "NaN" || n.text == "Infinity" || n.text == "-Infinity");
}

json_type type_of(const node& n) {
  switch (n.kind) {
    case kind::null:
      return json_type::null;
    case kind::boolean:
      return json_type::boolean;
    case kind::integer:
      return json_type::number;
    case kind::floating:
      return non_finite(n) ? json_type::null : json_type::number;
    case kind::string:
    case kind::bytes:
      return json_type::string;
    case kind::array:
      return json_type::array;
    case kind::map:
      return json_type::object;
    case kind::ext:
      return json_type::none;
  }
  return json_type::none;
}

// A string's text as JSON has it: bytes are their Base64.
std::string string_text(const node& n) { return n.kind == kind::bytes ? base64_encode(n.text) : n.text; }

bool json_equal(const node& a, const node& b) {
  const json_type ta = type_of(a), tb = type_of(b);
  if (ta != tb) return false;
  switch (ta) {
    case json_type::null:
      return true;
    case json_type::boolean:
      return a.text == b.text;
    case json_type::number: {
      std::optional<decimal> da = decimal_of(a.text), db = decimal_of(b.text);
      return da && db && compare(*da, *db) == 0;
    }
    case json_type::string:
      return string_text(a) == string_text(b);
    case json_type::array:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i)
        if (!json_equal(a.items[i], b.items[i])) return false;
      return true;
    case json_type::object: {
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i + 1 < a.items.size(); i += 2) {
        const node* other = nullptr;
        for (std::size_t k = 0; k + 1 < b.items.size(); k += 2)
          if (b.items[k].text == a.items[i].text) other = &b.items[k + 1];
        if (!other || !json_equal(a.items[i + 1], *other)) return false;
      }
      return true;
    }
    case json_type::none:
      return false;
  }
  return false;
}

std::string_view type_name(json_type t) {
  switch (t) {
    case json_type::null:
      return "null";
    case json_type::boolean:
      return "boolean";
    case json_type::number:
      return "number";
    case json_type::string:
      return "string";
    case json_type::array:
      return "array";
    case json_type::object:
      return "object";
    case json_type::none:
      return "an ext (no JSON type)";
  }
  return "?";
}

bool has_type(const node& value, std::string_view name) {
  const json_type t = type_of(value);
  if (name == "integer") {
    if (t != json_type::number) return false;
    std::optional<decimal> d = decimal_of(value.text);
    return d && is_whole(*d);
  }
  return t != json_type::none && type_name(t) == name;
}

// A short JSON-ish text of a value, for messages.
std::string preview(const node& n) {
  switch (type_of(n)) {
    case json_type::null:
      return "null";
    case json_type::string: {
      std::string s = string_text(n);
      if (s.size() > 40) s = s.substr(0, 40) + "…";
      return "\"" + s + "\"";
    }
    case json_type::array:
      return "an array";
    case json_type::object:
      return "an object";
    default:
      return n.text;
  }
}

std::size_t code_point_count(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// ---- the schema's own checks, at parse ---------------------------------------------------

enum class keyword_use { annotation, schema, schema_map, schema_array, assertion };

const std::unordered_map<std::string_view, keyword_use>& known_keywords() {
  static const std::unordered_map<std::string_view, keyword_use> keywords = {
      {"$schema", keyword_use::annotation},
      {"$id", keyword_use::annotation},
      {"$comment", keyword_use::annotation},
      {"$anchor", keyword_use::annotation},
      {"$vocabulary", keyword_use::annotation},
      {"title", keyword_use::annotation},
      {"description", keyword_use::annotation},
      {"default", keyword_use::annotation},
      {"examples", keyword_use::annotation},
      {"deprecated", keyword_use::annotation},
      {"readOnly", keyword_use::annotation},
      {"writeOnly", keyword_use::annotation},
      {"format", keyword_use::annotation},
      {"contentEncoding", keyword_use::annotation},
      {"contentMediaType", keyword_use::annotation},
      {"contentSchema", keyword_use::annotation},
      {"$defs", keyword_use::schema_map},
      {"definitions", keyword_use::schema_map},
      {"$ref", keyword_use::assertion},
      {"type", keyword_use::assertion},
      {"enum", keyword_use::assertion},
      {"const", keyword_use::assertion},
      {"minimum", keyword_use::assertion},
      {"maximum", keyword_use::assertion},
      {"exclusiveMinimum", keyword_use::assertion},
      {"exclusiveMaximum", keyword_use::assertion},
      {"minLength", keyword_use::assertion},
      {"maxLength", keyword_use::assertion},
      {"pattern", keyword_use::assertion},
      {"items", keyword_use::schema},
      {"prefixItems", keyword_use::schema_array},
      {"minItems", keyword_use::assertion},
      {"maxItems", keyword_use::assertion},
      {"uniqueItems", keyword_use::assertion},
      {"contains", keyword_use::schema},
      {"properties", keyword_use::schema_map},
      {"patternProperties", keyword_use::schema_map},
      {"additionalProperties", keyword_use::schema},
      {"propertyNames", keyword_use::schema},
      {"required", keyword_use::assertion},
      {"minProperties", keyword_use::assertion},
      {"maxProperties", keyword_use::assertion},
      {"dependentRequired", keyword_use::assertion},
      {"allOf", keyword_use::schema_array},
      {"anyOf", keyword_use::schema_array},
      {"oneOf", keyword_use::schema_array},
      {"not", keyword_use::schema},
      {"if", keyword_use::schema},
      {"then", keyword_use::schema},
      {"else", keyword_use::schema},
  };
  return keywords;
}

// A choice's reason quoted inside another's is cut short: quoted whole, a schema that
// branches into itself would build reasons twice as long at each level.
std::string shortened(std::string reason) {
  constexpr std::size_t most = 200;
  if (reason.size() <= most) return reason;
  std::size_t end = most;
  while (end > 0 && (static_cast<unsigned char>(reason[end]) & 0xC0) == 0x80) --end;  // a whole character
  reason.resize(end);
  return reason + "...";
}

const node* member(const node& object, std::string_view name) {
  if (object.kind != kind::map) return nullptr;
  for (std::size_t k = 0; k + 1 < object.items.size(); k += 2)
    if (object.items[k].text == name) return &object.items[k + 1];
  return nullptr;
}

std::optional<std::uint64_t> count_of(const node& n) {
  if (n.kind != kind::integer || n.text.empty() || n.text[0] == '-' || n.text.size() > 18) return std::nullopt;
  return std::stoull(n.text);
}

error schema_error(errc code, const node& at, const std::string& where, const std::string& what) {
  return error{code, static_cast<std::size_t>(at.offset),
               (where.empty() ? std::string{"the schema"} : where) + ": " + what};
}

status check_schema(const node& s, const std::string& where, std::uint32_t depth) {
  if (depth > max_evaluation_depth) return schema_error(errc::depth_exceeded, s, where, "nested too deep");
  if (s.kind == kind::boolean) return {};
  if (s.kind != kind::map) return schema_error(errc::invalid_value, s, where, "a schema is an object or a boolean");
  for (std::size_t k = 0; k + 1 < s.items.size(); k += 2) {
    const std::string& name = s.items[k].text;
    const node& v = s.items[k + 1];
    const std::string here = child_path(where, s.items[k]);
    const auto found = known_keywords().find(name);
    if (found == known_keywords().end()) {
      if (name.starts_with("$") || name.starts_with("unevaluated") || name == "dependentSchemas" ||
          name == "minContains" || name == "maxContains" || name == "multipleOf" || name == "dependencies")
        return schema_error(errc::unsupported_type, s.items[k], here, "this keyword is not checked by savekit");
      continue;  // an unknown keyword is an annotation (draft 2020-12)
    }
    switch (found->second) {
      case keyword_use::annotation:
        break;
      case keyword_use::schema:
        if (status ok = check_schema(v, here, depth + 1); !ok) return ok;
        break;
      case keyword_use::schema_map:
        if (v.kind != kind::map) return schema_error(errc::invalid_value, v, here, "must be an object of schemas");
        for (std::size_t i = 0; i + 1 < v.items.size(); i += 2) {
          if (name == "patternProperties")
            if (auto p = detail::schema_pattern::compile(v.items[i].text); !p) return std::move(p).error();
          if (status ok = check_schema(v.items[i + 1], child_path(here, v.items[i]), depth + 1); !ok) return ok;
        }
        break;
      case keyword_use::schema_array:
        if (v.kind != kind::array || v.items.empty())
          return schema_error(errc::invalid_value, v, here, "must be a non-empty array of schemas");
        for (std::size_t i = 0; i < v.items.size(); ++i)
          if (status ok = check_schema(v.items[i], child_path(here, i), depth + 1); !ok) return ok;
        break;
      case keyword_use::assertion: {
        const bool count_keyword = name == "minLength" || name == "maxLength" || name == "minItems" ||
                                   name == "maxItems" || name == "minProperties" || name == "maxProperties";
        const bool number_keyword =
            name == "minimum" || name == "maximum" || name == "exclusiveMinimum" || name == "exclusiveMaximum";
        if (count_keyword && !count_of(v))
          return schema_error(errc::invalid_value, v, here, "must be a non-negative integer");
        if (number_keyword && v.kind != kind::integer && v.kind != kind::floating)
          return schema_error(errc::invalid_value, v, here, "must be a number");
        if (name == "$ref") {
          if (v.kind != kind::string || !v.text.starts_with("#"))
            return schema_error(errc::unsupported_type, v, here,
                                "only references within the schema (\"#...\") are supported");
        }
        if (name == "pattern") {
          if (v.kind != kind::string) return schema_error(errc::invalid_value, v, here, "must be a string");
          if (auto p = detail::schema_pattern::compile(v.text); !p) return std::move(p).error();
        }
        if (name == "enum" && v.kind != kind::array)
          return schema_error(errc::invalid_value, v, here, "must be an array");
        if ((name == "required") && v.kind != kind::array)
          return schema_error(errc::invalid_value, v, here, "must be an array of names");
        if (name == "type") {
          static const std::set<std::string_view> types = {"null",   "boolean", "object", "array",
                                                           "number", "string",  "integer"};
          const bool one = v.kind == kind::string && types.count(v.text);
          bool many = v.kind == kind::array && !v.items.empty();
          for (const node& t : v.items) many &= t.kind == kind::string && types.count(t.text);
          if (!one && !many) return schema_error(errc::invalid_value, v, here, "names none of JSON's types");
        }
        if (name == "dependentRequired" && v.kind != kind::map)
          return schema_error(errc::invalid_value, v, here, "must be an object of name arrays");
        break;
      }
    }
  }
  return {};
}

// ---- checking a value ---------------------------------------------------------------------

// Each pattern of the schema, compiled once, by the offset of its text in the schema.
using pattern_cache = std::unordered_map<std::uint64_t, detail::schema_pattern>;

class checker {
 public:
  checker(const node& root, std::size_t max_problems, const pattern_cache* patterns = nullptr)
      : root_(root), max_(max_problems), patterns_(patterns) {}

  // Whether value is valid against s; its problems go to out (nullptr: only the answer).
  bool valid(const node& s, const node& value, const std::string& path, std::vector<schema_problem>* out,
             std::uint32_t depth) {
    // Each (schema, value) pair checked is a step: anyOf over references to the schema itself
    // branches at every level, and would take 2^depth steps without a bound.
    if (++steps_ > max_steps) {
      if (!exhausted_) {
        exhausted_ = true;
        problems_.push_back({path, "the schema takes too many steps to check (" + std::to_string(max_steps) +
                                       "): it refers to itself through more than one branch"});
      }
      return false;
    }
    if (s.kind == kind::boolean) {
      if (s.text == "true") return true;
      return problem(out, path, "nothing is allowed here (the schema is false)");
    }
    if (depth > max_evaluation_depth) return problem(out, path, "the schema refers to itself without end");
    bool ok = true;
    auto keep = [&](bool passed) {
      ok &= passed;
      return !out || out->size() < max_;
    };
    if (const node* ref = member(s, "$ref")) {
      const node* target = resolve(ref->text);
      if (!keep(target ? valid(*target, value, path, out, depth + 1)
                       : problem(out, path, "the schema's $ref \"" + ref->text + "\" leads nowhere")))
        return ok;
    }
    if (const node* t = member(s, "type")) {
      bool any = false;
      if (t->kind == kind::string) any = has_type(value, t->text);
      for (const node& name : t->items) any |= has_type(value, name.text);
      if (!any) {
        std::string wanted = t->kind == kind::string ? t->text : "";
        for (const node& name : t->items) wanted += (wanted.empty() ? "" : " or ") + name.text;
        return problem(out, path, "expected " + wanted + ", found " + describe(value));
      }
    }
    if (const node* e = member(s, "enum")) {
      bool any = false;
      for (const node& choice : e->items) any |= json_equal(choice, value);
      if (!keep(any ||
                problem(out, path,
                        preview(value) + " is not one of the " + std::to_string(e->items.size()) + " values allowed")))
        return ok;
    }
    if (const node* c = member(s, "const"))
      if (!keep(json_equal(*c, value) ||
                problem(out, path, preview(value) + " is not the value required (" + preview(*c) + ")")))
        return ok;
    switch (type_of(value)) {
      case json_type::number:
        if (!keep(number(s, value, path, out))) return ok;
        break;
      case json_type::string:
        if (!keep(string(s, value, path, out))) return ok;
        break;
      case json_type::array:
        if (!keep(array(s, value, path, out, depth))) return ok;
        break;
      case json_type::object:
        if (!keep(object(s, value, path, out, depth))) return ok;
        break;
      default:
        break;
    }
    if (!keep(combinators(s, value, path, out, depth))) return ok;
    return ok;
  }

 private:
  bool problem(std::vector<schema_problem>* out, const std::string& path, std::string reason) {
    if (out && out->size() < max_) out->push_back({path, std::move(reason)});
    return false;
  }

  static std::string describe(const node& value) {
    const json_type t = type_of(value);
    if (t == json_type::number) return has_type(value, "integer") ? "integer " + value.text : "number " + value.text;
    if (t == json_type::string || t == json_type::boolean || t == json_type::null) return preview(value);
    return std::string{type_name(t)};
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

 public:
  const node* resolve(std::string_view ref) const {
    if (ref == "#") return &root_;
    if (!ref.starts_with("#/")) return nullptr;
    const node* here = &root_;
    std::size_t i = 2;
    while (here && i <= ref.size()) {
      const std::size_t end = std::min(ref.find('/', i), ref.size());
      std::string token;
      for (std::size_t k = i; k < end; ++k) {
        if (ref[k] == '~' && k + 1 < end && (ref[k + 1] == '0' || ref[k + 1] == '1')) {
          token += ref[++k] == '0' ? '~' : '/';
        } else if (ref[k] == '%' && k + 2 < end && hex_digit(ref[k + 1]) >= 0 && hex_digit(ref[k + 2]) >= 0) {
          token += static_cast<char>(hex_digit(ref[k + 1]) * 16 + hex_digit(ref[k + 2]));
          k += 2;
        } else {
          token += ref[k];
        }
      }
      if (here->kind == kind::map) {
        here = member(*here, token);
      } else if (here->kind == kind::array) {
        std::optional<std::uint64_t> index = token.empty() || token.size() > 9 ? std::nullopt
                                             : token.find_first_not_of("0123456789") == std::string::npos
                                                 ? std::optional<std::uint64_t>{std::stoull(token)}
                                                 : std::nullopt;
        here = index && *index < here->items.size() ? &here->items[*index] : nullptr;
      } else {
        here = nullptr;
      }
      i = end + 1;
    }
    return here;
  }

 private:
  bool number(const node& s, const node& value, const std::string& path, std::vector<schema_problem>* out) {
    std::optional<decimal> v = decimal_of(value.text);
    if (!v) return true;  // (a non-finite float is null to JSON: not here)
    bool ok = true;
    auto bound = [&](const char* name, auto fails, const char* says) {
      const node* b = member(s, name);
      if (!b) return;
      std::optional<decimal> limit = decimal_of(b->text);
      if (limit && fails(compare(*v, *limit)))
        ok &= problem(out, path, value.text + " is " + says + " " + b->text + " (" + name + ")");
    };
    bound(
        "minimum", [](int c) { return c < 0; }, "below");
    bound(
        "maximum", [](int c) { return c > 0; }, "above");
    bound(
        "exclusiveMinimum", [](int c) { return c <= 0; }, "not above");
    bound(
        "exclusiveMaximum", [](int c) { return c >= 0; }, "not below");
    return ok;
  }

  bool string(const node& s, const node& value, const std::string& path, std::vector<schema_problem>* out) {
    const std::string text = string_text(value);
    bool ok = true;
    const std::size_t length = code_point_count(text);
    if (const node* m = member(s, "minLength"); m && count_of(*m) && length < *count_of(*m))
      ok &= problem(out, path, "shorter than " + m->text + " characters (minLength)");
    if (const node* m = member(s, "maxLength"); m && count_of(*m) && length > *count_of(*m))
      ok &= problem(out, path, "longer than " + m->text + " characters (maxLength)");
    if (const node* p = member(s, "pattern")) {
      std::optional<bool> found = search(*p, text);
      if (!found)
        ok &= problem(out, path, "the pattern \"" + p->text + "\" took too long to match");
      else if (!*found)
        ok &= problem(out, path, preview(value) + " does not match the pattern \"" + p->text + "\"");
    }
    return ok;
  }

  bool array(const node& s, const node& value, const std::string& path, std::vector<schema_problem>* out,
             std::uint32_t depth) {
    bool ok = true;
    const std::size_t n = value.items.size();
    if (const node* m = member(s, "minItems"); m && count_of(*m) && n < *count_of(*m))
      ok &= problem(out, path, std::to_string(n) + " elements, fewer than " + m->text + " (minItems)");
    if (const node* m = member(s, "maxItems"); m && count_of(*m) && n > *count_of(*m))
      ok &= problem(out, path, std::to_string(n) + " elements, more than " + m->text + " (maxItems)");
    std::size_t prefix = 0;
    if (const node* p = member(s, "prefixItems")) {
      prefix = std::min(p->items.size(), n);
      for (std::size_t i = 0; i < prefix; ++i)
        ok &= valid(p->items[i], value.items[i], child_path(path, i), out, depth + 1);
    }
    if (const node* items = member(s, "items"))
      for (std::size_t i = prefix; i < n; ++i) {
        if (items->kind == kind::boolean && items->text == "false") {
          ok &=
              problem(out, child_path(path, i), "no element is allowed past the " + std::to_string(prefix) + " given");
          break;
        }
        ok &= valid(*items, value.items[i], child_path(path, i), out, depth + 1);
        if (out && out->size() >= max_) return ok;
      }
    if (const node* u = member(s, "uniqueItems"); u && u->text == "true")
      for (std::size_t i = 0; i < n && ok; ++i)
        for (std::size_t k = i + 1; k < n; ++k)
          if (json_equal(value.items[i], value.items[k])) {
            ok &= problem(out, child_path(path, k), "the same as element " + std::to_string(i) + " (uniqueItems)");
            break;
          }
    if (const node* c = member(s, "contains")) {
      bool any = false;
      for (std::size_t i = 0; i < n && !any; ++i) any = valid(*c, value.items[i], path, nullptr, depth + 1);
      if (!any) ok &= problem(out, path, "no element matches what \"contains\" asks");
    }
    return ok;
  }

  bool object(const node& s, const node& value, const std::string& path, std::vector<schema_problem>* out,
              std::uint32_t depth) {
    bool ok = true;
    const std::size_t n = value.items.size() / 2;
    if (const node* m = member(s, "minProperties"); m && count_of(*m) && n < *count_of(*m))
      ok &= problem(out, path, std::to_string(n) + " members, fewer than " + m->text + " (minProperties)");
    if (const node* m = member(s, "maxProperties"); m && count_of(*m) && n > *count_of(*m))
      ok &= problem(out, path, std::to_string(n) + " members, more than " + m->text + " (maxProperties)");
    if (const node* r = member(s, "required"))
      for (const node& name : r->items)
        if (!member_of(value, name.text))
          ok &= problem(out, path, "the required member \"" + name.text + "\" is missing");
    if (const node* d = member(s, "dependentRequired"))
      for (std::size_t k = 0; k + 1 < d->items.size(); k += 2)
        if (member_of(value, d->items[k].text))
          for (const node& name : d->items[k + 1].items)
            if (!member_of(value, name.text))
              ok &= problem(out, path, "\"" + name.text + "\" is required with \"" + d->items[k].text + "\"");
    const node* properties = member(s, "properties");
    const node* patterns = member(s, "patternProperties");
    const node* additional = member(s, "additionalProperties");
    const node* names = member(s, "propertyNames");
    for (std::size_t k = 0; k + 1 < value.items.size(); k += 2) {
      if (out && out->size() >= max_) return ok;
      const node& key = value.items[k];
      const std::string inner = child_path(path, key);
      bool matched = false;
      if (properties)
        if (const node* p = member(*properties, key.text)) {
          matched = true;
          ok &= valid(*p, value.items[k + 1], inner, out, depth + 1);
        }
      if (patterns)
        for (std::size_t i = 0; i + 1 < patterns->items.size(); i += 2) {
          std::optional<bool> found = search(patterns->items[i], key.text);
          if (found && *found) {
            matched = true;
            ok &= valid(patterns->items[i + 1], value.items[k + 1], inner, out, depth + 1);
          }
        }
      if (additional && !matched) {
        if (additional->kind == kind::boolean && additional->text == "false")
          ok &= problem(out, inner, "the member \"" + key.text + "\" is not in the schema (additionalProperties)");
        else
          ok &= valid(*additional, value.items[k + 1], inner, out, depth + 1);
      }
      if (names) {
        node name_as_string = key;  // a key is its text to JSON, an integer key too
        name_as_string.kind = kind::string;
        if (!valid(*names, name_as_string, inner, nullptr, depth + 1))
          ok &= problem(out, inner, "the key \"" + key.text + "\" is not a name the schema allows (propertyNames)");
      }
    }
    return ok;
  }

  static bool member_of(const node& object, const std::string& name) {
    for (std::size_t k = 0; k + 1 < object.items.size(); k += 2)
      if (object.items[k].text == name) return true;
    return false;
  }

  bool combinators(const node& s, const node& value, const std::string& path, std::vector<schema_problem>* out,
                   std::uint32_t depth) {
    bool ok = true;
    if (const node* all = member(s, "allOf"))
      for (const node& sub : all->items) ok &= valid(sub, value, path, out, depth + 1);
    auto choices = [&](const node& list, bool exactly_one, const char* name) {
      std::size_t passed = 0;
      std::vector<std::string> why;
      for (const node& sub : list.items) {
        std::vector<schema_problem> mine;
        if (valid(sub, value, path, out ? &mine : nullptr, depth + 1))
          ++passed;
        else if (!mine.empty())
          why.push_back(shortened((mine.front().path == path ? "" : mine.front().path + ": ") + mine.front().reason));
        if (passed > 1 && exactly_one) break;
      }
      if (passed == 0) {
        std::string reason = "matches none of the " + std::to_string(list.items.size()) + " choices (" + name + ")";
        for (std::size_t i = 0; i < why.size() && i < 3; ++i) reason += (i == 0 ? ": " : "; or ") + why[i];
        return problem(out, path, reason);
      }
      if (exactly_one && passed > 1) return problem(out, path, "matches more than one of the choices (oneOf)");
      return true;
    };
    if (const node* any = member(s, "anyOf")) ok &= choices(*any, false, "anyOf");
    if (const node* one = member(s, "oneOf")) ok &= choices(*one, true, "oneOf");
    if (const node* no = member(s, "not"))
      if (valid(*no, value, path, nullptr, depth + 1)) ok &= problem(out, path, "matches what \"not\" forbids");
    if (const node* condition = member(s, "if")) {
      const node* branch = valid(*condition, value, path, nullptr, depth + 1) ? member(s, "then") : member(s, "else");
      if (branch) ok &= valid(*branch, value, path, out, depth + 1);
    }
    return ok;
  }

 public:
  // A problem that ends the check wherever it was found (the step budget).
  std::vector<schema_problem> problems_;

 private:
  // Whether text contains a match of the pattern whose text is pattern_text (nullopt: it took
  // too long, or could not be compiled).
  std::optional<bool> search(const node& pattern_text, std::string_view text) const {
    if (patterns_)
      if (auto found = patterns_->find(pattern_text.offset); found != patterns_->end())
        return found->second.search(text);
    result<detail::schema_pattern> pattern = detail::schema_pattern::compile(pattern_text.text);
    return pattern ? pattern->search(text) : std::nullopt;
  }

  const node& root_;
  std::size_t max_;
  const pattern_cache* patterns_;
  std::uint64_t steps_ = 0;
  bool exhausted_ = false;

 public:
  std::uint64_t max_steps = 1'000'000;  // set by check(): more for a larger value
};

}  // namespace

struct schema::compiled {
  pattern_cache patterns;
};

namespace {

// Compiles every "pattern" and "patternProperties" key of the schema. One that does not
// compile is not a schema's (parse refused those): it lies under a keyword no check reads.
pattern_cache compile_patterns(const node& root) {
  pattern_cache out;
  std::vector<const node*> walk{&root};
  while (!walk.empty()) {
    const node* n = walk.back();
    walk.pop_back();
    if (n->kind == kind::map)
      for (std::size_t k = 0; k + 1 < n->items.size(); k += 2) {
        const node& name = n->items[k];
        const node& v = n->items[k + 1];
        if (name.text == "pattern" && v.kind == kind::string)
          if (auto p = detail::schema_pattern::compile(v.text)) out.emplace(v.offset, std::move(*p));
        if (name.text == "patternProperties" && v.kind == kind::map)
          for (std::size_t i = 0; i + 1 < v.items.size(); i += 2)
            if (auto p = detail::schema_pattern::compile(v.items[i].text))
              out.emplace(v.items[i].offset, std::move(*p));
      }
    for (const node& item : n->items) walk.push_back(&item);
  }
  return out;
}

}  // namespace

result<schema> schema::parse(std::string_view json) {
  result<node> tree = read_json(json);
  if (!tree) return std::move(tree).error();
  if (status ok = check_schema(*tree, "", 0); !ok) return std::move(ok).error();
  // A $ref may lead anywhere in the document, into what the walk above did not read as a
  // schema ("#/x" under a keyword it does not know): each target is checked the same way.
  std::vector<const node*> refs;
  std::vector<const node*> walk{&*tree};
  while (!walk.empty()) {
    const node* n = walk.back();
    walk.pop_back();
    if (const node* ref = member(*n, "$ref"); ref && ref->kind == kind::string) refs.push_back(ref);
    for (const node& item : n->items) walk.push_back(&item);
  }
  checker resolver(*tree, 1);
  for (const node* ref : refs) {
    const node* target = resolver.resolve(ref->text);
    if (!target) continue;  // (said when checked: "leads nowhere")
    if (status ok = check_schema(*target, ref->text, 0); !ok) return std::move(ok).error();
  }
  schema out;
  out.compiled_ = std::make_shared<const compiled>(compiled{compile_patterns(*tree)});
  out.root_ = std::move(*tree);
  return out;
}

std::vector<schema_problem> schema::check(const node& value, std::size_t max_problems) const {
  std::vector<schema_problem> out;
  checker c(root_, max_problems, compiled_ ? &compiled_->patterns : nullptr);
  // The budget: what any sane schema needs, a few dozen steps per value, and a million more.
  std::uint64_t nodes = 0;
  std::vector<const node*> walk{&value};
  while (!walk.empty()) {
    const node* n = walk.back();
    walk.pop_back();
    ++nodes;
    for (const node& item : n->items) walk.push_back(&item);
  }
  c.max_steps = 1'000'000 + 64 * nodes;
  c.valid(root_, value, "", &out, 0);
  if (!c.problems_.empty()) out.insert(out.begin(), c.problems_.front());
  return out;
}

}  // namespace savekit::inspect
