// The browser slots' C++ suite (savekit::web::open_slots), run in Chromium in the same page
// as the IndexedDB backend's (idb_tests.html; harness: page_test.hpp). The relaunch test's
// two halves run as ?phase=slots-write and ?phase=slots-check, with the browser killed
// between them by run_browser_tests.mjs.
#include <malloc.h>

#include <optional>
#include <string>
#include <vector>

#include "page_test.hpp"
#include "savekit/indexeddb.hpp"
#include "savekit/savekit.hpp"

// Other code on the site: deleting the slots' database while it is open; replacing every
// record with a string.
EM_JS(void, delete_slots_elsewhere, (const char* name),
      { indexedDB.deleteDatabase('savekit-slots:' + UTF8ToString(name)); });
EM_JS(void, plant_strings, (const char* name), {
  window.stringsPlanted = false;
  var opening = indexedDB.open('savekit-slots:' + UTF8ToString(name));
  opening.onsuccess = function() {
    var db = opening.result;
    var tx = db.transaction(['entries'], 'readwrite');
    var entries = tx.objectStore('entries');
    entries.getAllKeys().onsuccess = function(e) {
      e.target.result.forEach(function(k) { entries.put('not bytes', k); });
    };
    tx.oncomplete = function() {
      db.close();
      window.stringsPlanted = true;
    };
  };
});
EM_JS(int, strings_planted, (), { return window.stringsPlanted ? 1 : 0; });
// Other code on the site, without a version change: clearing the slots' records, deleting one.
// other_code_done() tells when its transaction has completed.
EM_JS(void, change_records_elsewhere, (const char* name, int clear_all), {
  window.otherCodeDone = false;
  var opening = indexedDB.open('savekit-slots:' + UTF8ToString(name));
  opening.onsuccess = function() {
    var db = opening.result;
    var tx = db.transaction(['entries'], 'readwrite');
    var entries = tx.objectStore('entries');
    if (clear_all)
      entries.clear();
    else
      entries.getAllKeys().onsuccess = function(e) { entries.delete(e.target.result[0]); };
    tx.oncomplete = function() {
      db.close();
      window.otherCodeDone = true;
    };
  };
});
// Other code upgrading the database, dropping savekit's store, and keeping its connection
// open (deaf to version changes) until release_held_connection().
EM_JS(void, upgrade_and_hold_elsewhere, (const char* name), {
  window.otherCodeDone = false;
  var database = 'savekit-slots:' + UTF8ToString(name);
  var probe = indexedDB.open(database);
  probe.onsuccess = function() {
    var version = probe.result.version;
    probe.result.close();
    var upgrade = indexedDB.open(database, version + 1);
    upgrade.onupgradeneeded = function() { upgrade.result.deleteObjectStore('entries'); };
    upgrade.onsuccess = function() {
      window.heldConnection = upgrade.result;
      window.otherCodeDone = true;
    };
  };
});
EM_JS(void, release_held_connection, (), { window.heldConnection.close(); });
// A database as savekit's format 1 left it (no heads): the entries of slots `from` copied
// into a new database of slots `to`, with meta.format 1.
EM_JS(void, make_format_1_copy, (const char* from, const char* to), {
  window.otherCodeDone = false;
  var source = indexedDB.open('savekit-slots:' + UTF8ToString(from));
  var target = 'savekit-slots:' + UTF8ToString(to);
  source.onsuccess = function() {
    var db = source.result, keys, values;
    var tx = db.transaction(['entries'], 'readonly');
    tx.objectStore('entries').getAllKeys().onsuccess = function(e) { keys = e.target.result; };
    tx.objectStore('entries').getAll().onsuccess = function(e) { values = e.target.result; };
    tx.oncomplete = function() {
      db.close();
      var making = indexedDB.open(target, 1);
      making.onupgradeneeded = function() {
        making.result.createObjectStore('entries');
        making.result.createObjectStore('meta').put(1, 'format');
      };
      making.onsuccess = function() {
        var copy = making.result;
        var put = copy.transaction(['entries'], 'readwrite');
        for (var i = 0; i < keys.length; ++i) put.objectStore('entries').put(values[i], keys[i]);
        put.oncomplete = function() {
          copy.close();
          window.otherCodeDone = true;
        };
      };
    };
  };
});
// One file's entry deleted (its head left).
EM_JS(void, delete_entry_elsewhere, (const char* name, const char* file), {
  window.otherCodeDone = false;
  var opening = indexedDB.open('savekit-slots:' + UTF8ToString(name));
  var key = new TextEncoder().encode(UTF8ToString(file)).buffer;
  opening.onsuccess = function() {
    var db = opening.result;
    var tx = db.transaction(['entries'], 'readwrite');
    tx.objectStore('entries').delete(key);
    tx.oncomplete = function() {
      db.close();
      window.otherCodeDone = true;
    };
  };
});
// A flipped byte in a generation file's header, in its head and its entry alike.
EM_JS(void, damage_header_elsewhere, (const char* name, const char* file), {
  window.otherCodeDone = false;
  var opening = indexedDB.open('savekit-slots:' + UTF8ToString(name));
  var key = new TextEncoder().encode(UTF8ToString(file)).buffer;
  opening.onsuccess = function() {
    var db = opening.result;
    var tx = db.transaction([ 'entries', 'heads' ], 'readwrite');
    tx.objectStore('heads').get(key).onsuccess = function(e) {
      var head = e.target.result;
      head[8 + 40] ^= 0xFF;
      tx.objectStore('heads').put(head, key);
    };
    tx.objectStore('entries').get(key).onsuccess = function(e) {
      var bytes = e.target.result;
      bytes[40] ^= 0xFF;
      tx.objectStore('entries').put(bytes, key);
    };
    tx.oncomplete = function() {
      db.close();
      window.otherCodeDone = true;
    };
  };
});
EM_JS(int, other_code_done, (), { return window.otherCodeDone ? 1 : 0; });
EM_JS(int, reconnections, (), { return Module.savekitTestHooks.reconnections; });

