// Study A (the seed's Status saved 10,000 times) from C++, the rows the C# study
// (bindings/StudyA.cs) is set beside: per key (the seed's eleven keys) and as one object,
// each without and with a durable save() after every save. Prints JSON lines
//   {"layer":"C++","way":...,"durable":false,"save_ms":...,"load_ms":...}   (ms per N, a run)
//   study_a_layers FOLDER [ITERATIONS] [RUNS] [DURABLE_ITERATIONS]
// (A durable save is an fsync: DURABLE_ITERATIONS, 1,000 by default, scaled to ms per 10,000.)
#include <savekit/prefs.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "per_key.hpp"

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "study_a_layers: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: study_a_layers FOLDER [ITERATIONS] [RUNS] [DURABLE_ITERATIONS]");
  const std::string folder = argv[1];
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 10000;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 3;
  const int durable_iterations = argc > 4 ? std::atoi(argv[4]) : 1000;
  const seeds::Status status = seeds::seed_status();
  for (bool durable : {false, true}) {
    for (const char* way : {"per key", "object (savekit JSON)"}) {
      for (int run = 0; run < runs; ++run) {
        const std::string path = folder + "/cpp-study-a.prefs";
        std::filesystem::remove(path);
        auto store = savekit::prefs::open(path);
        if (!store) die(store.error().to_string());
        const bool per_key = way[0] == 'p';
        const int n = durable ? durable_iterations : iterations;
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
          savekit::status set = per_key ? bench::set_per_key(*store, status)
                                        : store->set("Status1", status, savekit::object_encoding::json);
          if (!set) die(set.error().to_string());
          if (durable)
            if (savekit::status saved = store->save(); !saved) die(saved.error().to_string());
        }
        const double save_ms = ms_since(start);
        seeds::Status loaded;
        start = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
          if (per_key) {
            bench::get_per_key(*store, loaded);
          } else if (savekit::status got = store->get_into("Status1", loaded); !got) {
            die(got.error().to_string());
          }
        }
        const double load_ms = ms_since(start);
        if (!(loaded == status)) die(std::string{way} + ": the loaded Status differs");
        std::printf("{\"layer\":\"C++\",\"way\":\"%s\",\"durable\":%s,\"save_ms\":%.3f,\"load_ms\":%.3f}\n", way,
                    durable ? "true" : "false", save_ms * 10000.0 / n, load_ms * 10000.0 / n);
      }
    }
  }
}
