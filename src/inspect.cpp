// The inspection tree (savekit/inspect.hpp): MessagePack and JSON read into nodes that keep
// their wire format, offset and size. Recursive descent, bounded by limits::max_depth (the
// stack) and limits::max_nodes (memory: a one-byte element is a ~100-byte node). Pure
// functions over bytes: fuzzed (tests/fuzz/fuzz_inspect.cpp).
#include "savekit/inspect.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "savekit/json.hpp"

namespace savekit::inspect {
namespace {

error fail(errc code, std::uint64_t at, std::string what) {
  return error{code, static_cast<std::size_t>(at), std::move(what)};  // (within the input: it fits)
}

// A float's shortest digits in its own width; the non-finite ones by name.
template <class F>
std::string float_text(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-Infinity" : "Infinity";
  return savekit::to_json(v);
}

struct counter {
  const limits& l;
  std::uint64_t nodes = 0;
  status take(std::uint64_t at, std::uint32_t depth) {
    if (depth > l.max_depth) return fail(errc::depth_exceeded, at, "nested deeper than " + std::to_string(l.max_depth));
    if (++nodes > l.max_nodes)
      return fail(errc::value_too_large, at, "more than " + std::to_string(l.max_nodes) + " values");
    return {};
  }
};

// ---- MessagePack ----------------------------------------------------------------------

class msgpack_reader {
 public:
  msgpack_reader(const unsigned char* data, std::size_t size, const limits& l) : p_(data), n_(size), count_{l} {}

