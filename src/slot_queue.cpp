// Background writes of slots (write_async): a queue that keeps one snapshot per slot (a
// newer one replaces a queued one), run in order by the one background worker
// (background_worker.hpp, with its rule for exceptions), and the outcomes handed to
// callbacks on the thread slots_options::completions names. In WebAssembly without threads
// the write happens at the call and is saved once IndexedDB says it is durable.
#include <algorithm>
#include <utility>

#include "slots_state.hpp"
#include "thread_kept.hpp"

namespace savekit {

using detail::quoted;

void slots::state::wait_for_queue() {
  if (on_worker()) return;
  std::unique_lock lock(queue_mutex);
  queue_changed.wait(lock, [&] { return queue.empty() && !writing; });
}

void slots::state::deliver(std::vector<std::function<void(status)>> done, const status& outcome) {
  if (options.completions == completion_thread::poll) {
    std::lock_guard lock(queue_mutex);
    for (auto& d : done)
      if (d) completed.emplace_back(std::move(d), outcome);
    return;
  }
  for (auto& d : done)
    if (d) detail::call_safely(d, outcome);  // background_worker.hpp, invariant 5
}

// An exception while encoding or writing (bad_alloc on a large save) is that write's
// failure, reported to its callbacks: never the end of the game.
void slots::state::write_next() {
  queued_write next;
  {
    std::lock_guard lock(queue_mutex);
    if (queue.empty()) return;
    next = std::move(queue.front());
    queue.pop_front();
    writing = true;
  }
  status outcome = detail::guarded("the background write", [&]() -> status {
    result<encoded_save> save = next.save();
    if (!save) return std::move(save).error();
    status written = write(next.name, *save);
    detail::give_back_payload_buffer(std::move(save->payload));
    return written;
  });
  deliver(std::move(next.done), outcome);
  std::lock_guard lock(queue_mutex);
  if (!outcome && !first_failure) first_failure = outcome.error();
  writing = false;
  queue_changed.notify_all();
}

std::size_t slots::state::run_completed() {
  std::vector<std::pair<std::function<void(status)>, status>> ready;
  {
    std::lock_guard lock(queue_mutex);
    ready.swap(completed);
  }
  for (auto& [done, outcome] : ready) done(outcome);
  return ready.size();
}

namespace detail {

namespace {
constexpr std::size_t largest_kept_payload_buffer = std::size_t{64} << 20;
struct payload_buffer {
  std::string bytes;
};
}  // namespace

// (Once the thread's kept buffer is destroyed, thread_kept.hpp, a write allocates its own.)
// Given with the last save's bytes, not emptied: an encoder writes over them from the start
// and leaves exactly what it wrote, and a std::string grown back from empty would first be
// filled with zeros (under C++20), a memset of the whole save per write.
std::string take_payload_buffer() {
  payload_buffer* kept = thread_kept<payload_buffer>();
  if (!kept) return {};
  return std::exchange(kept->bytes, {});
}

void give_back_payload_buffer(std::string buffer) {
  payload_buffer* kept = thread_kept<payload_buffer>();
  if (kept && buffer.capacity() <= largest_kept_payload_buffer && buffer.capacity() > kept->bytes.capacity())
    kept->bytes = std::move(buffer);
}

}  // namespace detail

status slots::write_encoded(std::string_view name, encoded_save save) {
  state_->wait_for_queue();  // after the writes queued before it
  status written = state_->write(name, save);
  detail::give_back_payload_buffer(std::move(save.payload));
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  if (written) {  // written, not yet durable (the browser): counted until it is
    ++state_->awaiting_durability;
    state_->fs->when_durable([weak = std::weak_ptr<state>(state_)](const status&) {
      if (std::shared_ptr<state> alive = weak.lock()) --alive->awaiting_durability;
    });
  }
#endif
  return written;
}

void slots::deliver(std::function<void(status)> done, status outcome) {
  std::vector<std::function<void(status)>> one;
  one.push_back(std::move(done));
  state_->deliver(std::move(one), outcome);
}

void slots::queue_write(std::string_view name, snapshot save, std::function<void(status)> done) {
  state& s = *state_;
  if (s.options.read_only) return deliver(std::move(done), s.read_only_error());
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  // No threads to write on (WebAssembly without pthreads): the write happens here, in
  // order, and reports as a background one would.
  result<encoded_save> encoded = save();
  status outcome = encoded ? s.write(name, *encoded) : status{std::move(encoded).error()};
  if (!outcome) {
    s.first_failure = s.first_failure.value_or(outcome.error());
    return deliver(std::move(done), std::move(outcome));
  }
  // Written; it is saved once durable (the browser: when IndexedDB completes it).
  // The state is not kept alive for it: a game may close the slots (and open them again)
  // in a callback, and the folder must then be free. Closed meanwhile, done runs as soon
  // as the outcome is known (no poll() will come).
  ++s.awaiting_durability;
  s.fs->when_durable([weak = std::weak_ptr<state>(state_), done = std::move(done)](status durable) mutable {
    if (std::shared_ptr<state> alive = weak.lock()) {
      --alive->awaiting_durability;
      if (!durable) alive->first_failure = alive->first_failure.value_or(durable.error());
      if (alive->options.completions == completion_thread::poll) {
        if (done) alive->completed.emplace_back(std::move(done), durable);
        return;
      }
    }  // and let go before the callback: it may close the slots
    if (done) done(durable);
  });
  return;
#endif
  std::vector<std::function<void(status)>> refused;
  std::unique_lock lock(s.queue_mutex);
  auto waiting = std::find_if(s.queue.begin(), s.queue.end(), [&](const auto& q) { return q.name == name; });
  if (waiting != s.queue.end()) {  // superseded: the newer snapshot takes its place
    waiting->save = std::move(save);
    waiting->done.push_back(std::move(done));
  } else {
    state::queued_write q{std::string{name}, std::move(save), {}};
    q.done.push_back(std::move(done));
    s.queue.push_back(std::move(q));
    if (!s.worker.post([keep = state_] { keep->write_next(); })) {  // no thread could be started
      refused = std::move(s.queue.back().done);
      s.queue.pop_back();
    }
  }
  s.queue_changed.notify_all();
  lock.unlock();
  if (!refused.empty())
    s.deliver(std::move(refused),
              error{errc::io_error, 0, quoted(name) + " was not saved: no thread could be started to write it"});
}

status slots::flush() {
  state& s = *state_;
  s.wait_for_queue();
  std::lock_guard lock(s.queue_mutex);
  std::optional<error> failure = std::exchange(s.first_failure, std::nullopt);
  std::optional<error> later = s.fs->take_failure();  // both taken: the first is reported
  if (failure) return std::move(*failure);
  if (later) return std::move(*later);
  return {};
}

void slots::when_durable(std::function<void(status)> done) {
  status queued = flush();
  if (!queued) return done(std::move(queued));
  state_->fs->when_durable([weak = std::weak_ptr<state>(state_), done = std::move(done)](status durable) {
    if (std::shared_ptr<state> alive = weak.lock()) {
      // Failures that surfaced meanwhile (a write_async's, a write()'s): taken, reported once.
      std::optional<error> queued, later;
      {
        std::lock_guard lock(alive->queue_mutex);
        queued = std::exchange(alive->first_failure, std::nullopt);
      }
      later = alive->fs->take_failure();
      if (durable && queued) durable = std::move(*queued);
      if (durable && later) durable = std::move(*later);
    }
    done(std::move(durable));
  });
}

std::size_t slots::poll() { return state_->run_completed(); }

std::size_t slots::pending_writes() const {
  std::lock_guard lock(state_->queue_mutex);
  return state_->queue.size() + (state_->writing ? 1 : 0) + state_->awaiting_durability;
}

}  // namespace savekit
