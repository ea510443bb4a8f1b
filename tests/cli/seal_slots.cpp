// Writes a slots folder with sealed saves, for the CLI checks (test_cli.sh): what a game
// using slots_options::sealer leaves on disk.
//   seal_slots FOLDER   (a fixed key: the checks need no secret)
#include <savekit/seal.hpp>
#include <savekit/slots.hpp>

#include <array>
#include <string>
#include <vector>

namespace {
struct Hero {
  std::string name;
  int level = 1;
  std::vector<int> inventory;
};
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::array<std::byte, savekit::seal_key_bytes> bytes;
  bytes.fill(std::byte{0x42});
  auto key = savekit::seal_key::from_bytes(1, bytes);
  if (!key) return 1;
  {  // a save from before the game sealed (or written by anyone without the key)
    auto plain = savekit::slots::open(argv[1]);
    if (!plain || !plain->write("plain", Hero{"Ayla", 1, {}})) return 1;
  }
  auto s = savekit::slots::open(argv[1], {.sealer = savekit::make_slot_sealer(savekit::keyring{*key})});
  if (!s) return 1;
  for (int i = 1; i <= 2; ++i)
    if (!s->write("sealed", Hero{"Ayla", 10 + i, {1, 2, 3}}, {.title = "Chapter " + std::to_string(i)})) return 1;
  return 0;
}
