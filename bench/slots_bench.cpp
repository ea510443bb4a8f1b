// Save slots' costs, in one run:
//  - the load menu: list() over 100 slots of 1 KB and of 1 MB saves — its cost must not
//    follow the payloads' size (it reads headers and metadata only);
//  - the calling thread's time: write() (encode, write, fsync, rename, folder sync) against
//    write_async() (the snapshot only), for saves of 10 KB, 1 MB and 10 MB.
// Folders go under ./slots-bench (the current directory's disk); SAVEKIT_BENCH_DIR moves it.
#include <benchmark/benchmark.h>

#include <savekit/slots.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "slot_saves.hpp"

namespace {

using bench::menu_meta;
using bench::save_of_about;
using bench::SaveGame;

std::filesystem::path bench_dir(const std::string& name) { return bench::fresh_folder("slots-bench", name); }

[[noreturn]] void fail(const savekit::error& e) {
  std::fprintf(stderr, "slots_bench: %s\n", e.to_string().c_str());
  std::exit(1);
}

savekit::slots open_slots(const std::filesystem::path& dir) {
  auto s = savekit::slots::open(dir.string());
  if (!s) fail(s.error());
  return std::move(*s);
}

void BM_List(benchmark::State& state) {
  const auto payload = static_cast<std::size_t>(state.range(0));
  auto dir = bench_dir("list-" + std::to_string(payload));
  savekit::slots s = open_slots(dir);
  const SaveGame save = save_of_about(payload);
  for (int i = 0; i < 100; ++i)
    if (auto st = s.write("slot " + std::to_string(i), save, menu_meta(i)); !st) fail(st.error());
  for (auto _ : state) {
    auto menu = s.list();
    if (!menu || menu->size() != 100) fail(menu ? savekit::error{} : menu.error());
    benchmark::DoNotOptimize(menu);
  }
  state.counters["payload_bytes"] = static_cast<double>(s.info("slot 0")->bytes);
}
BENCHMARK(BM_List)->Name("list/100 slots")->Arg(1 << 10)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);

void BM_Write(benchmark::State& state) {
  const auto payload = static_cast<std::size_t>(state.range(0));
  savekit::slots s = open_slots(bench_dir("write-" + std::to_string(payload)));
  const SaveGame save = save_of_about(payload);
  for (auto _ : state)
    if (auto st = s.write("slot1", save, menu_meta(1)); !st) fail(st.error());
  state.counters["payload_bytes"] = static_cast<double>(s.info("slot1")->bytes);
}
BENCHMARK(BM_Write)
    ->Name("write/caller")
    ->Arg(10 << 10)
    ->Arg(1 << 20)
    ->Arg(10 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Only the call is timed; the background write finishes (flush) outside the timing, so
// each iteration starts with an idle worker.
void BM_WriteAsync(benchmark::State& state) {
  const auto payload = static_cast<std::size_t>(state.range(0));
  savekit::slots s = open_slots(bench_dir("write-async-" + std::to_string(payload)));
  const SaveGame save = save_of_about(payload);
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    s.write_async("slot1", save, menu_meta(1));
    auto stop = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
    if (auto st = s.flush(); !st) fail(st.error());
  }
  state.counters["payload_bytes"] = static_cast<double>(s.info("slot1")->bytes);
}
BENCHMARK(BM_WriteAsync)
    ->Name("write_async/caller")
    ->Arg(10 << 10)
    ->Arg(1 << 20)
    ->Arg(10 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(200);  // a minimum of timed calls of a few µs each would take many thousands of writes

}  // namespace

BENCHMARK_MAIN();
