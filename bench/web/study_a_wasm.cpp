// Study A as WebAssembly: the ways of bench/study_a.hpp (the same code the native study
// times), in memory, under node or in Chromium; in Chromium also through the IndexedDB
// backend with a committed save (a readwrite transaction) after every save.
//
//   node study_a_node.js [--iterations N] [--runs N] [--only NAME]  (prints one JSON line)
//   study_a.html?iterations=N&runs=N&indexeddb=N                   (bench/web/run_browser_bench.mjs)
//
// The result is the line starting "STUDY_A_JSON " — a JSON object (study_a_wasm_results,
// written by savekit) that `bench/report.py studies` reads.
#include <emscripten/emscripten.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../study_a.hpp"
#include "savekit/indexeddb.hpp"

namespace {

using bench::study_a::check;
using bench::study_a::die;
using bench::study_a::way_a;
using clock_type = std::chrono::steady_clock;

struct options {
  int iterations = 10000;
  int runs = 3;
  int indexeddb_iterations = 0;  // 0: no IndexedDB part
  std::string only;              // run only the ways whose name contains this (profiling)
};

// The result, as bench/report.py reads it.
struct memory_row {
  std::string name;
  std::vector<double> save_ns, load_ns;  // per operation, one figure per run
};
struct indexeddb_row {
  std::string name;
  double save_commit_us = 0;  // a save and its committed transaction
};
struct study_a_wasm_results {
  int iterations = 0, runs = 0, indexeddb_iterations = 0;
  std::vector<memory_row> memory;
  std::optional<std::vector<indexeddb_row>> indexeddb;  // left out when not run
};

double elapsed_ns(clock_type::time_point start) {
  return std::chrono::duration<double, std::nano>(clock_type::now() - start).count();
}

// In memory: the seed's loop — n saves timed, then n loads timed, `runs` times; per op.
std::vector<memory_row> run_memory(const options& opt) {
  std::vector<memory_row> rows;
  std::vector<way_a> ways = bench::study_a::study_a_ways();
  std::erase_if(ways, [&](const way_a& way) { return way.name.find(opt.only) == std::string::npos; });
  for (way_a& way : ways) {
    auto store = savekit::prefs::open(savekit::make_memory_backend());
    if (!store) die(store.error().to_string());
    const seeds::Status status = seeds::seed_status();
    seeds::Status loaded;
    // Warm-up, longer than natively: V8 first runs Liftoff code and tiers up to TurboFan.
    for (int i = 0; i < opt.iterations / 5 + 3; ++i) {
      way.save(*store, status);
      way.load(*store, loaded);
    }
    std::vector<double> save_ns, load_ns;
    for (int run = 0; run < opt.runs; ++run) {
      auto start = clock_type::now();
      for (int i = 0; i < opt.iterations; ++i) way.save(*store, status);
      save_ns.push_back(elapsed_ns(start) / opt.iterations);
      start = clock_type::now();
      for (int i = 0; i < opt.iterations; ++i) way.load(*store, loaded);
      load_ns.push_back(elapsed_ns(start) / opt.iterations);
    }
    if (!(loaded == status)) die(way.name + ": loaded Status differs from the saved one");
    rows.push_back({way.name, std::move(save_ns), std::move(load_ns)});
  }
  return rows;
}

// Through IndexedDB: every save followed by a committed transaction (awaited), per way.
struct indexeddb_run {
  options opt;
  std::vector<way_a> ways = bench::study_a::study_a_ways();
  std::size_t way = 0;
  std::optional<savekit::prefs> store;
  int done_saves = 0;
  clock_type::time_point started;
  std::vector<indexeddb_row> rows;
  std::function<void(std::vector<indexeddb_row>)> finished;
};

void next_indexeddb_way(std::shared_ptr<indexeddb_run> run);

void indexeddb_save_loop(std::shared_ptr<indexeddb_run> run) {
  if (run->done_saves == run->opt.indexeddb_iterations) {
    double per_save_us = elapsed_ns(run->started) / 1000.0 / run->opt.indexeddb_iterations;
    seeds::Status loaded;
    run->ways[run->way].load(*run->store, loaded);
    if (!(loaded == seeds::seed_status())) die(run->ways[run->way].name + ": IndexedDB load differs");
    run->rows.push_back({run->ways[run->way].name, per_save_us});
    run->store.reset();
    savekit::web::delete_indexeddb("study-a", [run](savekit::status s) {
      check(s, "delete_indexeddb");
      ++run->way;
      next_indexeddb_way(run);
    });
    return;
  }
  ++run->done_saves;
  run->ways[run->way].save(*run->store, seeds::seed_status());
  run->store->save_async([run](savekit::status s) {
    check(s, "IndexedDB commit");
    indexeddb_save_loop(run);
  });
}

void next_indexeddb_way(std::shared_ptr<indexeddb_run> run) {
  if (run->way == run->ways.size()) return run->finished(std::move(run->rows));
  savekit::web::open_indexeddb("study-a", [run](savekit::result<savekit::prefs> p, const savekit::web::storage_info&) {
    if (!p) die("open_indexeddb: " + p.error().to_string());
    run->store = std::move(*p);
    run->done_saves = 0;
    run->started = clock_type::now();
    indexeddb_save_loop(run);
  });
}

// JavaScript inside: not for clang-format.
// clang-format off
EM_JS(int, url_parameter, (const char* name, int fallback), {
  if (typeof location === 'undefined') return fallback;
  var value = new URLSearchParams(location.search).get(UTF8ToString(name));
  return value === null ? fallback : Number(value);
});
// clang-format on

void report(const options& opt, std::vector<memory_row> memory, std::optional<std::vector<indexeddb_row>> indexeddb) {
  study_a_wasm_results results{opt.iterations, opt.runs, opt.indexeddb_iterations, std::move(memory),
                               std::move(indexeddb)};
  std::printf("STUDY_A_JSON %s\n", savekit::to_json(results, {.skip_null_members = true}).c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--iterations") == 0) opt.iterations = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--runs") == 0) opt.runs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--only") == 0) opt.only = argv[i + 1];
  }
  opt.iterations = url_parameter("iterations", opt.iterations);
  opt.runs = url_parameter("runs", opt.runs);
  opt.indexeddb_iterations = url_parameter("indexeddb", 0);
  // A whole first pass, discarded: engines tier code up lazily (Chromium's dynamic tiering
  // compiles a function with TurboFan only once it is hot), and a way measured while its
  // optimized code is still compiling would be timed on the baseline compiler's code.
  (void)run_memory(opt);
  std::vector<memory_row> memory = run_memory(opt);
  if (opt.indexeddb_iterations <= 0) {
    report(opt, std::move(memory), std::nullopt);
    return 0;
  }
  auto run = std::make_shared<indexeddb_run>();
  run->opt = opt;
  run->finished = [opt, memory](std::vector<indexeddb_row> indexeddb) { report(opt, memory, std::move(indexeddb)); };
  next_indexeddb_way(run);
  return 0;
}
