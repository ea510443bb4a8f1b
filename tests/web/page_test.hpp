// The harness of savekit's C++ suites that run in a browser page (idb_tests.html, driven
// by run_browser_tests.mjs). IndexedDB answers asynchronously, so each test is a chain of
// steps: a step gets `next` and calls it when its callbacks are done. Every failed check
// is printed; the page's window.testsFailed counts the failures.
#pragma once

#include <emscripten/emscripten.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace page_test {

inline int passed = 0;
inline int failed = 0;
inline std::string current_test;

inline void check(bool ok, const char* what, int line) {
  if (ok) {
    ++passed;
    return;
  }
  ++failed;
  std::printf("  FAILED %s: line %d: %s\n", current_test.c_str(), line, what);
}

using next_fn = std::function<void()>;
using step = std::function<void(next_fn)>;

struct test_case {
  const char* name;
  std::vector<step> steps;
};

// Runs steps one after another, then `done`.
inline void run_steps(std::shared_ptr<std::vector<step>> steps, std::size_t at, next_fn done) {
  if (at == steps->size()) return done();
  (*steps)[at]([steps, at, done] { run_steps(steps, at + 1, done); });
}

inline step wait_ms(int milliseconds) {
  return [milliseconds](next_fn next) {
    auto* pending = new next_fn(std::move(next));
    emscripten_async_call(
        [](void* argument) {
          std::unique_ptr<next_fn> resume(static_cast<next_fn*>(argument));
          (*resume)();
        },
        pending, milliseconds);
  };
}

// Waits for an observed event, not for a time: polls `happened` every 20 ms and goes on once
// it holds. A bound (60 s: a hang, not a slow machine) ends the wait as a failed check.
struct polling {
  std::function<bool()> happened;
  next_fn next;
  const char* what;
  int line;
  double give_up_at;
};
inline void poll_once(void* argument) {
  auto* self = static_cast<polling*>(argument);
  const bool done = self->happened();
  if (!done && emscripten_get_now() < self->give_up_at) return emscripten_async_call(poll_once, self, 20);
  std::unique_ptr<polling> owned(self);
  if (!done) check(false, owned->what, owned->line);
  owned->next();
}
inline step wait_until(std::function<bool()> happened, const char* what, int line) {
  return [happened = std::move(happened), what, line](next_fn next) {
    poll_once(new polling{happened, std::move(next), what, line, emscripten_get_now() + 60000});
  };
}

}  // namespace page_test

#define WAIT_UNTIL(condition) page_test::wait_until([=] { return static_cast<bool>(condition); }, #condition, __LINE__)
#define CHECK(condition) page_test::check(static_cast<bool>(condition), #condition, __LINE__)
#define CHECK_EQ(a, b) page_test::check((a) == (b), #a " == " #b, __LINE__)

// Operations on the page's side (EM_JS, defined in idb_tests.cpp).
extern "C" {
void report_done(int passed_checks, int failed_checks);
void abort_next_commit();              // the next IndexedDB transaction is aborted
int last_commit_operations();          // the puts and deletes of the last transaction
int page_phase_is(const char* phase);  // the page's ?phase= is this one
}

// The slots' suite (slots_tests.cpp).
std::vector<page_test::test_case> make_slots_tests();
// The part of the relaunch test the page's ?phase= names, or nothing.
std::vector<page_test::test_case> slots_relaunch_phase();
void slots_tests_reset();  // between tests: the slots under test closed
#if SAVEKIT_WEB_SEAL
// Sealed saves' suite (seal_tests.cpp), when zstd and libsodium were built for WebAssembly.
std::vector<page_test::test_case> make_seal_tests();
void seal_tests_reset();
#endif
