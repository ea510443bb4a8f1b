// Study A in memory: the seed's loop over the ways of study_a.hpp, timed the same way in
// every build that runs it — WebAssembly under node and in Chromium (web/study_a_wasm.cpp)
// and natively (study_a_native.cpp), so that bench/web/run_study_a.mjs can run the three
// in turn, round by round, and compare like with like. The result is one line starting
// "STUDY_A_JSON " — a JSON object (study_a_results, written by savekit) that
// bench/report.py reads.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "study_a.hpp"

namespace bench::study_a {

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
struct study_a_results {
  int iterations = 0, runs = 0, indexeddb_iterations = 0;
  std::vector<memory_row> memory;
  std::optional<std::vector<indexeddb_row>> indexeddb;  // left out when not run
};

inline double elapsed_ns(clock_type::time_point start) {
  return std::chrono::duration<double, std::nano>(clock_type::now() - start).count();
}

// In memory: the seed's loop — n saves timed, then n loads timed, `runs` times; per op.
inline std::vector<memory_row> run_memory(const options& opt) {
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

// The command line's --iterations N, --runs N and --only NAME.
inline options parse_options(int argc, char** argv) {
  options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--iterations") == 0) opt.iterations = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--runs") == 0) opt.runs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--only") == 0) opt.only = argv[i + 1];
  }
  return opt;
}

// A whole first pass, discarded, then the timed one: engines tier code up lazily
// (Chromium's and node's dynamic tiering compiles a function with TurboFan only once it is
// hot), and a way measured while its optimized code is still compiling would be timed on
// the baseline compiler's code. Natively the same, so that both builds do the same work.
inline std::vector<memory_row> run_memory_warm(const options& opt) {
  (void)run_memory(opt);
  return run_memory(opt);
}

inline void report(const options& opt, std::vector<memory_row> memory,
                   std::optional<std::vector<indexeddb_row>> indexeddb) {
  study_a_results results{opt.iterations, opt.runs, opt.indexeddb_iterations, std::move(memory), std::move(indexeddb)};
  std::printf("STUDY_A_JSON %s\n", savekit::to_json(results, {.skip_null_members = true}).c_str());
  std::fflush(stdout);
}

}  // namespace bench::study_a
