// Portability between builds: what one build writes, another reads — like cereal's
// 64-bit ↔ 32-bit test. The native build (x86-64: 64-bit long and size_t) and the
// WebAssembly build (wasm32: 32-bit long and size_t, libc++ instead of libstdc++) each
// write a store file and codec outputs, and each reads the other's:
//
//   test_portability write DIR    writes DIR/store.prefs, DIR/world.json, .msgpack, .compact,
//                                 and a slots folder DIR/slots (one slot per encoding)
//   test_portability read DIR     checks them against the values both builds construct
//
// Reading checks the values and that re-encoding them gives the same bytes (so the two
// builds agree byte for byte, floats included). tests/CMakeLists.txt wires the two builds.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "savekit/file_backend.hpp"
#include "savekit/prefs.hpp"
#include "savekit/savekit.hpp"
#include "savekit/slots.hpp"

namespace {

enum class Biome { plains, desert, tundra };

struct Tile {
  std::int16_t height = 0;
  Biome biome = Biome::plains;
  std::optional<std::string> label;
  bool operator==(const Tile&) const = default;
};

// Types whose width differs between the two targets (long, size_t) next to fixed ones.
struct World {
  std::string name;
  std::int64_t seed = 0;
  std::uint64_t ticks = 0;
  long population = 0;         // 64-bit natively, 32-bit in wasm32: values that fit both
  std::size_t tile_count = 0;  // likewise
  double gravity = 0;
  float wind = 0;
  std::vector<bool> discovered;
  std::vector<Tile> tiles;
  std::map<std::string, std::int32_t> counters;
  std::variant<std::monostate, int, std::string> quest;
  bool operator==(const World&) const = default;
};

struct BigCount {
  std::size_t count = 0;
};

World make_world() {
  World w;
  w.name = "Ünïcödé ワールド \xF0\x9F\x8C\x8D";
  w.seed = std::numeric_limits<std::int64_t>::min();
  w.ticks = std::numeric_limits<std::uint64_t>::max();
  w.population = std::numeric_limits<std::int32_t>::max();
  w.tile_count = std::numeric_limits<std::uint32_t>::max();
  w.gravity = 9.80665;
  w.wind = 1e-7f;
  w.discovered = {true, false, true, true, false, false, false, true, true};
  for (int i = 0; i < 40; ++i)
    w.tiles.push_back(Tile{static_cast<std::int16_t>(i * 997 % 65536 - 32768), static_cast<Biome>(i % 3),
                           i % 5 ? std::nullopt : std::optional<std::string>("tile " + std::to_string(i))});
  w.counters = {{"kills", -7}, {"deaths", 2147483647}, {"", 0}};
  w.quest = std::string{"find the \"lost\" key\n"};
  return w;
}

const std::string binary_value = std::string("\0\x01\xff\xfe savekit", 12);
const double float_values[] = {0.1, -0.0, 5e-324, 1.7976931348623157e308, 123456.789};

int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}
void write_file(const std::string& path, const std::string& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  bool ok = file && std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = file && std::fclose(file) == 0 && ok;
  expect(ok, "writing " + path);
}

int write(const std::string& dir) {
  std::filesystem::create_directories(dir);
  World world = make_world();
  std::string json, map_form, compact;
  savekit::to_json(world, json);
  savekit::to_msgpack(world, map_form);
  savekit::to_msgpack(world, compact, {.form = savekit::msgpack_form::compact});
  write_file(dir + "/world.json", json);
  write_file(dir + "/world.msgpack", map_form);
  write_file(dir + "/world.compact", compact);
  write_file(dir + "/big_count.json", "{\"count\":1099511627776}");  // 2^40: too big for a 32-bit size_t

  std::remove((dir + "/store.prefs").c_str());
  auto store = savekit::prefs::open(dir + "/store.prefs");
  if (!store) return std::printf("open: %s\n", store.error().message().c_str()), 1;
  bool ok = store->set("world", world) &&
            store->set("world_compact", world, savekit::object_encoding::msgpack_compact) &&
            store->set("world_json", world, savekit::object_encoding::json) &&
            store->set_int("min", std::numeric_limits<std::int64_t>::min()) && store->set_string("bytes", binary_value);
  for (std::size_t i = 0; i < std::size(float_values); ++i)
    ok = ok && store->set_float("float" + std::to_string(i), float_values[i]);
  ok = ok && store->save() && store->set_int("deleted", 1) && store->save() && store->delete_key("deleted") &&
       store->save();
  if (!ok) return std::printf("writing the store failed\n"), 1;
  std::filesystem::remove_all(dir + "/slots");
  {
    auto slots = savekit::slots::open(dir + "/slots");
    if (!slots) return std::printf("open slots: %s\n", slots.error().message().c_str()), 1;
    savekit::slot_meta meta{.title = "Portable — ぬののふく", .playtime = std::chrono::seconds{4321}, .progress = 0.25};
    meta.thumbnail.assign(300, std::byte{0x5a});
    meta.user = {{"level", "3"}};
    ok = slots->write("map", world, meta) &&
         slots->write("compact", world, meta, {.encoding = savekit::object_encoding::msgpack_compact}) &&
         slots->write("json", world, meta, {.encoding = savekit::object_encoding::json});
    if (!ok) return std::printf("writing the slots failed\n"), 1;
  }
  std::printf("wrote %s\n", dir.c_str());
  return failures ? 1 : 0;
}