namespace {

using namespace page_test;

struct Hero {
  std::string name;
  int level = 1;
  std::vector<int> inventory;
  bool operator==(const Hero&) const = default;
};
struct World {  // a large save: bytes that do not compress to nothing
  std::vector<std::byte> terrain;
  bool operator==(const World&) const = default;
};
World world_of(int seed, std::size_t size) {
  World w{std::vector<std::byte>(size)};
  std::uint32_t x = 2463534242u + static_cast<std::uint32_t>(seed);
  for (auto& b : w.terrain) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = std::byte(static_cast<unsigned char>(x));
  }
  return w;
}
std::size_t heap_in_use() { return static_cast<std::size_t>(mallinfo().uordblks); }

std::optional<savekit::slots> folder;  // the slots under test, between steps

#define REQUIRE_FOLDER(next)      \
  do {                            \
    CHECK(folder.has_value());    \
    if (!folder) return (next)(); \
  } while (false)

step open_folder(std::string name, savekit::web::indexeddb_slots_options options = {},
                 savekit::errc expected = savekit::errc::ok) {
  return [name, options, expected](next_fn next) {
    savekit::web::open_slots(
        name,
        [expected, next](savekit::result<savekit::slots> s, const savekit::web::storage_info& storage) {
          CHECK_EQ(s.error().code(), expected);
          if (!s && expected == savekit::errc::ok) std::printf("  open failed: %s\n", s.error().message().c_str());
          if (s) {
            folder = std::move(*s);
            CHECK(storage.quota > 0);
          }
          next();
        },
        options);
  };
}
step close_folder() {
  return [](next_fn next) {
    folder.reset();
    next();
  };
}
step act(std::function<void()> body) {
  return [body](next_fn next) {
    CHECK(folder.has_value());
    if (folder) body();
    next();
  };
}
// write_async, and the outcome its callback reports.
step write_hero(std::string slot, Hero hero, savekit::slot_meta meta, savekit::errc expected = savekit::errc::ok) {
  return [slot, hero, meta, expected](next_fn next) {
    REQUIRE_FOLDER(next);
    folder->write_async(slot, hero, meta, [expected, next](savekit::status saved) {
      CHECK_EQ(saved.error().code(), expected);
      if (!saved && expected == savekit::errc::ok) std::printf("  write failed: %s\n", saved.error().message().c_str());
      next();
    });
  };
}
step durable(savekit::errc expected = savekit::errc::ok) {
  return [expected](next_fn next) {
    REQUIRE_FOLDER(next);
    folder->when_durable([expected, next](savekit::status outcome) {
      CHECK_EQ(outcome.error().code(), expected);
      if (!outcome && expected == savekit::errc::ok) std::printf("  durable: %s\n", outcome.error().message().c_str());
      next();
    });
  };
}

// A result's code: ok when it holds a value (error() of a value stops the page).
template <class R>
savekit::errc code_of(const R& r) {
  return r ? savekit::errc::ok : r.error().code();
}

// load_async, and the outcome its callback reports.
step load(std::string slot, savekit::errc expected = savekit::errc::ok) {
  return [slot, expected](next_fn next) {
    REQUIRE_FOLDER(next);
    folder->load_async(slot, [slot, expected, next](savekit::status loaded) {
      CHECK_EQ(code_of(loaded), expected);
      if (!loaded && expected == savekit::errc::ok)
        std::printf("  loading %s failed: %s\n", slot.c_str(), loaded.error().message().c_str());
      next();
    });
  };
}
step load_generation(std::string slot, std::uint64_t generation, savekit::errc expected = savekit::errc::ok) {
  return [slot, generation, expected](next_fn next) {
    REQUIRE_FOLDER(next);
    folder->load_async(slot, generation, [expected, next](savekit::status loaded) {
      CHECK_EQ(code_of(loaded), expected);
      next();
    });
  };
}

