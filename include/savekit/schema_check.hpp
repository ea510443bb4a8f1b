// savekit/schema_check.hpp — checks a save's value (an inspection tree, inspect.hpp) against a
// JSON Schema, such as the one savekit::json_schema<T>() writes for the game's type: what
// `savekit edit --schema` and the inspector page do before an edit is saved.
//
//   auto schema = savekit::inspect::schema::parse(schema_text);
//   for (const auto& p : schema->check(*tree)) std::cout << p.path << ": " << p.reason << "\n";
//
// The value is seen as savekit's JSON writes it: bytes are a (Base64) string, NaN and the
// infinities are null, map keys are their text. The keywords of draft 2020-12 that savekit's
// schemas use, and the common ones beside them, are checked: type, enum, const, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, items,
// prefixItems, minItems, maxItems, uniqueItems, contains, properties, patternProperties,
// additionalProperties, propertyNames, required, minProperties, maxProperties,
// dependentRequired, allOf, anyOf, oneOf, not, if/then/else, $ref to "#…" and $defs.
// Annotations ($schema, title, description, format, contentEncoding…) are read and not
// checked. A keyword that would assert something this checker does not check is refused
// when the schema is parsed (errc::unsupported_type): a schema is never half-checked in
// silence. Patterns are ECMA-262 without groups or alternation (refused when they have them).
// Numbers are compared exactly, as decimals: 18446744073709551615 is not 1.8446744073709552e19.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/error.hpp"
#include "savekit/inspect.hpp"

namespace savekit::inspect {

struct schema_problem {
  std::string path;    // where in the value, as at() reads it ("" the whole value)
  std::string reason;  // what the schema wants there
};

class schema {
 public:
  // errc::syntax_error (and the JSON errors) with the offset; errc::unsupported_type for a
  // keyword or pattern this checker cannot check; errc::invalid_value for a keyword whose
  // value is not what the draft allows (a "minimum" that is not a number...).
  static result<schema> parse(std::string_view json);

  // The problems found, in order, up to max_problems; empty when the value is valid.
  std::vector<schema_problem> check(const node& value, std::size_t max_problems = 20) const;

 private:
  struct compiled;  // the patterns, compiled once when the schema is parsed
  node root_;
  std::shared_ptr<const compiled> compiled_;
};

}  // namespace savekit::inspect
