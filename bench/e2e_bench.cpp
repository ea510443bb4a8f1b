// The way a save goes, from the game's call to durable, each step beside its floor — what
// the same work costs with nothing of savekit's in it — in one run (bench/run.sh e2e):
//  - prefs set/get of an object beside the codec alone into a reused buffer;
//  - prefs save() of one changed key beside one write + fdatasync of the same record size
//    on the same file system;
//  - slots write of 1 KB, 100 KB, 1 MB and 10 MB saves beside the system calls its promise
//    needs, made by hand on the same folder: write a new file, fsync it, rename it over,
//    fsync the folder (and beside the save's encoding alone, which the floor lacks);
//    write_async's time on the game's thread beside write's, and the game's frames while
//    the write is in flight beside the same frames with no write and with a plain thread
//    making the floor's system calls;
//  - the load menu: list() of 100 slots with thumbnails beside readdir and a read of each
//    newest generation's header and metadata.
// Benchmarks are named GROUP/CASE/WAY, WAY being "savekit" or "floor" (or "caller" for
// write_async); bench/report.py e2e pairs them. Files go under ./e2e-bench (the current
// directory's disk); SAVEKIT_BENCH_DIR moves it.
#include <benchmark/benchmark.h>

#include <savekit/prefs.hpp>
#include <savekit/slots.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "slot_saves.hpp"

namespace {

using bench::menu_meta;
using bench::save_of_about;
using bench::SaveGame;

std::filesystem::path bench_dir(const std::string& name) { return bench::fresh_folder("e2e-bench", name); }

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "e2e_bench: %s\n", what.c_str());
  std::exit(1);
}
void check(const savekit::status& s) {
  if (!s) fail(s.error().to_string());
}
void check_call(bool ok, const char* what) {
  if (!ok) fail(std::string{what} + ": " + std::strerror(errno));
}

// ---- prefs: set and get of an object -----------------------------------------------------

struct encoding_case {
  const char* name;
  savekit::object_encoding encoding;
};
const encoding_case encodings[] = {{"MessagePack map", savekit::object_encoding::msgpack},
                                   {"MessagePack compact", savekit::object_encoding::msgpack_compact},
                                   {"JSON", savekit::object_encoding::json}};

void encode(const seeds::Status& status, savekit::object_encoding encoding, std::string& out) {
  if (encoding == savekit::object_encoding::json)
    savekit::to_json(status, out);
  else
    savekit::to_msgpack(status, out,
                        {.form = encoding == savekit::object_encoding::msgpack_compact ? savekit::msgpack_form::compact
                                                                                       : savekit::msgpack_form::map});
}

savekit::prefs memory_store() {
  auto p = savekit::prefs::open(savekit::make_memory_backend());
  if (!p) fail(p.error().to_string());
  return std::move(*p);
}

void register_prefs_objects() {
  for (const encoding_case& e : encodings) {
    const std::string group = std::string{"prefs set/object "} + e.name;
    benchmark::RegisterBenchmark((group + "/savekit").c_str(), [e](benchmark::State& state) {
      auto p = memory_store();
      const auto status = seeds::seed_status();
      for (auto _ : state) check(p.set("status", status, e.encoding));
    });
    benchmark::RegisterBenchmark((group + "/floor").c_str(), [e](benchmark::State& state) {
      const auto status = seeds::seed_status();
      std::string buffer;
      for (auto _ : state) {
        encode(status, e.encoding, buffer);
        benchmark::DoNotOptimize(buffer.data());
      }
    });
    const std::string get = std::string{"prefs get/object "} + e.name;
    benchmark::RegisterBenchmark((get + "/savekit").c_str(), [e](benchmark::State& state) {
      auto p = memory_store();
      check(p.set("status", seeds::seed_status(), e.encoding));
      seeds::Status out;
      for (auto _ : state) {
        check(p.get_into("status", out));
        benchmark::DoNotOptimize(out);
      }
      if (!(out == seeds::seed_status())) fail("prefs get: the object differs");
    });
    benchmark::RegisterBenchmark((get + "/floor").c_str(), [e](benchmark::State& state) {
      std::string buffer;
      encode(seeds::seed_status(), e.encoding, buffer);
      seeds::Status out;
      for (auto _ : state) {
        const bool ok = e.encoding == savekit::object_encoding::json
                            ? savekit::from_json(buffer, out).has_value()
                            : savekit::from_msgpack(std::string_view{buffer}, out).has_value();
        if (!ok) fail("decode");
        benchmark::DoNotOptimize(out);
      }
    });
  }
}

