// Portability between builds: what one build writes, another reads — like cereal's
// 64-bit ↔ 32-bit test. The native build (x86-64: 64-bit long and size_t) and the
// WebAssembly build (wasm32: 32-bit long and size_t, libc++ instead of libstdc++) each
// write a store file and codec outputs, and each reads the other's:
//
//   test_portability write DIR    writes DIR/store.prefs, DIR/world.json, .msgpack, .compact,
//                                 and a slots folder DIR/slots (one slot per encoding)
//   test_portability read DIR     checks them against the values both builds construct
//   test_portability open-sealed FILE   opens one envelope sealed elsewhere (a browser page)
//
// With sealed saves built (SAVEKIT_PORTABILITY_SEAL), also DIR/sealed/: envelopes in every
// mode (a digest, a MAC, AEAD; with and without compression and a trained dictionary, whose
// bytes travel as game.dict), a slots folder and a prefs store sealing their values. An
// AEAD nonce is random, so the other build checks what opens, not the bytes.
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
#include "support/portable_world.hpp"

namespace {

using portable::BigCount;
using portable::make_world;
using portable::World;
#if SAVEKIT_PORTABILITY_SEAL
using portable::sealed_context;
#endif

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

#if SAVEKIT_PORTABILITY_SEAL
struct sealed_case {
  const char* file;
  savekit::seal_options options;  // dictionary: set to game.dict's
};
const sealed_case sealed_cases[] = {
    {"digest.sksl", {.level = 1, .protection = savekit::seal_protection::none}},
    {"mac.sksl", {.level = 19, .protection = savekit::seal_protection::mac}},
    {"aead.sksl", {.level = 3, .protection = savekit::seal_protection::aead}},
    {"aead_plain.sksl", {.compression = savekit::seal_compression::none, .protection = savekit::seal_protection::aead}},
    {"aead_dict.sksl", {.level = 3, .protection = savekit::seal_protection::aead}},
};
bool uses_dictionary(const sealed_case& c) { return std::string_view{c.file} == "aead_dict.sksl"; }

int write_sealed(const std::string& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const World world = make_world();
  std::string json;
  savekit::to_json(world, json);
  std::vector<std::string> samples;
  for (int i = 0; i < 300; ++i) {
    World sample = make_world();
    sample.name = "world " + std::to_string(i);
    sample.seed = i * 7919;
    sample.tiles.resize(static_cast<std::size_t>(i % 40));
    savekit::to_json(sample, samples.emplace_back());
  }
  auto dictionary = savekit::zstd_dictionary::train(samples, 4096);
  if (!dictionary) return std::printf("train: %s\n", dictionary.error().message().c_str()), 1;
  write_file(dir + "/game.dict", dictionary->bytes());
  const savekit::keyring keys = portable::keys();
  for (const sealed_case& c : sealed_cases) {
    savekit::seal_options options = c.options;
    if (uses_dictionary(c)) options.dictionary = &*dictionary;
    auto sealed = savekit::seal(json, options, sealed_context, &keys);
    if (!sealed) return std::printf("seal %s: %s\n", c.file, sealed.error().message().c_str()), 1;
    write_file(dir + "/" + c.file, *sealed);
  }
  auto sealer = savekit::make_slot_sealer(keys, {.level = 3}, "player-7");
  {
    auto slots = savekit::slots::open(dir + "/slots", {.sealer = sealer});
    if (!slots) return std::printf("open sealed slots: %s\n", slots.error().message().c_str()), 1;
    if (!slots->write("sealed", world, {.title = "sealed"})) return std::printf("writing the sealed slot failed\n"), 1;
  }
  auto store = savekit::prefs::open(dir + "/sealed.prefs");
  if (!store || !store->set_sealed("world", world, *sealer) || !store->save())
    return std::printf("writing the sealed store failed\n"), 1;
  return 0;
}

void read_sealed(const std::string& dir) {
  const World expected = make_world();
  std::string json;
  savekit::to_json(expected, json);
  auto dictionary = savekit::zstd_dictionary::from_bytes(read_file(dir + "/game.dict"));
  expect(bool(dictionary), "sealed: game.dict loads");
  if (!dictionary) return;
  const savekit::keyring keys = portable::keys();
  for (const sealed_case& c : sealed_cases) {
    const std::string sealed = read_file(dir + "/" + c.file);
    auto info = savekit::inspect_sealed(sealed);
    expect(info && info->protection == c.options.protection && info->compression == c.options.compression &&
               info->original_bytes == json.size() &&
               info->dictionary_id == (uses_dictionary(c) ? dictionary->id() : 0u),
           std::string{"sealed: "} + c.file + "'s header");
    const savekit::unseal_options open{.dictionaries = {&*dictionary}, .minimum_protection = c.options.protection};
    auto opened = savekit::unseal(sealed, &keys, sealed_context, open);
    expect(opened && *opened == json, std::string{"sealed: "} + c.file + " opens to the same bytes" +
                                          (opened ? std::string{} : ": " + opened.error().to_string()));
    savekit::seal_context elsewhere = sealed_context;
    elsewhere.player = "player-8";
    auto moved = savekit::unseal(sealed, &keys, elsewhere, open);
    expect(!moved && moved.error().code() == savekit::errc::tampered,
           std::string{"sealed: "} + c.file + " does not open for another player");
  }
  auto sealer = savekit::make_slot_sealer(portable::keys(), {.level = 3}, "player-7");
  auto slots = savekit::slots::open(dir + "/slots", {.read_only = true, .sealer = sealer});
  expect(bool(slots), "sealed slots: the folder opens");
  if (slots) {
    auto read = slots->read<World>("sealed");
    auto info = slots->info("sealed");
    expect(read && *read == expected && info && info->sealed, "sealed slots: the slot opens");
  }
  auto store = savekit::prefs::open(dir + "/sealed.prefs", {.read_only = true});
  expect(store && store->get_sealed<World>("world", *sealer).value_or(World{}) == expected,
         "sealed store: the entry opens");
}
#endif

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
#if SAVEKIT_PORTABILITY_SEAL
  if (write_sealed(dir + "/sealed") != 0) return 1;
#endif
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
#if SAVEKIT_PORTABILITY_SEAL
  read_sealed(dir + "/sealed");
#endif
  std::printf("%s: %d failure(s) reading %s\n", failures ? "FAILED" : "ok", failures, dir.c_str());
  return failures ? 1 : 0;
}

#if SAVEKIT_PORTABILITY_SEAL
// An AEAD envelope of make_world()'s JSON, sealed with portable::keys() for sealed_context.
int open_sealed(const std::string& file) {
  std::string json;
  savekit::to_json(make_world(), json);
  const savekit::keyring keys = portable::keys();
  auto opened =
      savekit::unseal(read_file(file), &keys, sealed_context, {.minimum_protection = savekit::seal_protection::aead});
  expect(opened && *opened == json, "open-sealed: " + file + (opened ? "" : ": " + opened.error().to_string()));
  std::printf("%s: %s\n", failures ? "FAILED" : "ok", file.c_str());
  return failures ? 1 : 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string{argv[1]} == "write") return write(argv[2]);
  if (argc == 3 && std::string{argv[1]} == "read") return read(argv[2]);
#if SAVEKIT_PORTABILITY_SEAL
  if (argc == 3 && std::string{argv[1]} == "open-sealed") return open_sealed(argv[2]);
#endif
  std::fprintf(stderr, "usage: test_portability write|read DIR, or open-sealed FILE\n");
  return 2;
}
