#include <savekit/savekit.hpp>

#include <cstdio>

// Plain structs: no annotations, no per-field code.
struct Equip {
  std::string name;
  int atk, def, spd;
};
struct Status {
  int lv, exp, hp, max_hp, atk, def, spd;
  Equip equip;
};

int main() {
  Status status{1, 0, 10, 10, 1, 1, 1, {"ぬののふく", 0, 1, 0}};
  std::string json = savekit::to_json(status);                 // {"lv":1,...}
  std::vector<std::byte> bytes = savekit::to_msgpack(status);  // MessagePack, byte-clean
  savekit::result<Status> loaded = savekit::from_msgpack<Status>(bytes);
  if (!loaded) return std::puts(loaded.error().to_string().c_str()), 1;
  std::printf("%s\n%zu bytes as MessagePack; loaded back: %s\n", json.c_str(), bytes.size(),
              loaded->equip.name.c_str());
}
