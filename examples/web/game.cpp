// A tiny browser game that keeps its progress with savekit in IndexedDB: a Status with
// level, exp and HP, a button to gain exp and one to save. The page (index.html) calls the
// game_* functions; the game draws through window.gameDraw.
//
// It is the pattern the README points game authors to, so it does what a player needs:
//   - saves when the tab is hidden or closed, and every few seconds while there are
//     unsaved changes (a browser the OS quits fires no event at all);
//   - a second tab shows the save read-only and takes over when the first tab closes;
//   - while saves cannot be kept, a warning says so and stays; every failure is told in
//     words a player can act on, not as a browser exception.
//
// Run it: scripts/test.sh wasm builds it into build/wasm/examples/web; serve that folder
// (python3 -m http.server -b 127.0.0.1 8000) and open http://127.0.0.1:8000/.
#include <emscripten/emscripten.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "savekit/indexeddb.hpp"
#include "savekit/savekit.hpp"

// (clang-format would split JavaScript's === in two.)
// clang-format off
EM_JS(int, page_hidden, (), { return document.hidden ? 1 : 0; });
EM_JS(int, secure_context, (), { return typeof isSecureContext === 'undefined' || isSecureContext ? 1 : 0; });
// clang-format on
// Calls game_page_visible() once, the next time the page becomes visible.
EM_JS(void, call_when_visible, (), {
  var listener = function() {
    if (document.hidden) return;
    document.removeEventListener('visibilitychange', listener);
    Module._game_page_visible();
  };
  document.addEventListener('visibilitychange', listener);
});

// Draws through the page's window.gameDraw.
EM_JS(void, page_draw,
      (const char* state, const char* message, const char* warning, const char* storage, int pending, int playable), {
        window.gameDraw(UTF8ToString(state), UTF8ToString(message), UTF8ToString(warning), UTF8ToString(storage),
                        pending, playable);
      });

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
  bool read_only = false;               // another tab has the saves: shown, not changed
  bool shown_read_only = false;         // the player saw that view (so a takeover is news)
  bool playable = false;
  std::string message = "Opening your saves...";
  std::string warning;  // stays while progress cannot be kept
  std::string storage;
  savekit::web::indexeddb_options options;
};
Game game;

constexpr int exp_per_level = 10;
constexpr const char* store_name = "demo-game";

// What a player can do about each failure. The code and savekit's own words stay in
// brackets, for a bug report. opening: the saves could not even be opened.
std::string player_words(const savekit::error& e, bool opening = false) {
  std::string what;
  switch (e.code()) {
    case savekit::errc::storage_full:
      what =
          "There is not enough storage space. Free some space on this device (or clear other sites' data), "
          "then save again.";
      break;
    case savekit::errc::storage_unavailable:
      what = secure_context()
                 ? "This browser is not keeping data for this page. Allow site data (cookies and site data) for this "
                   "site, leave private browsing, or open the game on its own page instead of inside another site."
                 : "This page is not served securely, so the browser cannot keep your saves safe here. Open the "
                   "game from its https:// address.";
      break;
    case savekit::errc::locked:
      what = "The game is open in another tab. Close that tab to play here, or play there.";
      break;
    case savekit::errc::unsupported_version:
      what = "These saves were made by a newer version of the game. Reload the page to get it.";
      break;
    case savekit::errc::io_error:
      what = opening ? "The saves could not be opened. Close other pages of this site, then reload this one."
                     : "The browser could not write the save. Try again; if it keeps failing, reload the page.";
      break;
    default:
      what = "The save could not be kept.";
      break;
  }
  std::string detail = std::string{savekit::to_string(e.code())};
  if (!e.message().empty()) detail += ": " + e.message();
  return what + " [" + detail + "]";
}

void draw() {
  std::string state = savekit::to_json(game.status);
  bool pending = game.store && !game.read_only && game.store->has_pending_changes();
  page_draw(state.c_str(), game.message.c_str(), game.warning.c_str(), game.storage.c_str(), pending, game.playable);
}

std::string describe_storage(const savekit::web::storage_info& storage) {
  std::string text = "Saved in this browser";
  if (storage.persisted == savekit::web::persistence::granted)
    text += " (kept until you delete them)";
  else
    text += " (the browser may clear them if space runs low)";
  constexpr std::uint64_t mb = 1024 * 1024;
  if (storage.quota >= 10 * 1024 * mb)
    text += "; room for about " + std::to_string(storage.quota / (1024 * mb)) + " GB.";
  else if (storage.quota > 0)
    text += "; room for about " + std::to_string(storage.quota / mb) + " MB.";
  else
    text += ".";
  return text;
}

void load_status_from_store() {
  if (!game.store->has_key("status")) {
    game.status = Status{};
    game.message = "New game.";
    return;
  }
  auto saved = game.store->get<Status>("status");
  if (saved) {
    game.status = *saved;
    game.message = "Loaded your save.";
  } else {
    game.message = "Your save could not be read, so this is a new game. [" +
                   std::string{savekit::to_string(saved.error().code())} + "]";
  }
}

void took_over(savekit::result<savekit::prefs> store, const savekit::web::storage_info& storage);
void wait_for_the_other_tab();

