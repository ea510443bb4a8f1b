// What a slots object holds: its folder (slot_folder.hpp) and the queue of background
// writes (src/slot_queue.cpp), shared with the worker thread, which may outlive the slots.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "background_worker.hpp"
#include "slot_folder.hpp"

namespace savekit {

struct slots::state : detail::slot_folder {
  // Writes queued for the worker thread.
  struct queued_write {
    std::string name;
    snapshot save;
    std::vector<std::function<void(status)>> done;
  };
  mutable std::mutex queue_mutex;
  std::condition_variable queue_changed;
  std::deque<queued_write> queue;
  bool writing = false;
  std::size_t awaiting_durability = 0;  // written, waiting for when_durable (the browser)
  detail::background_worker worker;     // one write_next() per queued write
  std::optional<error> first_failure;   // since the last flush()
  std::vector<std::pair<std::function<void(status)>, status>> completed;  // for poll()

  std::mutex autosave_mutex;
  std::optional<std::uint32_t> last_autosave;  // index 1..N of the autosave written last (0: none)

  status write(std::string_view name, const encoded_save& save) {
    return write_save(
        name, {save.payload, save.sealed, save.encoding, save.schema_version, &save.meta, &save.compact_layout});
  }

  // newest_intact for a caller of the public API: the name checked, after the writes
  // queued before the call.
  result<found_generation> newest_for_caller(std::string_view name, detail::sections asked, read_report* report);
  // For a public call that changes the folder: the names checked, the folder writable,
  // after the writes queued before the call.
  status prepare_change(std::initializer_list<std::string_view> names);

  // ---- the queue (src/slot_queue.cpp) ----

  bool on_worker() const { return worker.on_worker(); }
  // Waits until the writes queued so far are done (not from the worker itself, which
  // would wait for itself: a callback that reads or lists sees what is on disk).
  void wait_for_queue();
  void deliver(std::vector<std::function<void(status)>> done, const status& outcome);
  // On the worker: the queue's first write (a newer snapshot of its slot may have replaced
  // the one queued).
  void write_next();
  // Runs the queue, then ends the worker (from a callback that let go of the slots: the
  // worker ends the queue, then the state).
  void stop_worker() { worker.stop(); }
  // Runs the callbacks waiting for poll() (or for a poll() that will not come: on the
  // thread closing the slots); how many ran.
  std::size_t run_completed();
  // Where the autosave rotation stands on disk: the autosave slot written last (0: none yet,
  // or the first missing one follows). Read once, at open.
  std::uint32_t last_autosave_on_disk();
};

}  // namespace savekit
