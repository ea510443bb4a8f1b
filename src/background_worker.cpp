// The background worker (background_worker.hpp states its invariants).
#include "background_worker.hpp"

#include <atomic>
#include <system_error>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace savekit::detail {

struct background_worker::control {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::function<void()>> tasks;
  bool stopping = false;
  bool running = false;  // the thread is in its loop
  std::thread thread;
  std::atomic<std::thread::id> thread_id;
};

background_worker::background_worker() : control_(std::make_shared<control>()) {}

background_worker::~background_worker() { stop(); }

bool background_worker::on_worker() const { return std::this_thread::get_id() == control_->thread_id.load(); }

bool background_worker::post(std::function<void()> task) {
  control& c = *control_;
  std::lock_guard lock(c.mutex);
  if (c.stopping && !c.running) return false;  // invariant 4
  c.tasks.push_back(std::move(task));
  if (!c.running) {  // the first post (the thread ends only once stopping)
#if defined(__cpp_exceptions)
    try {  // (it waits for this lock before it looks at the queue)
      c.thread = std::thread(run, control_);
    } catch (const std::system_error&) {  // no thread to be had (EAGAIN): the caller is told
      c.tasks.pop_back();
      return false;
    }
#else
    c.thread = std::thread(run, control_);
#endif
    c.running = true;
    c.thread_id = c.thread.get_id();
  }
  c.changed.notify_all();
  return true;
}

void background_worker::run(std::shared_ptr<control> keep) {
  control& c = *keep;
#if defined(__linux__)
  // Throughput work, never the game's frame: a SCHED_BATCH thread does not preempt the
  // thread that woke it (Linux's scheduler places a woken thread beside its waker, and a
  // normal one could take the game's core for a whole encode; docs/performance-notes.md,
  // "A stall in write_async"). Mildly disfavoured otherwise (sched(7)); unprivileged;
  // ignored if refused. Callbacks run here, and threads they start, inherit it
  // (docs/design.md, "One background worker").
  {
    sched_param normal{};
    (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &normal);
  }
#endif
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(c.mutex);
      c.changed.wait(lock, [&] { return c.stopping || !c.tasks.empty(); });
      if (c.tasks.empty()) {  // stopping, and everything queued has run
        c.running = false;
        return;
      }
      task = std::move(c.tasks.front());
      c.tasks.pop_front();
    }
    call_safely(task);  // invariant 5's last line
    task = nullptr;     // its captures go before any lock is taken again (they may hold the owner)
  }
}

void background_worker::stop() {
  control& c = *control_;
  std::thread thread;
  {
    std::lock_guard lock(c.mutex);
    c.stopping = true;
    thread = std::move(c.thread);
  }
  c.changed.notify_all();
  if (!thread.joinable()) return;
  if (thread.get_id() == std::this_thread::get_id())
    thread.detach();  // closed from a task: the thread runs what is queued, then ends
  else
    thread.join();
}

}  // namespace savekit::detail