step save_world(std::string slot, int seed, std::size_t size, savekit::slot_meta meta = {}) {
  return [slot, seed, size, meta](next_fn next) {
    REQUIRE_FOLDER(next);
    folder->write_async(slot, world_of(seed, size), meta, [next](savekit::status s) {
      CHECK(s);
      next();
    });
  };
}

std::vector<std::byte> picture(int seed, std::size_t size) {  // thumbnail bytes, NULs included
  std::vector<std::byte> out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = std::byte(static_cast<unsigned char>((i * 31 + seed * 7) % 256));
  return out;
}
savekit::slot_meta meta_of(int i) {
  return {.title = "Chapter " + std::to_string(i) + " — ぬののふく",
          .playtime = std::chrono::seconds{600 * i},
          .progress = 0.1 * i,
          .thumbnail = picture(i, 3000 + 17 * i),
          .user = {{"level", std::to_string(10 + i)}}};
}
Hero hero_of(int i) { return {"hero " + std::to_string(i), 10 + i, std::vector<int>(50 * i, i)}; }
std::string slot_of(int i) { return "slot " + std::to_string(i) + " ✓"; }

// Checks that the folder holds slots 1..3 as the relaunch test's first half wrote them.
void check_three_slots() {
  savekit::result<std::vector<savekit::slot_info>> menu = folder->list();
  CHECK(menu.has_value());
  if (!menu) return;
  CHECK_EQ(menu->size(), 3u);
  if (menu->size() != 3) return;
  for (int i = 1; i <= 3; ++i) {
    const savekit::slot_info& entry = (*menu)[3 - i];  // newest first
    CHECK_EQ(entry.name, slot_of(i));
    savekit::slot_meta expected = meta_of(i);
    CHECK_EQ(entry.meta.title, expected.title);
    CHECK_EQ(entry.meta.user, expected.user);
    CHECK(entry.meta.thumbnail.empty());  // list() leaves pictures out
    CHECK_EQ(entry.thumbnail_bytes, expected.thumbnail.size());
    CHECK(!entry.fell_back());
    CHECK(folder->thumbnail(slot_of(i)).value_or(std::vector<std::byte>{}) == expected.thumbnail);
    CHECK(folder->read<Hero>(slot_of(i)).value_or(Hero{}) == hero_of(i));
  }
}

test_case menu_and_saves_survive_a_reopen() {
  return {"slots: write_async reports once in IndexedDB; menu, thumbnails and saves survive a reopen",
          {open_folder("menu"), act([] { CHECK(folder->list().value_or(std::vector<savekit::slot_info>{1}).empty()); }),
           write_hero(slot_of(1), hero_of(1), meta_of(1)), write_hero(slot_of(2), hero_of(2), meta_of(2)),
           write_hero(slot_of(3), hero_of(3), meta_of(3)), act([] {
             CHECK_EQ(folder->pending_writes(), 0u);
             check_three_slots();
           }),
           close_folder(), open_folder("menu"), load(slot_of(1)), load(slot_of(2)), load(slot_of(3)),
           act(check_three_slots), close_folder()}};
}

test_case a_write_and_its_pruning_are_one_transaction() {
  savekit::web::indexeddb_slots_options two;
  two.slots.keep_generations = 2;
  return {"slots: a write and the pruning of the oldest generation go out as one transaction",
          {open_folder("prune", two), write_hero("a", hero_of(1), {}), write_hero("a", hero_of(2), {}),
           act([] { CHECK_EQ(last_commit_operations(), 1); }),  // the new generation
           write_hero("a", hero_of(3), {}), act([] {
             CHECK_EQ(last_commit_operations(), 2);  // generation 3 put, generation 1 deleted
             auto history = folder->history("a");
             CHECK(history && history->size() == 2);
             if (history && history->size() == 2) CHECK_EQ((*history)[1].generation, 2u);
           }),
           close_folder(), open_folder("prune", two), load("a"), act([] {
             CHECK_EQ(folder->history("a").value_or(std::vector<savekit::generation_info>{}).size(), 2u);
             CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(3));
           }),
           close_folder()}};
}

test_case an_aborted_write_is_undone() {
  return {"slots: an aborted transaction fails write_async and undoes it; the previous save reads, reopened too",
          {open_folder("abort"), write_hero("a", hero_of(1), meta_of(1)), act([] { abort_next_commit(); }),
           write_hero("a", hero_of(2), meta_of(2), savekit::errc::io_error), act([] {
             CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(1));
             CHECK_EQ(folder->info("a").value_or(savekit::slot_info{}).generation, 1u);
             CHECK_EQ(folder->history("a").value_or(std::vector<savekit::generation_info>{}).size(), 1u);
             CHECK_EQ(folder->flush().error().code(), savekit::errc::io_error);  // reported once
             CHECK(folder->flush());
           }),
           close_folder(), open_folder("abort"), load("a"), act([] {
             CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(1));
             CHECK_EQ(folder->list().value_or(std::vector<savekit::slot_info>{}).size(), 1u);
           }),
           write_hero("a", hero_of(3), meta_of(3)),  // and saving goes on
           act([] { CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(3)); }), close_folder()}};
}

