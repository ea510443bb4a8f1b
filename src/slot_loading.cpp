// slots::load_async: a save's bytes fetched before a read, for file systems that hold only
// its first bytes until asked (the browser's slots; file_system::fetches). On other file
// systems every load is done at once.
//
// Loading the save read(name) reads goes one generation at a time, newest first: a read is
// tried; if it stops at a generation not loaded, the first generation of the slot not
// fetched yet by this load is fetched, and the read tried again. Each round fetches a file
// it had not, so a load ends within the slot's generations; one that is damaged is set
// aside by the read, as any read does, and the next one fetched.
#include <algorithm>
#include <memory>
#include <set>

#include "slots_state.hpp"

namespace savekit {

using detail::sections;
using detail::slot_file_kind;

// Holds the slots weakly between rounds: slots closed while a fetch is under way are let go
// at once (their lock released), and the load ends with an error instead of touching them.
struct slots::loader : std::enable_shared_from_this<slots::loader> {
  std::weak_ptr<slots::state> folder;
  std::string name;
  std::function<void(status)> done;
  std::set<std::uint64_t> fetched;

  static error closed() { return error{errc::io_error, 0, "the slots were closed before the save was loaded"}; }

  // The slots are held only within a step, never while done runs: a game that closes them
  // in done and opens them again finds them closed (their lock released).
  void round() {
    file_system* fs = nullptr;
    std::string path;
    status outcome = step(fs, path);
    if (path.empty()) return finish(std::move(outcome));
    fs->fetch(path, [self = shared_from_this()](status got) {
      if (!got) return self->finish(std::move(got));
      self->round();
    });
  }
  // A read tried: its outcome, or the next file to fetch (path) and the file system to ask.
  status step(file_system*& fs, std::string& path) {
    std::shared_ptr<slots::state> s = folder.lock();
    if (!s) return closed();
    result<slots::state::found_generation> found = s->newest_for_caller(name, sections::payload, nullptr);
    if (found) return {};
    if (found.error().code() != errc::not_loaded) return std::move(found).error();
    std::lock_guard lock(s->folder_mutex);
    const std::string base = detail::slot_file_base(name);
    result<detail::slot_files> files = s->scan_slot(name, base);
    if (!files) return std::move(files).error();
    for (std::uint64_t g : files->generations)
      if (fetched.insert(g).second) {
        path = s->path_of(base, g, slot_file_kind::generation);
        fs = s->fs;  // (alive while the slots are: the fetch's answer checks them again)
        return {};
      }
    return std::move(found).error();  // fetched all, and still not (gone meanwhile)
  }
  void finish(status outcome) {
    auto callback = std::move(done);
    if (callback) callback(std::move(outcome));
  }

  // The slot's kept generations and their files, newest first, after the writes queued.
  static result<std::vector<std::pair<std::uint64_t, std::string>>> kept_files(slots::state& s, std::string_view name) {
    s.wait_for_queue();
    std::lock_guard lock(s.folder_mutex);
    const std::string base = detail::slot_file_base(name);
    result<detail::slot_files> files = s.scan_slot(name, base);
    if (!files) return std::move(files).error();
    std::vector<std::pair<std::uint64_t, std::string>> out;
    for (std::uint64_t g : files->generations) out.emplace_back(g, s.path_of(base, g, slot_file_kind::generation));
    return out;
  }

  // Fetches paths one after the other; done with the first failure, or ok.
  static void fetch_each(std::weak_ptr<slots::state> folder, std::vector<std::string> paths, std::size_t at,
                         std::function<void(status)> done) {
    if (at == paths.size()) return done(status{});
    file_system* fs = nullptr;
    if (std::shared_ptr<slots::state> s = folder.lock()) fs = s->fs;  // (kept alive by the state: see round)
    if (!fs) return done(closed());
    const std::string path = paths[at];
    fs->fetch(path, [folder, paths = std::move(paths), at, done = std::move(done)](status got) mutable {
      if (!got) return done(std::move(got));
      fetch_each(std::move(folder), std::move(paths), at + 1, std::move(done));
    });
  }
};

void slots::load_async(std::string_view name, std::function<void(status)> done) {
  if (!done) done = [](status) {};
  if (status valid = check_name(name); !valid) return done(std::move(valid));
  if (!state_->fs->fetches()) return done(status{});
  auto loading = std::make_shared<loader>();
  loading->folder = state_;
  loading->name = std::string{name};
  loading->done = std::move(done);
  loading->round();
}

void slots::load_async(std::string_view name, std::uint64_t generation, std::function<void(status)> done) {
  if (!done) done = [](status) {};
  if (status valid = check_name(name); !valid) return done(std::move(valid));
  if (!state_->fs->fetches()) return done(status{});
  result<std::vector<std::pair<std::uint64_t, std::string>>> kept = loader::kept_files(*state_, name);
  if (!kept) return done(std::move(kept).error());
  for (auto& [g, path] : *kept)
    if (g == generation) return loader::fetch_each(std::weak_ptr<state>(state_), {std::move(path)}, 0, std::move(done));
  done(error{errc::not_found, 0, detail::quoted(name) + " keeps no generation " + std::to_string(generation)});
}

void slots::load_history_async(std::string_view name, std::function<void(status)> done) {
  if (!done) done = [](status) {};
  if (status valid = check_name(name); !valid) return done(std::move(valid));
  if (!state_->fs->fetches()) return done(status{});
  result<std::vector<std::pair<std::uint64_t, std::string>>> kept = loader::kept_files(*state_, name);
  if (!kept) return done(std::move(kept).error());
  if (kept->empty()) return done(error{errc::not_found, 0, "no " + detail::quoted(name) + " in " + state_->folder});
  std::vector<std::string> paths;
  for (auto& [g, path] : *kept) paths.push_back(std::move(path));
  loader::fetch_each(std::weak_ptr<state>(state_), std::move(paths), 0, std::move(done));
}

}  // namespace savekit
