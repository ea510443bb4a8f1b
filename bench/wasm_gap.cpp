// Where study A's WebAssembly time goes, natively and as WebAssembly from one source
// (bench/run.sh wasm-gap builds it both ways and runs the two in turn): the compact
// MessagePack of the seed's Status read and written by savekit's codec alone, by the store
// around it (prefs::get_into, prefs::set, prefs::has_key), and by a hand-written reader
// and writer of the same bytes — the least code that still checks every byte, a floor for
// what the engine makes of such code. One JSON object per case per line:
//   wasm_gap [--min-ms N]
#include <savekit/backend.hpp>
#include <savekit/msgpack.hpp>
#include <savekit/prefs.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "seed_types.hpp"
#include "status_floor.hpp"
#include "time_per_call.hpp"

namespace {

using bench::status_floor::floor_read;
using bench::status_floor::floor_write;
using seeds::Status;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "wasm_gap: %s\n", what);
  std::exit(1);
}

struct fixture {
  Status value = seeds::seed_status();
  Status into;
  std::vector<std::byte> bytes = savekit::to_msgpack(value, {.form = savekit::msgpack_form::compact});
  std::vector<std::byte> out;
  savekit::prefs store;
};

// Each case is called through a pointer, as study A calls its ways: out of the timing loop,
// which a WebAssembly engine would otherwise run at its first tier (it cannot swap the code
// of a running loop), and not inlined into it natively either.
using case_fn = bool (*)(fixture&);

bool savekit_read(fixture& f) { return savekit::from_msgpack(f.bytes, f.into).has_value(); }
bool savekit_write(fixture& f) {
  savekit::to_msgpack(f.value, f.out, {.form = savekit::msgpack_form::compact});
  return f.out.size() == f.bytes.size();
}
bool hand_read(fixture& f) {
  const auto* p = reinterpret_cast<const unsigned char*>(f.bytes.data());
  return floor_read(p, p + f.bytes.size(), f.into);
}
bool hand_write(fixture& f) {
  floor_write(f.value, f.out);
  return f.out.size() == f.bytes.size();
}
bool store_get_into(fixture& f) { return f.store.get_into("status", f.into).has_value(); }
bool store_set(fixture& f) {
  return f.store.set("status", f.value, savekit::object_encoding::msgpack_compact).has_value();
}
bool store_has_key(fixture& f) { return f.store.has_key("status"); }
bool nothing(fixture& f) { return !f.bytes.empty(); }

struct timed_case {
  const char* op;
  const char* way;
  case_fn run;
};

// Runs c once and checks what it read or wrote, from a state where a way that did nothing
// would be caught: an emptied object, a buffer of other bytes, another value in the store
// (which holds the value again afterwards, for the readers).
bool gives_the_value(const timed_case& c, fixture& f) {
  f.into = Status{};
  f.out.assign(f.bytes.size(), std::byte{0xc1});  // (0xc1: never used by MessagePack)
  if (c.run == store_set) {
    Status other = f.value;
    ++other.lv;
    if (!f.store.set("status", other, savekit::object_encoding::msgpack_compact) || !c.run(f)) return false;
    Status back;
    return f.store.get_into("status", back) && back == f.value;
  }
  if (!c.run(f)) return false;
  if (std::strcmp(c.op, "read") == 0) return f.into == f.value;
  if (std::strcmp(c.op, "write") == 0) return f.out == f.bytes;
  return true;
}

// Nanoseconds per call of c; every call's result counts (a way that starts failing while it
// is timed fails the run rather than print a time).
double ns_per_call(const timed_case& c, fixture& f, double min_ms) {
  case_fn volatile run = c.run;  // loaded at each call: never inlined into the loop
  bool all_succeeded = true;
  const double ns = bench::time_per_call(min_ms, [&] { all_succeeded &= run(f); });
  if (!all_succeeded) fail(c.way);
  return ns;
}

}  // namespace

int main(int argc, char** argv) {
  double min_ms = 200;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-ms") == 0 && i + 1 < argc)
      min_ms = std::atof(argv[++i]);
    else
      fail("usage: wasm_gap [--min-ms N]");
  }
#ifdef __EMSCRIPTEN__
  const char* target = "wasm";
#else
  const char* target = "native";
#endif
  auto opened = savekit::prefs::open(savekit::make_memory_backend());
  if (!opened) fail("cannot open a store in memory");
  fixture f{.store = std::move(*opened)};
  if (!f.store.set("status", f.value, savekit::object_encoding::msgpack_compact)) fail("set");

  const timed_case cases[] = {
      {"read", "savekit from_msgpack", savekit_read}, {"read", "hand-written", hand_read},
      {"read", "prefs::get_into", store_get_into},    {"write", "savekit to_msgpack", savekit_write},
      {"write", "hand-written", hand_write},          {"write", "prefs::set", store_set},
      {"look up", "prefs::has_key", store_has_key},   {"call", "nothing (the harness)", nothing},
  };
  // Every way must produce or read back the same value and bytes, before it is timed and after.
  for (const timed_case& c : cases)
    if (!gives_the_value(c, f)) fail(c.way);
  ns_per_call(cases[0], f, min_ms / 4);  // a warm-up: the engine's later tiers
  for (const timed_case& c : cases) {
    const double ns = ns_per_call(c, f, min_ms);
    if (!gives_the_value(c, f)) fail(c.way);
    std::printf("{\"target\":\"%s\",\"op\":\"%s\",\"way\":\"%s\",\"ns\":%.2f}\n", target, c.op, c.way, ns);
  }
  return 0;
}
