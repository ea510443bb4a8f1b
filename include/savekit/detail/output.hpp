// A growable output window over a caller-owned std::string or std::vector<std::byte>.
// Writers reserve room, write through a raw pointer, and trim the container once at the
// end, so a reused container is never reallocated once it is large enough.
#pragma once

#include <cstddef>
#include <cstring>

namespace savekit::detail {

template <class Container>
class output {
 public:
  explicit output(Container& container) : container_(container) {}
  output(const output&) = delete;
  output& operator=(const output&) = delete;

  // Room for n more bytes at the returned pointer; commit what was used with advance().
  char* reserve(std::size_t n) {
    if (position_ + n > container_.size()) grow(position_ + n);
    return data() + position_;
  }
  void advance(std::size_t n) { position_ += n; }

  void put(char c) {
    *reserve(1) = c;
    ++position_;
  }
  void append(const void* bytes, std::size_t n) {
    if (n == 0) return;
    std::memcpy(reserve(n), bytes, n);
    position_ += n;
  }
  template <std::size_t N>
  void append_literal(const char (&text)[N]) {
    append(text, N - 1);
  }

  std::size_t size() const { return position_; }
  char* data() { return reinterpret_cast<char*>(container_.data()); }

  // Trims the container to what was written.
  void finish() { container_.resize(position_); }

 private:
  void grow(std::size_t needed) {
    std::size_t capacity = container_.capacity();
    std::size_t target = needed <= capacity ? capacity : (needed > 2 * capacity ? needed : 2 * capacity);
    if (target < 64) target = 64;
    container_.resize(target);
  }

  Container& container_;
  std::size_t position_ = 0;
};

}  // namespace savekit::detail