// ---- prefs: save() of one changed key ----------------------------------------------------

// A store of 100 small keys, one of which each save changes.
savekit::prefs file_store(const std::filesystem::path& dir) {
  auto p = savekit::prefs::open((dir / "game.prefs").string());
  if (!p) fail(p.error().to_string());
  for (int i = 0; i < 100; ++i) check(p->set_int("key" + std::to_string(i), i));
  check(p->save());
  return std::move(*p);
}

// The bytes one save() of one changed key appends, on average over many.
std::size_t record_bytes_of_one_change() {
  const auto dir = bench_dir("prefs-record");
  auto p = file_store(dir);
  const auto before = std::filesystem::file_size(dir / "game.prefs");
  for (int i = 0; i < 64; ++i) {
    check(p.set_int("key7", 1000 + i));
    check(p.save());
  }
  const auto after = std::filesystem::file_size(dir / "game.prefs");
  if (after <= before) fail("a save appended nothing (the store compacted?)");
  return static_cast<std::size_t>((after - before) / 64);
}

void BM_PrefsSave(benchmark::State& state) {
  const auto dir = bench_dir("prefs-save");
  auto p = file_store(dir);
  std::int64_t i = 0;
  for (auto _ : state) {
    check(p.set_int("key7", ++i));
    check(p.save());
  }
}
BENCHMARK(BM_PrefsSave)->Name("prefs save/one changed key/savekit")->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_PrefsSaveFloor(benchmark::State& state) {
  const auto record = std::string(record_bytes_of_one_change(), 'r');
  const auto dir = bench_dir("prefs-floor");
  const int fd = ::open((dir / "floor.bin").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  check_call(fd >= 0, "open");
  for (auto _ : state)
    check_call(::write(fd, record.data(), record.size()) == static_cast<ssize_t>(record.size()) && ::fdatasync(fd) == 0,
               "write + fdatasync");
  ::close(fd);
  state.counters["record_bytes"] = static_cast<double>(record.size());
}
BENCHMARK(BM_PrefsSaveFloor)->Name("prefs save/one changed key/floor")->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---- slots: write, write_async -----------------------------------------------------------

const std::int64_t slot_sizes[] = {1 << 10, 100 << 10, 1 << 20, 10 << 20};

std::string size_name(std::int64_t bytes) {
  return bytes >= (1 << 20) ? std::to_string(bytes >> 20) + " MB" : std::to_string(bytes >> 10) + " KB";
}

savekit::slots open_slots(const std::filesystem::path& dir) {
  auto s = savekit::slots::open(dir.string());
  if (!s) fail(s.error().to_string());
  return std::move(*s);
}

// The size of the generation file a write of this save makes.
std::uintmax_t slot_file_bytes(const SaveGame& save) {
  const auto dir = bench_dir("slot-file-size");
  {
    auto s = open_slots(dir);
    check(s.write("slot1", save, menu_meta(1)));
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".slot") return entry.file_size();
  fail("no generation file");
}

// Calls per repetition: a fixed number, since only the call is timed and each waits for its
// write (a minimum time of calls of a few µs would take thousands of 10 MB writes).
constexpr benchmark::IterationCount async_calls = 200;

// Each call's time, for the slowest ones: a game feels the hitch, not the mean (a worker
// woken onto the game's core once stalled one call in five for a whole encode).
struct call_times {
  std::vector<double> seconds;
  double add(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point stop) {
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
    return seconds.back();
  }
  void report(benchmark::State& state) {
    if (seconds.empty()) return;
    std::sort(seconds.begin(), seconds.end());
    state.counters["p90_us"] = seconds[seconds.size() * 9 / 10] * 1e6;
    state.counters["slowest_us"] = seconds.back() * 1e6;
  }
};

// write_async as the game calls it, the save kept (copied) or handed over (moved). Only the
// call is timed; the write finishes (flush) outside the timing, as does the copy a moved
// save is made from.
void register_write_async(std::int64_t bytes, bool moved) {
  const std::string name = "slots write_async/" + size_name(bytes) + (moved ? "/caller, moved" : "/caller");
  benchmark::RegisterBenchmark(
      name.c_str(),
      [bytes, moved](benchmark::State& state) {
        auto s = open_slots(bench_dir("async-" + std::to_string(moved) + "-" + std::to_string(bytes)));
        const SaveGame save = save_of_about(static_cast<std::size_t>(bytes));
        call_times calls;
        for (auto _ : state) {
          SaveGame handed_over = moved ? save : SaveGame{};
          const auto start = std::chrono::steady_clock::now();
          if (moved)
            s.write_async("slot1", std::move(handed_over), menu_meta(1));
          else
            s.write_async("slot1", save, menu_meta(1));
          const auto stop = std::chrono::steady_clock::now();
          state.SetIterationTime(calls.add(start, stop));
          check(s.flush());
        }
        calls.report(state);
      })
      ->Unit(benchmark::kMicrosecond)
      ->UseManualTime()
      ->Iterations(async_calls);
}

// The floor of a slot write: what its promise (the old save stays until the new one is whole
// and durable) needs from the file system, for a file of these bytes, in the folder dir
// (open as folder).
void floor_write(const std::filesystem::path& dir, int folder, const std::string& file) {
  const std::string temporary = (dir / "s-slot1.tmp").string();
  const std::string final_name = (dir / "s-slot1.slot").string();
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  check_call(fd >= 0, "open");
  check_call(::write(fd, file.data(), file.size()) == static_cast<ssize_t>(file.size()), "write");
  check_call(::fsync(fd) == 0 && ::close(fd) == 0, "fsync");
  check_call(::rename(temporary.c_str(), final_name.c_str()) == 0, "rename");
  check_call(::fsync(folder) == 0, "fsync the folder");
}

// A frame of a game's work: a particle update over 2 MB of floats (a few ms here), whose
// running sum keeps it scalar and its result used.
struct frame_work {
  std::vector<float> position = std::vector<float>(std::size_t{1} << 18, 1.0f);
  std::vector<float> velocity = std::vector<float>(std::size_t{1} << 18, 0.5f);
  float run() {
    float sum = 0;
    for (int step = 0; step < 8; ++step)
      for (std::size_t i = 0; i < position.size(); ++i) {
        velocity[i] = velocity[i] * 0.999f + 0.001f * position[i];
        position[i] += velocity[i] * 0.016f;
        sum += position[i];
      }
    return sum;
  }
};

// A plain thread of the program (no savekit, the default policy) that makes the floor's
// system calls for a file when asked: the floor of a write in the background.
class floor_writer_thread {
 public:
  floor_writer_thread(std::filesystem::path dir, std::string file)
      : dir_(std::move(dir)),
        file_(std::move(file)),
        folder_(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    check_call(folder_ >= 0, "open the folder");
    thread_ = std::thread([this] { run(); });
  }
  floor_writer_thread(const floor_writer_thread&) = delete;
  floor_writer_thread& operator=(const floor_writer_thread&) = delete;
  ~floor_writer_thread() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
    ::close(folder_);
  }
  void start_write() {
    {
      std::lock_guard lock(mutex_);
      ++asked_;
    }
    changed_.notify_all();
  }
  bool done() const {
    std::lock_guard lock(mutex_);
    return written_ == asked_;
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || asked_ > written_; });
      if (stopping_) return;
      lock.unlock();
      floor_write(dir_, folder_, file_);
      lock.lock();
      ++written_;
    }
  }
  std::filesystem::path dir_;
  std::string file_;
  int folder_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::int64_t asked_ = 0, written_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

