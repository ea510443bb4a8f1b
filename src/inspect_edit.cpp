// Edits through the inspection tree (savekit/inspect_edit.hpp). The invariant every function
// here keeps: a node of nonzero size is untouched and stands for original[offset, +size); a
// changed or new node, and every container above it, has size 0 and is written again. So
// nothing outside an edit can change, and an edit that changes nothing is byte-identical.
// Fuzzed with the inspection readers (tests/fuzz/fuzz_inspect.cpp).
#include "savekit/inspect_edit.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "savekit/base64.hpp"
#include "savekit/json.hpp"

namespace savekit::inspect {
namespace {

// ---- numbers as text -----------------------------------------------------------------------

// An integer's decimal text as a value: unsigned if it does not start with '-'.
struct integer_value {
  bool negative = false;
  std::uint64_t magnitude = 0;  // for a negative value, its absolute value (up to 2^63)
};

std::optional<integer_value> integer_of(std::string_view text) {
  integer_value v;
  std::size_t i = 0;
  if (!text.empty() && text[0] == '-') {
    v.negative = true;
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (v.magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    v.magnitude = v.magnitude * 10 + digit;
  }
  if (v.negative && v.magnitude > (std::uint64_t{1} << 63)) return std::nullopt;
  if (v.negative && v.magnitude == 0) v.negative = false;  // "-0" is 0
  return v;
}

std::string integer_text(const integer_value& v) {
  return v.negative ? "-" + std::to_string(v.magnitude) : std::to_string(v.magnitude);
}

// An integer key's text as savekit writes it ("05" and "-0" are 5 and 0), so that two
// spellings of one key are one key.
std::string key_text(std::string_view text, bool integer_keys) {
  if (!integer_keys) return std::string{text};
  std::optional<integer_value> v = integer_of(text);
  return v ? integer_text(*v) : std::string{text};
}

// Whether v fits a MessagePack integer format.
bool fits(const integer_value& v, std::string_view format) {
  const std::uint64_t m = v.magnitude;
  if (format == "positive fixint") return !v.negative && m <= 127;
  if (format == "negative fixint") return v.negative && m <= 32;
  if (format == "uint8") return !v.negative && m <= 0xFF;
  if (format == "uint16") return !v.negative && m <= 0xFFFF;
  if (format == "uint32") return !v.negative && m <= 0xFFFFFFFF;
  if (format == "uint64") return !v.negative;
  const std::uint64_t limit = format == "int8"    ? 0x80
                              : format == "int16" ? 0x8000
                              : format == "int32" ? 0x80000000
                              : format == "int64" ? std::uint64_t{1} << 63
                                                  : 0;
  return v.negative ? m <= limit : m < limit;
}

// The narrowest format savekit writes v in.
std::string_view shortest_format(const integer_value& v) {
  for (std::string_view f :
       {"positive fixint", "negative fixint", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64"})
    if (fits(v, f)) return f;
  return "int64";  // not reached: every value integer_of reads fits one
}

std::optional<double> non_finite(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

// ---- writing MessagePack --------------------------------------------------------------------

void put_big_endian(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

// A header of a sized value: the format it had when the new size still fits it, else the
// narrowest of fix (when the kind has one), 8, 16, 32 bits.
void put_sized_header(std::string& out, std::string_view format, std::uint64_t n, unsigned fix_base,
                      std::uint64_t fix_max, const std::uint8_t (&marks)[3]) {
  const bool keep_fix = fix_base != 0 && format.starts_with("fix") && n <= fix_max;  // (fixext is no sized fix form)
  const bool keep_8 = format.ends_with("8") && n <= 0xFF;
  const bool keep_16 = format.ends_with("16") && n <= 0xFFFF;
  if (keep_fix || (fix_base != 0 && !keep_8 && !keep_16 && !format.ends_with("32") && n <= fix_max)) {
    out += static_cast<char>(fix_base | n);
  } else if (marks[0] != 0 && (keep_8 || (!keep_16 && !format.ends_with("32") && n <= 0xFF))) {
    out += static_cast<char>(marks[0]);
    put_big_endian(out, n, 1);
  } else if (keep_16 || (!format.ends_with("32") && n <= 0xFFFF)) {
    out += static_cast<char>(marks[1]);
    put_big_endian(out, n, 2);
  } else {
    out += static_cast<char>(marks[2]);
    put_big_endian(out, n, 4);
  }
}

error bad_node(const node& n, std::string what) {
  return error{errc::invalid_value, 0, std::string{n.format} + " '" + n.text + "': " + std::move(what)};
}

status write_msgpack(std::string& out, const node& n, std::string_view original) {
  if (n.size != 0 && n.offset <= original.size() && n.size <= original.size() - n.offset) {
    out.append(original.substr(static_cast<std::size_t>(n.offset), static_cast<std::size_t>(n.size)));
    return {};
  }
  switch (n.kind) {
    case kind::null:
      out += '\xc0';
      return {};
    case kind::boolean:
      out += n.text == "true" ? '\xc3' : '\xc2';
      return {};
    case kind::integer: {
      std::optional<integer_value> v = integer_of(n.text);
      if (!v) return bad_node(n, "not a 64-bit integer");
      std::string_view f = fits(*v, n.format) ? n.format : shortest_format(*v);
      const std::uint64_t bits = v->negative ? ~v->magnitude + 1 : v->magnitude;  // two's complement
      if (f == "positive fixint" || f == "negative fixint") {
        out += static_cast<char>(bits & 0xFF);
      } else {
        static constexpr std::string_view names[] = {"uint8", "uint16", "uint32", "uint64",
                                                     "int8",  "int16",  "int32",  "int64"};
        for (int i = 0; i < 8; ++i)
          if (f == names[i]) {
            out += static_cast<char>((i < 4 ? 0xcc : 0xd0) + (i % 4));
            put_big_endian(out, bits, 1 << (i % 4));
          }
      }
      return {};
    }
    case kind::floating: {
      std::optional<double> special = non_finite(n.text);
      if (n.format == "float32") {
        float f = 0;
        if (special) {
          f = static_cast<float>(*special);
        } else {
          result<float> parsed = savekit::from_json<float>(n.text);
          if (!parsed) return bad_node(n, "not a float32");
          f = *parsed;
        }
        std::uint32_t bits = 0;
        std::memcpy(&bits, &f, 4);
        out += '\xca';
        put_big_endian(out, bits, 4);
      } else {
        double d = 0;
        if (special) {
          d = *special;
        } else {
          result<double> parsed = savekit::from_json<double>(n.text);
          if (!parsed) return bad_node(n, "not a number");
          d = *parsed;
        }
        std::uint64_t bits = 0;
        std::memcpy(&bits, &d, 8);
        out += '\xcb';
        put_big_endian(out, bits, 8);
      }
      return {};
    }
    case kind::string:
      put_sized_header(out, n.format, n.text.size(), 0xa0, 31, {0xd9, 0xda, 0xdb});
      out += n.text;
      return {};
    case kind::bytes:
      put_sized_header(out, n.format, n.text.size(), 0, 0, {0xc4, 0xc5, 0xc6});
      out += n.text;
      return {};
    case kind::ext: {
      const std::size_t size = n.text.size();
      const bool fixed = size == 1 || size == 2 || size == 4 || size == 8 || size == 16;
      if (fixed && (n.format.starts_with("fix") || n.format.empty())) {
        out += static_cast<char>(0xd4 + std::countr_zero(size));
      } else {
        put_sized_header(out, n.format, size, 0, 0, {0xc7, 0xc8, 0xc9});
      }
      out += static_cast<char>(n.ext_type);
      out += n.text;
      return {};
    }
    case kind::array:
    case kind::map: {
      const bool map = n.kind == kind::map;
      if (map && n.items.size() % 2 != 0) return bad_node(n, "a map with a key and no value");
      const std::uint64_t count = map ? n.items.size() / 2 : n.items.size();
      if (map)
        put_sized_header(out, n.format, count, 0x80, 15, {0, 0xde, 0xdf});
      else
        put_sized_header(out, n.format, count, 0x90, 15, {0, 0xdc, 0xdd});
      for (const node& item : n.items)
        if (status ok = write_msgpack(out, item, original); !ok) return ok;
      return {};
    }
  }
  return {};
}

// ---- writing JSON ---------------------------------------------------------------------------

void put_json_string(std::string& out, std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 0xF];
    } else {
      out += ch;
    }
  }
  out += '"';
}

status write_json(std::string& out, const node& n, std::string_view original) {
  if (n.size != 0 && n.offset <= original.size() && n.size <= original.size() - n.offset) {
    out.append(original.substr(static_cast<std::size_t>(n.offset), static_cast<std::size_t>(n.size)));
    return {};
  }
  switch (n.kind) {
    case kind::null:
      out += "null";
      return {};
    case kind::boolean:
      out += n.text == "true" ? "true" : "false";
      return {};
    case kind::integer:
    case kind::floating:
      if (non_finite(n.text)) {
        out += "null";  // as savekit's JSON writer writes them
      } else {
        result<node> number = read_json(n.text);
        if (!number || (number->kind != kind::integer && number->kind != kind::floating))
          return bad_node(n, "not a JSON number");
        out += n.text;
      }
      return {};
    case kind::string:
      if (!is_valid_utf8(n.text)) return bad_node(n, "a JSON string must be UTF-8");
      put_json_string(out, n.text);
      return {};
    case kind::bytes:
    case kind::ext:
      put_json_string(out, base64_encode(n.text));
      return {};
    case kind::array:
    case kind::map: {
      const bool map = n.kind == kind::map;
      if (map && n.items.size() % 2 != 0) return bad_node(n, "a map with a key and no value");
      out += map ? '{' : '[';
      for (std::size_t i = 0; i < n.items.size(); ++i) {
        if (i != 0) out += (map && i % 2 == 1) ? ':' : ',';
        const node& item = n.items[i];
        if (map && i % 2 == 0 && item.kind != kind::string) {
          put_json_string(out, item.text);  // an integer key, as its digits
          continue;
        }
        if (status ok = write_json(out, item, original); !ok) return ok;
      }
      out += map ? '}' : ']';
      return {};
    }
  }
  return {};
}

// ---- the editable JSON ------------------------------------------------------------------------

class editable_writer {
 public:
  status value(const node& n, std::size_t indent, const std::string& path) {
    switch (n.kind) {
      case kind::null:
        out_ += "null";
        return {};
      case kind::boolean:
        out_ += n.text == "true" ? "true" : "false";
        return {};
      case kind::integer:
      case kind::floating:
        if (non_finite(n.text))
          put_json_string(out_, n.text);
        else
          out_ += n.text;
        return {};
      case kind::string:
        if (!is_valid_utf8(n.text)) return cannot(n, path, "a string that is not UTF-8");
        put_json_string(out_, n.text);
        return {};
      case kind::bytes:
        put_json_string(out_, base64_encode(n.text));
        return {};
      case kind::ext:
        out_ += "{\"ext\": " + std::to_string(n.ext_type) + ", \"base64\": ";
        put_json_string(out_, base64_encode(n.text));
        out_ += '}';
        return {};
      case kind::array:
      case kind::map:
        return container(n, indent, path);
    }
    return {};
  }
  std::string take() { return std::move(out_); }

 private:
  status container(const node& n, std::size_t indent, const std::string& path) {
    const bool map = n.kind == kind::map;
    if (n.items.empty()) {
      out_ += map ? "{}" : "[]";
      return {};
    }
    if (map) {
      std::unordered_set<std::string_view> keys;
      for (std::size_t i = 0; i + 1 < n.items.size(); i += 2)
        if (!keys.insert(n.items[i].text).second)
          return cannot(n.items[i], path, "a map whose key \"" + n.items[i].text + "\" appears twice");
    }
    out_ += map ? '{' : '[';
    const std::size_t step = map ? 2 : 1;
    for (std::size_t i = 0; i < n.items.size(); i += step) {
      out_ += i == 0 ? "\n" : ",\n";
      out_.append((indent + 1) * 2, ' ');
      std::string inner;
      if (map) {
        const node& key = n.items[i];
        if (key.kind != kind::string && key.kind != kind::integer)
          return cannot(key, path,
                        std::string{"a map key that is "} + (key.format.empty() ? "?" : std::string{key.format}) +
                            " (JSON keys are strings; an integer key is shown as its digits)");
        if (key.kind == kind::string && !is_valid_utf8(key.text))
          return cannot(key, path, "a map key that is not UTF-8");
        put_json_string(out_, key.text);
        out_ += ": ";
        inner = child_path(path, key);
      } else {
        inner = child_path(path, i);
      }
      if (status ok = value(n.items[map ? i + 1 : i], indent + 1, inner); !ok) return ok;
    }
    out_ += '\n';
    out_.append(indent * 2, ' ');
    out_ += map ? '}' : ']';
    return {};
  }
  static error cannot(const node& n, const std::string& path, const std::string& what) {
    return error{errc::unsupported_type, static_cast<std::size_t>(n.offset),
                 (path.empty() ? std::string{"the value"} : path) + ": " + what + " cannot be edited as JSON"};
  }
  std::string out_;
};

// ---- reading an edit against the original ----------------------------------------------

std::string_view kind_name(kind k) {
  switch (k) {
    case kind::null:
      return "null";
    case kind::boolean:
      return "a boolean";
    case kind::integer:
      return "an integer";
    case kind::floating:
      return "a float";
    case kind::string:
      return "a string";
    case kind::bytes:
      return "bytes";
    case kind::array:
      return "an array";
    case kind::map:
      return "a map";
    case kind::ext:
      return "an ext";
  }
  return "?";
}

void mark_changed(node& n) { n.size = 0; }

void mark_all_new(node& n) {
  n.size = 0;
  for (node& item : n.items) mark_all_new(item);
}

class edit_reader {
 public:
  edit_reader(wire w, const edit_options& o) : wire_(w), options_(o) {}

  // e read with t (the original's node at the same path, or nullptr) as its type.
  // changed: whether the result differs from t.
  result<node> convert(const node* t, const node& e, const std::string& path, bool& changed) {
    if (t == nullptr || t->kind == kind::null || e.kind == kind::null) {
      changed = t == nullptr || t->kind != e.kind;
      if (!changed) return *t;
      return plain(e, path);
    }
    result<node> out = typed(*t, e, path, changed);
    if (out && !changed) {  // the same value: it keeps its bytes
      out->offset = t->offset;
      out->size = t->size;
    }
    return out;
  }

 private:
  error fail(const node& e, const std::string& path, const std::string& what) const {
    return error{errc::invalid_value, static_cast<std::size_t>(e.offset),
                 (path.empty() ? std::string{"the value"} : path) + ": " + what};
  }

  // A value with no original to follow: typed as its JSON says.
  result<node> plain(const node& e, const std::string& path) {
    node out = e;
    mark_all_new(out);
    if (wire_ == wire::json) return out;
    if (status ok = to_msgpack_kinds(out, path); !ok) return std::move(ok).error();
    return out;
  }
  status to_msgpack_kinds(node& n, const std::string& path) {
    switch (n.kind) {
      case kind::integer: {
        std::optional<integer_value> v = integer_of(n.text);
        if (!v) return fail(n, path, n.text + " is beyond the 64-bit integers MessagePack holds");
        n.text = integer_text(*v);
        n.format = shortest_format(*v);
        return {};
      }
      case kind::floating: {
        result<double> d = savekit::from_json<double>(n.text);
        if (!d) return fail(n, path, n.text + " is not a float64");
        n.format = "float64";
        return {};
      }
      case kind::string:
        n.format = "";
        return {};
      case kind::array:
      case kind::map:
        n.format = "";
        for (std::size_t i = 0; i < n.items.size(); ++i) {
          const bool map = n.kind == kind::map;
          if (map && i % 2 == 0) {
            n.items[i].format = "";
            continue;
          }
          const std::string inner = map ? child_path(path, n.items[i - 1]) : child_path(path, i);
          if (status ok = to_msgpack_kinds(n.items[i], inner); !ok) return ok;
        }
        return {};
      case kind::null:
      case kind::boolean:
      case kind::bytes:
      case kind::ext:
        if (n.kind == kind::null) n.format = "nil";
        if (n.kind == kind::boolean) n.format = n.text == "true" ? "true" : "false";
        return {};
    }
    return {};
  }

  result<node> retyped(const node& t, const node& e, const std::string& path, bool& changed) {
    if (!options_.allow_type_changes)
      return fail(e, path,
                  "the save has " + std::string{kind_name(t.kind)} + " (" + std::string{t.format} +
                      ") here, the edit " + std::string{kind_name(e.kind)} +
                      "; types are kept (allow type changes to change it)");
    changed = true;
    return plain(e, path);
  }

  result<node> typed(const node& t, const node& e, const std::string& path, bool& changed) {
    node out;
    out.kind = t.kind;
    out.format = t.format;
    out.ext_type = t.ext_type;
    out.offset = e.offset;  // for errors below; replaced by t's when unchanged
    switch (t.kind) {
      case kind::null:  // (handled by convert)
        break;
      case kind::boolean:
        if (e.kind != kind::boolean) return retyped(t, e, path, changed);
        out.text = e.text == "true" ? "true" : "false";
        if (wire_ == wire::msgpack) out.format = e.text == "true" ? "true" : "false";
        break;
      case kind::integer: {
        if (e.kind == kind::floating && !options_.allow_type_changes)
          return fail(e, path,
                      e.text + " is not an integer, and the save has an integer (" + std::string{t.format} + ") here");
        if (e.kind != kind::integer) return retyped(t, e, path, changed);
        if (wire_ == wire::json) {
          out.text = e.text;
          break;
        }
        std::optional<integer_value> v = integer_of(e.text);
        if (!v) return fail(e, path, e.text + " is beyond the 64-bit integers MessagePack holds");
        out.text = integer_text(*v);
        if (!fits(*v, t.format)) out.format = shortest_format(*v);  // widened, as savekit writes it
        break;
      }
      case kind::floating: {
        std::optional<double> special = e.kind == kind::string ? non_finite(e.text) : std::nullopt;
        if (e.kind != kind::integer && e.kind != kind::floating && !special) {
          if (e.kind == kind::string && !options_.allow_type_changes)
            return fail(e, path,
                        "\"" + e.text + "\" is not a number (NaN, Infinity and -Infinity are written as strings)");
          return retyped(t, e, path, changed);
        }
        if (wire_ == wire::json) {
          if (special) return fail(e, path, "JSON has no " + e.text + " (savekit writes it as null)");
          out.text = e.text;
          break;
        }
        if (special) {
          out.text = e.text;
        } else if (t.format == "float32") {
          // Read as a float32 directly: through a double, the digits would be rounded twice.
          result<float> f = savekit::from_json<float>(e.text);
          if (!f) return fail(e, path, e.text + " is beyond the range of a float32");
          out.text = savekit::to_json(*f);
        } else {
          result<double> d = savekit::from_json<double>(e.text);
          if (!d) return fail(e, path, e.text + " is beyond the range of a float64");
          out.text = savekit::to_json(*d);
        }
        // An unchanged NaN keeps its bits: the text alone cannot tell two NaNs apart.
        break;
      }
      case kind::string:
        if (e.kind != kind::string) return retyped(t, e, path, changed);
        out.text = e.text;
        break;
      case kind::bytes: {
        if (e.kind != kind::string) return retyped(t, e, path, changed);
        result<std::vector<std::byte>> bytes = base64_decode(e.text);
        if (!bytes) return fail(e, path, "bytes are written as Base64: " + bytes.error().message());
        out.text.assign(reinterpret_cast<const char*>(bytes->data()), bytes->size());
        break;
      }
      case kind::ext: {
        const node* type = e.kind == kind::map ? at(e, "ext") : nullptr;
        const node* data = e.kind == kind::map ? at(e, "base64") : nullptr;
        if (!type || !data || type->kind != kind::integer || data->kind != kind::string || e.items.size() != 4)
          return fail(e, path, R"(an ext is written as {"ext": TYPE, "base64": "DATA"})");
        std::optional<integer_value> v = integer_of(type->text);
        if (!v || v->magnitude > (v->negative ? 128u : 127u)) return fail(*type, path, "an ext's type is -128 to 127");
        out.ext_type =
            static_cast<std::int8_t>(v->negative ? -static_cast<int>(v->magnitude) : static_cast<int>(v->magnitude));
        result<std::vector<std::byte>> bytes = base64_decode(data->text);
        if (!bytes) return fail(*data, path, "an ext's data is written as Base64: " + bytes.error().message());
        out.text.assign(reinterpret_cast<const char*>(bytes->data()), bytes->size());
        break;
      }
      case kind::array:
        if (e.kind != kind::array) return retyped(t, e, path, changed);
        changed = e.items.size() != t.items.size();
        for (std::size_t i = 0; i < e.items.size(); ++i) {
          // An element beyond the original's takes the type of its last sibling.
          const node* like = i < t.items.size() ? &t.items[i] : t.items.empty() ? nullptr : &t.items.back();
          bool item_changed = false;
          result<node> item = convert(like, e.items[i], child_path(path, i), item_changed);
          if (!item) return std::move(item).error();
          if (i >= t.items.size() && item->size != 0) {  // a copy of the sibling's bytes is still a new node
            item->size = 0;
            mark_all_new(*item);
          }
          changed |= item_changed;
          out.items.push_back(std::move(*item));
        }
        break;
      case kind::map: {
        if (e.kind != kind::map) return retyped(t, e, path, changed);
        changed = e.items.size() != t.items.size();
        bool integer_keys = t.items.size() >= 2;
        for (std::size_t k = 0; k + 1 < t.items.size(); k += 2) integer_keys &= t.items[k].kind == kind::integer;
        const bool integer_keys_here = integer_keys && wire_ == wire::msgpack;
        std::unordered_map<std::string, std::size_t> old_keys;  // the last one wins, as the readers take it
        for (std::size_t k = 0; k + 1 < t.items.size(); k += 2)
          if (t.items[k].kind == kind::string || t.items[k].kind == kind::integer) old_keys[t.items[k].text] = k;
        std::unordered_set<std::string> seen;
        for (std::size_t i = 0; i + 1 < e.items.size(); i += 2) {
          const node& key = e.items[i];
          const std::string text = key_text(key.text, integer_keys_here);
          if (!seen.insert(text).second) return fail(key, path, "the key \"" + key.text + "\" appears twice");
          const auto found = old_keys.find(text);
          const node* old_key = found == old_keys.end() ? nullptr : &t.items[found->second];
          const node* old_value = found == old_keys.end() ? nullptr : &t.items[found->second + 1];
          // Keys in the same order as before keep their place; any other order is a change.
          changed |= i >= t.items.size() || old_key != &t.items[i];
          node new_key;
          if (old_key) {
            new_key = *old_key;
          } else {
            new_key = key;
            mark_all_new(new_key);
            if (wire_ == wire::msgpack) {
              new_key.format = "";
              if (integer_keys) {
                std::optional<integer_value> v = integer_of(key.text);
                if (!v) return fail(key, path, "this map's keys are integers; \"" + key.text + "\" is not one");
                new_key.kind = kind::integer;
                new_key.text = integer_text(*v);
                new_key.format = shortest_format(*v);
              }
            }
          }
          const std::string inner = child_path(path, new_key);
          bool item_changed = false;
          result<node> value = convert(old_value, e.items[i + 1], inner, item_changed);
          if (!value) return std::move(value).error();
          changed |= item_changed;
          out.items.push_back(std::move(new_key));
          out.items.push_back(std::move(*value));
        }
        break;
      }
    }
    if (t.kind != kind::array && t.kind != kind::map)
      changed = out.text != t.text || out.ext_type != t.ext_type || out.format != t.format;
    if (changed) out.size = 0;
    return out;
  }

  wire wire_;
  const edit_options& options_;
};

// ---- paths into a mutable tree ----------------------------------------------------------------

struct step {
  bool index = false;
  std::uint64_t position = 0;  // an array's index (64 bits: a size_t is 32 on wasm32)
  std::string key;             // a map's key
};

std::optional<std::vector<step>> split_path(std::string_view path) {
  std::vector<step> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    step s;
    if (path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string_view::npos || close == i + 1) return std::nullopt;
      std::optional<integer_value> v = integer_of(path.substr(i + 1, close - i - 1));
      if (!v || v->negative) return std::nullopt;
      s.index = true;
      s.position = v->magnitude;
      i = close + 1;
    } else if (path[i] == '"') {
      for (++i; i < path.size() && path[i] != '"'; ++i) {
        if (path[i] == '\\' && i + 1 < path.size()) ++i;
        s.key += path[i];
      }
      if (i >= path.size()) return std::nullopt;
      ++i;
    } else {
      const std::size_t end = path.find_first_of(".[", i);
      s.key = std::string{path.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i)};
      i = end == std::string_view::npos ? path.size() : end;
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

// The node at each step of path, the root first; errc::not_found when one is missing.
result<std::vector<node*>> chain(node& root, std::string_view path) {
  std::optional<std::vector<step>> steps = split_path(path);
  if (!steps) return error{errc::invalid_path, 0, "'" + std::string{path} + "' is not a path"};
  std::vector<node*> out{&root};
  for (const step& s : *steps) {
    node& here = *out.back();
    node* next = nullptr;
    if (s.index && here.kind == kind::array && s.position < here.items.size())
      next = &here.items[static_cast<std::size_t>(s.position)];
    if (!s.index && here.kind == kind::map)
      for (std::size_t k = 0; k + 1 < here.items.size(); k += 2)
        if ((here.items[k].kind == kind::string || here.items[k].kind == kind::integer) && here.items[k].text == s.key)
          next = &here.items[k + 1];
    if (!next) return error{errc::not_found, 0, "nothing at '" + std::string{path} + "'"};
    out.push_back(next);
  }
  return out;
}

void mark_chain(const std::vector<node*>& nodes) {
  for (node* n : nodes) mark_changed(*n);
}

// What to_editable_json refuses, found without writing the text: the page checks it once.
status check_editable(const node& n, const std::string& path) {
  auto cannot = [&](const node& at, const std::string& what) {
    return error{errc::unsupported_type, static_cast<std::size_t>(at.offset),
                 (path.empty() ? std::string{"the value"} : path) + ": " + what + " cannot be edited as JSON"};
  };
  if (n.kind == kind::string && !is_valid_utf8(n.text)) return cannot(n, "a string that is not UTF-8");
  if (n.kind == kind::array)
    for (std::size_t i = 0; i < n.items.size(); ++i)
      if (status ok = check_editable(n.items[i], child_path(path, i)); !ok) return ok;
  if (n.kind == kind::map) {
    std::unordered_set<std::string_view> keys;
    for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) {
      const node& key = n.items[i];
      if (key.kind != kind::string && key.kind != kind::integer)
        return cannot(key, "a map key that is not a string or an integer");
      if (key.kind == kind::string && !is_valid_utf8(key.text)) return cannot(key, "a map key that is not UTF-8");
      if (!keys.insert(key.text).second) return cannot(key, "a map whose key \"" + key.text + "\" appears twice");
      if (status ok = check_editable(n.items[i + 1], child_path(path, key)); !ok) return ok;
    }
  }
  return {};
}

// What write() made is read back before it is handed out: an edit never leaves bytes that
// the readers (and the next edit) cannot take — nested past the depth they allow, say.
result<std::string> read_back(std::string out, wire w) {
  result<node> again = w == wire::msgpack ? read_msgpack(out) : read_json(out);
  if (!again)
    return error{again.error().code(), again.error().offset(),
                 "the edited value would not read back: " + again.error().message()};
  return out;
}

}  // namespace

result<std::string> write(const node& root, std::string_view original, wire w) {
  std::string out;
  if (w == wire::msgpack) {
    if (status ok = write_msgpack(out, root, original); !ok) return std::move(ok).error();
    return read_back(std::move(out), w);
  }
  // JSON keeps the white space around its value (a file's last newline, say).
  constexpr std::string_view space = " \t\n\r";
  const std::size_t first = std::min(original.find_first_not_of(space), original.size());
  const std::size_t last = original.find_last_not_of(space);
  out.append(original.substr(0, first));
  if (status ok = write_json(out, root, original); !ok) return std::move(ok).error();
  if (last != std::string_view::npos) out.append(original.substr(last + 1));
  return read_back(std::move(out), w);
}

result<std::string> to_editable_json(const node& root) {
  editable_writer writer;
  if (status ok = writer.value(root, 0, ""); !ok) return std::move(ok).error();
  std::string out = writer.take();
  out += '\n';
  return out;
}

status editable(const node& root) { return check_editable(root, ""); }

result<node> apply_edit(const node& original, std::string_view edited_json, wire w, const edit_options& o) {
  result<node> edited = read_json(edited_json, o.json_limits);
  if (!edited) return edited;
  edit_reader reader(w, o);
  bool changed = false;
  return reader.convert(&original, *edited, "", changed);
}

std::string child_path(std::string_view parent, std::size_t index) {
  return std::string{parent} + "[" + std::to_string(index) + "]";
}

std::string child_path(std::string_view parent, const node& key) {
  const std::string_view text = key.text;
  bool plain = !text.empty() && key.kind == kind::integer;
  if (key.kind == kind::string) {
    plain = !text.empty();
    for (char c : text)
      if (c == '.' || c == '[' || c == ']' || c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
        plain = false;
  }
  std::string out{parent};
  if (!out.empty()) out += '.';
  if (plain) return out + std::string{text};
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

status set_value(node& root, std::string_view path, std::string_view json_value, wire w, const edit_options& o) {
  result<std::vector<node*>> nodes = chain(root, path);
  if (!nodes) return std::move(nodes).error();
  result<node> edited = read_json(json_value, o.json_limits);
  if (!edited) return std::move(edited).error();
  edit_reader reader(w, o);
  bool changed = false;
  result<node> value = reader.convert(nodes->back(), *edited, std::string{path}, changed);
  if (!value) return std::move(value).error();
  if (!changed) return {};
  *nodes->back() = std::move(*value);
  mark_chain(*nodes);
  return {};
}

status remove_value(node& root, std::string_view path) {
  result<std::vector<node*>> nodes = chain(root, path);
  if (!nodes) return std::move(nodes).error();
  if (nodes->size() < 2) return error{errc::invalid_path, 0, "the whole value cannot be removed"};
  node& parent = *(*nodes)[nodes->size() - 2];
  node* target = nodes->back();
  const auto at_index = static_cast<std::size_t>(target - parent.items.data());
  if (parent.kind == kind::map)
    parent.items.erase(parent.items.begin() + static_cast<std::ptrdiff_t>(at_index - 1),
                       parent.items.begin() + static_cast<std::ptrdiff_t>(at_index + 1));
  else
    parent.items.erase(parent.items.begin() + static_cast<std::ptrdiff_t>(at_index));
  nodes->pop_back();
  mark_chain(*nodes);
  return {};
}

status insert_value(node& root, std::string_view path, std::string_view key_or_index, std::string_view json_value,
                    wire w, const edit_options& o) {
  result<std::vector<node*>> nodes = chain(root, path);
  if (!nodes) return std::move(nodes).error();
  node& container = *nodes->back();
  result<node> edited = read_json(json_value, o.json_limits);
  if (!edited) return std::move(edited).error();
  edit_reader reader(w, o);
  bool changed = false;
  if (container.kind == kind::array) {
    std::optional<integer_value> v = integer_of(key_or_index);
    if (!v || v->negative) return error{errc::invalid_path, 0, "'" + std::string{key_or_index} + "' is not an index"};
    // (Bounded before the cast: on wasm32 a size_t is 32 bits, and 2^32 would become 0.)
    const auto index = static_cast<std::size_t>(std::min<std::uint64_t>(v->magnitude, container.items.size()));
    const node* like = container.items.empty() ? nullptr : &container.items[index == 0 ? 0 : index - 1];
    result<node> value = reader.convert(like, *edited, child_path(path, index), changed);
    if (!value) return std::move(value).error();
    mark_all_new(*value);
    container.items.insert(container.items.begin() + static_cast<std::ptrdiff_t>(index), std::move(*value));
  } else if (container.kind == kind::map) {
    bool integer_keys = !container.items.empty();
    for (std::size_t k = 0; k + 1 < container.items.size(); k += 2)
      integer_keys &= container.items[k].kind == kind::integer;
    const std::string wanted = key_text(key_or_index, integer_keys && w == wire::msgpack);
    for (std::size_t k = 0; k + 1 < container.items.size(); k += 2)
      if (container.items[k].text == wanted)
        return error{errc::already_exists, 0, child_path(path, container.items[k]) + " is there already"};
    node key;
    key.kind = kind::string;
    key.format = w == wire::json ? "string" : "";
    key.text = std::string{key_or_index};
    if (integer_keys && w == wire::msgpack) {
      std::optional<integer_value> v = integer_of(key_or_index);
      if (!v) return error{errc::invalid_key, 0, "this map's keys are integers; '" + key.text + "' is not one"};
      key.kind = kind::integer;
      key.text = integer_text(*v);
      key.format = shortest_format(*v);
    }
    // A new entry of a map whose values are alike (a dictionary) takes their type.
    const node* like = nullptr;
    if (container.items.size() >= 2) {
      like = &container.items[1];
      for (std::size_t k = 3; like && k < container.items.size(); k += 2)
        if (container.items[k].kind != like->kind || container.items[k].format != like->format) like = nullptr;
    }
    if (like && like->kind != edited->kind && !(like->kind == kind::floating && edited->kind == kind::integer) &&
        !(like->kind == kind::bytes && edited->kind == kind::string))
      like = nullptr;  // a differently typed value in a dictionary: typed as its JSON says
    result<node> value = reader.convert(like, *edited, child_path(path, key), changed);
    if (!value) return std::move(value).error();
    mark_all_new(*value);
    container.items.push_back(std::move(key));
    container.items.push_back(std::move(*value));
  } else {
    return error{errc::wrong_type, 0,
                 (path.empty() ? std::string{"the value"} : std::string{path}) + " is neither an array nor a map"};
  }
  mark_chain(*nodes);
  return {};
}

}  // namespace savekit::inspect
