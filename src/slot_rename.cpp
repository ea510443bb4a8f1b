// slots::rename: every generation written under the new name before any old file goes, so
// that a rename stopped anywhere (a kill, a power cut) can be run again and goes on.
#include <algorithm>
#include <limits>
#include <map>

#include "slots_state.hpp"

namespace savekit {

using detail::generation_walk;
using detail::inspected;
using detail::met_generation;
using detail::quoted;
using detail::sections;
using detail::slot_damage;
using detail::slot_file_kind;
using detail::slot_files;

namespace {

// Whether `to` holds what an interrupted rename of `from` did — stopped anywhere, by a
// power cut or a kill between two steps: copies of `from`'s generations (the same numbers
// and saving times; the same payloads, unless sealed again for the new name), and `from`
// missing its oldest ones (removed oldest first). Anything else is another slot.
// (`to`'s set-aside files come last, after every old generation file is gone: with any of
// them, `from` has none left.)
bool interrupted_rename(detail::slot_folder& s, std::string_view from, const slot_files& source, std::string_view to,
                        const slot_files& target) {
  const std::string from_base = detail::slot_file_base(from);
  const std::string to_base = detail::slot_file_base(to);
  bool resuming = !target.generations.empty() && (target.damaged.empty() || source.generations.empty());
  for (std::uint64_t g : target.damaged)  // never two set-aside files of one number
    if (std::find(source.damaged.begin(), source.damaged.end(), g) != source.damaged.end()) resuming = false;
  // The first copy is `from`'s newest and its removal comes last: while `from` keeps any
  // generation, `to`'s newest is that one (else `to` is another slot, whose older numbers
  // would pass for removed ones).
  if (resuming && !source.generations.empty()) resuming = target.generations.front() == source.generations.front();
  const std::uint64_t oldest_left =
      source.generations.empty() ? std::numeric_limits<std::uint64_t>::max() : source.generations.back();
  for (std::uint64_t g : target.generations) {
    if (!resuming) break;
    result<inspected> copied = s.inspect(to_base, g, sections::head, to);
    resuming = copied && copied->check.damage == slot_damage::none && !copied->other_name;
    const bool removed_already =
        g < oldest_left && std::find(source.damaged.begin(), source.damaged.end(), g) == source.damaged.end();
    if (!resuming || removed_already) continue;
    result<inspected> original = s.inspect(from_base, g, sections::head, from);
    resuming = original && original->check.damage == slot_damage::none && !original->other_name &&
               copied->header.saved_at_us == original->header.saved_at_us &&
               copied->header.flags == original->header.flags &&
               (copied->sealed() || copied->header.payload_crc == original->header.payload_crc);
  }
  return resuming;
}

}  // namespace

status slots::rename(std::string_view from, std::string_view to) {
  state& s = *state_;
  if (status ready = s.prepare_change({from, to}); !ready) return ready;
  std::lock_guard lock(s.folder_mutex);
  const std::string from_base = detail::slot_file_base(from);
  const std::string to_base = detail::slot_file_base(to);
  s.acknowledged.erase(from_base);  // (their next writes prune after their sync: invariant 6)
  s.acknowledged.erase(to_base);
  result<slot_files> source = s.scan_slot(from, from_base);
  if (!source) return std::move(source).error();
  if (source->generations.empty() && source->damaged.empty()) return error{errc::not_found, 0, "no " + quoted(from)};
  if (from == to) return {};
  result<slot_files> target = s.scan_slot(to, to_base);
  if (!target) return std::move(target).error();
  if ((!target->generations.empty() || !target->damaged.empty()) && !interrupted_rename(s, from, *source, to, *target))
    return error{errc::already_exists, 0, quoted(to) + " exists: remove it first, or copy over it"};
  // The copies and the set-aside files keep their numbers. A long name's hashed file name
  // may be another slot's too (invariant 5): a file of this rename would replace that slot's
  // file of the same number and kind.
  if (to_base.find('~') != std::string::npos) {
    result<std::map<std::string, slot_files>> all = s.scan();
    if (!all) return std::move(all).error();
    auto in = [](const std::vector<std::uint64_t>& list, std::uint64_t g) {
      return std::find(list.begin(), list.end(), g) != list.end();
    };
    const slot_files& in_base = (*all)[to_base];
    bool taken = false;
    for (std::uint64_t g : in_base.generations)
      taken = taken || (!in(target->generations, g) && in(source->generations, g));
    for (std::uint64_t g : in_base.damaged)  // (a generation found damaged on the way moves as one)
      taken = taken || (!in(target->damaged, g) && (in(source->generations, g) || in(source->damaged, g)));
    if (taken)
      return error{errc::already_exists, 0,
                   quoted(to) + " shares its file name with another slot's (a long name's hash): renamed, it " +
                       "would replace that slot's saves; choose another name"};
  }
  // Where saves may not be at hand (the browser's slots: slots::load_history_async), every
  // generation is read once before anything is written: a rename never stops half done
  // for want of one, leaving a copy of the newest under `to`.
  if (s.fs->fetches()) {
    generation_walk check{s, from_base, source->generations, sections::all, from};
    while (std::optional<met_generation> met = check.next())
      if (met->what == met_generation::kind::unreadable) return std::move(*met->failure);
    source = s.scan_slot(from, from_base);  // (damaged ones met were set aside)
    if (!source) return std::move(source).error();
  }
  // Every generation is written under the new name (its header names the slot), newest
  // first, before any old file goes: interrupted, `to` holds the newest save and `from`
  // all of them, and the rename can be run again.
  std::vector<std::uint64_t> moved;
  generation_walk walk{s, from_base, source->generations, sections::all, from};
  while (std::optional<met_generation> met = walk.next()) {
    const std::uint64_t g = met->generation;
    if (met->what == met_generation::kind::unreadable) return std::move(*met->failure);
    if (met->what == met_generation::kind::newer)  // never left behind to be deleted
      return error{
          errc::unsupported_version, 0,
          quoted(from) + " generation " + std::to_string(g) + ": " + met->problem() + "; the slot is left as it is"};
    moved.push_back(g);
    if (met->what == met_generation::kind::damaged) {  // not copied: set aside, moved below as it is
      source->damaged.push_back(g);
      continue;
    }
    if (std::find(target->generations.begin(), target->generations.end(), g) != target->generations.end()) continue;
    inspected& r = met->file;
    result<std::string> payload = s.sealed_for(r, r.payload, from, to);
    // An older generation sealed with a key the keyring no longer holds cannot be sealed for
    // the new name: it moves with its bytes as they are (it opened under no name before, and
    // still opens under none), so that the rename can finish. The newest must open.
    if (!payload && payload.error().code() == errc::key_not_held && g != source->generations.front())
      payload = std::move(r.payload);
    if (!payload) return std::move(payload).error();
    if (status written = s.write_generation(to_base, r.header, to, detail::encode_slot_meta(r.meta, r.compact_layout),
                                            r.thumbnail, *payload, s.path_of(from_base, g, slot_file_kind::generation));
        !written)
      return written;
  }
  if (status synced = s.fs->sync_directory(s.folder); !synced) return synced;
  for (auto g = moved.rbegin(); g != moved.rend(); ++g)                        // oldest first
    (void)s.fs->remove(s.path_of(from_base, *g, slot_file_kind::generation));  // gone already if set aside
  for (std::uint64_t g : source->damaged)
    (void)s.fs->rename(s.path_of(from_base, g, slot_file_kind::damaged),
                       s.path_of(to_base, g, slot_file_kind::damaged));
  return s.fs->sync_directory(s.folder);
}

}  // namespace savekit