test_case a_write_that_returned_then_failed_is_reported() {
  return {"slots: a write() that returned success and then failed in IndexedDB is undone and reported",
          {open_folder("sync-write"), act([] { CHECK(folder->write("a", hero_of(1))); }), durable(), act([] {
             abort_next_commit();
             CHECK(folder->write("a", hero_of(2)));                          // in memory, queued
             CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(2));  // reads see it at once
             CHECK(folder->write("b", hero_of(3)));                          // the same transaction
           }),
           durable(savekit::errc::io_error), act([] {
             CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(1));
             CHECK_EQ(folder->read<Hero>("b").error().code(), savekit::errc::not_found);
             CHECK(folder->flush());  // when_durable took the failure
           }),
           durable(), close_folder()}};
}

test_case writes_in_one_task_share_a_transaction() {
  return {"slots: writes made in one task go out as one transaction, in order, each reported",
          {open_folder("one-task"),
           [](next_fn next) {
             REQUIRE_FOLDER(next);
             auto outcomes = std::make_shared<std::vector<std::string>>();
             for (const char* slot : {"x", "y", "x"})
               folder->write_async(slot, hero_of(slot[0] == 'x' ? 1 : 2), {}, [outcomes, slot](savekit::status s) {
                 outcomes->push_back(std::string{slot} + (s ? " ok" : " failed"));
               });
             CHECK_EQ(folder->pending_writes(), 3u);
             folder->when_durable([outcomes, next](savekit::status s) {
               CHECK(s);
               CHECK_EQ(*outcomes, (std::vector<std::string>{"x ok", "y ok", "x ok"}));
               CHECK_EQ(last_commit_operations(), 3);  // x.1, y.1, x.2
               next();
             });
           },
           act([] {
             CHECK_EQ(folder->pending_writes(), 0u);
             CHECK_EQ(folder->info("x").value_or(savekit::slot_info{}).generation, 2u);
           }),
           close_folder()}};
}

test_case one_folder_is_open_once() {
  savekit::web::indexeddb_slots_options reading;
  reading.slots.read_only = true;
  return {"slots: a second open is errc::locked; a read-only one opens beside it and writes nothing",
          {open_folder("locked"), write_hero("a", hero_of(1), {}),
           [](next_fn next) {
             savekit::web::open_slots("locked", [next](savekit::result<savekit::slots> s, const auto&) {
               CHECK_EQ(s.error().code(), savekit::errc::locked);
               next();
             });
           },
           [reading](next_fn next) {
             savekit::web::open_slots(
                 "locked",
                 [next](savekit::result<savekit::slots> s, const auto&) {
                   CHECK(s.has_value());
                   if (!s) return next();
                   auto reader = std::make_shared<savekit::slots>(std::move(*s));
                   reader->load_async("a", [reader, next](savekit::status loaded) {
                     CHECK(loaded);
                     CHECK(reader->read<Hero>("a").value_or(Hero{}) == hero_of(1));
                     CHECK(!reader->write("b", hero_of(2)));
                     next();
                   });
                 },
                 reading);
           },
           [](next_fn next) {
             savekit::web::delete_slots("locked", [next](savekit::status s) {
               CHECK_EQ(s.error().code(), savekit::errc::locked);  // open
               next();
             });
           },
           close_folder(),
           [](next_fn next) {
             savekit::web::delete_slots("locked", [next](savekit::status s) {
               CHECK(s);
               next();
             });
           },
           open_folder("locked"),
           act([] { CHECK(folder->list().value_or(std::vector<savekit::slot_info>{1}).empty()); }), close_folder()}};
}

test_case managing_slots_survives_a_reopen() {
  return {"slots: remove, copy, rename and restore survive a reopen",
          {open_folder("manage"), write_hero("a", hero_of(1), meta_of(1)), write_hero("a", hero_of(2), meta_of(2)),
           write_hero("gone", hero_of(3), {}), act([] {
             CHECK(folder->copy("a", "copied"));
             CHECK(folder->rename("copied", "renamed"));
             CHECK(folder->restore("a", 1));
             CHECK(folder->remove("gone"));
           }),
           durable(), close_folder(), open_folder("manage"), load("a"), load("renamed"), act([] {
             CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(1));
             CHECK_EQ(folder->info("a").value_or(savekit::slot_info{}).restored_from, 1u);
             CHECK(folder->read<Hero>("renamed").value_or(Hero{}) == hero_of(2));
             CHECK_EQ(folder->read<Hero>("copied").error().code(), savekit::errc::not_found);
             CHECK_EQ(folder->read<Hero>("gone").error().code(), savekit::errc::not_found);
             CHECK(folder->thumbnail("renamed").value_or(std::vector<std::byte>{}) == meta_of(2).thumbnail);
           }),
           close_folder()}};
}

