#include "savekit/prefs.hpp"

#include "savekit/detail/bytes.hpp"
#include "savekit/file_backend.hpp"

#include "background_worker.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <random>
#include <thread>

namespace savekit {

namespace detail {

std::uint64_t random_seed() noexcept {
  static const std::uint64_t base = [] {
    std::random_device entropy;
    return (std::uint64_t{entropy()} << 32) ^ entropy();
  }();
  static std::atomic<std::uint64_t> counter{0};
  // splitmix64 of base + a counter: distinct, well-mixed seeds from one read of entropy.
  std::uint64_t z = base + 0x9E3779B97F4A7C15ull * (counter.fetch_add(1, std::memory_order_relaxed) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace detail

namespace {

error key_error(errc code, std::string_view key, std::string message) {
  return error{code, 0, std::move(message), store_path(key)};
}

}  // namespace

result<prefs> prefs::open(const std::string& path, file_backend_options options) {
  return open(make_file_backend(path, posix_file_system(), options));
}

result<prefs> prefs::open(std::unique_ptr<backend> store_backend) {
  auto loaded = store_backend->load();
  if (!loaded) return std::move(loaded).error();
  auto state = std::make_shared<shared_state>();
  state->entries.reserve(loaded->entries.size());
  for (auto& [key, value] : loaded->entries)
    state->entries.emplace(key, entry{value.type, std::move(value.bytes), 0, false, false});
  state->report = std::move(loaded->report);
  state->store_backend = std::move(store_backend);
  std::weak_ptr<shared_state> weak = state;
  state->store_backend->attach([weak](std::function<void(status)> done) {
    auto s = weak.lock();
    if (!s) return false;
    {
      std::lock_guard lock(s->mutex);
      if (s->dirty.empty() && !s->clear_pending) return false;
    }
    commit(std::move(s), std::move(done));
    return true;
  });
  return prefs(std::move(state));
}

prefs::prefs(prefs&& other) noexcept = default;
prefs& prefs::operator=(prefs&& other) noexcept {
  if (this != &other) {
    stop_background();
    state_ = std::move(other.state_);
  }
  return *this;
}
prefs::~prefs() { stop_background(); }

status prefs::check_key(const std::string_view& key) {
  if (key.empty()) return key_error(errc::invalid_key, key, "empty key");
  if (key.size() > max_key_size)
    return key_error(errc::invalid_key, key.substr(0, 64),
                     "key longer than " + std::to_string(max_key_size) + " bytes");
  return {};
}

prefs::entry& prefs::touch(const std::string_view& key, value_type type) {
  shared_state& s = *state_;
  entry_map::value_type* node = s.last;
  if (!node || !detail::equal_text(node->first, key)) {
    auto it = s.entries.find(key);
    if (it == s.entries.end()) it = s.entries.emplace(std::string{key}, entry{}).first;
    node = s.last = &*it;
  }
  entry& e = node->second;
  e.type = type;
  e.deleted = false;
  e.version = ++s.version;
  if (!e.dirty) {
    e.dirty = true;
    s.dirty.push_back(node);
  }
  return e;
}

const prefs::entry* prefs::find(const std::string_view& key) const {
  shared_state& s = *state_;
  entry_map::value_type* node = s.last;
  if (!node || !detail::equal_text(node->first, key)) {
    auto it = s.entries.find(key);
    if (it == s.entries.end()) return nullptr;
    node = s.last = &*it;
  }
  return node->second.deleted ? nullptr : &node->second;
}

// ---- primitives ------------------------------------------------------------------------------

status prefs::set_int_at(const std::string_view& key, std::int64_t value) {
  if (status valid = check_key(key); !valid) return valid;
  std::lock_guard lock(state_->mutex);
  savekit::to_msgpack(value, touch(key, value_type::integer).bytes);
  return {};
}

status prefs::set_float_at(const std::string_view& key, double value) {
  if (status valid = check_key(key); !valid) return valid;
  std::lock_guard lock(state_->mutex);
  savekit::to_msgpack(value, touch(key, value_type::floating).bytes);
  return {};
}

// set_string and set_bytes: the bytes as they are, under the type given.
status prefs::set_string_at(const std::string_view& key, const std::string_view& value, value_type type) {
  if (status valid = check_key(key); !valid) return valid;
  if (value.size() > max_value_size) return key_error(errc::value_too_large, key, "value too large");
  std::lock_guard lock(state_->mutex);
  put(key, type, value);
  return {};
}

result<const prefs::entry*> prefs::typed_entry(std::string_view key, value_type type) const {
  const entry* found = find(key);
  if (!found) return key_error(errc::not_found, key, "no entry under this key");
  if (found->type != type)
    return key_error(errc::wrong_type, key,
                     "entry holds " + std::string{to_string(found->type)} + ", not " + std::string{to_string(type)});
  return found;
}

result<std::int64_t> prefs::try_get_int_at(const std::string_view& key) const {
  std::lock_guard lock(state_->mutex);
  auto found = typed_entry(key, value_type::integer);
  if (!found) return std::move(found).error();
  std::int64_t value = 0;
  if (status decoded = savekit::from_msgpack(std::string_view{(*found)->bytes}, value); !decoded)
    return key_error(errc::corrupt_store, key, "stored int does not decode");
  return value;
}

result<double> prefs::try_get_float_at(const std::string_view& key) const {
  std::lock_guard lock(state_->mutex);
  auto found = typed_entry(key, value_type::floating);
  if (!found) return std::move(found).error();
  double value = 0;
  if (status decoded = savekit::from_msgpack(std::string_view{(*found)->bytes}, value); !decoded)
    return key_error(errc::corrupt_store, key, "stored float does not decode");
  return value;
}

result<std::string> prefs::try_get_string_at(const std::string_view& key) const {
  std::lock_guard lock(state_->mutex);
  auto found = typed_entry(key, value_type::string);
  if (!found) return std::move(found).error();
  return (*found)->bytes;
}

result<std::vector<std::byte>> prefs::get_bytes(std::string_view key) const {
  std::vector<std::byte> out;
  if (status got = get_bytes_into(key, out); !got) return std::move(got).error();
  return out;
}

status prefs::get_bytes_into(std::string_view key, std::vector<std::byte>& into) const {
  std::lock_guard lock(state_->mutex);
  const entry* found = find(key);
  if (!found) return key_error(errc::not_found, key, "no entry under this key");
  if (found->type != value_type::bytes && found->type != value_type::string)
    return key_error(errc::wrong_type, key, "entry holds " + std::string{to_string(found->type)} + ", not bytes");
  const auto* data = reinterpret_cast<const std::byte*>(found->bytes.data());
  into.assign(data, data + found->bytes.size());
  return {};
}

result<stored_value> prefs::get_raw(std::string_view key) const {
  std::lock_guard lock(state_->mutex);
  const entry* found = find(key);
  if (!found) return key_error(errc::not_found, key, "no entry under this key");
  return stored_value{found->type, found->bytes};
}

namespace {
constexpr std::uint32_t stored_value_max_depth = 100'000;
}  // namespace

status check_stored_value(value_type type, std::string_view bytes) {
  switch (type) {
    case value_type::integer: {
      std::int64_t n = 0;
      return savekit::from_msgpack(bytes, n);
    }
    case value_type::floating: {
      double d = 0;
      return savekit::from_msgpack(bytes, d);
    }
    case value_type::string:
    case value_type::bytes:
      return {};
    // Deeper than any reader could go (its recursion would exhaust the stack long before),
    // so that an object stored with a raised max_depth is still a valid entry; the skips
    // are iterative.
    case value_type::msgpack:
    case value_type::msgpack_compact: {
      detail::msgpack_cursor c{bytes.data(), bytes.size(), stored_value_max_depth};
      if (!c.skip_value() || !c.finish()) return std::move(c.err).take();
      return {};
    }
    case value_type::json: {
      raw_json any;
      return savekit::from_json(bytes, any, {.max_depth = stored_value_max_depth});
    }
    case value_type::sealed:  // its header's shape (the seal itself needs the keys)
      if (bytes.size() < 24 || bytes.substr(0, 4) != "SKSL")
        return error{errc::invalid_value, 0, "not a sealed save (savekit/seal.hpp)"};
      return {};
    case value_type::end_of_known_types:
      break;
  }
  return error{errc::wrong_type, 0, "unknown value type"};
}

status prefs::set_raw(std::string_view key, value_type type, std::string_view bytes) {
  if (status valid = check_key(key); !valid) return valid;
  if (!is_known(type)) return key_error(errc::wrong_type, key, "unknown value type");
  if (status decodes = check_stored_value(type, bytes); !decodes) {
    const error& e = decodes.error();
    return error{errc::invalid_value, e.offset(),
                 "not a stored " + std::string{to_string(type)} + " (" + std::string{savekit::to_string(e.code())} +
                     ": " + e.message() + ")",
                 store_path(key)};
  }
  if (bytes.size() > max_value_size) return key_error(errc::value_too_large, key, "value too large");
  std::lock_guard lock(state_->mutex);
  put(key, type, bytes);
  return {};
}

// ---- sealed entries ----------------------------------------------------------------------------

// Sealed: [u8 type][bytes], bound to the key (the context's name; schema version 0).
status prefs::set_sealed(std::string_view key, value_type type, std::string_view bytes, const payload_sealer& sealer) {
  if (status valid = check_key(key); !valid) return valid;
  if (!is_known(type) || type == value_type::sealed)
    return key_error(errc::wrong_type, key, "a sealed entry holds one of the other value types");
  if (status decodes = check_stored_value(type, bytes); !decodes)
    return error{errc::invalid_value, decodes.error().offset(),
                 "not a stored " + std::string{to_string(type)} + ": " + decodes.error().message(), store_path(key)};
  std::string plain;
  plain.reserve(bytes.size() + 1);
  plain.push_back(static_cast<char>(type));
  plain.append(bytes);
  result<std::string> sealed = sealer.seal(plain, key, 0, {});
  if (!sealed) {
    error e = std::move(sealed).error();
    return error{e.code(), e.offset(), "sealing failed: " + e.message(), store_path(key)};
  }
  if (sealed->size() > max_value_size) return key_error(errc::value_too_large, key, "value too large");
  std::lock_guard lock(state_->mutex);
  put_swap(key, value_type::sealed, *sealed);
  return {};
}

result<stored_value> prefs::open_sealed(std::string_view key, const payload_sealer& sealer) const {
  std::string sealed;
  {
    std::lock_guard lock(state_->mutex);
    result<const entry*> found = typed_entry(key, value_type::sealed);
    if (!found) return std::move(found).error();
    sealed = (*found)->bytes;
  }
  result<std::string> opened = sealer.unseal(sealed, key, 0, {});
  if (!opened) {
    error e = std::move(opened).error();
    return error{e.code(), e.offset(), e.message(), store_path(key)};
  }
  const auto type = opened->empty() ? value_type::sealed : static_cast<value_type>((*opened)[0]);
  if (!is_known(type) || type == value_type::sealed)
    return key_error(errc::unsupported_version, key, "the sealed entry holds a type this savekit does not know");
  return stored_value{type, opened->substr(1)};
}

// ---- keys ------------------------------------------------------------------------------------

bool prefs::has_key(std::string_view key) const {
  std::lock_guard lock(state_->mutex);
  return find(key) != nullptr;
}

result<value_type> prefs::type_of(std::string_view key) const {
  std::lock_guard lock(state_->mutex);
  const entry* found = find(key);
  if (!found) return key_error(errc::not_found, key, "no entry under this key");
  return found->type;
}

status prefs::delete_key(std::string_view key) {
  std::lock_guard lock(state_->mutex);
  shared_state& s = *state_;
  auto it = s.entries.find(key);
  if (it == s.entries.end() || it->second.deleted) return key_error(errc::not_found, key, "no entry under this key");
  entry& e = it->second;
  e.deleted = true;
  e.bytes.clear();
  e.version = ++s.version;
  if (!e.dirty) {
    e.dirty = true;
    s.dirty.push_back(&*it);
  }
  return {};
}

void prefs::delete_all() {
  std::lock_guard lock(state_->mutex);
  shared_state& s = *state_;
  s.entries.clear();
  s.dirty.clear();
  s.last = nullptr;
  s.clear_pending = true;
  s.clear_version = ++s.version;
}

std::vector<std::string> prefs::keys() const {
  std::lock_guard lock(state_->mutex);
  std::vector<std::string> out;
  for (const auto& [key, e] : state_->entries)
    if (!e.deleted) out.push_back(key);
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t prefs::size() const {
  std::lock_guard lock(state_->mutex);
  std::size_t n = 0;
  for (const auto& [key, e] : state_->entries) n += e.deleted ? 0 : 1;
  return n;
}

status prefs::maintenance() const {
  std::lock_guard wait_for_commit(state_->commit_mutex);  // the worker's commit updates it
  std::lock_guard lock(state_->mutex);
  return state_->store_backend->maintenance();
}

bool prefs::has_pending_changes() const {
  std::lock_guard lock(state_->mutex);
  return !state_->dirty.empty() || state_->clear_pending;
}

// ---- committing --------------------------------------------------------------------------------

// What a commit covered: enough to tell, when it completes, which changes it made durable.
struct prefs::commit_ticket {
  bool clear_all = false;
  std::uint64_t clear_version = 0;
  std::vector<std::pair<std::string, std::uint64_t>> versions;  // key, version committed
};

void prefs::save_async(std::function<void(status)> done) { commit(state_, std::move(done)); }

// ---- background commits (docs/design.md, "Background commits") ----

// save_async's queue: one job per call, run in order on the store's background worker
// (background_worker.hpp: its invariants and its one rule for exceptions). A job takes what
// is pending when it starts, not when it was queued, so that no job ever writes an older
// value over a newer one that save() (or an earlier job) committed.
struct prefs::background_commits {
  detail::background_worker worker;
};

// One save_async, on the worker. keep holds the store while its job is queued; it may be
// the last owner, and then goes on the worker (which the store's closing detaches).
void prefs::run_background(std::shared_ptr<shared_state> keep, std::function<void(status)> done) {
  status outcome = detail::guarded("the commit", [&] { return commit_in_background(*keep); });
  if (done) detail::call_safely(done, std::move(outcome));  // no lock held: it may save, or close the store
}

void prefs::stop_background() {
  if (!state_ || !state_->background) return;
  state_->background->worker.stop();  // every queued save runs first (from a callback: after it)
}

// The backend's commit without the store's mutex: the changes are copied out under it,
// written, and settled under it again by version (changes made meanwhile stay pending).
status prefs::commit_in_background(shared_state& s) {
  std::lock_guard one_commit(s.commit_mutex);
  struct owned_change {
    std::string key;
    value_type type;
    std::string value;
    bool erase;
  };
  std::vector<owned_change> owned;
  commit_ticket ticket;
  change_set changes;
  {
    std::lock_guard lock(s.mutex);
    if (s.dirty.empty() && !s.clear_pending) return {};
    change_set pending = gather_pending(s, ticket, true);
    changes.clear_all = pending.clear_all;
    owned.reserve(pending.changes.size());
    for (const change& c : pending.changes)
      owned.push_back({std::string{c.key}, c.type, std::string{c.value}, c.erase});
  }
  changes.changes.reserve(owned.size());
  for (const owned_change& c : owned) changes.changes.push_back(change{c.key, c.type, c.value, c.erase});
  status outcome = error{errc::io_error, 0, "backend did not report the commit's outcome"};
  s.store_backend->commit(changes, [&](status result) { outcome = std::move(result); });
  if (outcome) {
    std::lock_guard lock(s.mutex);
    settle_asynchronous(s, ticket);
  }
  return outcome;
}

// docs/design.md, "Commits may complete later": a commit carries every pending change.
// The versions are remembered only for a backend that reports later, when other changes
// may have come in the meantime.
change_set prefs::gather_pending(shared_state& s, commit_ticket& ticket, bool remember_versions) {
  change_set changes;
  changes.clear_all = s.clear_pending;
  changes.changes.reserve(s.dirty.size());
  ticket.clear_all = s.clear_pending;
  ticket.clear_version = s.clear_version;
  for (auto* node : s.dirty) {
    const entry& e = node->second;
    changes.changes.push_back(change{node->first, e.type, e.bytes, e.deleted});
    if (remember_versions) ticket.versions.emplace_back(node->first, e.version);
  }
  return changes;
}

// A synchronous backend reported while the store's mutex was held: nothing changed in the
// meantime, so the whole change set is durable and nothing is pending any more.
void prefs::settle_synchronous(shared_state& s, const commit_ticket& ticket) {
  s.last = nullptr;  // committed deletions are erased
  if (ticket.clear_all) s.clear_pending = false;
  for (auto* node : s.dirty) node->second.dirty = false;
  for (auto* node : s.dirty)
    if (node->second.deleted) s.entries.erase(s.entries.find(node->first));
  s.dirty.clear();
}

// An asynchronous backend reported later: an entry stops being pending only if it is still
// at the version this commit carried (a newer change stays pending for the next commit).
void prefs::settle_asynchronous(shared_state& s, const commit_ticket& ticket) {
  s.last = nullptr;  // committed deletions are erased
  if (ticket.clear_all && s.clear_version == ticket.clear_version) s.clear_pending = false;
  for (const auto& [key, version] : ticket.versions) {
    auto it = s.entries.find(key);
    if (it != s.entries.end() && it->second.version == version) it->second.dirty = false;
  }
  std::erase_if(s.dirty, [](auto* node) { return !node->second.dirty; });
  for (const auto& [key, version] : ticket.versions) {
    auto it = s.entries.find(key);
    if (it != s.entries.end() && !it->second.dirty && it->second.deleted) s.entries.erase(it);
  }
}

// docs/design.md, "Commit on hide": the saves requested while a backend that does not order
// overlapping commits had one in flight — one more commit covers them all.
void prefs::commit_waiting(const std::weak_ptr<shared_state>& weak, std::vector<std::function<void(status)>> waiting) {
  if (waiting.empty()) return;
  auto s = weak.lock();
  if (!s) {
    for (auto& waiter : waiting) waiter({});  // the store is gone: nothing is left to commit
    return;
  }
  commit(std::move(s), [waiting = std::move(waiting)](status follow_up) {
    for (auto& waiter : waiting) waiter(follow_up);
  });
}

void prefs::commit(std::shared_ptr<shared_state> state, std::function<void(status)> done) {
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
  // (Only a backend that reports before commit() returns: the worker waits for nothing else.)
  if (state->store_backend->commits_in_background() && state->store_backend->completes_synchronously()) {
    std::unique_lock lock(state->mutex);
    if (!state->background) state->background = std::make_shared<background_commits>();
    std::shared_ptr<background_commits> background = state->background;
    lock.unlock();
    // Shared, so that a post refused (closing: a backend's own request, attach) still has
    // the callback to run the commit here.
    struct queued_save {
      std::shared_ptr<shared_state> state;
      std::function<void(status)> done;
    };
    auto job = std::make_shared<queued_save>(queued_save{state, std::move(done)});
    if (background->worker.post([job] { run_background(std::move(job->state), std::move(job->done)); })) return;
    std::function<void(status)> here = std::move(job->done);
    job.reset();
    return here(commit_here(*state));
  }
#endif
  if (state->store_backend->completes_synchronously()) return done(commit_here(*state));
  std::unique_lock lock(state->mutex);
  // A backend that does not order overlapping commits: this save waits for the one in
  // flight.
  // One that orders them (IndexedDB) starts this one now, carrying every pending change,
  // those in flight included, so that it alone leaves the state complete.
  if (state->commits_in_flight > 0 && !state->store_backend->orders_commits()) {
    state->waiting.push_back(std::move(done));
    return;
  }
  if (state->dirty.empty() && !state->clear_pending) {
    lock.unlock();
    return done({});
  }
  auto ticket = std::make_shared<commit_ticket>();
  change_set changes = gather_pending(*state, *ticket, true);
  ++state->commits_in_flight;
  lock.unlock();  // the backend copies the change set before commit() returns
  std::weak_ptr<shared_state> weak = state;
  state->store_backend->commit(changes, [weak, ticket, done = std::move(done)](status outcome) mutable {
    std::vector<std::function<void(status)>> waiting;
    if (auto s = weak.lock()) {
      std::lock_guard relock(s->mutex);
      --s->commits_in_flight;
      if (outcome) settle_asynchronous(*s, *ticket);
      waiting.swap(s->waiting);
    }
    done(std::move(outcome));
    commit_waiting(weak, std::move(waiting));
  });
}

status prefs::save() {
  if (!state_->store_backend->completes_synchronously())
    return error{errc::commit_pending, 0, "this backend commits asynchronously: use save_async"};
  return commit_here(*state_);
}

// A synchronous commit on the calling thread, the store's mutex held throughout: nothing
// changes meanwhile, so the whole change set is settled. After (never interleaved with) a
// background commit in progress; saves still queued then find less to do.
status prefs::commit_here(shared_state& s) {
  std::lock_guard one_commit(s.commit_mutex);
  std::lock_guard lock(s.mutex);
  if (s.dirty.empty() && !s.clear_pending) return {};
  commit_ticket ticket;
  change_set changes = gather_pending(s, ticket, false);
  status outcome = error{errc::io_error, 0, "backend did not report the commit's outcome"};
  s.store_backend->commit(changes, [&](status result) { outcome = std::move(result); });
  if (outcome) settle_synchronous(s, ticket);
  return outcome;
}

}  // namespace savekit
