// Saves the seed's Status through the store, or loads it back: run it twice, as two
// processes, to see a save survive.
//
//   example_prefs_status save DIR    # commits Status (and a per-key copy, PlayerPrefs-style)
//   example_prefs_status load DIR    # opens the store again and prints what it loaded
#include <savekit/prefs.hpp>

#include <cstdio>
#include <string>

#include "seed_types.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s save|load DIR\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  std::string path = std::string(argv[2]) + "/player.prefs";
  auto store = savekit::prefs::open(path);
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().to_string().c_str());
    return 1;
  }
  if (store->recovery().recovered) std::printf("recovered: %s\n", store->recovery().detail.c_str());

  if (mode == "save") {
    seeds::Status status = seeds::seed_status();
    savekit::status saved = store->set("status", status);        // the whole object, one key
    if (saved) saved = store->set_int("Status1.lv", status.lv);  // the seed's per-key way
    if (saved) saved = store->set_string("Status1.equip.name", status.equip.name);
    if (saved) saved = store->save();  // durable, atomic
    if (!saved) {
      std::fprintf(stderr, "save failed: %s\n", saved.error().to_string().c_str());
      return 1;
    }
    std::printf("saved %zu keys to %s\n", store->size(), path.c_str());
    return 0;
  }
  auto status = store->get<seeds::Status>("status");
  if (!status) {
    std::fprintf(stderr, "load failed: %s\n", status.error().to_string().c_str());
    return 1;
  }
  std::printf("loaded from %s: %s\n", path.c_str(), savekit::to_json(*status).c_str());
  std::printf("per-key: Status1.lv=%lld Status1.equip.name=%s\n",
              static_cast<long long>(store->get_int("Status1.lv", -1)),
              store->get_string("Status1.equip.name", "?").c_str());
  return *status == seeds::seed_status() ? 0 : 1;
}