// Found by an attack review (each failed before its fix).

test_case closing_with_a_transaction_in_flight_still_reports() {
  auto written = std::make_shared<int>(0);
  auto durable_calls = std::make_shared<int>(0);
  return {"slots: closed with a transaction in flight, the callbacks still run, once",
          {open_folder("close-in-flight"),
           [written, durable_calls](next_fn next) {
             REQUIRE_FOLDER(next);
             folder->write_async("a", hero_of(1), {}, [written](savekit::status s) { *written += s ? 1 : 100; });
             folder->when_durable([durable_calls](savekit::status s) { *durable_calls += s ? 1 : 100; });
             next();
           },
           wait_ms(0),  // the transaction is sent, not completed
           close_folder(), WAIT_UNTIL(*written != 0 && *durable_calls != 0),
           [written, durable_calls](next_fn next) {
             CHECK_EQ(*written, 1);
             CHECK_EQ(*durable_calls, 1);
             next();
           },
           open_folder("close-in-flight"), load("a"),
           act([] { CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(1)); }), close_folder()}};
}

test_case a_failed_write_back_after_a_deletion_is_retried() {
  return {"slots: the database deleted by other code and the write-back failing: retried, nothing lost",
          {open_folder("pulled"), write_hero("a", hero_of(1), {}), durable(),
           [](next_fn next) {
             abort_next_commit();  // the write-back
             delete_slots_elsewhere("pulled");
             next();
           },
           WAIT_UNTIL(!folder->flush()),     // the failed write-back, reported (flush takes failures only)
           write_hero("b", hero_of(2), {}),  // goes with the write-back, again
           durable(), close_folder(), open_folder("pulled"), load("a"), load("b"), act([] {
             CHECK(folder->read<Hero>("a").value_or(Hero{}) == hero_of(1));
             CHECK(folder->read<Hero>("b").value_or(Hero{}) == hero_of(2));
           }),
           close_folder()}};
}

test_case a_failure_is_reported_once_and_writes_are_counted() {
  return {"slots: a failure reported by when_durable is not reported again; a write() counts until durable",
          {open_folder("once"), write_hero("a", hero_of(1), {}),
           [](next_fn next) {
             REQUIRE_FOLDER(next);
             abort_next_commit();
             folder->write_async("a", hero_of(2), {});
             folder->when_durable([next](savekit::status s) {
               CHECK_EQ(s.error().code(), savekit::errc::io_error);
               CHECK(folder->flush());  // taken by when_durable
               next();
             });
           },
           act([] {
             CHECK(folder->write("c", hero_of(3)));
             CHECK_EQ(folder->pending_writes(), 1u);
           }),
           durable(), act([] { CHECK_EQ(folder->pending_writes(), 0u); }), close_folder()}};
}

test_case records_that_are_not_bytes_are_left_alone() {
  return {"slots: records savekit did not write (values that are not bytes) are left alone",
          {open_folder("planted"), save_world("a", 1, 64u << 10), close_folder(),
           [](next_fn next) {
             plant_strings("planted");
             next();
           },
           // The head was left: the menu shows the slot until its bytes are asked for.
           WAIT_UNTIL(strings_planted()), open_folder("planted"), load("a", savekit::errc::store_replaced), act([] {
             CHECK(folder->list().value_or(std::vector<savekit::slot_info>{1}).empty());
             CHECK_EQ(folder->read<Hero>("a").error().code(), savekit::errc::not_found);
           }),
           durable(savekit::errc::store_replaced),  // the save it was is gone: said
           durable(), act([] { CHECK_EQ(folder->pending_writes(), 0u); }), close_folder()}};
}

// Found by the third attack review (each failed before its fix).

step other_code(std::function<void()> body) {
  return [body](next_fn next) {
    body();
    next();
  };
}
void check_slot(const char* slot, int hero) { CHECK(folder->read<Hero>(slot).value_or(Hero{}) == hero_of(hero)); }

test_case records_cleared_by_other_code_are_written_back() {
  return {"slots: records other code cleared without a version change are written back with the next write",
          {open_folder("cleared"), write_hero("a", hero_of(1), meta_of(1)), write_hero("b", hero_of(2), {}), durable(),
           other_code([] { change_records_elsewhere("cleared", 1); }), WAIT_UNTIL(other_code_done()),
           write_hero("c", hero_of(3), {}), close_folder(), open_folder("cleared"), load("a"), load("b"), load("c"),
           act([] {
             CHECK_EQ(folder->list().value_or(std::vector<savekit::slot_info>{}).size(), 3u);
             check_slot("a", 1);
             check_slot("b", 2);
             check_slot("c", 3);
             CHECK(folder->thumbnail("a").value_or(std::vector<std::byte>{}) == meta_of(1).thumbnail);
           }),
           close_folder()}};
}

