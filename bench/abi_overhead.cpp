// The cost of crossing the C ABI (issue 43): the same prefs calls made from C++ directly and
// through savekit/savekit.h, interleaved in one process, on one store each. Prints one JSON
// line per layer and operation: {"layer":..., "op":..., "ns": per call pair}. The C# and
// Python halves (bench/bindings/) print the same lines; bench/run.sh abi runs the four in
// turn and bench/report.py abi makes the table.
//   abi_overhead FOLDER [ROUNDS]
#include <savekit/savekit.h>
#include <savekit/prefs.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

template <class Body>
double ns_per_call(int n, Body body) {
  const auto start = clock_type::now();
  for (int i = 0; i < n; ++i) body(i);
  return std::chrono::duration<double, std::nano>(clock_type::now() - start).count() / n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "abi_overhead: %s\n", what);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: abi_overhead FOLDER [ROUNDS]");
  const std::string folder = argv[1];
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  auto store = savekit::prefs::open(folder + "/cpp.prefs");
  if (!store) die(store.error().to_string().c_str());
  sk_prefs* c_store = nullptr;
  const std::string c_path = folder + "/c.prefs";
  if (sk_prefs_open(c_path.data(), c_path.size(), nullptr, &c_store) != SK_OK) die("sk_prefs_open");
  const std::vector<std::byte> blob(4096, std::byte{0x5a});
  std::vector<double> cpp_int, c_int, cpp_bytes, c_bytes;
  volatile std::int64_t sink = 0;
  constexpr int ints = 200000, sets = 20000;
  for (int r = 0; r < rounds + 1; ++r) {  // the first round warms up, unrecorded
    const double a = ns_per_call(ints, [&](int i) {
      (void)store->set_int("level", i);
      sink = sink + store->try_get_int("level").value_or(0);
    });
    const double b = ns_per_call(ints, [&](int i) {
      std::int64_t out = 0;
      sk_prefs_set_int(c_store, "level", 5, i);
      sk_prefs_get_int(c_store, "level", 5, &out);
      sink = sink + out;
    });
    const double c = ns_per_call(sets, [&](int) { (void)store->set_bytes("blob", blob); });
    const double d = ns_per_call(sets, [&](int) {
      sk_prefs_set_bytes(c_store, "blob", 4, reinterpret_cast<const uint8_t*>(blob.data()), 4096);
    });
    if (r == 0) continue;
    cpp_int.push_back(a), c_int.push_back(b), cpp_bytes.push_back(c), c_bytes.push_back(d);
  }
  std::int64_t check = 0;
  if (sk_prefs_get_int(c_store, "level", 5, &check) != SK_OK || check != ints - 1) die("the C store lost a value");
  sk_prefs_close(c_store);
  std::printf("{\"layer\":\"C++\",\"op\":\"set_int+get_int\",\"ns\":%.2f}\n", median(cpp_int));
  std::printf("{\"layer\":\"C ABI\",\"op\":\"set_int+get_int\",\"ns\":%.2f}\n", median(c_int));
  std::printf("{\"layer\":\"C++\",\"op\":\"set_bytes 4 KB\",\"ns\":%.2f}\n", median(cpp_bytes));
  std::printf("{\"layer\":\"C ABI\",\"op\":\"set_bytes 4 KB\",\"ns\":%.2f}\n", median(c_bytes));
}
