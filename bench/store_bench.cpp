// The store's costs, next to what they stand on, in one run:
//  - per-key set/get of the seed's Status (PlayerPrefs' "non Serialize" way) and whole-object
//    set/get per format, next to the bare codec: what the store adds;
//  - commit latency (one small key changed, then save()) for stores of 1 key to 10 MB, next
//    to a raw 200-byte append + fdatasync on the same disk: a commit must not grow with size;
//  - open time against store size.
// Files go to ./store-bench (the current directory's disk); set SAVEKIT_BENCH_DIR to move it.
#include <benchmark/benchmark.h>

#include <savekit/prefs.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "bench_objects.hpp"
#include "per_key.hpp"

namespace {

std::filesystem::path bench_dir() {
  const char* configured = std::getenv("SAVEKIT_BENCH_DIR");
  std::filesystem::path dir = configured ? configured : "store-bench";
  std::filesystem::create_directories(dir);
  return dir;
}

[[noreturn]] void fail(const savekit::error& e) {
  std::fprintf(stderr, "store_bench: %s\n", e.to_string().c_str());
  std::exit(1);
}

void check(const savekit::status& s) {
  if (!s) fail(s.error());
}

savekit::prefs memory_store() {
  auto p = savekit::prefs::open(savekit::make_memory_backend());
  if (!p) fail(p.error());
  return std::move(*p);
}

// ---- per key vs whole object ---------------------------------------------------------------

void BM_PerKey_Set(benchmark::State& state) {
  auto p = memory_store();
  auto status = seeds::seed_status();
  for (auto _ : state) check(bench::set_per_key(p, status));
}
BENCHMARK(BM_PerKey_Set)->Name("Status/set/per-key (11 keys)");

void BM_PerKey_Get(benchmark::State& state) {
  auto p = memory_store();
  check(bench::set_per_key(p, seeds::seed_status()));
  seeds::Status out;
  for (auto _ : state) {
    bench::get_per_key(p, out);
    benchmark::DoNotOptimize(out);
  }
  if (!(out == seeds::seed_status())) state.SkipWithError("per-key round trip failed");
}
BENCHMARK(BM_PerKey_Get)->Name("Status/get/per-key (11 keys)");

const char* format_name(savekit::object_encoding f) {
  switch (f) {
    case savekit::object_encoding::json:
      return "JSON";
    case savekit::object_encoding::msgpack_compact:
      return "MessagePack compact";
    default:
      return "MessagePack map";
  }
}

void register_object_benchmarks() {
  for (auto f :
       {savekit::object_encoding::msgpack, savekit::object_encoding::msgpack_compact, savekit::object_encoding::json}) {
    std::string name = format_name(f);
    benchmark::RegisterBenchmark(("Status/set/object " + name).c_str(), [f](benchmark::State& state) {
      auto p = memory_store();
      auto status = seeds::seed_status();
      for (auto _ : state) check(p.set("status", status, f));
    });
    benchmark::RegisterBenchmark(("Status/get/object " + name).c_str(), [f](benchmark::State& state) {
      auto p = memory_store();
      check(p.set("status", seeds::seed_status(), f));
      seeds::Status out;
      for (auto _ : state) {
        check(p.get_into("status", out));
        benchmark::DoNotOptimize(out);
      }
      if (!(out == seeds::seed_status())) state.SkipWithError("object round trip failed");
    });
    // The codec alone, for the difference.
    benchmark::RegisterBenchmark(("Status/set/codec only " + name).c_str(), [f](benchmark::State& state) {
      auto status = seeds::seed_status();
      std::string buffer;
      for (auto _ : state) {
        if (f == savekit::object_encoding::json)
          savekit::to_json(status, buffer);
        else
          savekit::to_msgpack(status, buffer,
                              {.form = f == savekit::object_encoding::msgpack_compact ? savekit::msgpack_form::compact
                                                                                      : savekit::msgpack_form::map});
        benchmark::DoNotOptimize(buffer);
      }
    });
    benchmark::RegisterBenchmark(("Status/get/codec only " + name).c_str(), [f](benchmark::State& state) {
      std::string buffer;
      if (f == savekit::object_encoding::json)
        savekit::to_json(seeds::seed_status(), buffer);
      else
        savekit::to_msgpack(seeds::seed_status(), buffer,
                            {.form = f == savekit::object_encoding::msgpack_compact ? savekit::msgpack_form::compact
                                                                                    : savekit::msgpack_form::map});
      seeds::Status out;
      for (auto _ : state) {
        bool ok = f == savekit::object_encoding::json
                      ? savekit::from_json(buffer, out).has_value()
                      : savekit::from_msgpack(std::string_view{buffer}, out).has_value();
        benchmark::DoNotOptimize(ok);
      }
    });
  }
}

// ---- durable commits -----------------------------------------------------------------------

// A store of about `bytes` bytes of 1 KiB values, compacted, at path.
void prefill(const std::string& path, std::size_t bytes) {
  std::filesystem::remove(path);
  auto p = savekit::prefs::open(path);
  if (!p) fail(p.error());
  std::string value(1024, 'v');
  for (std::size_t i = 0; i * 1024 < bytes; ++i) check(p->set_string("key" + std::to_string(i), value));
  check(p->save());
}

void BM_Commit(benchmark::State& state) {
  auto size = static_cast<std::size_t>(state.range(0));
  std::string path = (bench_dir() / ("commit-" + std::to_string(size) + ".prefs")).string();
  prefill(path, size);
  auto p = savekit::prefs::open(path);
  if (!p) fail(p.error());
  std::int64_t i = 0;
  for (auto _ : state) {
    check(p->set_int("Status1.lv", ++i));
    check(p->save());
  }
  state.counters["store_bytes"] = static_cast<double>(std::filesystem::file_size(path));
}
BENCHMARK(BM_Commit)
    ->Name("commit/one small key + save()")
    ->Arg(0)
    ->Arg(100 << 10)
    ->Arg(1 << 20)
    ->Arg(10 << 20)
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(2.0);

// The floor: append 200 bytes and fdatasync, on the same disk.
void BM_AppendSync(benchmark::State& state) {
  std::string path = (bench_dir() / "raw-append.bin").string();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) std::exit(1);
  std::string record(200, 'r');
  for (auto _ : state) {
    if (::write(fd, record.data(), record.size()) != static_cast<ssize_t>(record.size()) || ::fdatasync(fd) != 0)
      state.SkipWithError("append failed");
  }
  ::close(fd);
}
BENCHMARK(BM_AppendSync)
    ->Name("commit/baseline: raw 200 B append + fdatasync")
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(2.0);

void BM_Open(benchmark::State& state) {
  auto size = static_cast<std::size_t>(state.range(0));
  std::string path = (bench_dir() / ("open-" + std::to_string(size) + ".prefs")).string();
  prefill(path, size);
  for (auto _ : state) {
    auto p = savekit::prefs::open(path);
    if (!p) fail(p.error());
    benchmark::DoNotOptimize(p);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * std::filesystem::file_size(path)));
}
BENCHMARK(BM_Open)->Name("open")->Arg(0)->Arg(100 << 10)->Arg(1 << 20)->Arg(10 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  register_object_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(bench_dir());
}
