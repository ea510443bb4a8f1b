// What the savekit command-line program's commands share: exit codes, text made safe for a
// terminal, error reports and checked standard output.
#pragma once

#include <savekit/backend.hpp>
#include <savekit/savekit.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace savekit_cli {

inline constexpr savekit::json_options document_options{.skip_null_members = true};

enum exit_code {
  ok = 0,
  failure = 1,
  usage = 2,
  in_use = 3,
  recoverable = 4,
  nothing_intact = 5,
  newer_format = 6,
  seal_broken = 7,  // verify with keys: a sealed entry or generation fails its seal (edited, or not this one's)
};

// What verify says of a store, a slot or a slots folder: the word it prints and the exit
// code that word means, one from the other; of two verdicts the worse (higher rank) stands.
struct verdict {
  std::string_view word;
  int code;
  int rank;
  verdict worse_of(verdict other) const { return other.rank > rank ? other : *this; }
  bool operator==(const verdict& other) const { return rank == other.rank; }
};
namespace verdicts {
inline constexpr verdict intact{"intact", ok, 0};
inline constexpr verdict recoverable{"recoverable", exit_code::recoverable, 1};
inline constexpr verdict nothing_intact{"nothing intact", exit_code::nothing_intact, 2};
inline constexpr verdict newer_format{"newer format", exit_code::newer_format, 3};
// A seal that fails means the save was edited or copied from elsewhere: it outranks all else.
inline constexpr verdict tampered{"tampered", seal_broken, 4};
}  // namespace verdicts

// The value types `savekit set --type` takes, spelled as `savekit list` names them
// (savekit::to_string(value_type)); json is stored as MessagePack.
inline std::vector<std::string> settable_types() {
  using savekit::value_type;
  std::vector<std::string> out;
  for (value_type t :
       {value_type::integer, value_type::floating, value_type::string, value_type::bytes, value_type::json})
    out.emplace_back(savekit::to_string(t));
  return out;
}
// Names joined by '|', for a help text.
inline std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : "|") + name;
  return out;
}

// ---- terminal-safe text ----------------------------------------------------------------------

// Text from a store (keys, values, messages naming keys) as it may reach a terminal:
// control characters (C0, DEL and C1) shown as \xNN or \u00NN and backslashes doubled,
// so nothing can move the cursor, recolour the screen or forge a line of output. Newlines
// and tabs are kept where the text is ours (formatted errors) or meant to show as lines
// (values); for values, backslashes are doubled, so an escaped byte cannot be mistaken
// for the same text typed in.
inline std::string terminal_safe(std::string_view text, bool keep_newlines, bool double_backslashes = false) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto b = static_cast<unsigned char>(text[i]);
    bool c1 = b == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
              static_cast<unsigned char>(text[i + 1]) < 0xa0;
    if (c1) {
      b = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += hex[b >> 4];
      out += hex[b & 15];
    } else if ((b < 0x20 && !(keep_newlines && (b == '\n' || b == '\t'))) || b == 0x7f) {
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 15];
    } else if (b == '\\' && double_backslashes) {
      out += "\\\\";
    } else {
      out += static_cast<char>(b);
    }
  }
  return out;
}

inline bool valid_utf8(std::string_view s) { return savekit::is_valid_utf8(s); }

// A time as RFC 3339, UTC, to the second ("2026-12-07T02:15:30Z").
inline std::string rfc3339(std::chrono::system_clock::time_point at) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// A key as `list` shows it: as it is when that is plain text; otherwise quoted, with
// control characters (C0, DEL and C1) and bytes that are not UTF-8 as \xNN or \u00NN,
// quotes and backslashes escaped — so a shown key that starts with a quote is always an
// escaped one, and no key can put a terminal escape sequence or a forged line on screen.
inline std::string display_key(std::string_view key) {
  static constexpr char hex[] = "0123456789abcdef";
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(key[i]); };
  auto is_c1 = [&](std::size_t i) { return byte(i) == 0xc2 && i + 1 < key.size() && byte(i + 1) < 0xa0; };
  bool plain = !key.empty() && valid_utf8(key);
  for (std::size_t i = 0; plain && i < key.size(); ++i)
    if (byte(i) < 0x20 || byte(i) == 0x7f || byte(i) == '"' || byte(i) == '\\' || byte(i) == ' ' || is_c1(i))
      plain = false;
  if (plain) return std::string(key);
  std::string out = "\"";
  auto escaped = [&](const char* prefix, unsigned char b) {
    out += prefix;
    out += hex[b >> 4];
    out += hex[b & 15];
  };
  for (std::size_t i = 0; i < key.size();) {
    unsigned char b = byte(i);
    if (b == '"' || b == '\\') {
      out += '\\';
      out += static_cast<char>(b);
      ++i;
    } else if (b < 0x20 || b == 0x7f) {
      escaped("\\x", b);
      ++i;
    } else if (b < 0x80) {
      out += static_cast<char>(b);
      ++i;
    } else {
      std::size_t length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      bool whole = i + length <= key.size() && savekit::is_valid_utf8(key.substr(i, length));
      if (!whole) {
        escaped("\\x", b);
        ++i;
      } else if (is_c1(i)) {
        escaped("\\u00", byte(i + 1));
        i += 2;
      } else {
        out.append(key.substr(i, length));
        i += length;
      }
    }
  }
  return out + "\"";
}

inline int report(const std::string& where, const savekit::error& e) {
  std::fprintf(stderr, "savekit: %s: %s\n", terminal_safe(where, false).c_str(),
               terminal_safe(e.to_string(), false).c_str());
  return e.code() == savekit::errc::locked ? in_use : failure;
}

// A codec error in an input: the offset and a caret under it.
inline int report_input(const std::string& where, const savekit::error& e, std::string_view input, bool binary) {
  std::fprintf(
      stderr, "savekit: %s: %s", terminal_safe(where, false).c_str(),
      terminal_safe(binary ? savekit::format_binary_error(e, input) : savekit::format_error(e, input), true).c_str());
  return failure;
}

inline void warn(const std::string& path, const std::string& what) {
  std::fprintf(stderr, "savekit: %s: warning: %s\n", terminal_safe(path, false).c_str(),
               terminal_safe(what, false).c_str());
}

// Everything a command prints on standard output goes through here, and is checked: a
// full disk or a closed pipe is a failure (exit 1), never a silently truncated file.
class output {
 public:
  void write(std::string_view bytes) {
    if (failed_ == 0 && std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size())
      failed_ = errno ? errno : EIO;
  }
  void line(std::string_view text) {
    write(text);
    write("\n");
  }
  // Flushes; reports a write error and returns the exit code to use.
  int finish(int code) {
    if (std::fflush(stdout) != 0 && failed_ == 0) failed_ = errno ? errno : EIO;
    if (failed_ == 0 && std::ferror(stdout)) failed_ = EIO;
    if (failed_ == 0) return code;
    std::fprintf(stderr, "savekit: cannot write the output: %s\n", std::strerror(failed_));
    return failure;
  }

 private:
  int failed_ = 0;
};

}  // namespace savekit_cli