// The game's frames while a save is written in the background: a fixed frame of work, run
// again and again from the frame in which the write starts (its call inside that frame)
// until the write is done — by savekit's write_async (the save handed over), or by the
// floor's thread making the system calls alone; beside the same frame with no write. What
// the write costs the game's thread beyond the call: the core, the caches and the memory it
// shares, the kernel's copy and the device's interrupts. Each row copies the save just
// before the first frame (the copy write_async is handed), so that all start alike. The
// time is each write's mean frame; every frame goes into the percentiles.
enum class frame_writer { none, savekit, floor };

void register_frames_while_writing(std::int64_t bytes, frame_writer way) {
  const char* what = way == frame_writer::none      ? "/frames, no write"
                     : way == frame_writer::savekit ? "/frames, write_async in flight"
                                                    : "/frames, the floor's write in flight";
  const std::string name = "slots write_async/" + size_name(bytes) + what;
  benchmark::RegisterBenchmark(
      name.c_str(),
      [bytes, way](benchmark::State& state) {
        const std::string tag = std::to_string(static_cast<int>(way)) + "-" + std::to_string(bytes);
        auto s = open_slots(bench_dir("frames-" + tag));
        const SaveGame save = save_of_about(static_cast<std::size_t>(bytes));
        std::optional<floor_writer_thread> floor;
        if (way == frame_writer::floor)
          floor.emplace(bench_dir("frames-floor-" + tag), std::string(slot_file_bytes(save), 'f'));
        frame_work frame;
        call_times frames;
        for (auto _ : state) {
          SaveGame handed_over = save;
          double total = 0;
          int count = 0;
          for (bool in_flight = true; in_flight;) {
            const auto start = std::chrono::steady_clock::now();
            if (count == 0 && way == frame_writer::savekit)
              s.write_async("slot1", std::move(handed_over), menu_meta(1));
            if (count == 0 && way == frame_writer::floor) floor->start_write();
            benchmark::DoNotOptimize(frame.run());
            total += frames.add(start, std::chrono::steady_clock::now());
            ++count;
            in_flight = way == frame_writer::savekit ? s.pending_writes() != 0
                        : way == frame_writer::floor ? !floor->done()
                                                     : false;
          }
          state.SetIterationTime(total / count);
          check(s.flush());
        }
        frames.report(state);
        state.counters["frames_per_write"] = static_cast<double>(frames.seconds.size()) / async_calls;
      })
      ->Unit(benchmark::kMicrosecond)
      ->UseManualTime()
      ->Iterations(async_calls);
}

