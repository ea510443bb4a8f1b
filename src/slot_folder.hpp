// A slots folder and its generation files (docs/slot-format.md): scanning, reading and
// checking generations, setting damaged ones aside, writing and pruning, sealing payloads.
// slots (src/slots.cpp) is the public face over it; the queue of background writes is in
// src/slot_queue.cpp, rename in src/slot_rename.cpp.
//
// Invariants (each pinned by tests in tests/test_slots*.cpp and tests/test_sealed_slots.cpp):
//  1. A generation file never changes once renamed into place: it is written whole under
//     BASE.N.tmp, synced, renamed to BASE.N.slot, and the folder synced. Readers need no
//     lock, and a crash leaves either the new generation or none (a .tmp, removed at open).
//  2. Generation numbers of a base only grow: the next is past every number any file of
//     the base has used (.slot, .damaged, .tmp; other names sharing a hashed base included).
//  3. A generation that fails a check is renamed to BASE.N.damaged the first time any
//     call meets it (generation_walk) — never read again, never deleted while within the
//     kept generations — and reported, never hidden: the load menu lists a slot with
//     nothing intact as damaged.
//  4. A generation from a newer savekit (slot_damage::newer) is left as it is: reads stop
//     at it with errc::unsupported_version rather than skip to an older save.
//  5. The file name numbers a generation; the header names its slot. A hashed base (a long
//     name) may hold several names: a generation or set-aside file whose header names
//     another slot is not this slot's (nor read, pruned, removed or moved as its), and a
//     rename, which keeps numbers, never takes a number another slot's file has there.
//  6. Pruning keeps the newest keep_generations generations and the damaged ones among
//     them. Generations go only once a save newer than them has lasted: after the new
//     generation's folder sync — or, when the slot's newest file is the generation this
//     object wrote and synced last (`acknowledged`), which the write keeps, just before that
//     sync, so that one sync makes the rename and the removals last (on a file system that
//     does not keep their order, a crash between them costs only what was being pruned).
//  7. Where the sealer authenticates, only a payload that opens is read or copied: a plain
//     generation is read only when accept_unsealed, and only in a slot that holds no sealed
//     one; a copied or renamed sealed payload is sealed again for its new name.
//  8. One operation on the folder's files at a time (folder_mutex); a writable folder is
//     held by one slots object (the lock file), a read-only one by none.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/slots.hpp"
#include "slot_format.hpp"

namespace savekit::detail {

// The files of one slot in the folder, each list newest first.
struct slot_files {
  std::vector<std::uint64_t> generations;  // BASE.N.slot
  std::vector<std::uint64_t> damaged;      // BASE.N.damaged
  std::vector<std::uint64_t> temporary;    // BASE.N.tmp
  std::string name;  // the name a base without '~' spells (scan checked it); empty for a hashed base
  bool empty() const { return generations.empty() && damaged.empty() && temporary.empty(); }
  std::uint64_t highest() const;
  std::uint64_t damaged_newer_than(std::uint64_t generation) const;
};

// A generation file, read as far as was asked and checked.
struct inspected {
  slot_check check;         // damage, with what was wrong
  bool other_name = false;  // intact, but another slot's (two long names with one hashed file name)
  slot_header header;
  std::string name;
  slot_meta meta;
  std::vector<std::string> compact_layout;  // of a payload in the compact form
  std::string thumbnail;                    // if asked for
  bool thumbnail_damaged = false;           // then left empty: a picture is not worth the save
  std::string payload;                      // if asked for
  bool sealed() const { return (header.flags & slot_flag_sealed) != 0; }
};

enum class sections : unsigned { head = 0, thumbnail = 1, payload = 2, all = 3 };
inline bool wants(sections asked, sections s) { return (static_cast<unsigned>(asked) & static_cast<unsigned>(s)) != 0; }

std::string quoted(std::string_view name);  // "slot 'NAME'", for messages
std::chrono::system_clock::time_point time_of(std::int64_t us);
generation_info info_of(const inspected& g);
generation_info info_of(inspected&& g);  // moves the metadata out
generation_info damaged_info(std::uint64_t generation, std::string problem);

class slot_folder;

// One generation as a walk meets it.
struct met_generation {
  enum class kind {
    intact,      // passes the checks of the sections asked for: file holds it
    damaged,     // failed a check: already set aside (invariant 3); file.check says why
    newer,       // a newer savekit's (invariant 4): file.check says why
    unreadable,  // an I/O failure (or a payload over the size limit): failure says which
  };
  std::uint64_t generation = 0;
  kind what = kind::intact;
  inspected file;
  std::optional<error> failure;
  const std::string& problem() const { return file.check.problem; }
};

// The one loop over a slot's generations, newest first, each read as far as asked:
// files gone meanwhile or not regular (a link, a folder planted under a generation's name)
// are skipped, as are generations whose header names another slot (invariant 5), and
// damaged ones are set aside before they are yielded (invariant 3). What a caller does
// with each kind is its own: a read stops at the first intact one, the menu lists it,
// history shows them all, rename copies them.
class generation_walk {
 public:
  // name: the slot expected in the headers; empty takes every name (the menu, which sorts
  // names itself).
  generation_walk(slot_folder& folder, std::string base, std::vector<std::uint64_t> generations, sections asked,
                  std::string_view name);
  std::optional<met_generation> next();
  // Whether a listed generation was gone when read: a writer beside a read-only reader
  // pruned it (the reader looks again).
  bool pruned_meanwhile() const { return pruned_meanwhile_; }