  result<node> value(std::uint32_t depth) {
    node out;
    out.offset = at_;
    if (status ok = count_.take(at_, depth); !ok) return std::move(ok).error();
    if (at_ >= n_) return fail(errc::unexpected_end, at_, "the input ends where a value should start");
    const std::uint8_t b = p_[at_++];
    auto uint_of = [&](int bytes, std::string_view format) -> result<node> {
      if (!have(bytes)) return end();
      out.kind = kind::integer;
      out.format = format;
      out.text = std::to_string(big_endian(bytes));
      return finish(out);
    };
    auto int_of = [&](int bytes, std::string_view format) -> result<node> {
      if (!have(bytes)) return end();
      const std::uint64_t raw = big_endian(bytes);
      const int shift = 64 - 8 * bytes;
      out.kind = kind::integer;
      out.format = format;
      out.text = std::to_string(static_cast<std::int64_t>(raw << shift) >> shift);
      return finish(out);
    };
    auto sized = [&](kind k, std::string_view format, std::uint64_t length) -> result<node> {
      if (length > n_ - at_)
        return fail(errc::length_exceeds_input, out.offset,
                    std::string{format} + " of " + std::to_string(length) + " bytes, past the end of the input");
      out.kind = k;
      out.format = format;
      out.text.assign(reinterpret_cast<const char*>(p_ + at_), static_cast<std::size_t>(length));
      at_ += static_cast<std::size_t>(length);
      return finish(out);
    };
    auto length_of = [&](int bytes) -> std::optional<std::uint64_t> {
      if (!have(bytes)) return std::nullopt;
      return big_endian(bytes);
    };
    if (b <= 0x7f) {
      out.kind = kind::integer;
      out.format = "positive fixint";
      out.text = std::to_string(b);
      return finish(out);
    }
    if (b >= 0xe0) {
      out.kind = kind::integer;
      out.format = "negative fixint";
      out.text = std::to_string(static_cast<std::int8_t>(b));
      return finish(out);
    }
    if (b >= 0xa0 && b <= 0xbf) return sized(kind::string, "fixstr", b & 0x1f);
    if (b >= 0x90 && b <= 0x9f) return container(out, kind::array, "fixarray", b & 0x0f, depth);
    if (b >= 0x80 && b <= 0x8f) return container(out, kind::map, "fixmap", b & 0x0f, depth);
    switch (b) {
      case 0xc0:
        out.kind = kind::null;
        out.format = "nil";
        return finish(out);
      case 0xc2:
      case 0xc3:
        out.kind = kind::boolean;
        out.format = b == 0xc3 ? "true" : "false";
        out.text = b == 0xc3 ? "true" : "false";
        return finish(out);
      case 0xc4:
      case 0xc5:
      case 0xc6: {
        const int bytes = 1 << (b - 0xc4);
        auto length = length_of(bytes);
        if (!length) return end();
        return sized(kind::bytes, b == 0xc4 ? "bin8" : b == 0xc5 ? "bin16" : "bin32", *length);
      }
      case 0xc7:
      case 0xc8:
      case 0xc9: {
        const int bytes = 1 << (b - 0xc7);
        auto length = length_of(bytes);
        if (!length || !have(1)) return end();
        out.ext_type = static_cast<std::int8_t>(p_[at_++]);
        return sized(kind::ext, b == 0xc7 ? "ext8" : b == 0xc8 ? "ext16" : "ext32", *length);
      }
      case 0xca: {
        if (!have(4)) return end();
        const auto bits = static_cast<std::uint32_t>(big_endian(4));
        float f;
        std::memcpy(&f, &bits, 4);
        out.kind = kind::floating;
        out.format = "float32";
        out.text = float_text(f);
        return finish(out);
      }
      case 0xcb: {
        if (!have(8)) return end();
        const std::uint64_t bits = big_endian(8);
        double d;
        std::memcpy(&d, &bits, 8);
        out.kind = kind::floating;
        out.format = "float64";
        out.text = float_text(d);
        return finish(out);
      }
      case 0xcc:
        return uint_of(1, "uint8");
      case 0xcd:
        return uint_of(2, "uint16");
      case 0xce:
        return uint_of(4, "uint32");
      case 0xcf:
        return uint_of(8, "uint64");
      case 0xd0:
        return int_of(1, "int8");
      case 0xd1:
        return int_of(2, "int16");
      case 0xd2:
        return int_of(4, "int32");
      case 0xd3:
        return int_of(8, "int64");
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8: {
        static constexpr std::string_view names[] = {"fixext1", "fixext2", "fixext4", "fixext8", "fixext16"};
        if (!have(1)) return end();
        out.ext_type = static_cast<std::int8_t>(p_[at_++]);
        return sized(kind::ext, names[b - 0xd4], std::uint64_t{1} << (b - 0xd4));
      }
      case 0xd9:
      case 0xda:
      case 0xdb: {
        const int bytes = 1 << (b - 0xd9);
        auto length = length_of(bytes);
        if (!length) return end();
        return sized(kind::string, b == 0xd9 ? "str8" : b == 0xda ? "str16" : "str32", *length);
      }
      case 0xdc:
      case 0xdd: {
        auto length = length_of(b == 0xdc ? 2 : 4);
        if (!length) return end();
        return container(out, kind::array, b == 0xdc ? "array16" : "array32", *length, depth);
      }
      case 0xde:
      case 0xdf: {
        auto length = length_of(b == 0xde ? 2 : 4);
        if (!length) return end();
        return container(out, kind::map, b == 0xde ? "map16" : "map32", *length, depth);
      }
      default:
        return fail(errc::invalid_msgpack, out.offset, "byte 0xc1 is never valid MessagePack");
    }
  }

  std::size_t at() const { return at_; }

 private:
  bool have(int bytes) const { return n_ - at_ >= static_cast<std::size_t>(bytes); }
  error end() const { return fail(errc::unexpected_end, at_, "the input ends inside a value"); }
  std::uint64_t big_endian(int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p_[at_ + static_cast<std::size_t>(i)];
    at_ += static_cast<std::size_t>(bytes);
    return v;
  }
  result<node> finish(node& out) const {
    out.size = at_ - out.offset;
    return std::move(out);
  }
  result<node> container(node& out, kind k, std::string_view format, std::uint64_t count, std::uint32_t depth) {
    out.kind = k;
    out.format = format;
    const std::uint64_t values = k == kind::map ? count * 2 : count;
    // Each value takes at least a byte: a count past what is left is a lie, found first.
    if (values > n_ - at_)
      return fail(errc::length_exceeds_input, out.offset,
                  std::string{format} + " of " + std::to_string(count) + " entries, past the end of the input");
    out.items.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(values, 1 << 16)));
    for (std::uint64_t i = 0; i < values; ++i) {
      result<node> child = value(depth + 1);
      if (!child) return std::move(child).error();
      out.items.push_back(std::move(*child));
    }
    return finish(out);
  }

  const unsigned char* p_;
  std::size_t n_;
  std::size_t at_ = 0;
  counter count_;
};

