// A tiny browser game that keeps its progress with savekit in IndexedDB: a Status with
// level, exp and HP, a button to gain exp and one to save. The page (index.html) calls the
// game_* functions; the game draws through window.gameDraw.
//
// Run it: scripts/test.sh wasm builds it into build/wasm/examples/web; serve that folder
// (python3 -m http.server -b 127.0.0.1 8000) and open http://127.0.0.1:8000/.
#include <emscripten/emscripten.h>

#include <cstring>
#include <optional>
#include <string>

#include "savekit/indexeddb.hpp"
#include "savekit/savekit.hpp"

// Draws through the page's window.gameDraw.
EM_JS(void, page_draw, (const char* state, const char* message, const char* storage, int pending),
      { window.gameDraw(UTF8ToString(state), UTF8ToString(message), UTF8ToString(storage), pending); });

namespace {

struct Status {
  int level = 1;
  int exp = 0;
  int hp = 10;
  int max_hp = 10;
};

struct Game {
  Status status;
  std::optional<savekit::prefs> store;  // empty until IndexedDB has opened (or if it cannot)
  std::string message = "opening saves...";
  std::string storage = "";
};
Game game;

constexpr int exp_per_level = 10;

void draw() {
  std::string state = savekit::to_json(game.status);
  bool pending = game.store && game.store->has_pending_changes();
  page_draw(state.c_str(), game.message.c_str(), game.storage.c_str(), pending);
}

void loaded(savekit::result<savekit::prefs> store, const savekit::web::storage_info& storage) {
  if (!store) {
    // Reported, not hidden: the game goes on, but says its progress will not be kept.
    game.message = "progress will NOT be kept: " + std::string{savekit::to_string(store.error().code())} + ": " +
                   store.error().message();
    game.storage = "unavailable";
    return draw();
  }
  game.store = std::move(*store);
  game.storage = std::string{"persistent storage: "} + std::string{savekit::web::to_string(storage.persisted)};
  if (game.store->has_key("status")) {
    auto saved = game.store->get<Status>("status");
    if (saved) {
      game.status = *saved;
      game.message = "loaded";
    } else {
      game.message = "the save could not be read (" + saved.error().message() + "): new game";
    }
  } else {
    game.message = "new game";
  }
  if (game.store->recovery().recovered) game.message += " (" + game.store->recovery().detail + ")";
  draw();
}

}  // namespace

extern "C" {

// Exp up; every exp_per_level a level up (more max HP, healed). Changes the store, unsaved.
EMSCRIPTEN_KEEPALIVE void game_gain_exp(int amount) {
  game.status.exp += amount;
  while (game.status.exp >= game.status.level * exp_per_level) {
    game.status.exp -= game.status.level * exp_per_level;
    ++game.status.level;
    game.status.max_hp += 5;
    game.status.hp = game.status.max_hp;
  }
  if (game.store) (void)game.store->set("status", game.status);
  game.message = "playing";
  draw();
}

EMSCRIPTEN_KEEPALIVE void game_take_hit(int damage) {
  game.status.hp = game.status.hp > damage ? game.status.hp - damage : 0;
  if (game.store) (void)game.store->set("status", game.status);
  game.message = "playing";
  draw();
}

// Saves; settles the JavaScript promise `promise` when the IndexedDB transaction completes.
EMSCRIPTEN_KEEPALIVE void game_save(int promise) {
  if (!game.store) {
    savekit::web::settle_js_promise(promise, savekit::error{savekit::errc::storage_unavailable, 0, "no save storage"});
    return;
  }
  game.message = "saving...";
  draw();
  game.store->save_async([promise](savekit::status outcome) {
    game.message = outcome ? "saved" : "save failed: " + outcome.error().message();
    draw();
    savekit::web::settle_js_promise(promise, outcome);
  });
}

}  // extern "C"

int main(int argc, char** argv) {
  savekit::web::indexeddb_options options;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--no-save-when-hidden") == 0) options.save_when_hidden = false;
  savekit::web::set_autosave_listener([](const std::string&, const savekit::status& outcome) {
    game.message = outcome ? "saved (page hidden)" : "saving on hide failed: " + outcome.error().message();
    draw();
  });
  draw();
  savekit::web::open_indexeddb("demo-game", loaded, options);
  return 0;  // the runtime stays alive: the page drives the game
}