 private:
  slot_folder& folder_;
  std::string base_;
  std::vector<std::uint64_t> generations_;
  std::size_t at_ = 0;
  sections asked_;
  std::string name_;
  bool pruned_meanwhile_ = false;
};

class slot_folder {
 public:
  file_system* fs = nullptr;
  std::shared_ptr<file_system> owned_fs;  // fs, when the slots keep it alive
  std::string folder;
  slots_options options;
  std::unique_ptr<file_system::lock_token> lock;
  std::mutex folder_mutex;  // invariant 8
  std::int64_t last_saved_at_us = 0;
  // Per base, the generation this object last wrote and synced: while a base's newest file
  // is that one, it is the save a read gets, and a write may prune older ones before its
  // own folder sync (invariant 6). Anything else (the first write of a run, a file planted
  // or damaged above it, a failed sync) prunes after the sync.
  std::map<std::string, std::uint64_t> acknowledged;

  std::string path_of(std::string_view base, std::uint64_t generation, slot_file_kind kind) const;
  error read_only_error() const;

  // ---- reading (src/slot_folder.cpp) ----

  result<std::map<std::string, slot_files>> scan();
  // The files of the slot called name. A hashed base (a long name) may be shared by
  // another name: its generations and set-aside files are kept unless their header names
  // another slot.
  result<slot_files> scan_slot(std::string_view name, const std::string& base);
  // The same, from files scan() found under base.
  slot_files own_files(std::string_view name, const std::string& base, slot_files files);
  // Reads generation file BASE.N's header and metadata, and the sections asked for,
  // checking each. Damage is reported in the result's check; an error is an I/O failure
  // (or a payload over the size limit), which says nothing about the file's bytes.
  result<inspected> inspect(const std::string& base, std::uint64_t generation, sections asked,
                            std::string_view expected_name, slot_file_kind kind = slot_file_kind::generation);
  // The slot name a base stands for: spelled out in the base, or (hashed) read from the
  // intact head of one of its damaged files; the base itself if neither can be had.
  std::string name_of_files(const std::string& base, const slot_files& files);
  // Renames a damaged generation to BASE.N.damaged (invariant 3); not in a read-only folder.
  void set_aside(const std::string& base, std::uint64_t generation);

  struct found_generation {
    inspected file;
    std::string base;
    slot_files files;  // with the generations set aside on the way among the damaged
  };
  // The newest generation of the slot that passes the checks of the sections asked for;
  // damaged ones met on the way are set aside and reported. Caller holds folder_mutex.
  result<found_generation> newest_intact(std::string_view name, sections asked, read_report* report);
  // One given generation, every section checked: errc::not_found, damaged (set aside) or
  // unsupported_version when it cannot be had. Caller holds folder_mutex.
  result<inspected> one_generation(std::string_view name, std::uint64_t generation);

  // ---- writing (src/slot_writing.cpp) ----

  // Writes one generation file (invariant 1) with the permissions of `like`, a file of the
  // slot's. On failure before the rename nothing of it is left under its final name.
  // superseded: files removed after the rename, before the folder sync.
  status write_generation(const std::string& base, slot_header header, std::string_view name,
                          std::string_view meta_bytes, std::string_view thumbnail, std::string_view payload,
                          const std::string& like = {}, const std::vector<std::string>& superseded = {});
  // Writes the slot's next generation (invariant 2), stamped now (or at saved_at_us: a
  // save synced from another device keeps the time it was made), then prunes (invariant
  // 6). like_if_new: the file whose permissions a slot with no generation yet takes.
  // Caller holds folder_mutex.
  status write_new_generation(std::string_view name, slot_header header, std::string_view meta_bytes,
                              std::string_view thumbnail, std::string_view payload, const std::string& like_if_new = {},
                              std::int64_t saved_at_us = 0);
  // Removes every generation of a slot, oldest first. Caller holds folder_mutex.
  status remove_locked(std::string_view name);
  struct new_save {
    std::string_view payload;
    std::optional<bool> sealed;
    object_encoding encoding = object_encoding::msgpack;
    std::uint32_t schema_version = 1;
    const slot_meta* meta = nullptr;
    const std::vector<std::string>* compact_layout = nullptr;
  };
  // A game's save: checked against the limits, sealed as the options say, written.
  status write_save(std::string_view name, const new_save& save);

  // ---- sealing (src/slot_sealing.cpp), invariant 7 ----

  // A sealed payload is bound to its slot's name: one renamed is sealed again for the new
  // name (a payload that is not sealed is returned as it is).
  result<std::string> sealed_for(const inspected& file, std::string payload, std::string_view from,
                                 std::string_view to);
  // The payload of a generation made anew from another (copy, restore): only one the game
  // can read, sealed for `to` where the sealer authenticates; header's sealed flag follows.
  result<std::string> payload_for_copy(const inspected& file, slot_header& header, std::string_view from,
                                       std::string_view to);
  // A generation's payload as the game reads it.
  result<std::string> readable_payload(const inspected& file, std::string payload, std::string_view name);

 private:
  result<found_generation> newest_intact_once(std::string_view name, sections asked, read_report* report,
                                              bool& pruned_meanwhile);
  struct superseded_files {
    std::vector<std::string> early;  // removed before the new generation's folder sync
    std::vector<std::string> late;   // after it: the slot's newest before the write
  };
  superseded_files superseded_by_next(const std::string& base, const slot_files& files) const;
  std::int64_t next_saved_at();
  result<std::string> open_sealed(const inspected& file, std::string_view payload, std::string_view name);
  bool holds_a_sealed_generation(std::string_view name);
};

}  // namespace savekit::detail