// ---- JSON -------------------------------------------------------------------------------

class json_reader {
 public:
  json_reader(std::string_view text, const limits& l) : s_(text), count_{l} {}

  result<node> value(std::uint32_t depth) {
    skip_space();
    node out;
    out.offset = at_;
    if (status ok = count_.take(at_, depth); !ok) return std::move(ok).error();
    if (at_ >= s_.size()) return fail(errc::unexpected_end, at_, "the input ends where a value should start");
    const char c = s_[at_];
    if (c == '{' || c == '[') return container(out, c == '{', depth);
    if (c == '"') {
      result<std::string> text = string();
      if (!text) return std::move(text).error();
      out.kind = kind::string;
      out.format = "string";
      out.text = std::move(*text);
      return finish(out);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(out);
    for (std::string_view word : {"true", "false", "null"})
      if (s_.substr(at_, word.size()) == word) {
        at_ += word.size();
        out.kind = word == "null" ? kind::null : kind::boolean;
        out.format = word == "null" ? "null" : "boolean";
        out.text = std::string{word};
        return finish(out);
      }
    return fail(errc::syntax_error, at_, std::string{"'"} + c + "' cannot start a JSON value");
  }

  void skip_space() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\n' || s_[at_] == '\r')) ++at_;
  }
  std::size_t at() const { return at_; }

 private:
  result<node> finish(node& out) const {
    out.size = at_ - out.offset;
    return std::move(out);
  }
  bool digit() const { return at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9'; }

  // The grammar of RFC 8259; the text kept as written.
  result<node> number(node& out) {
    const std::size_t start = at_;
    if (s_[at_] == '-') ++at_;
    if (!digit()) return fail(errc::invalid_number, at_, "a digit must follow '-'");
    if (s_[at_] == '0')
      ++at_;
    else
      while (digit()) ++at_;
    bool integer = true;
    if (at_ < s_.size() && s_[at_] == '.') {
      ++at_;
      integer = false;
      if (!digit()) return fail(errc::invalid_number, at_, "a digit must follow '.'");
      while (digit()) ++at_;
    }
    if (at_ < s_.size() && (s_[at_] == 'e' || s_[at_] == 'E')) {
      ++at_;
      integer = false;
      if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
      if (!digit()) return fail(errc::invalid_number, at_, "a digit must follow the exponent");
      while (digit()) ++at_;
    }
    out.kind = integer ? kind::integer : kind::floating;
    out.format = "number";
    out.text = std::string{s_.substr(start, at_ - start)};
    return finish(out);
  }

  void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::optional<std::uint32_t> hex4() {
    if (s_.size() - at_ < 4) return std::nullopt;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[at_++];
      v <<= 4;
      if (h >= '0' && h <= '9')
        v |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f')
        v |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        v |= static_cast<std::uint32_t>(h - 'A' + 10);
      else
        return std::nullopt;
    }
    return v;
  }
  // Length of a valid UTF-8 sequence at p (no overlongs, surrogates or code points past
  // U+10FFFF), 0 if none.
  static std::size_t utf8_length(const unsigned char* p, std::size_t left) {
    const unsigned char b = p[0];
    std::size_t n;
    std::uint32_t cp;
    if (b < 0x80) return 1;
    if ((b & 0xE0) == 0xC0) {
      n = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      n = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      n = 4;
      cp = b & 0x07;
    } else {
      return 0;
    }
    if (left < n) return 0;
    for (std::size_t i = 1; i < n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    static constexpr std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
  }
  result<std::string> string() {
    ++at_;  // the opening quote
    std::string out;
    while (true) {
      if (at_ >= s_.size()) return fail(errc::unexpected_end, at_, "the input ends inside a string");
      const char c = s_[at_];
      if (c == '"') {
        ++at_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail(errc::syntax_error, at_, "a control character inside a string must be escaped");
      if (c == '\\') {
        const std::size_t escape = at_++;
        if (at_ >= s_.size()) return fail(errc::unexpected_end, at_, "the input ends inside an escape");
        const char e = s_[at_++];
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            std::optional<std::uint32_t> cp = hex4();
            if (!cp) return fail(errc::invalid_escape, escape, "\\u needs four hex digits");
            if (*cp >= 0xDC00 && *cp <= 0xDFFF) return fail(errc::invalid_escape, escape, "a lone low surrogate");
            if (*cp >= 0xD800 && *cp <= 0xDBFF) {
              if (s_.substr(at_, 2) != "\\u") return fail(errc::invalid_escape, escape, "a lone high surrogate");
              at_ += 2;
              std::optional<std::uint32_t> low = hex4();
              if (!low || *low < 0xDC00 || *low > 0xDFFF)
                return fail(errc::invalid_escape, escape, "a high surrogate without its low one");
              *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
            }
            append_utf8(out, *cp);
            break;
          }
          default:
            return fail(errc::invalid_escape, escape, std::string{"\\"} + e + " is not an escape");
        }
        continue;
      }
      const std::size_t n = utf8_length(reinterpret_cast<const unsigned char*>(s_.data()) + at_, s_.size() - at_);
      if (n == 0) return fail(errc::invalid_utf8, at_, "a string that is not UTF-8");
      out.append(s_.data() + at_, n);
      at_ += n;
    }
  }

