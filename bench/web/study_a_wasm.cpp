// Study A as WebAssembly: the ways of bench/study_a.hpp (the same code the native study
// times), in memory, under node or in Chromium; in Chromium also through the IndexedDB
// backend with a committed save (a readwrite transaction) after every save.
//
//   node study_a_node.js [--iterations N] [--runs N] [--only NAME]  (prints one STUDY_A_JSON line)
//   study_a.html?iterations=N&runs=N&indexeddb=N                   (bench/web/run_study_a.mjs)
//
// The result is the line starting "STUDY_A_JSON " — a JSON object (study_a_results,
// written by savekit) that `bench/report.py studies` reads.
#include <emscripten/emscripten.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../study_a_memory.hpp"
#include "savekit/indexeddb.hpp"

namespace {

using namespace bench::study_a;

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

}  // namespace

int main(int argc, char** argv) {
  options opt = parse_options(argc, argv);
  opt.iterations = url_parameter("iterations", opt.iterations);
  opt.runs = url_parameter("runs", opt.runs);
  opt.indexeddb_iterations = url_parameter("indexeddb", 0);
  std::vector<memory_row> memory = run_memory_warm(opt);
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
