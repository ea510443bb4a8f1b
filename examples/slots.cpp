// Save slots: three saves, the load menu as a table, and an older generation restored.
//   example_slots FOLDER
#include <savekit/slots.hpp>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

struct Game {
  std::string chapter;
  int level = 1;
  int gold = 0;
  std::vector<std::string> items;
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: example_slots FOLDER\n");
    return 2;
  }
  savekit::result<savekit::slots> s = savekit::slots::open(argv[1]);
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    return 1;
  }
  Game game{"The Forest", 12, 300, {"sword", "lantern"}};
  savekit::slot_meta meta{.title = "Chapter 2 — The Forest", .playtime = std::chrono::seconds{11520}, .progress = 0.42};
  meta.thumbnail.assign(64, std::byte{0x7f});  // a PNG in a real game
  meta.user = {{"level", "12"}};
  bool ok = s->write("slot1", game, meta) && s->write("slot2", Game{"The Village", 3, 40, {}}, {.title = "Chapter 1"});
  game.gold = 0;  // a bad decision, saved over slot1
  ok = ok && s->write("slot1", game, meta);
  auto autosaved = s->autosave(game, {.title = "Autosave"});
  if (!ok || !autosaved) {
    std::fprintf(stderr, "a write failed\n");
    return 1;
  }

  auto menu = s->list();
  if (!menu) return 1;
  std::printf("%-12s %-24s %9s %8s %5s %s\n", "slot", "title", "playtime", "progress", "gen", "saved at (UTC)");
  for (const savekit::slot_info& slot : *menu) {
    std::time_t at = std::chrono::system_clock::to_time_t(slot.saved_at);
    char when[32];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::gmtime(&at));
    std::printf("%-12s %-24s %8llds %7.0f%% %5llu %s\n", slot.name.c_str(), slot.meta.title.c_str(),
                static_cast<long long>(slot.meta.playtime.count()), slot.meta.progress * 100,
                static_cast<unsigned long long>(slot.generation), when);
  }

  // Back to the save before the bad decision: generation 1 of slot1 becomes the newest.
  auto history = s->history("slot1");
  if (!history || history->size() < 2 || !s->restore("slot1", (*history)[1].generation)) return 1;
  savekit::result<Game> loaded = s->read<Game>("slot1");
  if (!loaded) return 1;
  std::printf("slot1 restored from generation %llu: %d gold\n",
              static_cast<unsigned long long>((*history)[1].generation), loaded->gold);
  return 0;
}