  result<node> container(node& out, bool object, std::uint32_t depth) {
    out.kind = object ? kind::map : kind::array;
    out.format = object ? "object" : "array";
    const char close = object ? '}' : ']';
    ++at_;
    skip_space();
    if (at_ < s_.size() && s_[at_] == close) {
      ++at_;
      return finish(out);
    }
    while (true) {
      if (object) {
        skip_space();
        if (at_ >= s_.size() || s_[at_] != '"') {
          if (at_ >= s_.size()) return fail(errc::unexpected_end, at_, "the input ends inside an object");
          return fail(errc::syntax_error, at_, "an object's key must be a string");
        }
        result<node> key = value(depth + 1);
        if (!key) return std::move(key).error();
        out.items.push_back(std::move(*key));
        skip_space();
        if (at_ >= s_.size() || s_[at_] != ':')
          return fail(at_ >= s_.size() ? errc::unexpected_end : errc::syntax_error, at_, "':' must follow a key");
        ++at_;
      }
      result<node> item = value(depth + 1);
      if (!item) return std::move(item).error();
      out.items.push_back(std::move(*item));
      skip_space();
      if (at_ >= s_.size()) return fail(errc::unexpected_end, at_, "the input ends inside a container");
      if (s_[at_] == ',') {
        ++at_;
        continue;
      }
      if (s_[at_] == close) {
        ++at_;
        return finish(out);
      }
      return fail(errc::syntax_error, at_, std::string{"',' or '"} + close + "' must follow a value");
    }
  }

  std::string_view s_;
  std::size_t at_ = 0;
  counter count_;
};

// ---- rendering and paths ----------------------------------------------------------------

std::string escaped_byte(const char* prefix, unsigned char c) {
  static constexpr char hex[] = "0123456789abcdef";
  return std::string{prefix} + hex[c >> 4] + hex[c & 0xF];
}

