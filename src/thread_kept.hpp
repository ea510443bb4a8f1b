// Objects savekit keeps per thread between calls (seal buffers, zstd contexts, the slots'
// payload buffer), and the rule they share: a call from a static destructor at exit (a game
// saving as it quits) comes after every thread_local object of its thread is destroyed, so
// it must not use them — it makes its own instead.
#pragma once

namespace savekit::detail {

// This thread's T, made at the first call; nullptr once the thread's objects are destroyed.
// Each T is one object per thread: give each use a type of its own.
template <class T>
T* thread_kept() {
  thread_local bool gone = false;  // (trivially destructible: readable after the rest)
  struct holder {
    T value{};
    ~holder() { gone = true; }
  };
  if (gone) return nullptr;
  thread_local holder kept;
  return &kept.value;
}

}  // namespace savekit::detail
