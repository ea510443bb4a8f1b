// One background thread that runs tasks in order: what prefs::save_async and
// slots::write_async share (docs/design.md, "Background work").
//
// Invariants:
//  1. Tasks run one at a time, in the order posted, on one thread, with no lock of the
//     worker's held (a task may post again, or close its owner).
//  2. The thread is started by the first post and keeps the worker's control block alive,
//     never its owner: a task that needs its owner alive captures it.
//  3. stop() lets the thread run every task already queued, then waits for it — or, called
//     on the worker itself (a callback that closes the store or the slots), detaches it,
//     and the thread ends on its own after the queue.
//  4. After stop(), post() refuses a task once the thread has ended: the caller runs it itself.
//  5. Exceptions (the one rule for every background job, prefs' and slots'): the work of a
//     task is run through guarded(), which turns an exception (std::bad_alloc encoding a
//     large save, say) into an errc::io_error status that the job reports like any failure;
//     a callback is called through call_safely(), which drops what it throws (callbacks
//     must not throw; one that does must not end the game or the saves queued behind it).
//     Anything that still escapes a task is dropped by the worker, which goes on.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "savekit/error.hpp"

namespace savekit::detail {

class background_worker {
 public:
  background_worker();
  background_worker(const background_worker&) = delete;
  background_worker& operator=(const background_worker&) = delete;
  ~background_worker();  // stop()

  // Queues task (invariant 1), starting the thread if needed; false (task dropped) once
  // stopped and ended, or when no thread can be started.
  bool post(std::function<void()> task);
  void stop();  // invariant 3
  bool on_worker() const;

 private:
  struct control;
  static void run(std::shared_ptr<control> c);
  std::shared_ptr<control> control_;
};

// Runs work and returns its status; an exception becomes errc::io_error naming `what`.
template <class Work>
status guarded(const char* what, Work&& work) noexcept {
#if defined(__cpp_exceptions)
  try {
    return std::forward<Work>(work)();
  } catch (const std::exception& e) {
    return error{errc::io_error, 0, std::string{what} + " failed: " + e.what()};
  } catch (...) {
    return error{errc::io_error, 0, std::string{what} + " failed: an exception that is not a std::exception"};
  }
#else
  (void)what;  // nothing is thrown without exceptions
  return std::forward<Work>(work)();
#endif
}

// Calls a completion callback; what it throws is dropped (invariant 5).
template <class Callback, class... Args>
void call_safely(Callback& done, Args&&... args) noexcept {
#if defined(__cpp_exceptions)
  try {
    done(std::forward<Args>(args)...);
  } catch (...) {
  }
#else
  done(std::forward<Args>(args)...);
#endif
}

}  // namespace savekit::detail