std::string quoted(std::string_view text, std::size_t max) {
  std::string out = "\"";
  std::size_t shown = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (shown >= max) {
      out += "\"… (" + std::to_string(text.size()) + " bytes)";
      return out;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    ++shown;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {  // never a terminal's control sequence
      out += escaped_byte("\\x", c);
    } else if (c >= 0x80) {
      // UTF-8 as it is, but a C1 control (U+0080..U+009F: CSI is one) escaped, and a byte
      // that is not UTF-8 too (alone, 0x9b is CSI to an 8-bit terminal).
      const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      const bool whole = c >= 0xc2 && i + length <= text.size() && is_valid_utf8(text.substr(i, length));
      if (!whole) {
        out += escaped_byte("\\x", c);
      } else if (c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
        out += escaped_byte("\\u00", static_cast<unsigned char>(text[i + 1]));
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length - 1;
      }
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string hex_of(std::string_view bytes, std::size_t max) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max; ++i) {
    if (i) out += ' ';
    out += hex[static_cast<unsigned char>(bytes[i]) >> 4];
    out += hex[static_cast<unsigned char>(bytes[i]) & 0xF];
  }
  if (bytes.size() > max) out += " …";
  return out;
}

std::string summary(const node& n, const render_options& o) {
  std::string line{n.format};
  switch (n.kind) {
    case kind::null:
      break;
    case kind::boolean:
    case kind::integer:
    case kind::floating:
      line += " " + n.text;
      break;
    case kind::string:
      line += " " + quoted(n.text, o.max_string);
      break;
    case kind::bytes:
      line += " (" + std::to_string(n.text.size()) + " bytes) " + hex_of(n.text, o.max_bytes);
      break;
    case kind::ext:
      line += " type " + std::to_string(n.ext_type) + " (" + std::to_string(n.text.size()) + " bytes) " +
              hex_of(n.text, o.max_bytes);
      break;
    case kind::array:
      line += " (" + std::to_string(n.items.size()) + (n.items.size() == 1 ? " element)" : " elements)");
      break;
    case kind::map:
      line += " (" + std::to_string(n.items.size() / 2) + (n.items.size() == 2 ? " entry)" : " entries)");
      break;
  }
  if (o.offsets) line += "  @" + std::to_string(n.offset) + " +" + std::to_string(n.size);
  return line;
}

void render_into(std::string& out, const node& n, const render_options& o, std::size_t indent, std::string_view label) {
  out.append(indent * 2, ' ');
  if (!label.empty()) {
    out += label;
    out += ": ";
  }
  out += summary(n, o);
  out += '\n';
  if (!o.children) return;
  if (n.kind == kind::array) {
    for (std::size_t i = 0; i < n.items.size(); ++i)
      render_into(out, n.items[i], o, indent + 1, "[" + std::to_string(i) + "]");
  } else if (n.kind == kind::map) {
    for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) {
      const node& key = n.items[i];
      std::string name = key.kind == kind::string ? quoted(key.text, o.max_string) : "(" + summary(key, o) + ")";
      render_into(out, n.items[i + 1], o, indent + 1, name);
    }
  }
}

}  // namespace

result<node> read_msgpack(std::span<const std::byte> bytes, const limits& l) {
  msgpack_reader r(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), l);
  result<node> root = r.value(0);
  if (root && r.at() != bytes.size())
    return error{errc::trailing_data, r.at(), std::to_string(bytes.size() - r.at()) + " bytes after the value"};
  return root;
}

result<node> read_msgpack(std::string_view bytes, const limits& l) {
  return read_msgpack(std::span<const std::byte>{reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, l);
}

result<node> read_json(std::string_view text, const limits& l) {
  json_reader r(text, l);
  result<node> root = r.value(0);
  if (!root) return root;
  r.skip_space();
  if (r.at() != text.size()) return error{errc::trailing_data, r.at(), "more after the JSON value"};
  return root;
}

std::string render(const node& root, const render_options& o) {
  std::string out;
  render_into(out, root, o, 0, "");
  return out;
}

const node* at(const node& root, std::string_view path) {
  const node* here = &root;
  std::size_t i = 0;
  while (i < path.size() && here) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {  // an array's element
      const std::size_t close = path.find(']', i);
      if (close == std::string_view::npos || here->kind != kind::array) return nullptr;
      std::size_t index = 0;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (path[k] < '0' || path[k] > '9') return nullptr;
        index = index * 10 + static_cast<std::size_t>(path[k] - '0');
        if (index > here->items.size()) return nullptr;
      }
      if (close == i + 1 || index >= here->items.size()) return nullptr;
      here = &here->items[index];
      i = close + 1;
      continue;
    }
    std::string key;  // a map's key: "quoted" (with \" and \\), or up to the next . or [
    if (path[i] == '"') {
      for (++i; i < path.size() && path[i] != '"'; ++i) {
        if (path[i] == '\\' && i + 1 < path.size()) ++i;
        key += path[i];
      }
      if (i >= path.size()) return nullptr;
      ++i;
    } else {
      const std::size_t end = path.find_first_of(".[", i);
      key = std::string{path.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i)};
      i = end == std::string_view::npos ? path.size() : end;
    }
    if (here->kind != kind::map) return nullptr;
    const node* found = nullptr;
    for (std::size_t k = 0; k + 1 < here->items.size(); k += 2)
      if ((here->items[k].kind == kind::string || here->items[k].kind == kind::integer) && here->items[k].text == key)
        found = &here->items[k + 1];  // the last one wins, as the readers take it
    here = found;
  }
  return here;
}

}  // namespace savekit::inspect
