// A stack that keeps its first N elements inline and spills to the heap only beyond: the
// iterative skips of nested values allocate nothing for ordinary nesting.
#pragma once

#include <cstddef>
#include <vector>

namespace savekit::detail {

template <class T, std::size_t N>
class small_stack {
 public:
  bool empty() const { return size_ == 0; }
  void push(T value) {
    if (size_ < N)
      inline_[size_] = value;
    else
      spilled_.push_back(value);
    ++size_;
  }
  T& top() { return size_ <= N ? inline_[size_ - 1] : spilled_.back(); }
  void pop() {
    if (size_ > N) spilled_.pop_back();
    --size_;
  }

 private:
  T inline_[N];
  std::vector<T> spilled_;
  std::size_t size_ = 0;
};

}  // namespace savekit::detail
