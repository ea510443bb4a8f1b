// A game's session, for the cloud demo (scripts/cloud_demo.sh): plays HOURS on the save in
// slot1 of a slots folder (a new game if there is none) and saves it. Sync is the CLI's job
// here (savekit cloud sync); a game would call savekit::cloud::sync itself.
//   cloud_play DIR HOURS
#include <savekit/slots.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

struct Progress {
  int level = 1;
  int gold = 0;
  std::string place = "Village";
};

int main(int argc, char** argv) {
  if (argc != 3) return std::fputs("usage: cloud_play DIR HOURS\n", stderr), 2;
  const int hours = std::atoi(argv[2]);
  savekit::result<savekit::slots> slots = savekit::slots::open(argv[1]);
  if (!slots) return std::fprintf(stderr, "%s\n", slots.error().to_string().c_str()), 1;
  Progress game;
  std::chrono::seconds played{0};
  if (savekit::result<savekit::slot_info> info = slots->info("slot1")) {
    savekit::result<Progress> loaded = slots->read<Progress>("slot1");
    if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().to_string().c_str()), 1;
    game = *loaded;
    played = info->meta.playtime;
  }
  game.level += hours;
  game.gold += 100 * hours;
  game.place = game.level >= 10 ? "Castle" : game.level >= 5 ? "Forest" : "Village";
  played += std::chrono::hours{hours};
  const std::string title = game.place + ", level " + std::to_string(game.level);
  if (savekit::status saved = slots->write("slot1", game, {.title = title, .playtime = played}); !saved)
    return std::fprintf(stderr, "%s\n", saved.error().to_string().c_str()), 1;
  std::printf("played %d h in %s: slot1 is \"%s\"\n", hours, argv[1], title.c_str());
}
