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
// Writes results as JSON (bench/results/seed_studies.json by default); bench/report.py
// turns that into the tables and charts. --quick runs few iterations (CI): every round
// trip is still checked, and a mismatch fails the run.
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

#include "alloc_counter.hpp"
#include "bench_objects.hpp"
#include "peers/boost_serialization.hpp"
#include "peers/cereal.hpp"
#include "per_key.hpp"
#include "study_a.hpp"

#include <cereal/version.hpp>
#include "peers/jsoncpp.hpp"
#include "peers/msgpack_cxx.hpp"
#include "peers/nlohmann.hpp"
#include "peers/rapidjson.hpp"
#include "peers/savekit_ways.hpp"
#include "peers/simdjson.hpp"
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

// ---- JSON output, by hand (the results are flat) ------------------------------------------

std::string quote(std::string_view text) { return savekit::to_json(text); }

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
    return time_deserialize(text, n, allocs, out, [](const std::string& in, SaveGame& v) { return Way::read(in, v); });
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

std::vector<library_b> study_b_libraries() {
  using namespace bench::ways;
  std::vector<library_b> libs;
  libs.push_back(library<savekit_json>("savekit JSON", "JSON"));
  libs.push_back(library<rapidjson_dom>("RapidJSON", "JSON"));
  libs.push_back(library<nlohmann_json>("nlohmann/json", "JSON"));
  libs.push_back(library<jsoncpp_value>("jsoncpp", "JSON"));
  libs.push_back(library<cereal_json>("cereal JSON", "JSON"));
  {
    library_b simd{"simdjson On-Demand (deserialize only)", "JSON", nullptr, nullptr, nullptr, nullptr};
    simd.time_deserialize = [](const std::string& text, int n, double& allocs, SaveGame& out) {
      simdjson::padded_string padded(text);
      return time_deserialize(padded, n, allocs, out, [](const simdjson::padded_string& in, SaveGame& v) {
        return simdjson_ondemand::read(in, v);
      });
    };
    libs.push_back(std::move(simd));
  }
  libs.push_back(library<savekit_msgpack<savekit::msgpack_form::map>>("savekit MessagePack map", "binary"));
  libs.push_back(library<savekit_msgpack<savekit::msgpack_form::compact>>("savekit MessagePack compact", "binary"));
  libs.push_back(library<msgpack_cxx>("msgpack-cxx (map)", "binary"));
  libs.push_back(library<cereal_binary>("cereal binary", "binary"));
  libs.push_back(library<boost_binary>("Boost.Serialization binary", "binary"));
  return libs;
}

}  // namespace

