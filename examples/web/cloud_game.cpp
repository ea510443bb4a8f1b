// Slime Hunter with cloud saves: the demo game (game.cpp) kept in a save slot in IndexedDB
// and synced with savekit-server, so that progress follows the player to another browser or
// device. The page (cloud.html) calls the game_* functions; the game draws through
// window.cloudDraw.
//
// What it shows a game author:
//   - saving is local and immediate (a slot in IndexedDB); Sync is separate and may fail
//     without losing anything — the game plays offline as long as it likes;
//   - a sync runs with run_async: the page stays responsive while fetch() is under way;
//   - a conflict (both devices played since they last synced) is the player's choice,
//     policy::ask: both saves are shown with their level, play time and device, and the
//     one not chosen stays restorable (a generation here, a version on the server);
//   - the server's address and the device name are remembered by the sync state in
//     IndexedDB (savekit::cloud::remembered); the token is asked for each time.
//
// Run it: scripts/test.sh wasm builds it into build/wasm/examples/web (cloud.html); start a
// savekit-server with --cors-origin for the page's origin (docs/cloud.md, "In the browser").
#include <emscripten/emscripten.h>

#include <chrono>
#include <optional>
#include <string>

#include "savekit/cloud.hpp"
#include "savekit/indexeddb.hpp"
#include "savekit/savekit.hpp"

EM_JS(void, cloud_page_draw, (const char* view), { window.cloudDraw(JSON.parse(UTF8ToString(view))); });

