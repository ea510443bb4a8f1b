// savekit/document.hpp — a generic JSON / MessagePack value, for the saves no struct fits:
// migrating an old save's shape, inspecting, editing.
//
//   savekit::result<savekit::document> d = savekit::document::from_json(R"({"hp":7,"bag":[1,2]})");
//   d->rename("hp", "health");
//   d->set("gold", 50);
//   d->move("bag", "inventory.items");      // paths: keys joined by '.', [n] for elements
//   for (const auto& [key, value] : d->members()) ...
//   std::vector<std::byte> packed = d->to_msgpack();
//
// Objects keep their members in order (as read, then as added). Integers keep their full
// range (int64, and uint64 above it); floats are doubles; strings are bytes (UTF-8 from
// JSON); MessagePack bin is a value of its own (Base64 in JSON). MessagePack maps with
// integer keys become objects with decimal keys, as in JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "savekit/error.hpp"
#include "savekit/reflect.hpp"

namespace savekit {

// What reading a document may take: nesting, and the nodes' memory (as the codecs count
// an element's).
struct document_limits {
  std::uint32_t max_depth = default_max_depth;
  std::uint64_t max_memory = default_max_memory;
};

class document {
 public:
  enum class kind : std::uint8_t { null, boolean, integer, unsigned_integer, floating, string, bytes, array, object };
  using array_type = std::vector<document>;
  using object_type = std::vector<std::pair<std::string, document>>;

  document() = default;  // null
  document(std::nullptr_t) {}
  document(bool v) : value_(v) {}
  template <class Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) document(Int v) {
    if constexpr (std::is_signed_v<Int>)
      value_ = static_cast<std::int64_t>(v);
    else if (static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(INT64_MAX))
      value_ = static_cast<std::int64_t>(v);
    else
      value_ = static_cast<std::uint64_t>(v);
  }
  document(double v) : value_(v) {}
  document(float v) : value_(static_cast<double>(v)) {}
  document(std::string v) : value_(std::move(v)) {}
  document(std::string_view v) : value_(std::string{v}) {}
  document(const char* v) : value_(std::string{v}) {}
  document(std::vector<std::byte> v) : value_(std::move(v)) {}
  document(array_type v) : value_(std::move(v)) {}
  document(object_type v) : value_(std::move(v)) {}
  static document array() { return document{array_type{}}; }
  static document object() { return document{object_type{}}; }

  // ---- reading and writing whole documents ----
  static result<document> from_json(std::string_view text, document_limits options = {});
  static result<document> from_msgpack(std::span<const std::byte> bytes, document_limits options = {});
  static result<document> from_msgpack(std::string_view bytes, document_limits options = {});
  std::vector<std::byte> to_msgpack() const;
  void to_msgpack(std::string& out) const;
  // errc::unsupported_type for NaN or infinity, which JSON cannot hold.
  result<std::string> to_json(bool pretty = false) const;

  // ---- what it is ----
  kind type() const { return static_cast<kind>(value_.index()); }
  bool is_null() const { return type() == kind::null; }
  bool is_object() const { return type() == kind::object; }
  bool is_array() const { return type() == kind::array; }
  bool is_string() const { return type() == kind::string; }
  bool is_number() const;
  // The value when it is that kind (integers: when they fit; as_double takes any number).
  const bool* as_bool() const { return std::get_if<bool>(&value_); }
  std::optional<std::int64_t> as_int() const;
  std::optional<std::uint64_t> as_uint() const;
  std::optional<double> as_double() const;
  const std::string* as_string() const { return std::get_if<std::string>(&value_); }
  const std::vector<std::byte>* as_bytes() const { return std::get_if<std::vector<std::byte>>(&value_); }

  // ---- arrays and objects ----
  // Elements and members to read; empty for other kinds.
  const array_type& elements() const;
  const object_type& members() const;
  std::size_t size() const;  // elements or members; 0 otherwise
  // To change them: nullptr unless the value is an array / an object.
  array_type* as_array() { return std::get_if<array_type>(&value_); }
  object_type* as_object() { return std::get_if<object_type>(&value_); }

  const document* find(std::string_view key) const;  // a member; nullptr when absent or not an object
  document* find(std::string_view key);
  // The member, added as null when absent; a null value becomes an object first. Anything
  // but an object or null is a precondition violation (savekit prints why and aborts, as
  // result::value() does): check is_object(), or use set().
  document& operator[](std::string_view key);
  const document* element(std::size_t index) const;  // nullptr when out of range or not an array

  // Object edits by key. set adds or replaces (a null value becomes an object first);
  // errc::type_mismatch on another kind. remove and rename return whether the key was there.
  status set(std::string_view key, document value);
  bool remove(std::string_view key);
  bool rename(std::string_view from, std::string_view to);  // keeps the member's place; replaces `to`
  status push_back(document value);                         // an array's (or null's) new last element

  // ---- paths: "a.b[2].c" ----
  // at(path): the value there, or nullptr. put(path, value) creates missing objects on the
  // way ("a.b" in {} makes {"a":{"b":value}}); an index must exist. erase(path) and
  // move(from, to) return false when `from` is not there (move leaves the document as it was).
  const document* at(std::string_view path) const;
  document* at(std::string_view path);
  status put(std::string_view path, document value);
  bool erase(std::string_view path);
  status move(std::string_view from, std::string_view to);

  bool operator==(const document& other) const = default;

 private:
  std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, std::vector<std::byte>,
               array_type, object_type>
      value_;
};

// ---- migrations ----------------------------------------------------------------------------

// One step of a type's migration chain: what turns a document of version to_version - 1
// into one of to_version.
struct migration_step {
  std::uint32_t to_version = 0;
  std::function<status(document&)> apply;
};

// A type's migration chain, empty by default. Specialize it beside the type:
//
//   template <> inline const std::vector<savekit::migration_step> savekit::migrations<Game> = {
//       {2, [](savekit::document& d) { d.rename("hp", "health"); return savekit::status{}; }},
//       {3, [](savekit::document& d) { return d.move("gold", "wallet.gold"); }},
//   };
//
// Reading a save of version k (slots::read) runs the steps to k+1 ... current, in order,
// then reads the document into the type. Versions without a step need none: the reading
// rules (added members default, removed ones skipped, renamed_from) cover them.
template <class T>
inline const std::vector<migration_step> migrations{};

// Runs the steps of `steps` past from_version up to to_version on d, in order of their
// versions; the error of the first that fails, with the version it was migrating to.
status migrate(document& d, const std::vector<migration_step>& steps, std::uint32_t from_version,
               std::uint32_t to_version);

}  // namespace savekit
