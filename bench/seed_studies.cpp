// The seeds' two studies, reproduced in C++ with savekit and the real C++ peers.
//
// Study A (000_ff233063f927945e.txt): the Status/Equip object saved into and loaded from a
// PlayerPrefs-style store, 10,000 saves timed, then 10,000 loads timed, three runs; then
// every field checked. Save = serialize + encode + prefs set; load = prefs get + decode +
// deserialize. Plus the same with a durable save() after every save, fewer iterations.
// Study B (001_d5e3661d5f46bbe1.txt): the SaveGame object; warm-up, then 10,000
// serializations and 10,000 deserializations per library; size, times, allocations.
// Plus a large save (SaveGame with 10,000 items; a nested world of a few MB) for MB/s.
//
// Writes results as JSON (bench/results/seed_studies.json by default; the row structs
// below, written by savekit itself); `bench/report.py studies` turns that into the tables
// and charts. --quick runs few iterations (CI): every round trip is still checked, and a
// mismatch fails the run. Peers not installed are skipped and listed in the results.
#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <map>
#include <optional>

#include "alloc_counter.hpp"
#include "bench_objects.hpp"
#include "peers/boost_serialization.hpp"
#include "peers/cereal.hpp"
#include "peers/glaze.hpp"
#include "peers/jsoncpp.hpp"
#include "peers/msgpack_cxx.hpp"
#include "peers/nlohmann.hpp"
#include "peers/rapidjson.hpp"
#include "peers/savekit_ways.hpp"
#include "peers/simdjson.hpp"
#include "per_key.hpp"
#include "study_a.hpp"
#include "world.hpp"

#ifndef SAVEKIT_BENCH_FLAGS
#define SAVEKIT_BENCH_FLAGS "unknown"
#endif