test_case a_deleted_record_is_written_back_by_when_durable() {
  return {"slots: a record other code deleted is written back by when_durable, with nothing else to save",
          {open_folder("deleted"), write_hero("a", hero_of(1), {}), write_hero("b", hero_of(2), {}), durable(),
           other_code([] { change_records_elsewhere("deleted", 0); }), WAIT_UNTIL(other_code_done()), durable(),
           close_folder(), open_folder("deleted"), load("a"), load("b"), act([] {
             check_slot("a", 1);
             check_slot("b", 2);
           }),
           close_folder()}};
}

test_case an_upgrade_holding_its_connection_loses_nothing() {
  auto held_write = std::make_shared<savekit::errc>(savekit::errc::commit_pending);
  auto reconnected_before = std::make_shared<int>(0);
  return {
      "slots: other code upgrading the database and holding its connection: writes meanwhile fail, "
      "and everything is written back once it closes",
      {open_folder("held"), write_hero("a", hero_of(1), meta_of(1)), durable(), other_code([reconnected_before] {
         *reconnected_before = reconnections();
         upgrade_and_hold_elsewhere("held");
       }),
       WAIT_UNTIL(other_code_done()),
       [held_write](next_fn next) {  // answered while the other connection stays open
         REQUIRE_FOLDER(next);
         folder->write_async("b", hero_of(2), {}, [held_write](savekit::status s) { *held_write = s.error().code(); });
         next();
       },
       WAIT_UNTIL(*held_write != savekit::errc::commit_pending), other_code([held_write] {
         CHECK_EQ(*held_write, savekit::errc::io_error);
         const savekit::status told = folder->flush();  // told once more, as always
         CHECK_EQ(told.error().code(), savekit::errc::io_error);
         release_held_connection();
       }),
       WAIT_UNTIL(reconnections() > *reconnected_before), write_hero("c", hero_of(3), {}), durable(), close_folder(),
       open_folder("held"), load("a"), load("c"), act([] {
         check_slot("a", 1);
         CHECK_EQ(folder->read<Hero>("b").error().code(), savekit::errc::not_found);  // reported failed
         check_slot("c", 3);
         CHECK(folder->thumbnail("a").value_or(std::vector<std::byte>{}) == meta_of(1).thumbnail);
       }),
       close_folder()}};
}

test_case saves_are_kept_out_of_the_webassembly_heap() {
  constexpr std::size_t size = 4 << 20;
  auto heap_before = std::make_shared<std::size_t>(0);
  savekit::web::indexeddb_slots_options two;
  two.slots.keep_generations = 2;
  auto write_world = [](std::string slot, int seed) {
    return [slot, seed](next_fn next) {
      REQUIRE_FOLDER(next);
      folder->write_async(slot, world_of(seed, size), {}, [next](savekit::status s) {
        CHECK(s);
        next();
      });
    };
  };
  return {"slots: the saves stay out of the WebAssembly heap (2 GB at most): opening 24 MB of them takes under 1 MB",
          {open_folder("heap", two), write_world("a", 1), write_world("a", 2), write_world("b", 3), write_world("b", 4),
           write_world("c", 5), write_world("c", 6), close_folder(),
           other_code([heap_before] { *heap_before = heap_in_use(); }), open_folder("heap", two), act([heap_before] {
             const std::size_t grown = heap_in_use() - *heap_before;
             CHECK(grown < (1u << 20));
             if (grown >= (1u << 20)) std::printf("  the heap grew by %zu bytes\n", grown);
           }),
           load("a"), load("c"), load_generation("b", 1), act([] {
             CHECK(folder->read<World>("a").value_or(World{}) == world_of(2, size));
             CHECK(folder->read<World>("c").value_or(World{}) == world_of(6, size));
             auto history = folder->history("b");
             CHECK(history && history->size() == 2);
             if (history && history->size() == 2) {
               CHECK_EQ((*history)[1].generation, 1u);
               auto older = folder->read_generation("b", 1);  // every section checked
               CHECK(older.has_value() && older->bytes.size() > size);
             }
           }),
           close_folder()}};
}

// Issue 46: a folder opens on its heads, and loads a save when asked.

