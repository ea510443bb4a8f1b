// What the sync keeps beside the slots, in the slots' own folder and file system (so a
// test's fault_fs reaches it, and it goes where the saves go):
//
//   .savekit-sync.json          the state: this device's id, the server's url, per slot the
//                               baseline (the server version both sides last agreed on),
//                               the last list's entry, an open conflict, a refused change
//   .savekit-sync.out.<id>      outbox entries: changes to push, each with its write id,
//                               precondition, metadata and bytes, written before they are
//                               sent — one, or a batch decided in one run (one fsync)
//   .savekit-sync.held.<id>     the remote save of an open conflict (resolve works offline)
//   .savekit-sync.damaged.<id>  an outbox entry that did not read, set aside (never sent)
//
// The slots ignore these names (theirs are s-….slot). No token is ever written.
//
// Invariants (pinned by tests/cloud/test_cloud_outbox.cpp and test_cloud_rules.cpp):
//  1. An outbox entry is durable (synced, renamed, folder synced) before its first byte is
//     sent, and never changes: every resend repeats its write id, precondition, metadata
//     and bytes, until the server answers it definitely.
//  2. A slot has at most one entry; a newer change waits until it is answered. (Entries of
//     several slots may share a file: a run's batch, written whole before any is sent.)
//  3. An entry is removed only after what its answer taught (the baseline) is durable in
//     the state: a crash in between resends it, and the server answers the replay as the
//     first time. (The sync learns answers in batches: the state is saved once per batch,
//     then the batch's entries are removed.)
//  4. A baseline records only what the server acknowledged: a 2xx for our write, our write
//     id on the server's entry, or a save of the server's we wrote here (a pull).
//  5. Files are replaced whole (temporary, sync, rename, folder sync); a damaged state file
//     is an error (errc::corrupt_store), never silently reset — a reset would make every
//     slot look never-synced, which is safe (conflicts, not overwrites) but noisy.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/cloud.hpp"
#include "savekit/file_system.hpp"
#include "wire.hpp"

namespace savekit::cloud::detail {

struct baseline {
  std::int64_t version = 0;            // the server's version
  std::string content;                 // content_of the save at that version
  std::uint64_t local_generation = 0;  // the local generation holding it (0: the slot is deleted on both sides)
  // That generation's saved_at (0: not known yet): with the generation, what tells it from a
  // slot deleted and saved again without reading the save (a run with nothing changed).
  std::int64_t local_saved_at_us = 0;
  // The server's clock when it wrote that version (0: not known): what tells a server
  // restored from a backup (holding an older save) from one written on since.
  std::int64_t server_saved_at_us = 0;
};

struct held_conflict {
  remote_entry remote;
  std::string held_file;  // .savekit-sync.held.<id>, the remote save's generation file ("" for a deletion)
};

struct refused_change {
  std::string content;  // what was refused: the same save is not sent again
  int http_status = 0;
  std::string code, message;
};

struct slot_record {
  std::optional<baseline> base;
  std::optional<remote_entry> listed;  // as the last list showed it (nullopt: absent)
  std::optional<held_conflict> conflict;
  std::optional<refused_change> refused;
  std::string last_error;
  // The content of saves that lost a conflict here and stay only in this folder's history
  // (keep_remote): a deletion from another device must not take them with the slot.
  std::vector<std::string> kept_here;
  bool empty() const { return !base && !listed && !conflict && !refused && last_error.empty() && kept_here.empty(); }
};

struct state_document {
  std::uint32_t format = 1;
  std::string device_id;
  std::string device;
  std::string url;
  std::string token_file;  // the CLI's --token-file, its path only
  std::int64_t listed_at_us = 0;
  std::map<std::string, slot_record> slots;
};

struct outbox_entry {
  std::uint32_t format = 1;
  std::string slot;
  std::string op;  // "put" or "delete"
  std::string write_id;
  std::optional<std::int64_t> if_match;  // nullopt: If-None-Match: * (a creation)
  std::string meta;                      // Savekit-Meta as sent (base64url)
  std::string content;
  std::uint64_t local_generation = 0;  // the generation sent (put)
  std::int64_t local_saved_at_us = 0;  // and its saved_at
  std::int64_t created_us = 0;
  std::uint64_t body_bytes = 0;
  std::string body_sha256;
  std::string body;  // not in the file's JSON line: the bytes after it
  std::string file;  // the outbox file holding it (not in the file)
};

// Changes decided together are written as one outbox file (one fsync for the batch), up to
// this many entries and bytes; a larger change goes alone.
inline constexpr std::size_t outbox_batch_entries = 32;
inline constexpr std::uint64_t outbox_batch_bytes = std::uint64_t{64} << 20;

class sync_files {
 public:
  sync_files(file_system& fs, std::string folder) : fs_(fs), folder_(std::move(folder)) {}

  // The state; a fresh one (with a new device id) if there is none yet.
  result<state_document> load_state();
  status save_state(const state_document& s);

  // Every entry in the outbox. A damaged entry (it cannot be: entries are written whole) is
  // set aside as .savekit-sync.damaged.<id>, for a person to look at, and named in `damaged`.
  result<std::vector<outbox_entry>> load_outbox(std::vector<std::string>* damaged = nullptr);
  status add_entry(outbox_entry& e);  // invariant 1 (sets e.file)
  // A batch in one file, written whole: durable together before any is sent.
  status add_entries(const std::vector<outbox_entry*>& entries);
  status remove_entry(const outbox_entry& e);
  // Several at once, the folder synced once (invariant 3 holds for each: the caller saved
  // the state that learned their answers first). A file some of whose entries stay is
  // written again with those only.
  status remove_entries(const std::vector<outbox_entry>& entries);

  status hold(std::string_view id, std::string_view file_bytes, std::string& held_file);
  result<std::string> read_held(const std::string& held_file);
  void drop_held(const std::string& held_file);

  static std::string new_id();  // 32 random hex digits

 private:
  std::string path(std::string_view file) const;
  status write_whole(std::string_view file, std::string_view bytes);
  result<std::string> read_whole(std::string_view file, std::uint64_t max_bytes);
  file_system& fs_;
  std::string folder_;
  // Outbox file -> entries it holds (as loaded or written). status() reads the outbox while
  // a run may be writing it, on another thread.
  std::mutex entries_mutex_;
  std::map<std::string, std::size_t> entries_in_;
};

inline constexpr std::string_view state_file = ".savekit-sync.json";
inline constexpr std::string_view outbox_prefix = ".savekit-sync.out.";
inline constexpr std::string_view held_prefix = ".savekit-sync.held.";
inline constexpr std::string_view damaged_prefix = ".savekit-sync.damaged.";  // an outbox entry that did not read

}  // namespace savekit::cloud::detail