void opened(savekit::result<savekit::prefs> store, const savekit::web::storage_info& storage) {
  if (!store) {
    if (store.error().code() == savekit::errc::locked) {
      // Another tab has the saves: show them, and take over when that tab closes.
      savekit::web::indexeddb_options reading = game.options;
      reading.read_only = true;
      savekit::web::open_indexeddb(
          store_name,
          [](savekit::result<savekit::prefs> reader, const savekit::web::storage_info& info) {
            if (game.playable) return;  // the other tab closed first: this tab already took over
            if (reader) {
              game.store = std::move(*reader);
              game.read_only = true;
              load_status_from_store();
              game.storage = describe_storage(info);
            }
            game.message =
                "The game is open in another tab: this shows its save. It continues here when you "
                "close the other tab.";
            game.warning = player_words(savekit::error{savekit::errc::locked, 0, ""});
            game.playable = false;
            game.shown_read_only = true;
            draw();
          },
          reading);
      wait_for_the_other_tab();
      return;
    }
    // Reported, not hidden: the game goes on, and says — for as long as it is so — that
    // its progress will not be kept.
    game.warning = "Progress will NOT be kept. " + player_words(store.error(), true);
    game.storage = "No save storage.";
    game.message = "Playing without saves.";
    game.playable = true;
    return draw();
  }
  game.store = std::move(*store);
  game.read_only = false;
  game.warning.clear();
  game.storage = describe_storage(storage);
  load_status_from_store();
  if (game.store->recovery().recovered) game.message += " (Some saved data could not be read and was left out.)";
  game.playable = true;
  draw();
}

void wait_for_the_other_tab() {
  savekit::web::indexeddb_options waiting = game.options;
  waiting.wait_for_lock = true;
  savekit::web::open_indexeddb(store_name, took_over, waiting);
}

void took_over(savekit::result<savekit::prefs> store, const savekit::web::storage_info& storage) {
  if (store && page_hidden()) {
    // The saves came free while this tab is in the background: most likely the player
    // just reloaded the tab in front. Let them go (that tab gets them; the store closes
    // as it goes out of scope), and ask again when the player comes to this tab.
    call_when_visible();
    return;
  }
  game.store.reset();  // the read-only view
  opened(std::move(store), storage);
  if (game.store && game.shown_read_only) game.message = "The other tab was closed: playing here now. " + game.message;
  draw();
}

void changed() {
  if (game.store) (void)game.store->set("status", game.status);
  game.message = "Playing.";
  draw();
}

}  // namespace

extern "C" {

// The page became visible again while another tab had the saves: ask for them again.
EMSCRIPTEN_KEEPALIVE void game_page_visible() {
  if (!game.playable) wait_for_the_other_tab();
}

// Exp up; every exp_per_level a level up (more max HP, healed). Changes the store, unsaved.
EMSCRIPTEN_KEEPALIVE void game_gain_exp(int amount) {
  if (!game.playable) return;
  game.status.exp += amount;
  while (game.status.exp >= game.status.level * exp_per_level) {
    game.status.exp -= game.status.level * exp_per_level;
    ++game.status.level;
    game.status.max_hp += 5;
    game.status.hp = game.status.max_hp;
  }
  changed();
}

EMSCRIPTEN_KEEPALIVE void game_take_hit(int damage) {
  if (!game.playable) return;
  game.status.hp = game.status.hp > damage ? game.status.hp - damage : 0;
  changed();
}

// Saves; settles the JavaScript promise `promise` when the IndexedDB transaction completes.
EMSCRIPTEN_KEEPALIVE void game_save(int promise) {
  if (!game.store || game.read_only) {
    savekit::error why = game.read_only ? savekit::error{savekit::errc::locked, 0, "another tab has the saves"}
                                        : savekit::error{savekit::errc::storage_unavailable, 0, "no save storage"};
    // The warning above already says why and what to do.
    game.message = game.warning.empty() ? "Not saved. " + player_words(why) : "Not saved (see the warning above).";
    draw();
    savekit::web::settle_js_promise(promise, why);
    return;
  }
  game.message = "Saving...";
  draw();
  game.store->save_async([promise](savekit::status outcome) {
    game.message = outcome ? "Saved." : "Not saved. " + player_words(outcome.error());
    draw();
    savekit::web::settle_js_promise(promise, outcome);
  });
}

}  // extern "C"

int main(int argc, char** argv) {
  // Arguments from the page's query string (index.html): the tests use them.
  game.options.autosave_every = std::chrono::seconds{5};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-save-when-hidden") == 0) game.options.save_when_hidden = false;
    if (std::strcmp(argv[i], "--no-autosave") == 0) game.options.autosave_every = {};
    if (std::strncmp(argv[i], "--autosave-ms=", 14) == 0)
      game.options.autosave_every = std::chrono::milliseconds{std::atoi(argv[i] + 14)};
  }
  savekit::web::on_autosave([](const savekit::web::autosave_event& event) {
    if (!event.committed || game.read_only) return;  // nothing to save is not news
    if (event.outcome) {
      game.message = event.trigger == savekit::web::autosave_trigger::page_hidden ? "Saved (page hidden)."
                                                                                  : "Saved automatically.";
    } else {
      game.message = "Not saved. " + player_words(event.outcome.error());
    }
    draw();
  });
  draw();
  savekit::web::open_indexeddb(store_name, opened, game.options);
  return 0;  // the runtime stays alive: the page drives the game
}
