// Codec speed, savekit next to its peers, in one run: write and read of the seeds'
// SaveGame and Status and of a large save, with encoded size, MB/s and heap allocations
// per operation. Every way's output is read back and compared before it is timed.
//
//   build/release/bench/codec_bench                       # all
//   build/release/bench/codec_bench --benchmark_filter=SaveGame/
//   bench/run.sh codecs                                   # all, 3 repetitions, then the tables
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "alloc_counter.hpp"
#include "bench_objects.hpp"
#include "peers/floor.hpp"
#include "peers/glaze.hpp"
#include "peers/msgpack_cxx.hpp"
#include "peers/nlohmann.hpp"
#include "peers/rapidjson.hpp"
#include "peers/savekit_ways.hpp"
#include "peers/simdjson.hpp"
#include "world.hpp"

namespace {

template <class Buffer>
std::size_t buffer_size(const Buffer& b) {
  if constexpr (requires { b.GetSize(); })
    return b.GetSize();
  else
    return b.size();
}

void report_allocations(benchmark::State& state, bench::alloc_stats before, std::size_t encoded_size) {
  bench::alloc_stats after = bench::allocations();
  auto per_op = [&](std::uint64_t total) {
    return benchmark::Counter(static_cast<double>(total), benchmark::Counter::kAvgIterations);
  };
  state.counters["allocs_per_op"] = per_op(after.count - before.count);
  state.counters["alloc_bytes_per_op"] = per_op(after.bytes - before.bytes);
  state.counters["size"] = static_cast<double>(encoded_size);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * encoded_size));
}

[[noreturn]] void round_trip_failed(const char* way, const char* object) {
  std::fprintf(stderr, "round trip failed: %s on %s\n", way, object);
  std::exit(1);
}

// Write: serialize into a buffer kept across iterations (what a game that saves often does).
template <class Way, class Value>
void register_write(const char* object, const Value& value) {
  std::string name = std::string(object) + "/write/" + Way::name;
  benchmark::RegisterBenchmark(name.c_str(), [value](benchmark::State& state) {
    typename Way::buffer buffer;
    Way::write(value, buffer);
    auto before = bench::allocations();
    for (auto _ : state) {
      Way::write(value, buffer);
      benchmark::DoNotOptimize(buffer);
    }
    report_allocations(state, before, buffer_size(buffer));
  });
}

// Read into a freshly constructed object each time (what the peer anchors measure), and
// into one object reused across iterations (what a game loading into its state does).
template <class Way, class Value, class Target, class Equal>
void register_read(const char* object, typename Way::buffer input, Equal equal) {
  Target check{};
  if (!Way::read(input, check) || !equal(check)) round_trip_failed(Way::name, object);
  auto shared = std::make_shared<typename Way::buffer>(std::move(input));
  std::string fresh = std::string(object) + "/read/" + Way::name;
  benchmark::RegisterBenchmark(fresh.c_str(), [shared](benchmark::State& state) {
    auto before = bench::allocations();
    for (auto _ : state) {
      Target target{};
      bool ok = Way::read(*shared, target);
      benchmark::DoNotOptimize(ok);
      benchmark::DoNotOptimize(target);
    }
    report_allocations(state, before, buffer_size(*shared));
  });
  std::string reuse = std::string(object) + "/read-reuse/" + Way::name;
  benchmark::RegisterBenchmark(reuse.c_str(), [shared](benchmark::State& state) {
    Target target{};
    (void)Way::read(*shared, target);
    auto before = bench::allocations();
    for (auto _ : state) {
      bool ok = Way::read(*shared, target);
      benchmark::DoNotOptimize(ok);
      benchmark::DoNotOptimize(target);
    }
    report_allocations(state, before, buffer_size(*shared));
  });
}

// Every way in the list: written and read back (or, for a way that only reads, reading
// savekit's JSON). A way whose library was not found is skipped.
template <class Way, class T>
void register_way(const char* object, const T& value) {
  if constexpr (!Way::found) {
    bench::skip<Way>();
  } else if constexpr (requires(typename Way::buffer & b) { Way::write(value, b); }) {
    register_write<Way>(object, value);
    typename Way::buffer buffer;
    Way::write(value, buffer);
    register_read<Way, T, T>(object, std::move(buffer), [value](const T& read) { return read == value; });
  } else {
    register_read<Way, T, T>(object, typename Way::buffer(savekit::to_json(value)),
                             [value](const T& read) { return read == value; });
  }
}

template <class... Ways, class T>
void register_ways(const char* object, const T& value) {
  (register_way<Ways>(object, value), ...);
}

using namespace bench::ways;
using savekit_map = savekit_msgpack<savekit::msgpack_form::map>;
using savekit_compact = savekit_msgpack<savekit::msgpack_form::compact>;

// The seeds' objects: every way. Glaze's four forms beside savekit's three.
template <class T>
void register_seed_object(const char* object, const T& value) {
  register_ways<savekit_json, savekit_map, savekit_compact, glaze_json, glaze_msgpack_array, glaze_msgpack_map,
                glaze_beve, rapidjson_dom, nlohmann_json, simdjson_ondemand, msgpack_cxx>(object, value);
}

}  // namespace

// A small save into a buffer that once held a large one (cleared, capacity kept): the cost
// must be the small save's, not a pass over the whole capacity.
void register_large_buffer_reuse() {
  benchmark::RegisterBenchmark("Status/write into a cleared 1 MiB buffer/savekit JSON", [](benchmark::State& state) {
    seeds::Status status = seeds::seed_status();
    std::string buffer;
    buffer.reserve(std::size_t{1} << 20);
    for (auto _ : state) {
      buffer.clear();
      savekit::to_json(status, buffer);
      benchmark::DoNotOptimize(buffer);
    }
  });
}

int main(int argc, char** argv) {
  register_large_buffer_reuse();
  register_seed_object("SaveGame", seeds::seed_save_game());
  register_ways<hand_written_floor>("SaveGame", seeds::seed_save_game());
  register_seed_object("Status", seeds::seed_status());
  register_seed_object("SaveGame10k", bench::large_save_game());
  register_ways<hand_written_floor>("SaveGame10k", bench::large_save_game());
  // The world: floats, strings, nested vectors, a map and an optional; the peers whose
  // adapters know its types.
  register_ways<savekit_json, savekit_map, savekit_compact, glaze_json, glaze_msgpack_array, glaze_msgpack_map,
                glaze_beve, nlohmann_json>("World", bench::make_world());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const std::string& library : bench::skipped_libraries())
    std::fprintf(stderr, "skipped: %s (not found when this program was configured)\n", library.c_str());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
