// savekit's side of the browser benchmark (browser_e2e.html, run by run_browser_e2e.mjs):
// calls the page makes through Module.savekitPromise, each settled when savekit reports —
// for a save, when the browser has completed its readwrite transaction. The page times
// them beside the same IndexedDB requests made directly by JavaScript.
//
//   bench_store_open(id)                   the store "bench-store", emptied
//   bench_store_save(id, level)            one changed key (the seed's Status), save_async
//   bench_store_check(level)               1 if the store's Status is the one saved
//   bench_slots_open(id, name, keep)       browser slots `name` (keep generations); its
//                                          open and load menu timed here: window.benchOpen
//   bench_slot_prepare(bytes, seed)        makes the next save (about `bytes` bytes), untimed
//   bench_slot_write(id, name)             write_async of it
//   bench_slot_check(name)                 1 if the slot's newest save reads back as it
//   bench_slot_load(id, name)              load_async of a slot (its newest save from IndexedDB)
//   bench_slot_read_matches(name, bytes, seed)  1 if the slot reads back as terrain_of(bytes, seed)
//   bench_slots_close()
// Each save is checked after its timing: the store's Status and the slot's newest save read back.
#include <emscripten/emscripten.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "savekit/indexeddb.hpp"
#include "savekit/savekit.hpp"
#include "seed_types.hpp"

namespace {

struct Terrain {  // a save of incompressible bytes
  std::vector<std::byte> bytes;
  bool operator==(const Terrain&) const = default;
};

Terrain terrain_of(std::size_t size, unsigned seed) {
  Terrain t{std::vector<std::byte>(size)};
  std::uint32_t x = 2463534242u + seed;
  for (auto& b : t.bytes) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = std::byte(static_cast<unsigned char>(x));
  }
  return t;
}

std::optional<savekit::prefs> store;
std::optional<savekit::slots> folder;
Terrain last_written;

void settle(int id, const savekit::status& s) { savekit::web::settle_js_promise(id, s); }

// window.benchOpen = {open_ms, list_ms, slots, heap_bytes}
EM_JS(void, report_open, (double open_ms, double list_ms, int slots, double heap_bytes),
      { window.benchOpen = {open_ms : open_ms, list_ms : list_ms, slots : slots, heap_bytes : heap_bytes}; });

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE void bench_store_open(int id) {
  savekit::web::delete_indexeddb("bench-store", [id](savekit::status deleted) {
    if (!deleted) return settle(id, deleted);
    savekit::web::open_indexeddb("bench-store", [id](savekit::result<savekit::prefs> p, const auto&) {
      if (!p) return settle(id, std::move(p).error());
      store = std::move(*p);
      settle(id, {});
    });
  });
}

EMSCRIPTEN_KEEPALIVE void bench_store_save(int id, int level) {
  if (!store) return settle(id, savekit::error{savekit::errc::io_error, 0, "the store is not open"});
  seeds::Status status = seeds::seed_status();
  status.lv = level;
  if (savekit::status set = store->set("status", status, savekit::object_encoding::msgpack_compact); !set)
    return settle(id, set);
  store->save_async([id](savekit::status saved) { settle(id, saved); });
}

// After the timing: the store's Status is the one saved last.
EMSCRIPTEN_KEEPALIVE int bench_store_check(int level) {
  seeds::Status status = seeds::seed_status(), back;
  status.lv = level;
  return store && store->get_into("status", back) && back == status ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void bench_slots_open(int id, const char* name, int keep) {
  savekit::web::indexeddb_slots_options options;
  options.slots.keep_generations = static_cast<std::size_t>(keep);
  const double started = emscripten_get_now();
  savekit::web::open_slots(
      name,
      [id, started](savekit::result<savekit::slots> s, const auto&) {
        const double opened = emscripten_get_now();
        if (!s) return settle(id, std::move(s).error());
        folder = std::move(*s);
        auto menu = folder->list();
        const double listed = emscripten_get_now();
        if (!menu) return settle(id, std::move(menu).error());
        report_open(opened - started, listed - opened, static_cast<int>(menu->size()),
                    static_cast<double>(EM_ASM_DOUBLE({ return HEAP8.length; })));
        settle(id, {});
      },
      options);
}

// The save to write next, made before the timing starts.
EMSCRIPTEN_KEEPALIVE void bench_slot_prepare(int bytes, int seed) {
  last_written = terrain_of(static_cast<std::size_t>(bytes), static_cast<unsigned>(seed));
}

EMSCRIPTEN_KEEPALIVE void bench_slot_write(int id, const char* name) {
  if (!folder) return settle(id, savekit::error{savekit::errc::io_error, 0, "the slots are not open"});
  folder->write_async(name, last_written, {}, [id](savekit::status saved) { settle(id, saved); });
}

// The part of a write made before IndexedDB: write() returns once the change is in memory
// (milliseconds), then when_durable settles id.
EMSCRIPTEN_KEEPALIVE double bench_slot_write_parts(int id, const char* name) {
  const double started = emscripten_get_now();
  savekit::status written = folder->write(name, last_written);
  const double in_memory = emscripten_get_now() - started;
  if (!written) {
    settle(id, written);
    return in_memory;
  }
  folder->when_durable([id](savekit::status saved) { settle(id, saved); });
  return in_memory;
}

// After the timing: the slot's newest save is the one written.
EMSCRIPTEN_KEEPALIVE int bench_slot_check(const char* name) {
  if (!folder) return 0;
  auto back = folder->read<Terrain>(name);
  return back && *back == last_written ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void bench_slot_load(int id, const char* name) {
  if (!folder) return settle(id, savekit::error{savekit::errc::io_error, 0, "the slots are not open"});
  folder->load_async(name, [id](savekit::status loaded) { settle(id, loaded); });
}

EMSCRIPTEN_KEEPALIVE int bench_slot_read_matches(const char* name, int bytes, int seed) {
  if (!folder) return 0;
  auto back = folder->read<Terrain>(name);
  return back && *back == terrain_of(static_cast<std::size_t>(bytes), static_cast<unsigned>(seed)) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void bench_slots_close() { folder.reset(); }

}  // extern "C"

int main() { return 0; }  // (the page calls in once the runtime is ready)