test_case a_folder_opens_on_its_heads() {
  constexpr std::size_t size = 256u << 10;
  auto heap_before = std::make_shared<std::size_t>(0);
  return {
      "slots: a folder opens on its heads (menu, thumbnails, history at once); a save reads once load_async "
      "has fetched it; an older generation lets go of its bytes once a newer one is in",
      {open_folder("heads"),
       save_world("a", 1, size, meta_of(1)),
       save_world("a", 2, size, meta_of(2)),
       save_world("b", 3, size, meta_of(3)),
       close_folder(),
       other_code([heap_before] { *heap_before = heap_in_use(); }),
       open_folder("heads"),
       act([heap_before] {
         const std::size_t grown = heap_in_use() - *heap_before;
         CHECK(grown < size);  // not one save
         if (grown >= size) std::printf("  the heap grew by %zu bytes\n", grown);
         CHECK_EQ(folder->list().value_or(std::vector<savekit::slot_info>{}).size(), 2u);
         CHECK(folder->thumbnail("a").value_or(std::vector<std::byte>{}) == meta_of(2).thumbnail);
         CHECK_EQ(folder->info("a").value_or(savekit::slot_info{}).meta.title, meta_of(2).title);
         CHECK_EQ(folder->history("a").value_or(std::vector<savekit::generation_info>{}).size(), 2u);
         CHECK_EQ(code_of(folder->read<World>("a")), savekit::errc::not_loaded);
         CHECK_EQ(code_of(folder->read_generation("a", 1)), savekit::errc::not_loaded);
         CHECK_EQ(code_of(folder->restore("a", 1)), savekit::errc::not_loaded);
         CHECK_EQ(folder->info("a").value_or(savekit::slot_info{}).generation, 2u);  // nothing set aside
       }),
       load("a"),
       act([] {
         CHECK(folder->read<World>("a").value_or(World{}) == world_of(2, size));
         CHECK_EQ(code_of(folder->read<World>("b")), savekit::errc::not_loaded);
         CHECK_EQ(code_of(folder->read_generation("a", 1)), savekit::errc::not_loaded);
       }),
       load_generation("a", 1),
       act([] {
         auto older = folder->read_generation("a", 1);
         CHECK(older.has_value() && older->bytes.size() > size);
       }),
       load("nobody", savekit::errc::not_found),
       load_generation("a", 7, savekit::errc::not_found),
       save_world("a", 4, size),
       durable(),
       act([] {
         CHECK(folder->read<World>("a").value_or(World{}) == world_of(4, size));         // written here: loaded
         CHECK_EQ(code_of(folder->read_generation("a", 2)), savekit::errc::not_loaded);  // let go
       }),
       load_generation("a", 2),
       act([] { CHECK(folder->restore("a", 2)); }),
       durable(),
       close_folder(),
       open_folder("heads"),
       load("a"),
       act([] { CHECK(folder->read<World>("a").value_or(World{}) == world_of(2, size)); }),
       close_folder()}};
}

// (Saves larger than a head: one of a few KB holds the whole save, read without a load.)
test_case a_format_1_database_gets_its_heads() {
  constexpr std::size_t size = 64u << 10;
  return {
      "slots: a database of format 1 (no heads) opens with its files loaded, and gets its heads",
      {open_folder("v1-source"), save_world("a", 1, size, meta_of(1)), save_world("a", 2, size, meta_of(2)),
       write_hero("b", hero_of(3), {}), close_folder(), other_code([] { make_format_1_copy("v1-source", "v1"); }),
       WAIT_UNTIL(other_code_done()), open_folder("v1"), act([] {
         CHECK(folder->read<World>("a").value_or(World{}) == world_of(2, size));  // loaded whole: read at once
         check_slot("b", 3);
         CHECK(folder->thumbnail("a").value_or(std::vector<std::byte>{}) == meta_of(2).thumbnail);
       }),
       durable(), close_folder(), open_folder("v1"), act([] {
         CHECK_EQ(folder->list().value_or(std::vector<savekit::slot_info>{}).size(), 2u);
         CHECK_EQ(code_of(folder->read<World>("a")), savekit::errc::not_loaded);  // on its heads now
         check_slot("b", 3);  // a small save: its head holds all of it
       }),
       load("a"), act([] { CHECK(folder->read<World>("a").value_or(World{}) == world_of(2, size)); }), close_folder()}};
}

test_case a_damaged_save_not_loaded_is_set_aside_whole() {
  return {"slots: a generation not loaded whose header is damaged is set aside with its bytes, and the read falls back",
          {open_folder("aside"), save_world("a", 1, 64u << 10), save_world("a", 2, 64u << 10), close_folder(),
           other_code([] { damage_header_elsewhere("aside", "s-a.2.slot"); }), WAIT_UNTIL(other_code_done()),
           open_folder("aside"), act([] {
             auto menu = folder->list();
             CHECK(menu && menu->size() == 1);
             if (menu && menu->size() == 1) CHECK_EQ((*menu)[0].damaged_newer, 1u);
           }),
           durable(), close_folder(), open_folder("aside"), act([] {
             auto history = folder->history("a");
             CHECK(history && history->size() == 2);
             if (history && history->size() == 2) CHECK((*history)[0].damaged);  // moved, not lost
           }),
           load("a"), act([] { CHECK(folder->read<World>("a").value_or(World{}) == world_of(1, 64u << 10)); }),
           close_folder()}};
}

// Found by attack reviews: a save gone when it was loaded fell back in silence.
test_case a_save_deleted_before_its_load_is_reported() {
  return {"slots: a save other code deleted before it was loaded is reported, and the read falls back",
          {open_folder("gone-entry"), save_world("a", 1, 64u << 10), save_world("a", 2, 64u << 10), close_folder(),
           other_code([] { delete_entry_elsewhere("gone-entry", "s-a.2.slot"); }), WAIT_UNTIL(other_code_done()),
           // Found at open (a head without its file): said by the next flush or when_durable
           // (which a cloud sync's run waits on: it stops), and the read falls back.
           open_folder("gone-entry"), load("a"), act([] {
             CHECK(folder->read<World>("a").value_or(World{}) == world_of(1, 64u << 10));
             CHECK_EQ(code_of(folder->flush()), savekit::errc::store_replaced);
             CHECK_EQ(folder->history("a").value_or(std::vector<savekit::generation_info>{}).size(), 1u);
           }),
           close_folder()}};
}

