// A growable output window over a caller-owned std::string or std::vector<std::byte>.
// Writers reserve room, write through a raw pointer, and trim the container once at the
// end, so a reused container is never reallocated once it is large enough. The window
// keeps its own pointers: the container is touched only when it must grow.
//
// The window starts in a buffer on the stack and moves into the container only when a
// reservation does not fit there: a small save is then copied into the container once
// at the end. Writing straight into a reused container would cost a resize up (a fill of
// bytes never written, since reservations are worst cases) and one back down per save.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

#include "savekit/detail/bytes.hpp"
#include "savekit/detail/config.hpp"

namespace savekit::detail {

// For the items of a struct, each item's bound (the most bytes it takes; 0 when that is not
// bounded): run[k], the bytes items k, k + 1, ... take up to the first unbounded one. A
// writer reserves run[k] once at the start of a run and passes the position along it.
template <std::size_t N>
constexpr std::array<std::size_t, N + 1> reservation_runs(const std::array<std::size_t, N>& bounds) {
  std::array<std::size_t, N + 1> run{};
  for (std::size_t k = N; k-- > 0;) run[k] = bounds[k] == 0 ? 0 : bounds[k] + run[k + 1];
  return run;
}

template <class Container>
class output {
 public:
  explicit output(Container& container)
      : container_(container), begin_(first_window_), cursor_(begin_), limit_(begin_ + first_window_bytes) {}
  output(const output&) = delete;
  output& operator=(const output&) = delete;

  // Room for n more bytes at the returned pointer; commit what was used with advance().
  SAVEKIT_ALWAYS_INLINE char* reserve(std::size_t n) {
    if (SAVEKIT_UNLIKELY(static_cast<std::size_t>(limit_ - cursor_) < n)) grow(n);
    return cursor_;
  }
  SAVEKIT_ALWAYS_INLINE void advance(std::size_t n) { cursor_ += n; }
  // Commits what was written up to end, within the room reserve() returned.
  SAVEKIT_ALWAYS_INLINE void advance_to(char* end) { cursor_ = end; }

  SAVEKIT_ALWAYS_INLINE void put(char c) {
    reserve(1);
    *cursor_++ = c;
  }
  SAVEKIT_ALWAYS_INLINE void append(const void* bytes, std::size_t n) {
    if (n == 0) return;  // bytes may be null then (an empty vector's data())
    reserve(n);
    std::memcpy(cursor_, bytes, n);
    cursor_ += n;
  }
  template <std::size_t N>
  void append_literal(const char (&text)[N]) {
    append(text, N - 1);
  }

  std::size_t size() const { return static_cast<std::size_t>(cursor_ - begin_); }
  char* data() { return begin_; }

  // Leaves exactly what was written in the container.
  void finish() {
    const std::size_t n = size();
    if (begin_ != first_window_) {
      if (container_.size() != n) container_.resize(n);  // (a call, for a std::string)
      return;
    }
    // Out of the first window: a reused container usually holds a save of the same size,
    // so there is no length to set, and the bytes are copied inline (assign() is a call,
    // and in WebAssembly a byte-by-byte memmove). A container too small is emptied first,
    // so that growing it copies nothing old.
    if (container_.size() != n) {
      if (n > container_.capacity()) container_.clear();
#if defined(__cpp_lib_string_resize_and_overwrite)
      if constexpr (std::is_same_v<Container, std::string>) {
        // (The size to keep is n, not the one op is given: libstdc++ 12 passes the new capacity.)
        container_.resize_and_overwrite(n, [n](char*, std::size_t) { return n; });
      } else
#endif
      {
        container_.resize(n);
      }
    }
    if (n != 0) copy_bytes(reinterpret_cast<char*>(container_.data()), first_window_, n);
  }

 private:
  // Large enough for a typical small save with its worst-case reservations. The same under
  // every C++ standard: a program may link translation units built under C++20 (the
  // library) and C++23 (a game), and their copies of these inline functions must agree on
  // the layout and on what the pointers mean. (Under C++23 a std::string grows without the
  // fill, below; that changes no state another copy reads.)
  static constexpr std::size_t first_window_bytes = 512;

  // Out of the stack buffer: into the container, with what was written so far.
  SAVEKIT_COLD void move_into_container(std::size_t n) {
    const std::size_t used = size();
    attach();
    cursor_ = begin_;
    if (static_cast<std::size_t>(limit_ - begin_) < used + n) grow_container(used + n);
    if (used != 0) std::memcpy(begin_, first_window_, used);
    cursor_ = begin_ + used;
  }

  void grow(std::size_t n) {
    if (begin_ == first_window_)
      move_into_container(n);
    else
      grow_container(n);
  }

  void attach() {
    begin_ = reinterpret_cast<char*>(container_.data());
    limit_ = begin_ + container_.size();
  }

  // Resizing zero-fills the new bytes, so the window grows by an eighth of what it has
  // (and at least 64 bytes), not straight to the capacity, nor to double: a large reused
  // buffer must not cost a memset of its capacity for every small save, nor a save's last
  // reservation a memset of bytes it never writes. (Past the capacity the container itself
  // reallocates geometrically.) A std::string under C++23 grows without the fill
  // (resize_and_overwrite), so it takes its whole capacity at once.
  void grow_container(std::size_t n) {
    std::size_t used = size();
    std::size_t needed = used + n;
    std::size_t capacity = container_.capacity();
    const auto window = static_cast<std::size_t>(limit_ - begin_);
    std::size_t target = window + window / 8 + 64;
    if (target < needed) target = needed;
#if defined(__cpp_lib_string_resize_and_overwrite)
    if constexpr (std::is_same_v<Container, std::string>) {
      if (needed <= capacity) target = capacity;  // no fill to pay for: all of it
      container_.resize_and_overwrite(target, [target](char*, std::size_t) { return target; });
    } else
#endif
    {
      if (target > capacity && needed <= capacity) target = capacity;  // no reallocation yet
      container_.resize(target);
    }
    attach();
    cursor_ = begin_ + used;
  }

  Container& container_;
  // Left uninitialized: only written bytes are read. (A writer holding an output must have
  // a constructor: g++ zero-fills an aggregate initialized from a partial list, all of it.)
  char first_window_[first_window_bytes];
  char* begin_ = nullptr;
  char* cursor_ = nullptr;
  char* limit_ = nullptr;
};

}  // namespace savekit::detail