namespace {

using bench::study_a::study_a_ways;
using bench::study_a::way_a;
using clock_type = std::chrono::steady_clock;
using seeds::SaveGame;
using seeds::Status;

struct options {
  int iterations = 10000;
  int runs = 3;
  int durable_iterations = 1000;
  int large_reps = 20;
  std::string output = "bench/results/seed_studies.json";
};

using bench::study_a::check;
using bench::study_a::die;
using bench::study_a::text_of;

void progress(const std::string& line) {
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

double elapsed_ms(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// ---- the results, as bench/report.py reads them -----------------------------------------------

struct machine_info {
  std::string cpu;
  unsigned cores = 0;
  std::string compiler, flags, date;
  std::map<std::string, std::string> libraries;  // name -> version, for every library found
  std::vector<std::string> skipped;              // peers not installed: their rows are missing
};

struct study_a_row {
  std::string way, library, stored_as;
  std::size_t stored_bytes = 0;
  std::vector<double> save_ms, load_ms;  // per run, for `iterations` operations
  double save_allocs_per_op = 0, load_allocs_per_op = 0;
  bool loads_only = false;  // the library only reads: the save is savekit's JSON
};

struct study_b_row {
  std::string library, kind;  // kind: "JSON" or "binary"
  std::size_t size = 0;
  std::string output, output_encoding;  // the library's output: "text", or "base64" of binary
  std::string deserialized;             // the object read back, as savekit's JSON
  std::vector<double> serialize_ms, deserialize_ms;
  std::optional<double> serialize_allocs_per_op;  // null: the library only reads
  double deserialize_allocs_per_op = 0;
  std::optional<double> deserialize_reuse_allocs_per_op;
};

struct large_row {
  std::string object, library;
  std::size_t size = 0;
  double serialize_ms = 0, deserialize_ms = 0;  // per operation, best of the runs
};

struct results {
  machine_info machine;
  int iterations = 0, runs = 0, durable_iterations = 0;
  std::vector<study_a_row> study_a, study_a_durable;
  std::vector<study_b_row> study_b;
  std::vector<large_row> large;
};

// Keeps the compiler from dropping work whose result is unused.
template <class T>
void benchmark_barrier(T& value) {
  asm volatile("" : : "r"(&value) : "memory");
}

// ---- Study A ----------------------------------------------------------------------------

struct timing {
  std::vector<double> save_ms;  // per run, for `iterations` operations
  std::vector<double> load_ms;
  double save_allocs = 0, load_allocs = 0;  // per operation, last run
  std::size_t stored_bytes = 0;
};

timing run_study_a_way(way_a& way, const options& opt, bool durable, const std::filesystem::path& dir) {
  timing t;
  Status status = seeds::seed_status();
  int n = durable ? opt.durable_iterations : opt.iterations;
  auto open_store = [&]() {
    if (!durable) {
      auto p = savekit::prefs::open(savekit::make_memory_backend());
      if (!p) die(p.error().to_string());
      return std::move(*p);
    }
    std::filesystem::remove(dir / "study_a.prefs");
    auto p = savekit::prefs::open((dir / "study_a.prefs").string());
    if (!p) die(p.error().to_string());
    return std::move(*p);
  };
  savekit::prefs store = open_store();
  // Warm-up: untimed rounds of each (the seed warmed up reflection; buffers find their size).
  Status loaded;
  for (int i = 0; i < 3; ++i) {
    way.save(store, status);
    way.load(store, loaded);
  }
  t.save_ms.reserve(static_cast<std::size_t>(opt.runs));
  t.load_ms.reserve(static_cast<std::size_t>(opt.runs));
  for (int run = 0; run < opt.runs; ++run) {
    progress("[study A" + std::string(durable ? ", durable" : "") + "] " + way.name + ": run " +
             std::to_string(run + 1) + "/" + std::to_string(opt.runs));
    auto before = bench::allocations();
    auto start = clock_type::now();
    for (int i = 0; i < n; ++i) {
      way.save(store, status);
      if (durable) check(store.save(), "save");
    }
    t.save_ms.push_back(elapsed_ms(start));
    auto middle = bench::allocations();
    start = clock_type::now();
    for (int i = 0; i < n; ++i) way.load(store, loaded);
    t.load_ms.push_back(elapsed_ms(start));
    auto after = bench::allocations();
    t.save_allocs = static_cast<double>(middle.count - before.count) / n;
    t.load_allocs = static_cast<double>(after.count - middle.count) / n;
  }
  // The seed's untimed check of every field.
  if (!(loaded == status)) die(way.name + ": loaded Status differs from the saved one");
  for (const auto& key : store.keys()) t.stored_bytes += store.get_raw(key)->bytes.size();
  return t;
}

// ---- Study B ------------------------------------------------------------------------------

struct library_b {
  std::string name;
  std::string kind;                                                                     // "JSON" or "binary"
  std::function<std::string(const SaveGame&)> serialize_once;                           // null: cannot serialize
  std::function<double(const SaveGame&, int, double&)> time_serialize;                  // ms for n; allocs per op
  std::function<double(const std::string&, int, double&, SaveGame&)> time_deserialize;  // into a new object each time
  std::function<double(const std::string&, int)> reuse_allocs;  // allocations per op reading into one reused object
};

template <class T>
double time_serialize(const T& value, int n, double& allocs, auto write) {
  auto before = bench::allocations();
  auto start = clock_type::now();
  for (int i = 0; i < n; ++i) write(value);
  double ms = elapsed_ms(start);
  allocs = static_cast<double>(bench::allocations().count - before.count) / n;
  return ms;
}

template <class Input>
double time_deserialize(const Input& input, int n, double& allocs, SaveGame& out, auto read) {
  SaveGame last;
  auto before = bench::allocations();
  auto start = clock_type::now();
  for (int i = 0; i < n; ++i) {
    SaveGame fresh;  // the seed deserialized into a new object every time
    if (!read(input, fresh)) die("deserialize failed");
    if (i == n - 1) last = std::move(fresh);
  }
  double ms = elapsed_ms(start);
  allocs = static_cast<double>(bench::allocations().count - before.count) / n;
  out = std::move(last);
  return ms;
}

template <class Way>
library_b library(std::string name, std::string kind) {
  library_b lib{std::move(name), std::move(kind), nullptr, nullptr, nullptr, nullptr};
  if constexpr (!Way::found) {
    bench::skip<Way>();
    return lib;  // no way to time: not added
  } else {
    lib.serialize_once = [](const SaveGame& s) {
      typename Way::buffer buffer;
      Way::write(s, buffer);
      return std::string(text_of(buffer));
    };
    lib.time_serialize = [](const SaveGame& s, int n, double& allocs) {
      typename Way::buffer buffer;
      Way::write(s, buffer);  // a game keeps its buffer: size it before measuring
      return time_serialize(s, n, allocs, [&](const SaveGame& v) {
        Way::write(v, buffer);
        benchmark_barrier(buffer);
      });
    };
    lib.time_deserialize = [](const std::string& text, int n, double& allocs, SaveGame& out) {
      return time_deserialize(text, n, allocs, out,
                              [](const std::string& in, SaveGame& v) { return Way::read(in, v); });
    };
    lib.reuse_allocs = [](const std::string& text, int n) {
      SaveGame target;
      if (!Way::read(text, target)) die("deserialize failed");
      auto before = bench::allocations();
      for (int i = 0; i < n; ++i)
        if (!Way::read(text, target)) die("deserialize failed");
      return static_cast<double>(bench::allocations().count - before.count) / n;
    };
    return lib;
  }
}

// simdjson only reads: its input is savekit's JSON, padded into the way's own buffer.
template <class Way>
library_b read_only_library(std::string name) {
  library_b lib{std::move(name), "JSON", nullptr, nullptr, nullptr, nullptr};
  if constexpr (!Way::found) {
    bench::skip<Way>();
  } else {
    lib.time_deserialize = [](const std::string& text, int n, double& allocs, SaveGame& out) {
      typename Way::buffer padded(text);
      return time_deserialize(padded, n, allocs, out,
                              [](const typename Way::buffer& in, SaveGame& v) { return Way::read(in, v); });
    };
  }
  return lib;
}

std::vector<library_b> study_b_libraries() {
  using namespace bench::ways;
  std::vector<library_b> libs = {
      library<savekit_json>("savekit JSON", "JSON"),
      library<glaze_json>("glaze JSON", "JSON"),
      library<rapidjson_dom>("RapidJSON", "JSON"),
      library<nlohmann_json>("nlohmann/json", "JSON"),
      library<jsoncpp_value>("jsoncpp", "JSON"),
      library<cereal_json>("cereal JSON", "JSON"),
      read_only_library<simdjson_ondemand>("simdjson On-Demand (deserialize only)"),
      library<savekit_msgpack<savekit::msgpack_form::map>>("savekit MessagePack map", "binary"),
      library<savekit_msgpack<savekit::msgpack_form::compact>>("savekit MessagePack compact", "binary"),
      library<glaze_msgpack_map>("glaze MessagePack map", "binary"),
      library<glaze_msgpack_array>("glaze MessagePack array", "binary"),
      library<glaze_beve>("glaze BEVE", "binary"),
      library<msgpack_cxx>("msgpack-cxx (map)", "binary"),
      library<cereal_binary>("cereal binary", "binary"),
      library<boost_binary>("Boost.Serialization binary", "binary"),
  };
  std::erase_if(libs, [](const library_b& lib) { return !lib.time_deserialize; });  // not installed
  return libs;
}

}  // namespace

namespace {

// ---- the large save ------------------------------------------------------------------------

template <class Way, class T>
void measure_large(std::vector<large_row>& rows, const std::string& object, const T& value, const options& opt) {
  if constexpr (!Way::found) {
    bench::skip<Way>();
  } else {
    large_row row{object, Way::name, 0, 1e300, 1e300};
    typename Way::buffer buffer;
    Way::write(value, buffer);
    std::string text(text_of(buffer));
    row.size = text.size();
    T check_value{};
    if (!Way::read(text, check_value) || !(check_value == value))
      die(std::string(Way::name) + ": large round trip failed");
    for (int run = 0; run < opt.runs; ++run) {
      progress("[large] " + object + " " + Way::name + ": run " + std::to_string(run + 1));
      auto start = clock_type::now();
      for (int i = 0; i < opt.large_reps; ++i) {
        Way::write(value, buffer);
        benchmark_barrier(buffer);
      }
      row.serialize_ms = std::min(row.serialize_ms, elapsed_ms(start) / opt.large_reps);
      start = clock_type::now();
      for (int i = 0; i < opt.large_reps; ++i) {
        T fresh{};
        if (!Way::read(text, fresh)) die("large read failed");
        benchmark_barrier(fresh);
      }
      row.deserialize_ms = std::min(row.deserialize_ms, elapsed_ms(start) / opt.large_reps);
    }
    rows.push_back(std::move(row));
  }
}

// Each way that can write the value (a way not installed is skipped).
template <class... Ways, class T>
void measure_each(std::vector<large_row>& rows, const std::string& object, const T& value, const options& opt) {
  (measure_large<Ways>(rows, object, value, opt), ...);
}

// The large saves: every way on the big SaveGame; the world only with the ways whose
// adapters know its types.
std::vector<large_row> measure_large_saves(const options& opt) {
  using namespace bench::ways;
  using savekit_map = savekit_msgpack<savekit::msgpack_form::map>;
  using savekit_compact = savekit_msgpack<savekit::msgpack_form::compact>;
  std::vector<large_row> rows;
  measure_each<savekit_json, savekit_map, savekit_compact, glaze_json, glaze_msgpack_map, glaze_msgpack_array,
               glaze_beve, rapidjson_dom, nlohmann_json, jsoncpp_value, cereal_json, msgpack_cxx, cereal_binary,
               boost_binary>(rows, "SaveGame, 10,000 items", bench::large_save_game(), opt);
  measure_each<savekit_json, savekit_map, savekit_compact, glaze_json, glaze_msgpack_map, glaze_msgpack_array,
               glaze_beve, nlohmann_json, cereal_json, cereal_binary>(
      rows, "World (nested maps, strings, floats, an optional)", bench::make_world(), opt);
  return rows;
}

// ---- the report's header: machine, compiler, libraries -----------------------------------------

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

template <class... Ways>
void add_versions(machine_info& m) {
  auto add = [&]<class Way>() {
    if constexpr (Way::found) m.libraries[Way::library] = Way::version();
  };
  (add.template operator()<Ways>(), ...);
}

machine_info describe_machine() {
  using namespace bench::ways;
  machine_info m;
  m.cpu = cpu_model();
  m.cores = std::thread::hardware_concurrency();
  m.compiler = __VERSION__;
  m.flags = SAVEKIT_BENCH_FLAGS;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.date = date;
  add_versions<savekit_json, glaze_json, rapidjson_dom, nlohmann_json, jsoncpp_value, simdjson_ondemand, msgpack_cxx,
               cereal_json, boost_binary>(m);
  m.skipped.assign(bench::skipped_libraries().begin(), bench::skipped_libraries().end());
  return m;
}

options parse(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value for " + arg);
      return argv[++i];
    };
    if (arg == "--quick") {
      opt.iterations = 200;
      opt.runs = 1;
      opt.durable_iterations = 20;
      opt.large_reps = 2;
    } else if (arg == "--iterations") {
      opt.iterations = std::stoi(value());
    } else if (arg == "--runs") {
      opt.runs = std::stoi(value());
    } else if (arg == "--durable-iterations") {
      opt.durable_iterations = std::stoi(value());
    } else if (arg == "--out") {
      opt.output = value();
    } else {
      die("usage: seed_studies [--quick] [--iterations N] [--runs N] [--durable-iterations N] [--out FILE]");
    }
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  options opt = parse(argc, argv);
  std::filesystem::path scratch = std::filesystem::path(opt.output).parent_path() / "seed-studies-store";
  std::filesystem::create_directories(scratch);
  results r;
  r.iterations = opt.iterations;
  r.runs = opt.runs;
  r.durable_iterations = opt.durable_iterations;

  // Study A, in memory (PlayerPrefs' Set/Get) and with a durable save() each time.
  for (bool durable : {false, true}) {
    for (way_a& way : study_a_ways()) {
      timing t = run_study_a_way(way, opt, durable, scratch);
      (durable ? r.study_a_durable : r.study_a)
          .push_back({way.name, way.library, way.stored_as, t.stored_bytes, std::move(t.save_ms), std::move(t.load_ms),
                      t.save_allocs, t.load_allocs, way.loads_only});
    }
  }

  // Study B.
  SaveGame save = seeds::seed_save_game();
  for (library_b& lib : study_b_libraries()) {
    std::string output = lib.serialize_once ? lib.serialize_once(save) : savekit::to_json(save);
    double serialize_allocs = 0, deserialize_allocs = 0;
    study_b_row row;
    SaveGame loaded;
    // Warm-up (the seed warmed up reflection first), then the timed runs.
    if (lib.time_serialize) lib.time_serialize(save, 100, serialize_allocs);
    lib.time_deserialize(output, 100, deserialize_allocs, loaded);
    for (int run = 0; run < opt.runs; ++run) {
      progress("[study B] " + lib.name + ": run " + std::to_string(run + 1) + "/" + std::to_string(opt.runs));
      if (lib.time_serialize) row.serialize_ms.push_back(lib.time_serialize(save, opt.iterations, serialize_allocs));
      row.deserialize_ms.push_back(lib.time_deserialize(output, opt.iterations, deserialize_allocs, loaded));
    }
    if (!(loaded == save)) die(lib.name + ": deserialized SaveGame differs");
    bool text = lib.kind == "JSON";
    row.library = lib.name;
    row.kind = lib.kind;
    row.size = output.size();
    row.output = text ? output : savekit::base64_encode(output);
    row.output_encoding = text ? "text" : "base64";
    row.deserialized = savekit::to_json(loaded);
    if (lib.time_serialize) row.serialize_allocs_per_op = serialize_allocs;
    row.deserialize_allocs_per_op = deserialize_allocs;
    if (lib.reuse_allocs) row.deserialize_reuse_allocs_per_op = lib.reuse_allocs(output, 1000);
    r.study_b.push_back(std::move(row));
  }

  r.large = measure_large_saves(opt);
  r.machine = describe_machine();  // last: it lists the peers the runs skipped

  std::filesystem::remove_all(scratch);
  std::ofstream out(opt.output);
  out << savekit::to_json(r) << '\n';
  if (!out) die("cannot write " + opt.output);
  progress("");
  for (const std::string& library : r.machine.skipped)
    std::fprintf(stderr, "skipped: %s (not found when this program was configured)\n", library.c_str());
  std::fprintf(stderr, "wrote %s\n", opt.output.c_str());
}