int read(const std::string& dir) {
  const World expected = make_world();
  std::string json, map_form, compact;
  savekit::to_json(expected, json);
  savekit::to_msgpack(expected, map_form);
  savekit::to_msgpack(expected, compact, {.form = savekit::msgpack_form::compact});
  expect(read_file(dir + "/world.json") == json, "world.json: the same bytes as this build writes");
  expect(read_file(dir + "/world.msgpack") == map_form, "world.msgpack: the same bytes");
  expect(read_file(dir + "/world.compact") == compact, "world.compact: the same bytes");
  expect(savekit::from_json<World>(read_file(dir + "/world.json")).value_or(World{}) == expected, "world.json reads");
  expect(savekit::from_msgpack<World>(read_file(dir + "/world.msgpack")).value_or(World{}) == expected,
         "world.msgpack reads");
  expect(savekit::from_msgpack<World>(read_file(dir + "/world.compact")).value_or(World{}) == expected,
         "world.compact reads");
  // 2^40 fits a 64-bit size_t; a 32-bit one must refuse it, not wrap it.
  auto big = savekit::from_json<BigCount>(read_file(dir + "/big_count.json"));
  if constexpr (sizeof(std::size_t) >= 8)
    expect(big && big->count == (std::size_t{1} << 40), "2^40 reads into a 64-bit size_t");
  else
    expect(!big && big.error().code() == savekit::errc::number_out_of_range && big.error().path() == "$.count",
           "2^40 into a 32-bit size_t is number_out_of_range at $.count");

  auto check = savekit::check_store_file(dir + "/store.prefs");
  expect(check && check->header_ok && !check->torn_tail && !check->damaged &&
             check->file_bytes == check->intact_bytes && check->entries == 10,
         "the store file checks clean");
  auto store = savekit::prefs::open(dir + "/store.prefs", {.read_only = true});
  if (!store) {
    std::printf("FAILED: open %s: %s\n", dir.c_str(), store.error().message().c_str());
    return 1;
  }
  expect(store->get<World>("world").value_or(World{}) == expected, "store: world (MessagePack map)");
  expect(store->get<World>("world_compact").value_or(World{}) == expected, "store: world (compact)");
  expect(store->get<World>("world_json").value_or(World{}) == expected, "store: world (JSON)");
  expect(store->get_int("min") == std::numeric_limits<std::int64_t>::min(), "store: int64 min");
  expect(store->get_string("bytes") == binary_value, "store: binary string");
  for (std::size_t i = 0; i < std::size(float_values); ++i) {
    auto got = store->try_get_float("float" + std::to_string(i));
    expect(got && std::memcmp(&*got, &float_values[i], sizeof(double)) == 0, "store: float bits " + std::to_string(i));
  }
  expect(!store->has_key("deleted"), "store: the deletion is there");
  expect(store->size() == 10, "store: 10 keys");
  auto slots = savekit::slots::open(dir + "/slots", {.read_only = true});
  expect(bool(slots), "slots: the folder opens");
  if (slots) {
    auto menu = slots->list();
    expect(menu && menu->size() == 3, "slots: three in the menu");
    for (const char* name : {"map", "compact", "json"}) {
      savekit::read_report report;
      auto read = slots->read<World>(name, &report);
      expect(read && *read == expected && !report.fell_back(), std::string{"slots: "} + name + " reads");
      auto info = slots->info(name);
      expect(info && info->meta.title == "Portable — ぬののふく" && info->meta.playtime.count() == 4321 &&
                 info->meta.user.at("level") == "3" && info->thumbnail_bytes == 300,
             std::string{"slots: "} + name + "'s metadata");
      auto picture = slots->thumbnail(name);
      expect(picture && picture->size() == 300 && (*picture)[0] == std::byte{0x5a},
             std::string{"slots: "} + name + "'s thumbnail");
    }
  }
  std::printf("%s: %d failure(s) reading %s\n", failures ? "FAILED" : "ok", failures, dir.c_str());
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string{argv[1]} == "write") return write(argv[2]);
  if (argc == 3 && std::string{argv[1]} == "read") return read(argv[2]);
  std::fprintf(stderr, "usage: test_portability write|read DIR\n");
  return 2;
}