namespace {

struct Status {
  int level = 1;
  int exp = 0;
  int hp = 10;
  int max_hp = 10;
  std::int64_t playtime_s = 0;  // the game's clock: every action is 30 s of play
};

// What the page draws (as JSON).
struct Side {
  int level = 0;
  std::int64_t playtime_s = 0;
  std::string device;
};
struct View {
  Status status;
  std::string message;
  bool playable = false;
  bool connected = false;
  std::string cloud;  // the slot's sync state: local_only, pending, synced, remote_only, conflict
  std::string url, device;
  std::optional<Side> here, there;  // a conflict: both saves
  bool syncing = false;
};

constexpr const char* slot_name = "adventure";
constexpr int exp_per_level = 10;

struct Game {
  View view;
  std::uint64_t frames = 0;  // the game's main loop (a real game draws here): it never stops for a sync
  std::optional<savekit::slots> slots;
  std::optional<savekit::cloud::sync> sync;
};
Game game;

std::string words(const savekit::error& e) {
  std::string out{savekit::to_string(e.code())};
  if (!e.message().empty()) out += ": " + e.message();
  return out;
}

int level_of(const savekit::slot_info& info) {
  const auto found = info.meta.user.find("level");
  return found == info.meta.user.end() ? 0 : std::atoi(found->second.c_str());
}

// The cloud half of the view, from the sync's status (no request).
void refresh_cloud() {
  game.view.here.reset();
  game.view.there.reset();
  if (!game.sync) {
    game.view.cloud.clear();
    return;
  }
  savekit::result<savekit::cloud::slot_state> s = game.sync->status(slot_name);
  if (!s) {
    game.view.cloud = s.error().code() == savekit::errc::not_found ? "none" : "unknown";
    return;
  }
  game.view.cloud = std::string{savekit::cloud::to_string(s->state)};
  if (s->state == savekit::cloud::sync_state::conflict && s->local && s->remote) {
    game.view.here = Side{level_of(*s->local), s->local->meta.playtime.count(), game.view.device};
    game.view.there = Side{level_of(*s->remote), s->remote->meta.playtime.count(), s->remote_device};
  }
}

void draw() {
  refresh_cloud();
  const std::string json = savekit::to_json(game.view);
  cloud_page_draw(json.c_str());
}

void load_slot() {
  savekit::result<Status> saved = game.slots->read<Status>(slot_name);
  if (saved) {
    game.view.status = *saved;
  } else if (saved.error().code() == savekit::errc::not_found) {
    game.view.status = Status{};
  } else {
    game.view.message = "Your save could not be read [" + words(saved.error()) + "]";
  }
}

savekit::slot_meta meta_of(const Status& s) {
  savekit::slot_meta meta;
  meta.title = "Level " + std::to_string(s.level);
  meta.playtime = std::chrono::seconds{s.playtime_s};
  meta.user["level"] = std::to_string(s.level);
  return meta;
}

void changed() {
  game.view.status.playtime_s += 30;
  game.view.message = "Playing (not saved yet).";
  draw();
}

std::string said_of(const savekit::cloud::report& r) {
  const savekit::cloud::slot_report* s = r.find(slot_name);
  if (!s) return "Nothing to sync yet: save first.";
  switch (s->what) {
    case savekit::cloud::outcome::pushed:
      return "Synced: your progress is in the cloud.";
    case savekit::cloud::outcome::pulled:
      return "Synced: the progress made on another device is here.";
    case savekit::cloud::outcome::unchanged:
      return "Synced: nothing new.";
    case savekit::cloud::outcome::deleted:
      return "Synced: the save was deleted on another device.";
    case savekit::cloud::outcome::conflict:
      return "Both devices played since the last sync: choose which progress to keep.";
    case savekit::cloud::outcome::failed:
      return "Not synced (your progress is saved here; try again later) [" + (s->error ? words(*s->error) : "") + "]";
  }
  return "";
}

void sync_now(int promise) {
  if (!game.sync) {
    savekit::error why{savekit::errc::invalid_value, 0, "connect to a server first"};
    game.view.message = "Not synced: " + why.message() + ".";
    draw();
    return savekit::web::settle_js_promise(promise, why);
  }
  game.view.syncing = true;
  game.view.message = "Syncing...";
  draw();
  game.sync->run_async([promise](savekit::result<savekit::cloud::report> r) {
    game.view.syncing = false;
    if (r) {
      game.view.message = said_of(*r);
      const savekit::cloud::slot_report* s = r->find(slot_name);
      if (s && s->what == savekit::cloud::outcome::pulled) load_slot();
    } else {
      game.view.message = "Not synced (your progress is saved here; try again later) [" + words(r.error()) + "]";
    }
    draw();
    savekit::web::settle_js_promise(promise, r ? savekit::status{} : savekit::status{r.error()});
  });
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE void game_gain_exp(int amount) {
  if (!game.view.playable) return;
  Status& s = game.view.status;
  s.exp += amount;
  while (s.exp >= s.level * exp_per_level) {
    s.exp -= s.level * exp_per_level;
    ++s.level;
    s.max_hp += 5;
    s.hp = s.max_hp;
  }
  changed();
}

EMSCRIPTEN_KEEPALIVE void game_take_hit(int damage) {
  if (!game.view.playable) return;
  game.view.status.hp = game.view.status.hp > damage ? game.view.status.hp - damage : 0;
  changed();
}

// Saves in the slot; settles the promise when IndexedDB has it.
EMSCRIPTEN_KEEPALIVE void game_save(int promise) {
  if (!game.slots)
    return savekit::web::settle_js_promise(promise, savekit::error{savekit::errc::locked, 0, "no slots"});
  game.slots->write_async(slot_name, game.view.status, meta_of(game.view.status), [promise](savekit::status saved) {
    game.view.message = saved ? "Saved on this device." : "Not saved [" + words(saved.error()) + "]";
    draw();
    savekit::web::settle_js_promise(promise, saved);
  });
}

// Connects to a server (the sync state remembers url and device for the next launch).
EMSCRIPTEN_KEEPALIVE int game_cloud_connect(const char* url, const char* token, const char* device) {
  if (!game.slots) return 1;
  game.sync.reset();
  savekit::cloud::options o{.url = url, .token = token, .device = device};
  o.policy = savekit::cloud::policy::ask;  // a conflict is the player's choice
  o.attempts = 2;
  savekit::result<savekit::cloud::sync> opened = savekit::cloud::sync::open(*game.slots, std::move(o));
  if (!opened) {
    game.view.connected = false;
    game.view.message = "Could not connect [" + words(opened.error()) + "]";
    draw();
    return 1;
  }
  game.sync.emplace(std::move(*opened));
  game.view.connected = true;
  game.view.url = url;
  game.view.device = device;
  game.view.message = "Connected to " + game.view.url + " as " + game.view.device + ".";
  draw();
  return 0;
}

EMSCRIPTEN_KEEPALIVE void game_cloud_sync(int promise) { sync_now(promise); }

// Frames the main loop has run (the tests check that a sync never stops it).
EMSCRIPTEN_KEEPALIVE double game_frames() { return static_cast<double>(game.frames); }

// The player's choice in a conflict: 0 this device's progress, 1 the other device's. Then
// syncs, so that the other device gets the choice too.
EMSCRIPTEN_KEEPALIVE void game_cloud_choose(int theirs, int promise) {
  if (!game.sync) return savekit::web::settle_js_promise(promise, savekit::error{savekit::errc::invalid_value, 0, ""});
  const auto c = theirs ? savekit::cloud::choice::keep_remote : savekit::cloud::choice::keep_local;
  if (savekit::status done = game.sync->resolve(slot_name, c); !done) {
    game.view.message = "Could not settle it [" + words(done.error()) + "]";
    draw();
    return savekit::web::settle_js_promise(promise, done);
  }
  if (theirs) load_slot();
  sync_now(promise);
}

}  // extern "C"

int main() {
  emscripten_set_main_loop([] { ++game.frames; }, 0, 0);
  savekit::web::open_slots("cloud-demo", [](savekit::result<savekit::slots> opened, const savekit::web::storage_info&) {
    if (!opened) {
      game.view.message = "Your saves could not be opened [" + words(opened.error()) + "]";
      return draw();
    }
    game.slots.emplace(std::move(*opened));
    game.slots->load_async(slot_name, [](savekit::status) {  // from IndexedDB; the read says how it went
      load_slot();
      draw();
    });
    if (savekit::result<savekit::cloud::remembered_settings> r = savekit::cloud::remembered(*game.slots)) {
      game.view.url = r->url;
      game.view.device = r->device;
    }
    if (game.view.message.empty()) game.view.message = "Ready.";
    game.view.playable = true;
    draw();
  });
  return 0;
}