void register_slot_writes() {
  for (std::int64_t bytes : slot_sizes) {
    const std::string group = "slots write/" + size_name(bytes);
    benchmark::RegisterBenchmark((group + "/savekit").c_str(),
                                 [bytes](benchmark::State& state) {
                                   auto s = open_slots(bench_dir("write-" + std::to_string(bytes)));
                                   const SaveGame save = save_of_about(static_cast<std::size_t>(bytes));
                                   for (auto _ : state) check(s.write("slot1", save, menu_meta(1)));
                                 })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    // What of it is the encoding (MessagePack into a reused buffer), which no floor has.
    benchmark::RegisterBenchmark((group + "/encode").c_str(),
                                 [bytes](benchmark::State& state) {
                                   const SaveGame save = save_of_about(static_cast<std::size_t>(bytes));
                                   std::string buffer;
                                   for (auto _ : state) {
                                     savekit::to_msgpack(save, buffer);
                                     benchmark::DoNotOptimize(buffer.data());
                                   }
                                 })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    // The floor: what the promise (the old save stays until the new one is whole and
    // durable) needs from the file system, for a file of the same size.
    benchmark::RegisterBenchmark((group + "/floor").c_str(),
                                 [bytes](benchmark::State& state) {
                                   const std::string file(
                                       slot_file_bytes(save_of_about(static_cast<std::size_t>(bytes))), 'f');
                                   const auto dir = bench_dir("floor-" + std::to_string(bytes));
                                   const int folder = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                                   check_call(folder >= 0, "open the folder");
                                   for (auto _ : state) floor_write(dir, folder, file);
                                   ::close(folder);
                                   state.counters["file_bytes"] = static_cast<double>(file.size());
                                 })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    if (bytes < (1 << 20)) continue;
    register_write_async(bytes, false);
    register_write_async(bytes, true);
    for (frame_writer way : {frame_writer::none, frame_writer::savekit, frame_writer::floor})
      register_frames_while_writing(bytes, way);
    // What the copied form cannot go below: the copy of the save alone.
    benchmark::RegisterBenchmark(("slots write_async/" + size_name(bytes) + "/the copy alone").c_str(),
                                 [bytes](benchmark::State& state) {
                                   const SaveGame save = save_of_about(static_cast<std::size_t>(bytes));
                                   for (auto _ : state) {
                                     SaveGame copy = save;
                                     benchmark::DoNotOptimize(copy);
                                   }
                                 })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
}

// ---- the load menu -----------------------------------------------------------------------

constexpr int menu_slots = 100;
constexpr std::size_t thumbnail_bytes = 32 << 10;

// A folder of 100 slots of ~100 KB saves with 32 KB thumbnails, three generations each.
std::filesystem::path menu_folder() {
  static const std::filesystem::path dir = [] {
    auto d = bench_dir("menu");
    auto s = open_slots(d);
    const SaveGame save = save_of_about(100 << 10);
    for (int generation = 0; generation < 3; ++generation)
      for (int i = 0; i < menu_slots; ++i)
        check(s.write("slot " + std::to_string(i), save, menu_meta(i, thumbnail_bytes)));
    return d;
  }();
  return dir;
}

void BM_List(benchmark::State& state) {
  auto s = open_slots(menu_folder());
  for (auto _ : state) {
    auto menu = s.list();
    if (!menu || menu->size() != menu_slots) fail("list()");
    benchmark::DoNotOptimize(menu->data());
  }
}
BENCHMARK(BM_List)->Name("slots list/100 slots with thumbnails/savekit")->Unit(benchmark::kMicrosecond);

// The floor: the folder read, and for each slot its newest generation (BASE.N.slot with
// the greatest N) opened and its header and metadata read — one read of 4 KB, a second
// when they are longer — then closed. Nothing is checked or parsed beyond the sizes.
std::uint32_t u32_at(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // (little-endian, as the file: the benchmark runs on x86-64)
}

void BM_ListFloor(benchmark::State& state) {
  const auto dir = menu_folder();
  std::string buffer(4096, '\0');
  for (auto _ : state) {
    std::map<std::string, unsigned long long> newest;
    DIR* folder = ::opendir(dir.c_str());
    check_call(folder != nullptr, "opendir");
    while (const dirent* entry = ::readdir(folder)) {
      const std::string_view name{entry->d_name};
      if (name.size() < 6 || name.substr(name.size() - 5) != ".slot") continue;
      const auto dot = name.rfind('.', name.size() - 6);
      if (dot == std::string_view::npos) continue;
      const unsigned long long generation = std::strtoull(std::string{name.substr(dot + 1)}.c_str(), nullptr, 10);
      auto& kept = newest[std::string{name.substr(0, dot)}];
      kept = std::max(kept, generation);
    }
    ::closedir(folder);
    std::size_t read_bytes = 0;
    for (const auto& [base, generation] : newest) {
      const std::string path = (dir / (base + "." + std::to_string(generation) + ".slot")).string();
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      check_call(fd >= 0, "open");
      const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), 0);
      check_call(got >= 84, "read a header");
      const std::size_t wanted = 84 + std::size_t{u32_at(buffer.data() + 48)} + u32_at(buffer.data() + 52);
      if (wanted > buffer.size()) {
        buffer.resize(wanted);
        check_call(::pread(fd, buffer.data(), wanted, 0) == static_cast<ssize_t>(wanted), "read the metadata");
      }
      read_bytes += wanted;
      ::close(fd);
    }
    if (newest.size() != menu_slots) fail("the floor found another number of slots");
    benchmark::DoNotOptimize(read_bytes);
  }
}
BENCHMARK(BM_ListFloor)->Name("slots list/100 slots with thumbnails/floor")->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  register_prefs_objects();
  register_slot_writes();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
