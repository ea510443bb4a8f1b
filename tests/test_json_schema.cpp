// savekit::json_schema's shape, read back as a document: what is required, what is refused,
// how a type that contains itself is written. (tests/json_schema/ checks the schemas against
// an independent validator.)
#include <savekit/document.hpp>
#include <savekit/json_schema.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Pet {
  std::string name;
  std::optional<int> age;
  std::unique_ptr<Pet> friend_of;
};

savekit::document parsed(const std::string& text) {
  auto d = savekit::document::from_json(text);
  EXPECT_TRUE(d) << text;
  return d ? *d : savekit::document{};
}

// The value under keys (and "0", "1"…: array elements) in turn, or nullptr.
const savekit::document* dig(const savekit::document& d, std::initializer_list<std::string_view> keys) {
  const savekit::document* at = &d;
  for (std::string_view key : keys) {
    if (!at) return nullptr;
    at = at->is_array() ? at->element(static_cast<std::size_t>(std::stoul(std::string{key}))) : at->find(key);
  }
  return at;
}

// The $defs name the root refers to ("anonymous.Pet": the type's name, made plain).
std::string root_def(const savekit::document& schema) {
  const savekit::document* ref = schema.find("$ref");
  EXPECT_TRUE(ref && ref->as_string());
  return ref && ref->as_string() ? ref->as_string()->substr(std::string_view{"#/$defs/"}.size()) : std::string{};
}

std::vector<std::string> required_of(const savekit::document& schema, const std::string& def) {
  std::vector<std::string> out;
  const savekit::document* list = dig(schema, {"$defs", def, "required"});
  EXPECT_TRUE(list) << def;
  if (list)
    for (const auto& e : list->elements()) out.push_back(*e.as_string());
  return out;
}

TEST(JsonSchema, EveryMemberIsRequiredAsTheStrictReaderRequiresIt) {
  const savekit::document s = parsed(savekit::json_schema<Pet>());
  EXPECT_EQ(*s.find("$schema")->as_string(), "https://json-schema.org/draft/2020-12/schema");
  const std::string pet = root_def(s);
  EXPECT_EQ(pet, "anonymous.Pet");
  EXPECT_EQ(required_of(s, pet), (std::vector<std::string>{"name", "age", "friend_of"}));
  // A type that contains itself refers to its own definition.
  const savekit::document* friend_of = dig(s, {"$defs", pet, "properties", "friend_of", "anyOf", "0", "$ref"});
  ASSERT_TRUE(friend_of);
  EXPECT_EQ(*friend_of->as_string(), "#/$defs/" + pet);
}

TEST(JsonSchema, SkipNullMembersMakesNullableMembersOptional) {
  const savekit::document s = parsed(savekit::json_schema<Pet>({.skip_null_members = true}));
  EXPECT_EQ(required_of(s, root_def(s)), std::vector<std::string>{"name"});
}

TEST(JsonSchema, UnknownMembersAreAllowedUnlessAsked) {
  const savekit::document open = parsed(savekit::json_schema<Pet>());
  EXPECT_EQ(dig(open, {"$defs", root_def(open), "additionalProperties"}), nullptr);
  const savekit::document strict = parsed(savekit::json_schema<Pet>({.additional_members = false}));
  const savekit::document* extra = dig(strict, {"$defs", root_def(strict), "additionalProperties"});
  ASSERT_TRUE(extra && extra->as_bool());
  EXPECT_FALSE(*extra->as_bool());
}

TEST(JsonSchema, IntegersCarryTheirWidthsRange) {
  const savekit::document s = parsed(savekit::json_schema<std::vector<std::uint8_t>>());
  EXPECT_EQ(dig(s, {"items", "minimum"})->as_int(), 0);
  EXPECT_EQ(dig(s, {"items", "maximum"})->as_int(), 255);
  const savekit::document big = parsed(savekit::json_schema<std::int64_t>());
  EXPECT_EQ(big.find("minimum")->as_int(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(big.find("maximum")->as_int(), std::numeric_limits<std::int64_t>::max());
}

}  // namespace
