// savekit/cloud.hpp — cloud sync: a slots folder kept in step with savekit-server, on
// every device of a player, without ever silently losing a save.
//
//   savekit::cloud::options o{.url = "http://127.0.0.1:8080", .token = token, .device = "desktop-1"};
//   savekit::result<savekit::cloud::sync> c = savekit::cloud::sync::open(slots, o);
//   savekit::result<savekit::cloud::report> r = c->run();   // every slot, both ways
//   c->run_async([](savekit::result<savekit::cloud::report>) {});   // off the game's thread
//
// Local first: a save commits in the slots folder as always; the cloud is a replica, and a
// game plays offline forever. A run lists the player's slots once, then per slot pushes a
// local change (recorded durably in an outbox first, resent with the same write id until
// the server answers), pulls a remote one (as a new generation: the previous stays in
// history), syncs deletions, and settles a conflict — both sides changed since the last
// sync, or a first sync that finds both sides holding the slot — by the policy, keeping
// the losing save restorable (a second slot, a generation, or a version on the server).
// The rules, the files kept beside the slots and the failure cases are in docs/cloud.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "savekit/error.hpp"
#include "savekit/slots.hpp"

namespace savekit::cloud {

// How a conflict is settled when a run meets one. Whatever the policy, the save that loses
// stays restorable.
enum class policy : std::uint8_t {
  keep_both,      // the remote save becomes a second slot, "NAME (DEVICE, YYYY-MM-DD HH:MM UTC)"
  prefer_local,   // this device's save wins; the remote one stays a kept version on the server
  prefer_remote,  // the remote save wins; this device's stays in the slot's history (restore)
  newest,         // the later saved_at wins (within 2 s: the longer play time; a tie keeps both)
  callback,       // options::on_conflict chooses (on the sync's thread); none set: ask
  ask,            // left open: status() says conflict, the game asks the player, then resolve()
};

// What the player (or on_conflict) chose for a conflict.
enum class choice : std::uint8_t { keep_local, keep_remote, keep_both, later };

// Where a slot stands, recomputed at every status() from the folder, the outbox and the
// last list of the server's slots (no request is made).
enum class sync_state : std::uint8_t {
  local_only,   // never synced: the next run pushes it
  pending,      // a change here not yet acknowledged by the server (or not yet sent)
  synced,       // the server acknowledged this device's newest save of it, or sent it
  remote_only,  // on the server only (or deleted here and not yet synced): the next run acts
  conflict,     // both sides changed: settled by the next run's policy, or by resolve()
};

// What a run did to one slot.
enum class outcome : std::uint8_t {
  pushed,     // the server acknowledged this device's save (or deletion: deleted)
  pulled,     // the server's save is now the slot's newest generation here
  deleted,    // a deletion synced (see deleted_here)
  conflict,   // both sides had changed: see settled
  unchanged,  // nothing to do
  failed,     // see error; a pending change stays in the outbox
};

struct slot_report {
  std::string name = {};
  outcome what = outcome::unchanged;
  bool deleted_here = false;                 // deleted: on this device (a deletion made elsewhere), else on the server
  std::optional<choice> settled = {};        // conflict: how (later: still open, the remote save held)
  std::string copy = {};                     // keep_both: the slot the remote save was kept as
  std::uint64_t version = 0;                 // the server's version of the slot after the run
  std::optional<savekit::error> error = {};  // failed: errc::network (the reason) or a local error
  int http_status = 0;                       // failed on an answer: its status
  std::string server_code = {};              // and the server's error code ("too_large", ...)
};

struct report {
  std::vector<slot_report> slots = {};  // by name
  std::uint32_t requests = 0;           // HTTP requests the run made (retries included)
  // Outbox files that could not be read (damaged on the disk), never sent: set aside (as
  // .savekit-sync.damaged.<id>, named here once) for a person to look at. Their slots are
  // decided again from the slot and the server.
  std::vector<std::string> unreadable_entries = {};
  // Nothing failed, no conflict was left open, and no outbox file was unreadable.
  bool all_synced() const;
  std::size_t count(outcome what) const;
  const slot_report* find(std::string_view name) const;
};

struct slot_state {
  std::string name = {};
  sync_state state = sync_state::local_only;
  std::optional<slot_info> local = {};            // the load menu's entry here
  std::optional<slot_info> remote = {};           // as the server listed it last (metadata, no payload)
  std::string remote_device = {};                 // the device that made the remote save
  std::uint64_t baseline_version = 0;             // the server's version both sides last agreed on (0: none)
  std::uint64_t remote_version = 0;               // as last listed (0: none)
  bool remote_deleted = false;                    // the last list showed it deleted
  std::optional<savekit::error> last_error = {};  // why the last run failed it, if it did
};

// An HTTP exchange, as the sync makes it (the transport adds nothing but framing).
struct http_request {
  std::string method = {};  // GET, PUT, DELETE
  std::string target = {};  // "/v1/slots/NAME"
  std::vector<std::pair<std::string, std::string>> headers = {};
  std::string_view body = {};
  // A larger answer is cut (errc::network): what the request can need, not what a server
  // may send. 0: the largest save's size (1 GiB + 1 MiB).
  std::uint64_t max_answer_bytes = 0;
};
struct http_response {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers = {};  // names in lower case
  std::string body = {};
  std::string header(std::string_view name) const;  // "" if absent
};
// Sends requests to the server: libcurl natively (the default); tests inject faults here.
// A failure to get an answer (refused, reset, timed out, cut) is errc::network with the
// reason; the sync resends a write until it gets one.
class transport {
 public:
  virtual ~transport() = default;
  virtual result<http_response> send(const http_request& request) = 0;
};

struct options {
  std::string url = {};     // the server: "https://saves.example" (http:// for loopback tests)
  std::string token = {};   // the player's bearer token: never logged, never written to a file
  std::string device = {};  // this device's name, shown on the other devices ("desktop-1")
  cloud::policy policy = policy::keep_both;
  std::function<choice(const slot_info& local, const slot_info& remote)> on_conflict = {};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{120'000};  // a whole request, large bodies included
  std::chrono::milliseconds stall_timeout{30'000};     // no byte moved for this long: cut
  // A request answered 429 or 5xx, or not answered, is tried again up to this many times
  // in one run, after a wait growing from backoff_first to backoff_cap, with full jitter
  // (and at least the server's Retry-After, up to the cap); then the slot fails and its
  // change stays in the outbox for the next run.
  std::uint32_t attempts = 4;
  std::chrono::milliseconds backoff_first{200};
  std::chrono::milliseconds backoff_cap{5'000};
  std::string ca_file = {};  // TLS: a CA bundle instead of the system's (verification stays on)
  // Plain http:// is taken for this machine only (127.x.x.x, localhost, [::1]): elsewhere the
  // token would cross the network in the clear. true allows it (a test server on a LAN).
  bool allow_plain_http = false;
  completion_thread completions = completion_thread::worker;  // where run_async's done runs
  std::shared_ptr<cloud::transport> transport = nullptr;      // null: libcurl
  // Where a tool read the token from, remembered in the sync state (the path only, never
  // the token) so that the next run of the tool can find it: see remembered().
  std::string token_file = {};
};

// What the sync state beside a slots folder remembers of the last open (for tools: the
// CLI's --url and --token-file are asked once per folder). errc::not_found if the folder
// was never synced.
struct remembered_settings {
  std::string url = {}, device = {}, device_id = {}, token_file = {};
};
result<remembered_settings> remembered(slots& s);

class sync {
 public:
  // Opens the sync state kept beside the slots (creating it: this device's random id), for
  // the server at options.url. The slots must outlive the sync. errc::invalid_value for
  // options that cannot work (no url or device, a url that is not http(s)). An empty token
  // opens a sync for status() and resolve() only (run() is then errc::invalid_value).
  static result<sync> open(slots& s, options o);

  sync(sync&&) noexcept;
  sync& operator=(sync&&) noexcept;
  // Waits for a run in progress and runs pending callbacks. In the browser (which cannot
  // wait) a run under way stops at its next slot and its callbacks still run: keep the
  // slots open until they have.
  ~sync();

  // Syncs every slot, both ways. An error only when the run could not start (the list did
  // not come, the folder is read-only, the token was refused); anything else is per slot
  // in the report. Blocks: for tools, or a thread of the game's own. In the browser use
  // run_async (run() suspends its caller's stack through Asyncify, and a second run while
  // one is under way is errc::locked).
  result<report> run();
  result<report> run(cloud::policy p);  // every slot, with this policy for a conflict
  // One slot, with a policy of its own for a conflict (the options' if none).
  result<report> run(std::string_view name, std::optional<cloud::policy> p = {});
  // run() on the sync's own thread; done runs as options.completions says. A call while a
  // run is queued joins that run. In the browser the run starts from a timer of its own
  // and waits on fetch() and IndexedDB without blocking the page.
  void run_async(std::function<void(result<report>)> done);
  std::size_t poll();  // completion_thread::poll: runs finished callbacks here

  result<slot_state> status(std::string_view name);
  result<std::vector<slot_state>> status();  // every slot known here or last listed

  // Settles a conflict offline, from the remote save held when the run met it: keep_local
  // (the next run pushes it over the remote one, which stays a server version),
  // keep_remote (it becomes the slot's newest generation; the local one stays in history),
  // keep_both (it becomes a second slot), later (nothing). errc::not_found if the slot has
  // no open conflict.
  savekit::status resolve(std::string_view name, choice c);

  const std::string& device_id() const;  // this device's random id, kept in the state

  struct impl;

 private:
  explicit sync(std::unique_ptr<impl> i);
  static void retire(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

std::string_view to_string(sync_state s);
std::string_view to_string(outcome o);
std::string_view to_string(choice c);
std::string_view to_string(cloud::policy p);
std::optional<cloud::policy> policy_named(std::string_view name);

}  // namespace savekit::cloud
