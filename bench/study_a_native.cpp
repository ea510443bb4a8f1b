// Study A in memory, natively: the same loop and ways as the WebAssembly builds
// (study_a_memory.hpp), built with the same peers (nlohmann/json, RapidJSON) and the same
// C++ standard, so that bench/web/run_study_a.mjs can run it in turn with them.
//
//   study_a_native [--iterations N] [--runs N] [--only NAME]   (prints one STUDY_A_JSON line)
#include "study_a_memory.hpp"

int main(int argc, char** argv) {
  using namespace bench::study_a;
  const options opt = parse_options(argc, argv);
  report(opt, run_memory_warm(opt), std::nullopt);
}
