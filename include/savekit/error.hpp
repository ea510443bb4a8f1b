// savekit/error.hpp — error codes, savekit::error, savekit::result<T> and savekit::status.
//
// savekit never throws. Every operation that can fail returns a result<T> (or a status,
// which is result<void>) carrying either the value or an error with a code, the byte
// offset into the input, the path of the field being read and a message.
//
// Example:
//   savekit::result<Save> r = savekit::from_json<Save>(text);
//   if (!r) std::fputs(savekit::format_error(r.error(), text).c_str(), stderr);
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace savekit {

// Every way an operation can fail. The numbers are stable (they appear in tools' output).
enum class errc : std::uint8_t {
  ok = 0,
  unexpected_end = 1,          // the input ended in the middle of a value
  syntax_error = 2,            // a character that cannot start or continue a JSON value here
  invalid_utf8 = 3,            // a string is not valid UTF-8
  invalid_escape = 4,          // a bad \ escape or \u sequence (including lone surrogates)
  invalid_number = 5,          // a malformed number
  number_out_of_range = 6,     // a number that does not fit the target type
  not_an_integer = 7,          // a fraction or exponent where an integer is expected
  type_mismatch = 8,           // a value of another kind than the target expects
  unknown_key = 9,             // an object key the target does not have (strict mode)
  missing_key = 10,            // a member absent from the input (strict mode)
  depth_exceeded = 11,         // nesting deeper than the configured limit
  trailing_data = 12,          // bytes after the end of the document
  length_mismatch = 13,        // an array whose length does not match a fixed-size target
  length_exceeds_input = 14,   // a declared length larger than the remaining input
  invalid_msgpack = 15,        // a MessagePack byte that is never valid (0xc1)
  unknown_enum_name = 16,      // an enum name that is not declared
  unknown_variant_index = 17,  // a variant tag out of range
  unsupported_type = 18,       // a value with no equivalent in the target format (ext, bad key)
  invalid_base64_character = 19,
  invalid_base64_padding = 20,
  invalid_base64_trailing_bits = 21,
  invalid_value = 22,  // a custom adapter refused the value
  // The store (savekit/prefs.hpp) and its backends:
  not_found = 23,            // no entry under this key
  wrong_type = 24,           // the entry holds another type than asked for
  invalid_key = 25,          // an empty key, or one longer than prefs::max_key_size
  value_too_large = 26,      // a value longer than prefs::max_value_size
  locked = 27,               // another process holds the store
  io_error = 28,             // the operating system refused a read, write, sync or rename
  corrupt_store = 29,        // no intact committed state could be read
  unsupported_version = 30,  // the store was written by a newer savekit
  commit_pending = 31,       // an asynchronous backend has not finished the commit yet
  storage_unavailable = 32,  // the browser offers no persistent storage (IndexedDB off or refused)
  storage_full = 33,         // the storage quota is used up (QuotaExceededError, ENOSPC)
  store_too_large = 34,      // a commit or store file beyond the store's size limit
  store_replaced = 35,       // another program replaced the store file while it was open
  invalid_path = 36,         // a store path that cannot name a store file (empty, a folder, a FIFO...)
  // Save slots (savekit/slots.hpp):
  invalid_name = 37,           // a slot name that is empty, too long, not UTF-8 or holds control characters
  already_exists = 38,         // the target of a rename is a slot already
  damaged = 39,                // every kept generation of a slot failed its checksums (copies kept as *.damaged)
  newer_schema = 40,           // saved by a newer version of the game's types than this program knows
  incompatible_layout = 41,    // a compact-form save whose positions now stand for other members
  tampered = 42,               // a sealed save fails its check: edited, damaged, cut, or sealed for another slot
  key_not_held = 43,           // sealed with a key (or dictionary) not given to unseal, or no key to seal with
  unsupported_algorithm = 44,  // sealed with a compression or protection this build does not have
  // Cloud sync (savekit/cloud.hpp):
  network = 45,  // the server could not be reached, or answered with an error (the message says which)
  // Slots in the browser (savekit/indexeddb.hpp):
  not_loaded = 46,  // the save is still in IndexedDB: slots::load_async it first (reads cannot wait there)
};

// A short, stable, human-readable name for a code ("unexpected_end").
constexpr std::string_view to_string(errc code) noexcept {
  switch (code) {
    case errc::ok:
      return "ok";
    case errc::unexpected_end:
      return "unexpected_end";
    case errc::syntax_error:
      return "syntax_error";
    case errc::invalid_utf8:
      return "invalid_utf8";
    case errc::invalid_escape:
      return "invalid_escape";
    case errc::invalid_number:
      return "invalid_number";
    case errc::number_out_of_range:
      return "number_out_of_range";
    case errc::not_an_integer:
      return "not_an_integer";
    case errc::type_mismatch:
      return "type_mismatch";
    case errc::unknown_key:
      return "unknown_key";
    case errc::missing_key:
      return "missing_key";
    case errc::depth_exceeded:
      return "depth_exceeded";
    case errc::trailing_data:
      return "trailing_data";
    case errc::length_mismatch:
      return "length_mismatch";
    case errc::length_exceeds_input:
      return "length_exceeds_input";
    case errc::invalid_msgpack:
      return "invalid_msgpack";
    case errc::unknown_enum_name:
      return "unknown_enum_name";
    case errc::unknown_variant_index:
      return "unknown_variant_index";
    case errc::unsupported_type:
      return "unsupported_type";
    case errc::invalid_base64_character:
      return "invalid_base64_character";
    case errc::invalid_base64_padding:
      return "invalid_base64_padding";
    case errc::invalid_base64_trailing_bits:
      return "invalid_base64_trailing_bits";
    case errc::invalid_value:
      return "invalid_value";
    case errc::not_found:
      return "not_found";
    case errc::wrong_type:
      return "wrong_type";
    case errc::invalid_key:
      return "invalid_key";
    case errc::value_too_large:
      return "value_too_large";
    case errc::locked:
      return "locked";
    case errc::io_error:
      return "io_error";
    case errc::corrupt_store:
      return "corrupt_store";
    case errc::unsupported_version:
      return "unsupported_version";
    case errc::commit_pending:
      return "commit_pending";
    case errc::storage_unavailable:
      return "storage_unavailable";
    case errc::storage_full:
      return "storage_full";
    case errc::store_too_large:
      return "store_too_large";
    case errc::store_replaced:
      return "store_replaced";
    case errc::invalid_path:
      return "invalid_path";
    case errc::invalid_name:
      return "invalid_name";
    case errc::already_exists:
      return "already_exists";
    case errc::damaged:
      return "damaged";
    case errc::newer_schema:
      return "newer_schema";
    case errc::incompatible_layout:
      return "incompatible_layout";
    case errc::tampered:
      return "tampered";
    case errc::key_not_held:
      return "key_not_held";
    case errc::unsupported_algorithm:
      return "unsupported_algorithm";
    case errc::network:
      return "network";
    case errc::not_loaded:
      return "not_loaded";
  }
  return "unknown";
}

// What went wrong, and where. offset is a byte offset into the input; path is the
// JSONPath-like location of the field being read ("$.Inventory[1].Id"), "$" at the top.
class error {
 public:
  error() = default;
  error(errc code, std::size_t offset, std::string message, std::string path = "$")
      : code_(code), offset_(offset), path_(std::move(path)), message_(std::move(message)) {}

  errc code() const noexcept { return code_; }
  std::size_t offset() const noexcept { return offset_; }
  const std::string& path() const noexcept { return path_; }
  const std::string& message() const noexcept { return message_; }

  // "type_mismatch at byte 12 ($.Inventory[1].Id): expected an integer"
  std::string to_string() const {
    std::string out{savekit::to_string(code_)};
    out += " at byte ";
    out += std::to_string(offset_);
    out += " (";
    out += path_;
    out += "): ";
    out += message_;
    return out;
  }

  // Used by decoders while unwinding: segments arrive innermost first.
  void prepend_path(std::string_view segment) { path_.insert(1, segment); }

 private:
  errc code_ = errc::ok;
  std::size_t offset_ = 0;
  std::string path_ = "$";
  std::string message_;
};

namespace detail {
[[noreturn]] inline void bad_result_access(const char* what) noexcept {
  std::fprintf(stderr, "savekit: %s\n", what);
  std::abort();
}
}  // namespace detail

// Either a T or an error. Accessing the value of a failed result is a precondition
// violation: it prints a message and aborts (savekit never throws).
template <class T>
class [[nodiscard]] result {
 public:
  using value_type = T;

  result(const T& value) : has_(true) { ::new (&value_) T(value); }
  result(T&& value) : has_(true) { ::new (&value_) T(std::move(value)); }
  result(savekit::error err) : has_(false) { ::new (&error_) savekit::error(std::move(err)); }
  template <class... Args>
  explicit result(std::in_place_t, Args&&... args) : has_(true) {
    ::new (&value_) T(std::forward<Args>(args)...);
  }

  result(const result& other) : has_(other.has_) {
    if (has_)
      ::new (&value_) T(other.value_);
    else
      ::new (&error_) savekit::error(other.error_);
  }
  result(result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) : has_(other.has_) {
    if (has_)
      ::new (&value_) T(std::move(other.value_));
    else
      ::new (&error_) savekit::error(std::move(other.error_));
  }
  result& operator=(const result& other) {
    if (this != &other) {
      destroy();
      has_ = other.has_;
      if (has_)
        ::new (&value_) T(other.value_);
      else
        ::new (&error_) savekit::error(other.error_);
    }
    return *this;
  }
  result& operator=(result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      destroy();
      has_ = other.has_;
      if (has_)
        ::new (&value_) T(std::move(other.value_));
      else
        ::new (&error_) savekit::error(std::move(other.error_));
    }
    return *this;
  }
  ~result() { destroy(); }

  explicit operator bool() const noexcept { return has_; }
  bool has_value() const noexcept { return has_; }

  T& value() & {
    check();
    return value_;
  }
  const T& value() const& {
    check();
    return value_;
  }
  T&& value() && {
    check();
    return std::move(value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_ ? value_ : static_cast<T>(std::forward<U>(fallback));
  }

  // The error of a failed result; a default (errc::ok) error for a successful one.
  const savekit::error& error() const& {
    static const savekit::error none{};
    return has_ ? none : error_;
  }
  savekit::error&& error() && {
    if (has_) detail::bad_result_access("error() of a successful result");
    return std::move(error_);
  }

 private:
  void check() const {
    if (!has_) detail::bad_result_access("value() of a failed result");
  }
  void destroy() noexcept {
    if (has_)
      value_.~T();
    else
      error_.~error();
  }
  union {
    T value_;
    savekit::error error_;
  };
  bool has_;
};

template <>
class [[nodiscard]] result<void> {
 public:
  using value_type = void;
  result() = default;
  // Success costs one null pointer: the error is allocated only when there is one.
  result(savekit::error err) : error_(new savekit::error(std::move(err))) {}
  result(const result& other) : error_(other.error_ ? new savekit::error(*other.error_) : nullptr) {}
  result(result&&) noexcept = default;
  result& operator=(const result& other) {
    if (this != &other) error_.reset(other.error_ ? new savekit::error(*other.error_) : nullptr);
    return *this;
  }
  result& operator=(result&&) noexcept = default;

  explicit operator bool() const noexcept { return !error_; }
  bool has_value() const noexcept { return !error_; }
  void value() const {
    if (error_) detail::bad_result_access("value() of a failed status");
  }
  // The error of a failed status; a default (errc::ok) error for a successful one.
  const savekit::error& error() const& noexcept {
    static const savekit::error none{};
    return error_ ? *error_ : none;
  }
  savekit::error&& error() && {
    if (!error_) detail::bad_result_access("error() of a successful status");
    return std::move(*error_);
  }

 private:
  std::unique_ptr<savekit::error> error_;
};

// The outcome of an operation that produces no value.
using status = result<void>;

namespace detail {

// The error a decoder's cursor is building: a null pointer until there is one, so that a
// read that succeeds (nearly all of them) does not set up and tear down an error's strings.
class pending_error {
 public:
  pending_error() = default;
  pending_error& operator=(savekit::error err) {
    if (error_)
      *error_ = std::move(err);
    else
      error_ = std::make_unique<savekit::error>(std::move(err));
    return *this;
  }

  // Field paths are added while unwinding, innermost first (see error::prepend_path).
  void prepend_path(std::string_view segment) {
    if (error_) error_->prepend_path(segment);
  }

  // What the cursor has, for tests: a default (errc::ok) error when there is none.
  const savekit::error& get() const {
    static const savekit::error none{};
    return error_ ? *error_ : none;
  }
  errc code() const { return get().code(); }
  std::size_t offset() const { return get().offset(); }

  // Into the failed result the reader returns.
  savekit::error take() && { return error_ ? std::move(*error_) : savekit::error{}; }

 private:
  std::unique_ptr<savekit::error> error_;
};

}  // namespace detail

// Shows where an error is in a text input, like a compiler does:
//
//   1:17: type_mismatch at $.Inventory[0].Id: expected an integer
//   {"Inventory":[{"Id":"x"}]}
//                       ^
// Long lines are cut to a window around the error. For binary input use
// format_binary_error, which shows a hex dump around the offset instead.
inline std::string format_error(const error& err, std::string_view input) {
  std::size_t offset = err.offset() < input.size() ? err.offset() : input.size();
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (input[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  std::size_t line_end = input.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = input.size();
  std::size_t column = offset - line_start + 1;

  constexpr std::size_t window = 60;
  std::size_t shown_start = line_start;
  if (offset - line_start > window) shown_start = offset - window;
  std::size_t shown_end = line_end;
  if (line_end - offset > window) shown_end = offset + window;

  std::string out = std::to_string(line) + ":" + std::to_string(column) + ": " + std::string{to_string(err.code())} +
                    " at " + err.path() + ": " + err.message() + "\n";
  std::string_view shown = input.substr(shown_start, shown_end - shown_start);
  std::string caret_line;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    char c = shown[i];
    // Tabs and control characters would move the caret; show them as spaces.
    bool control = static_cast<unsigned char>(c) < 0x20;
    out += control ? ' ' : c;
    if (shown_start + i < offset) {
      // Continuation bytes of UTF-8 take no column on screen.
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) caret_line += ' ';
    }
  }
  out += '\n';
  out += caret_line;
  out += "^\n";
  return out;
}

// Like format_error, for binary input (MessagePack): a hex dump of up to 16 bytes
// around the offset, with a caret under the byte at the offset.
inline std::string format_binary_error(const error& err, std::string_view input) {
  static constexpr char hex[] = "0123456789abcdef";
  std::size_t offset = err.offset() < input.size() ? err.offset() : input.size();
  std::size_t start = offset >= 8 ? offset - 8 : 0;
  std::size_t end = start + 16 < input.size() ? start + 16 : input.size();
  std::string out = "byte " + std::to_string(err.offset()) + ": " + std::string{to_string(err.code())} + " at " +
                    err.path() + ": " + err.message() + "\n";
  std::string caret_line;
  for (std::size_t i = start; i < end; ++i) {
    auto byte = static_cast<unsigned char>(input[i]);
    out += hex[byte >> 4];
    out += hex[byte & 15];
    out += ' ';
    if (i < offset) caret_line += "   ";
  }
  if (offset == input.size()) out += "<end>";
  out += '\n';
  out += caret_line;
  out += "^\n";
  return out;
}

}  // namespace savekit
