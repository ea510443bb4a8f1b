// SaveGame's compact write as a game's own code calls it: a plain loop, compiled -O2 against
// savekit::savekit, that writes into a reused std::vector<std::byte> and stores the size into
// a volatile — no benchmark library around the call. Google Benchmark's harness (codec_bench)
// and this loop placed the same write at 10 ns and 18 ns on one commit: the time of a write
// this small depends on its caller, so the codec benchmark keeps both. Built twice, as C++20
// and as C++23 (plain_loop_caller_cxx20, _cxx23); bench/run.sh codecs runs both.
//
// Beside it, in the same loop shape: msgpack-cxx's own array form of the same struct (the same
// 22 bytes, checked), its map form (the peer of codec_bench), and the hand-written floor.
// Ways take turns within each round; one JSON object per way per round:
//   plain_loop_caller [--rounds N] [--calls N]
#include <savekit/msgpack.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "peers/floor.hpp"
#include "peers/msgpack_cxx.hpp"
#include "seed_types.hpp"

namespace {

volatile std::size_t sink;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "plain_loop_caller: %s\n", what);
  std::exit(1);
}

#if SAVEKIT_HAVE_MSGPACK_CXX
// SaveGame as msgpack-cxx's MSGPACK_DEFINE writes it: an array of the members in order, which
// is savekit's compact form.
struct ItemAsArray {
  int Id = 0;
  int Quantity = 0;
  MSGPACK_DEFINE(Id, Quantity);
};
struct SaveGameAsArray {
  std::string Name;
  int HighScore = 0;
  std::vector<ItemAsArray> Inventory;
  MSGPACK_DEFINE(Name, HighScore, Inventory);
};
SaveGameAsArray as_array(const seeds::SaveGame& game) {
  SaveGameAsArray out{game.Name, game.HighScore, {}};
  for (const auto& item : game.Inventory) out.Inventory.push_back({item.Id, item.Quantity});
  return out;
}
#endif

template <class Loop>
double ns_per_call(long calls, Loop loop) {
  const auto start = std::chrono::steady_clock::now();
  loop(calls);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
         static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 7;
  long calls = 5'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--rounds") == 0)
      rounds = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--calls") == 0)
      calls = std::atol(argv[i + 1]);
    else
      fail("usage: plain_loop_caller [--rounds N] [--calls N]");
  }
  if (rounds < 1 || calls < 1) fail("--rounds and --calls must be positive");

  const seeds::SaveGame game = seeds::seed_save_game();
  std::vector<std::byte> savekit_out;
  std::string floor_out;

  // Each way is checked before it is timed: what it wrote reads back as the game (savekit),
  // or is the same bytes (msgpack-cxx's array form).
  savekit::to_msgpack(game, savekit_out, {.form = savekit::msgpack_form::compact});
  seeds::SaveGame back;
  if (!savekit::from_msgpack(savekit_out, back) || back != game) fail("savekit's write does not read back");
  bench::ways::hand_written_floor::write(game, floor_out);
  if (!bench::ways::hand_written_floor::read(floor_out, back) || back != game) fail("the floor does not read back");
#if SAVEKIT_HAVE_MSGPACK_CXX
  const SaveGameAsArray game_as_array = as_array(game);
  msgpack::sbuffer array_out, map_out;
  msgpack::pack(array_out, game_as_array);
  if (array_out.size() != savekit_out.size() || std::memcmp(array_out.data(), savekit_out.data(), array_out.size()))
    fail("msgpack-cxx's array form differs from savekit's compact form");
#endif

  for (int round = 0; round < rounds; ++round) {
    // (The size is read after the timing: what the last call wrote.)
    auto report = [&](const char* way, double ns, const auto& out) {
      std::printf("{\"std\": \"C++%d\", \"round\": %d, \"way\": \"%s\", \"ns\": %.3f, \"bytes\": %zu}\n",
                  SAVEKIT_CXX_STANDARD, round, way, ns, static_cast<std::size_t>(out.size()));
    };
    report("savekit compact",
           ns_per_call(calls,
                       [&](long n) {
                         for (long i = 0; i < n; ++i) {
                           savekit::to_msgpack(game, savekit_out, {.form = savekit::msgpack_form::compact});
                           sink = savekit_out.size();
                         }
                       }),
           savekit_out);
#if SAVEKIT_HAVE_MSGPACK_CXX
    report("msgpack-cxx array",
           ns_per_call(calls,
                       [&](long n) {
                         for (long i = 0; i < n; ++i) {
                           array_out.clear();
                           msgpack::pack(array_out, game_as_array);
                           sink = array_out.size();
                         }
                       }),
           array_out);
    report("msgpack-cxx map",
           ns_per_call(calls,
                       [&](long n) {
                         for (long i = 0; i < n; ++i) {
                           map_out.clear();
                           msgpack::pack(map_out, game);
                           sink = map_out.size();
                         }
                       }),
           map_out);
#endif
    report("hand-written floor",
           ns_per_call(calls,
                       [&](long n) {
                         for (long i = 0; i < n; ++i) {
                           bench::ways::hand_written_floor::write(game, floor_out);
                           sink = floor_out.size();
                         }
                       }),
           floor_out);
    std::fflush(stdout);
  }
  if (!savekit::from_msgpack(savekit_out, back) || back != game) fail("savekit's last write does not read back");
  return 0;
}