namespace {

// ---- the large save ------------------------------------------------------------------------

struct large_row {
  std::string object, library;
  std::size_t size = 0;
  double serialize_ms = 0, deserialize_ms = 0;  // per operation, best of the runs
};

template <class Way, class T>
large_row measure_large(const std::string& object, const T& value, const options& opt) {
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
  return row;
}

// ---- the report's header: machine, compiler, libraries -----------------------------------------

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string machine_json() {
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::string libraries = "{";
  auto add = [&](const char* name, std::string version) {
    libraries += std::string(libraries.size() > 1 ? "," : "") + quote(name) + ":" + quote(version);
  };
  add("savekit", savekit::version);
  add("RapidJSON", RAPIDJSON_VERSION_STRING);
  add("nlohmann/json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) +
                           "." + std::to_string(NLOHMANN_JSON_VERSION_PATCH));
  add("jsoncpp", JSONCPP_VERSION_STRING);
  add("simdjson", SIMDJSON_STRINGIFY(SIMDJSON_VERSION));
  add("msgpack-cxx", msgpack_version());
  add("cereal", std::to_string(CEREAL_VERSION_MAJOR) + "." + std::to_string(CEREAL_VERSION_MINOR) + "." +
                    std::to_string(CEREAL_VERSION_PATCH));
  add("Boost.Serialization", BOOST_LIB_VERSION);
  libraries += "}";
  return "{\"cpu\":" + quote(cpu_model()) + ",\"cores\":" + std::to_string(std::thread::hardware_concurrency()) +
         ",\"compiler\":" + quote(__VERSION__) + ",\"flags\":" + quote(SAVEKIT_BENCH_FLAGS) +
         ",\"date\":" + quote(date) + ",\"libraries\":" + libraries + "}";
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
  std::string json = "{\"machine\":" + machine_json() + ",\"iterations\":" + std::to_string(opt.iterations) +
                     ",\"runs\":" + std::to_string(opt.runs) +
                     ",\"durable_iterations\":" + std::to_string(opt.durable_iterations);

  // Study A, in memory (PlayerPrefs' Set/Get) and with a durable save() each time.
  for (bool durable : {false, true}) {
    json += durable ? ",\"study_a_durable\":[" : ",\"study_a\":[";
    bool first = true;
    for (way_a& way : study_a_ways()) {
      timing t = run_study_a_way(way, opt, durable, scratch);
      json += std::string(first ? "" : ",") + "{\"way\":" + quote(way.name) + ",\"library\":" + quote(way.library) +
              ",\"stored_as\":" + quote(way.stored_as) + ",\"stored_bytes\":" + std::to_string(t.stored_bytes) +
              ",\"save_ms\":" + savekit::to_json(t.save_ms) + ",\"load_ms\":" + savekit::to_json(t.load_ms) +
              ",\"save_allocs_per_op\":" + savekit::to_json(t.save_allocs) +
              ",\"load_allocs_per_op\":" + savekit::to_json(t.load_allocs) + "}";
      first = false;
    }
    json += "]";
  }

  // Study B.
  json += ",\"study_b\":[";
  SaveGame save = seeds::seed_save_game();
  bool first = true;
  for (library_b& lib : study_b_libraries()) {
    std::string output = lib.serialize_once ? lib.serialize_once(save) : savekit::to_json(save);
    double serialize_allocs = 0, deserialize_allocs = 0;
    std::vector<double> serialize_ms, deserialize_ms;
    SaveGame loaded;
    // Warm-up (the seed warmed up reflection first), then the timed runs.
    if (lib.time_serialize) lib.time_serialize(save, 100, serialize_allocs);
    lib.time_deserialize(output, 100, deserialize_allocs, loaded);
    for (int run = 0; run < opt.runs; ++run) {
      progress("[study B] " + lib.name + ": run " + std::to_string(run + 1) + "/" + std::to_string(opt.runs));
      if (lib.time_serialize) serialize_ms.push_back(lib.time_serialize(save, opt.iterations, serialize_allocs));
      deserialize_ms.push_back(lib.time_deserialize(output, opt.iterations, deserialize_allocs, loaded));
    }
    if (!(loaded == save)) die(lib.name + ": deserialized SaveGame differs");
    bool text = lib.kind == "JSON";
    json += std::string(first ? "" : ",") + "{\"library\":" + quote(lib.name) + ",\"kind\":" + quote(lib.kind) +
            ",\"size\":" + std::to_string(output.size()) +
            ",\"output\":" + quote(text ? output : savekit::base64_encode(output)) +
            ",\"output_encoding\":" + quote(text ? "text" : "base64") +
            ",\"deserialized\":" + quote(savekit::to_json(loaded)) +
            ",\"serialize_ms\":" + savekit::to_json(serialize_ms) +
            ",\"deserialize_ms\":" + savekit::to_json(deserialize_ms) +
            ",\"serialize_allocs_per_op\":" + (lib.time_serialize ? savekit::to_json(serialize_allocs) : "null") +
            ",\"deserialize_allocs_per_op\":" + savekit::to_json(deserialize_allocs) +
            ",\"deserialize_reuse_allocs_per_op\":" +
            (lib.reuse_allocs ? savekit::to_json(lib.reuse_allocs(output, 1000)) : "null") + "}";
    first = false;
  }
  json += "]";

  // The large save.
  {
    using namespace bench::ways;
    std::vector<large_row> rows;
    SaveGame big = bench::large_save_game();
    rows.push_back(measure_large<savekit_json>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<savekit_msgpack<savekit::msgpack_form::map>>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<savekit_msgpack<savekit::msgpack_form::compact>>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<rapidjson_dom>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<nlohmann_json>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<jsoncpp_value>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<cereal_json>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<msgpack_cxx>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<cereal_binary>("SaveGame, 10,000 items", big, opt));
    rows.push_back(measure_large<boost_binary>("SaveGame, 10,000 items", big, opt));
    bench::World world = bench::make_world();
    rows.push_back(measure_large<savekit_json>("World (nested maps, strings, floats)", world, opt));
    rows.push_back(
        measure_large<savekit_msgpack<savekit::msgpack_form::map>>("World (nested maps, strings, floats)", world, opt));
    rows.push_back(measure_large<savekit_msgpack<savekit::msgpack_form::compact>>(
        "World (nested maps, strings, floats)", world, opt));
    rows.push_back(measure_large<nlohmann_json>("World (nested maps, strings, floats)", world, opt));
    rows.push_back(measure_large<cereal_json>("World (nested maps, strings, floats)", world, opt));
    rows.push_back(measure_large<cereal_binary>("World (nested maps, strings, floats)", world, opt));
    json += ",\"large\":[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const large_row& r = rows[i];
      json += std::string(i ? "," : "") + "{\"object\":" + quote(r.object) + ",\"library\":" + quote(r.library) +
              ",\"size\":" + std::to_string(r.size) + ",\"serialize_ms\":" + savekit::to_json(r.serialize_ms) +
              ",\"deserialize_ms\":" + savekit::to_json(r.deserialize_ms) + "}";
    }
    json += "]";
  }
  json += "}\n";

  std::filesystem::remove_all(scratch);
  std::ofstream out(opt.output);
  out << json;
  if (!out) die("cannot write " + opt.output);
  progress("");
  std::fprintf(stderr, "wrote %s\n", opt.output.c_str());
}
