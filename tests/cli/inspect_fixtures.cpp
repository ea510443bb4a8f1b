// Writes what the show/diff/edit/schema checks (test_inspect_cli.sh) look at: a value of every
// kind a save holds, as a store's entries, a MessagePack file and a slot with two
// generations, and the JSON Schema of its type.
//   inspect_fixtures FOLDER
#include <savekit/file_backend.hpp>
#include <savekit/json_schema.hpp>
#include <savekit/prefs.hpp>
#include <savekit/slots.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Item {
  std::uint32_t id = 0;
  std::string name;
  std::uint16_t count = 0;
};

struct Every {
  std::int64_t low = std::numeric_limits<std::int64_t>::min();
  std::int64_t high = std::numeric_limits<std::int64_t>::max();
  std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  std::uint8_t level = 7;
  float speed = 0.1f;
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = -std::numeric_limits<double>::infinity();
  std::vector<std::byte> seed{std::byte{0}, std::byte{0xff}, std::byte{0x10}};
  std::map<std::int32_t, std::map<std::int64_t, std::string>> regions{{-1, {{5000000000, "far"}}}, {2, {}}};
  std::optional<std::string> guild;
  bool alive = true;
  std::vector<Item> items{{1, "sword", 1}, {2, "potion", 3}};
  std::string name = "Ayla";
};

bool write_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string folder = argv[1];
  Every every;
  {
    auto store = savekit::prefs::open(savekit::make_file_backend(folder + "/every.prefs"));
    if (!store) return 1;
    bool ok = store->set("hero", every) && store->set("hero_json", every, savekit::object_encoding::json) &&
              store->set_int("count", std::numeric_limits<std::int64_t>::min()) && store->set_float("ratio", 0.25) &&
              store->set_string("motto", "carpe diem") && store->set_bytes("blob", every.seed) && store->save();
    if (!ok) return 1;
  }
  std::string packed;
  savekit::to_msgpack(every, packed);
  if (!write_text(folder + "/every.msgpack", packed)) return 1;
  if (!write_text(folder + "/every.schema.json", savekit::json_schema<Every>({.additional_members = false}))) return 1;
  auto s = savekit::slots::open(folder + "/slots");
  if (!s || !s->write("hero", every, {.title = "Chapter 1"})) return 1;
  every.level = 8;
  every.items[1].count = 4;
  every.items.push_back({3, "shield", 1});
  if (!s->write("hero", every, {.title = "Chapter 2"}) || !s->flush()) return 1;
  return 0;
}