test_case a_save_deleted_while_open_ends_its_load() {
  return {"slots: a save other code deleted while the slots were open ends its load with the loss, not an older save",
          {open_folder("gone-later"), save_world("a", 1, 64u << 10), save_world("a", 2, 64u << 10), close_folder(),
           open_folder("gone-later"), other_code([] { delete_entry_elsewhere("gone-later", "s-a.2.slot"); }),
           WAIT_UNTIL(other_code_done()), load("a", savekit::errc::store_replaced), load("a"), act([] {
             CHECK(folder->read<World>("a").value_or(World{}) == world_of(1, 64u << 10));
             CHECK_EQ(code_of(folder->flush()), savekit::errc::store_replaced);
           }),
           close_folder()}};
}

}  // namespace

std::vector<test_case> make_slots_tests() {
  return {a_save_deleted_while_open_ends_its_load(),
          a_save_deleted_before_its_load_is_reported(),
          a_folder_opens_on_its_heads(),
          a_format_1_database_gets_its_heads(),
          a_damaged_save_not_loaded_is_set_aside_whole(),
          records_cleared_by_other_code_are_written_back(),
          a_deleted_record_is_written_back_by_when_durable(),
          an_upgrade_holding_its_connection_loses_nothing(),
          saves_are_kept_out_of_the_webassembly_heap(),
          closing_with_a_transaction_in_flight_still_reports(),
          a_failed_write_back_after_a_deletion_is_retried(),
          a_failure_is_reported_once_and_writes_are_counted(),
          records_that_are_not_bytes_are_left_alone(),
          menu_and_saves_survive_a_reopen(),
          a_write_and_its_pruning_are_one_transaction(),
          an_aborted_write_is_undone(),
          a_write_that_returned_then_failed_is_reported(),
          writes_in_one_task_share_a_transaction(),
          one_folder_is_open_once(),
          managing_slots_survives_a_reopen()};
}

std::vector<test_case> slots_relaunch_phase() {
  if (page_phase_is("slots-write"))
    return {{"slots, before the browser is killed: three slots written",
             {open_folder("relaunch"), write_hero(slot_of(1), hero_of(1), meta_of(1)),
              write_hero(slot_of(2), hero_of(2), meta_of(2)), write_hero(slot_of(3), hero_of(3), meta_of(3))}}};
  if (page_phase_is("slots-check"))
    return {{"slots, after the browser was killed and launched again: the menu, thumbnails and saves",
             {open_folder("relaunch"), load(slot_of(1)), load(slot_of(2)), load(slot_of(3)), act(check_three_slots),
              close_folder()}}};
  // The long run (bench/run.sh browser-soak): 10 slots × 3 kept generations × 35 MB, over a
  // gigabyte acknowledged, then opened again in a fresh page (a fresh WebAssembly heap).
  constexpr int big_slots = 10, big_generations = 3;
  constexpr std::size_t big_size = 35u << 20;
  if (page_phase_is("slots-big-write")) {
    std::vector<step> steps{open_folder("big")};
    for (int g = 0; g < big_generations; ++g)
      for (int i = 0; i < big_slots; ++i)
        steps.push_back([i, g](next_fn next) {
          REQUIRE_FOLDER(next);
          folder->write_async("slot " + std::to_string(i), world_of(i * 10 + g, big_size), {},
                              [next](savekit::status s) {
                                CHECK(s);
                                if (!s) std::printf("  write failed: %s\n", s.error().message().c_str());
                                next();
                              });
        });
    steps.push_back(close_folder());
    return {{"slots, a gigabyte: 10 slots × 3 generations × 35 MB written", std::move(steps)}};
  }
  if (page_phase_is("slots-big-open"))
    return {{"slots, a gigabyte: opened again in a fresh page, the menu listed and saves read",
             {open_folder("big"), load("slot 0"), load("slot " + std::to_string(big_slots - 1)), act([] {
                CHECK_EQ(folder->list().value_or(std::vector<savekit::slot_info>{}).size(), std::size_t{big_slots});
                for (int i : {0, big_slots - 1})
                  CHECK(folder->read<World>("slot " + std::to_string(i)).value_or(World{}) ==
                        world_of(i * 10 + big_generations - 1, big_size));
                CHECK_EQ(folder->history("slot 3").value_or(std::vector<savekit::generation_info>{}).size(),
                         std::size_t{big_generations});
              }),
              close_folder()}}};
  return {};
}

void slots_tests_reset() { folder.reset(); }
