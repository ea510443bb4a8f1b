// The IndexedDB backend's C++ suite, run in Chromium (idb_tests.html, driven by
// run_browser_tests.mjs; the harness is page_test.hpp). The slots' suite is slots_tests.cpp.
#include <emscripten/emscripten.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "page_test.hpp"
#include "savekit/indexeddb.hpp"
#include "savekit/savekit.hpp"

// Declared in page_test.hpp.
EM_JS(void, report_done, (int passed_checks, int failed_checks), {
  window.testsPassed = passed_checks;
  window.testsFailed = failed_checks;
  window.testsDone = true;
});
EM_JS(void, abort_next_commit, (), { Module.savekitTestHooks.abortNext = true; });
EM_JS(int, last_commit_operations, (), { return Module.savekitTestHooks.lastOperations; });
EM_JS(int, page_phase_is, (const char* phase),
      { return new URLSearchParams(location.search).get('phase') == UTF8ToString(phase) ? 1 : 0; });

namespace {

using namespace page_test;

// In a raw step: the store must be open, else the step fails and the test goes on.
#define REQUIRE_STORE(next)      \
  do {                           \
    CHECK(store.has_value());    \
    if (!store) return (next)(); \
  } while (false)

// Other code on the site upgrading, or deleting, a store's database while it is open.
EM_JS(void, upgrade_database_elsewhere, (const char* name), {
  var request = indexedDB.open('savekit:' + UTF8ToString(name), 50);
  request.onupgradeneeded = function() { request.result.createObjectStore('someone-elses'); };
  request.onsuccess = function() { request.result.close(); };
});
EM_JS(void, delete_database_elsewhere, (const char* name), {
  window.deletedElsewhere = false;
  indexedDB.deleteDatabase('savekit:' + UTF8ToString(name)).onsuccess = function() { window.deletedElsewhere = true; };
});
// (onsuccess comes after the store's connection was told, by versionchange, and closed)
EM_JS(int, deleted_elsewhere, (), { return window.deletedElsewhere ? 1 : 0; });
// Other code clearing the store's records without a version change.
EM_JS(void, clear_records_elsewhere, (const char* name), {
  window.clearedElsewhere = false;
  var opening = indexedDB.open('savekit:' + UTF8ToString(name));
  opening.onsuccess = function() {
    var db = opening.result;
    var tx = db.transaction(['entries'], 'readwrite');
    tx.objectStore('entries').clear();
    tx.oncomplete = function() {
      db.close();
      window.clearedElsewhere = true;
    };
  };
});
EM_JS(int, cleared_elsewhere, (), { return window.clearedElsewhere ? 1 : 0; });
EM_JS(void, hide_page, (), {
  Object.defineProperty(document, 'visibilityState', {value : 'hidden', configurable : true});
  document.dispatchEvent(new Event('visibilitychange'));
  Object.defineProperty(document, 'visibilityState', {value : 'visible', configurable : true});
});

struct Equip {
  std::string name;
  int atk = 0;
  bool operator==(const Equip&) const = default;
};
struct Status {
  int lv = 1;
  std::vector<int> flags;
  Equip equip;
  double speed = 1.5;
  bool operator==(const Status&) const = default;
};

// The store under test lives here between steps.
std::optional<savekit::prefs> store;

step open_store(std::string name, savekit::errc expected = savekit::errc::ok) {
  return [name, expected](next_fn next) {
    savekit::web::open_indexeddb(
        name, [expected, next](savekit::result<savekit::prefs> p, const savekit::web::storage_info& info) {
          if (expected == savekit::errc::ok) {
            CHECK(p.has_value());
            if (!p) std::printf("  open failed: %s\n", p.error().message().c_str());
            if (p) store = std::move(*p);
            CHECK(info.persisted == savekit::web::persistence::granted ||
                  info.persisted == savekit::web::persistence::denied);
            CHECK(info.quota > 0);
          } else {
            CHECK(!p.has_value());
            if (!p) CHECK_EQ(p.error().code(), expected);
          }
          next();
        });
  };
}
step open_store_with(std::string name, savekit::web::indexeddb_options options,
                     savekit::errc expected = savekit::errc::ok) {
  return [name, options, expected](next_fn next) {
    savekit::web::open_indexeddb(
        name,
        [expected, next](savekit::result<savekit::prefs> p, const savekit::web::storage_info&) {
          CHECK_EQ(p.error().code(), expected);
          if (!p && expected == savekit::errc::ok) std::printf("  open failed: %s\n", p.error().message().c_str());
          if (p) store = std::move(*p);
          next();
        },
        options);
  };
}
step close_store() {
  return [](next_fn next) {
    store.reset();
    next();
  };
}
step save(savekit::errc expected = savekit::errc::ok) {
  return [expected](next_fn next) {
    CHECK(store.has_value());
    if (!store) return next();
    store->save_async([expected, next](savekit::status s) {
      CHECK_EQ(s.error().code(), expected);
      if (!s && expected == savekit::errc::ok) std::printf("  save failed: %s\n", s.error().message().c_str());
      next();
    });
  };
}
step act(std::function<void()> body) {
  return [body](next_fn next) {
    CHECK(store.has_value());  // every act() works on the open store
    if (store) body();
    next();
  };
}
step delete_database(std::string name, savekit::errc expected = savekit::errc::ok) {
  return [name, expected](next_fn next) {
    savekit::web::delete_indexeddb(name, [expected, next](savekit::status s) {
      CHECK_EQ(s.error().code(), expected);
      next();
    });
  };
}

const std::string binary_key = std::string("k\0\xff\x01", 4);
const std::string binary_value = std::string("a\0b\xc3\x28\xff", 6);  // NULs, invalid UTF-8
const Status sample{7, {1, 2, 3}, {"ぬののふく", 4}, 2.25};

test_case every_value_kind_survives_a_reopen() {
  return {"every kind of value survives closing and reopening",
          {open_store("roundtrip"), act([] {
             CHECK(store->keys().empty());
             CHECK(!store->recovery().recovered);
             CHECK(store->set_int("coins", -1234567890123));
             CHECK(store->set_float("volume", 0.1));
             CHECK(store->set_string("name", binary_value));
             CHECK(store->set_bytes(binary_key, std::as_bytes(std::span{binary_value})));
             CHECK(store->set("status", sample));
             CHECK(store->set("compact", sample, savekit::object_encoding::msgpack_compact));
             CHECK(store->set("json", sample, savekit::object_encoding::json));
             CHECK(store->save().error().code() == savekit::errc::commit_pending);  // asynchronous backend
             CHECK(store->has_pending_changes());
           }),
           save(), act([] { CHECK(!store->has_pending_changes()); }), close_store(), open_store("roundtrip"), act([] {
             CHECK_EQ(store->size(), 7u);
             CHECK_EQ(store->get_int("coins"), -1234567890123);
             CHECK_EQ(store->get_float("volume"), 0.1);
             CHECK_EQ(store->get_string("name"), binary_value);
             auto bytes = store->get_bytes(binary_key);
             CHECK(bytes && std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()) == binary_value);
             CHECK(store->get<Status>("status").value_or(Status{}) == sample);
             CHECK(store->get<Status>("compact").value_or(Status{}) == sample);
             CHECK(store->get<Status>("json").value_or(Status{}) == sample);
             CHECK_EQ(store->type_of("json").value_or(savekit::value_type::bytes), savekit::value_type::json);
           }),
           close_store()}};
}

test_case a_commit_writes_only_what_changed() {
  return {
      "a commit writes only the keys that changed",
      {open_store("only-changes"), act([] {
         for (int i = 0; i < 50; ++i) CHECK(store->set_int("key" + std::to_string(i), i));
       }),
       save(), act([] { CHECK_EQ(last_commit_operations(), 50); }), act([] {
         CHECK(store->set_int("key3", 300));
         CHECK(store->delete_key("key4"));
       }),
       save(), act([] { CHECK_EQ(last_commit_operations(), 2); }), close_store(), open_store("only-changes"), act([] {
         CHECK_EQ(store->size(), 49u);
         CHECK_EQ(store->get_int("key3"), 300);
         CHECK(!store->has_key("key4"));
       }),
       act([] { store->delete_all(); }), act([] { CHECK(store->set_int("after", 1)); }), save(), close_store(),
       open_store("only-changes"), act([] { CHECK_EQ(store->keys(), std::vector<std::string>{"after"}); }),
       close_store()}};
}

test_case an_aborted_transaction_changes_nothing_committed() {
  return {"an aborted transaction fails the save and changes nothing committed",
          {open_store("abort"), act([] { CHECK(store->set_int("level", 1)); }), save(), act([] {
             CHECK(store->set_int("level", 2));
             CHECK(store->set_int("extra", 9));
             abort_next_commit();
           }),
           save(savekit::errc::io_error), act([] { CHECK(store->has_pending_changes()); }), close_store(),
           open_store("abort"), act([] {
             CHECK_EQ(store->get_int("level"), 1);  // the committed state, intact
             CHECK(!store->has_key("extra"));
             CHECK(store->set_int("level", 3));
             abort_next_commit();
           }),
           save(savekit::errc::io_error), save(),  // the retry commits what the failure left pending
           close_store(), open_store("abort"), act([] { CHECK_EQ(store->get_int("level"), 3); }), close_store()}};
}

test_case saves_during_a_commit_start_at_once() {
  return {"saves made during a commit start at once, in order, each carrying everything pending",
          {open_store("overlapping"),
           [](next_fn next) {
             REQUIRE_STORE(next);
             auto outcomes = std::make_shared<std::vector<bool>>();
             auto operations = std::make_shared<std::vector<int>>();
             CHECK(store->set_int("a", 1));
             store->save_async([outcomes](savekit::status s) { outcomes->push_back(s.has_value()); });
             operations->push_back(last_commit_operations());
             CHECK(store->set_int("b", 2));
             store->save_async([outcomes](savekit::status s) { outcomes->push_back(s.has_value()); });
             operations->push_back(last_commit_operations());
             CHECK(store->set_int("a", 3));
             store->save_async([outcomes, operations, next](savekit::status s) {
               outcomes->push_back(s.has_value());
               CHECK_EQ(*outcomes, (std::vector<bool>{true, true, true}));
               CHECK_EQ(*operations, (std::vector<int>{1, 2}));  // the second carried a too
               next();
             });
           },
           act([] { CHECK(!store->has_pending_changes()); }), close_store(), open_store("overlapping"), act([] {
             CHECK_EQ(store->get_int("a"), 3);
             CHECK_EQ(store->get_int("b"), 2);
           }),
           close_store()}};
}

test_case an_aborted_commit_then_one_in_flight() {
  return {"an aborted commit followed by one in flight with it: the second leaves the state complete",
          {open_store("abort-then-ok"),
           [](next_fn next) {
             REQUIRE_STORE(next);
             auto outcomes = std::make_shared<std::vector<savekit::errc>>();
             CHECK(store->set_int("a", 1));
             abort_next_commit();
             store->save_async([outcomes](savekit::status s) { outcomes->push_back(s.error().code()); });
             CHECK(store->set_int("b", 2));
             store->save_async([outcomes, next](savekit::status s) {
               outcomes->push_back(s.error().code());
               CHECK_EQ(*outcomes, (std::vector<savekit::errc>{savekit::errc::io_error, savekit::errc::ok}));
               next();
             });
           },
           act([] { CHECK(!store->has_pending_changes()); }), close_store(), open_store("abort-then-ok"), act([] {
             CHECK_EQ(store->get_int("a"), 1);
             CHECK_EQ(store->get_int("b"), 2);
           }),
           close_store()}};
}

test_case a_hide_during_a_save_commits_the_rest() {
  return {"hiding the page while a save is in flight commits the rest at once",
          {open_store("hidden-in-flight"),
           [](next_fn next) {
             REQUIRE_STORE(next);
             auto remaining = std::make_shared<int>(2);
             auto finish = [remaining, next] {
               if (--*remaining == 0) next();
             };
             CHECK(store->set_int("level", 5));
             store->save_async([finish](savekit::status s) {
               CHECK(s.has_value());
               finish();
             });
             CHECK(store->set_int("exp", 40));  // made while the save is in flight
             savekit::web::set_autosave_listener([finish](const std::string&, const savekit::status& s) {
               CHECK(s.has_value());
               savekit::web::set_autosave_listener(nullptr);
               finish();
             });
             hide_page();
             CHECK_EQ(last_commit_operations(), 2);  // started at once, not after the first
           },
           act([] { CHECK(!store->has_pending_changes()); }), close_store(), open_store("hidden-in-flight"), act([] {
             CHECK_EQ(store->get_int("level"), 5);
             CHECK_EQ(store->get_int("exp"), 40);
           }),
           close_store()}};
}

test_case a_hide_commits_pending_changes() {
  return {"hiding the page commits pending changes",
          {open_store("hidden"),
           [](next_fn next) {
             REQUIRE_STORE(next);
             CHECK(store->set_string("where", "dungeon 3"));
             savekit::web::set_autosave_listener([next](const std::string& name, const savekit::status& s) {
               CHECK_EQ(name, "hidden");
               CHECK(s.has_value());
               savekit::web::set_autosave_listener(nullptr);
               next();
             });
             hide_page();
           },
           act([] { CHECK(!store->has_pending_changes()); }), close_store(), open_store("hidden"),
           act([] { CHECK_EQ(store->get_string("where"), "dungeon 3"); }), close_store()}};
}

test_case one_store_is_open_once() {
  return {"one store is open once: a second open and a deletion get errc::locked",
          {open_store("exclusive"),
           [](next_fn next) {
             savekit::web::open_indexeddb(
                 "exclusive", [next](savekit::result<savekit::prefs> second, const savekit::web::storage_info&) {
                   CHECK(!second.has_value());
                   if (!second) CHECK_EQ(second.error().code(), savekit::errc::locked);
                   next();
                 });
           },
           act([] { CHECK(store->set_int("x", 1)); }), save(), delete_database("exclusive", savekit::errc::locked),
           close_store(), delete_database("exclusive"), open_store("exclusive"),
           act([] { CHECK(store->keys().empty()); }), close_store()}};
}

test_case foreign_records_are_left_alone() {
  return {"records savekit did not write are reported and left alone; the rest loads",
          {open_store("foreign"), act([] {
             // idb_tests.html wrote one good record and two foreign ones before the suite.
             CHECK(store->recovery().recovered);
             CHECK(store->recovery().detail.find("2 IndexedDB record") != std::string::npos);
             CHECK_EQ(store->keys(), std::vector<std::string>{"good"});
             CHECK_EQ(store->get_int("good"), 42);
           }),
           close_store()}};
}

test_case a_newer_format_is_refused() {
  return {"a database from a newer savekit is refused, not overwritten",
          {open_store("newer", savekit::errc::unsupported_version)}};
}

test_case a_versionless_database_still_opens() {
  return {"a database other code opened first without a version still opens and saves",
          // idb_tests.html made it with indexedDB.open('savekit:versionless'): version 1, no stores.
          {open_store("versionless"), act([] { CHECK(store->set_int("level", 4)); }), save(), close_store(),
           open_store("versionless"), act([] { CHECK_EQ(store->get_int("level"), 4); }), close_store()}};
}

test_case a_foreign_version_bump_hides_nothing() {
  return {
      "a version other code moved the database to does not hide the save",
      // idb_tests.html wrote a savekit record, then upgraded the database to version 7.
      {open_store("bumped"), act([] {
         CHECK_EQ(store->get_int("good"), 42);
         CHECK(store->set_int("good", 43));
       }),
       save(), close_store(), open_store("bumped"), act([] { CHECK_EQ(store->get_int("good"), 43); }), close_store()}};
}

test_case a_hide_with_nothing_pending() {
  return {"a hide with nothing pending is 'nothing to commit', not 'saved'",
          {open_store("nothing-pending"),
           [](next_fn next) {
             REQUIRE_STORE(next);
             auto listener_calls = std::make_shared<int>(0);
             savekit::web::set_autosave_listener(
                 [listener_calls](const std::string&, const savekit::status&) { ++*listener_calls; });
             savekit::web::on_autosave([listener_calls, next](const savekit::web::autosave_event& e) {
               CHECK(!e.committed);
               CHECK(e.outcome.has_value());
               CHECK(e.trigger == savekit::web::autosave_trigger::page_hidden);
               CHECK_EQ(*listener_calls, 0);  // the old listener hears only of commits
               savekit::web::on_autosave(nullptr);
               savekit::web::set_autosave_listener(nullptr);
               next();
             });
             hide_page();
           },
           close_store()}};
}

test_case the_interval_autosave() {
  return {"autosave_every commits pending changes with no page event",
          {open_store_with("interval", {.autosave_every = std::chrono::milliseconds{100}}),
           [](next_fn next) {
             REQUIRE_STORE(next);
             CHECK(store->set_int("exp", 99));
             savekit::web::on_autosave([next](const savekit::web::autosave_event& e) {
               if (!e.committed) return;  // a tick before the change was made
               CHECK(e.trigger == savekit::web::autosave_trigger::interval);
               CHECK(e.outcome.has_value());
               savekit::web::on_autosave(nullptr);
               next();
             });
           },
           act([] { CHECK(!store->has_pending_changes()); }), close_store(), open_store("interval"),
           act([] { CHECK_EQ(store->get_int("exp"), 99); }), close_store()}};
}

test_case a_second_tab_reads_then_takes_over() {
  return {"a second tab can read the save while the first has it, and take over when it closes",
          {open_store("takeover"), act([] { CHECK(store->set_int("level", 8)); }), save(),
           [](next_fn next) {
             // Read-only: no lock needed; commits refused.
             savekit::web::open_indexeddb(
                 "takeover",
                 [next](savekit::result<savekit::prefs> reader, const savekit::web::storage_info&) {
                   CHECK(reader.has_value());
                   if (!reader) return next();
                   CHECK_EQ(reader->get_int("level"), 8);
                   CHECK(reader->set_int("level", 1));
                   reader->save_async([next](savekit::status s) {
                     CHECK_EQ(s.error().code(), savekit::errc::io_error);
                     next();
                   });
                 },
                 {.read_only = true});
           },
           [](next_fn next) {
             // Waiting for the lock: the open completes once the holder closes the store.
             auto taken = std::make_shared<bool>(false);
             savekit::web::open_indexeddb(
                 "takeover",
                 [taken, next](savekit::result<savekit::prefs> second, const savekit::web::storage_info&) {
                   *taken = true;
                   CHECK(second.has_value());
                   if (second) CHECK_EQ(second->get_int("level"), 9);  // what the first saved before closing
                   next();
                 },
                 {.wait_for_lock = true});
             CHECK(!*taken);
             CHECK(store.has_value());
             if (!store) return;
             CHECK(store->set_int("level", 9));
             store->save_async([taken](savekit::status s) {
               CHECK(s.has_value());
               CHECK(!*taken);  // still waiting while the first has it
               store.reset();   // the first "tab" closes its store
             });
           }}};
}

test_case a_database_pulled_away_while_open() {
  return {"another script upgrading or deleting the database while it is open: saving goes on, nothing is lost",
          {open_store("pulled-away"), act([] { CHECK(store->set_int("level", 5)); }), save(), act([] {
             upgrade_database_elsewhere("pulled-away");
             CHECK(store->set_int("exp", 7));
           }),
           save(),  // regression: every save after that failed ("the database connection is closing")
           // Once the store has been told of a deletion (versionchange), everything committed
           // is written back. (A deletion it is not told of before the game closes it — the
           // event still in the browser's queue — takes the saves: see the README.)
           act([] { delete_database_elsewhere("pulled-away"); }), WAIT_UNTIL(deleted_elsewhere()),
           act([] { CHECK(store->set_int("hp", 3)); }), save(),
           close_store(),  // at once: the write-back still goes out before the close
           open_store("pulled-away"), act([] {
             CHECK_EQ(store->get_int("level"), 5);
             CHECK_EQ(store->get_int("exp"), 7);
             CHECK_EQ(store->get_int("hp"), 3);
             delete_database_elsewhere("pulled-away");  // and once more, the game playing on
           }),
           WAIT_UNTIL(deleted_elsewhere()), act([] { CHECK(store->set_int("mp", 9)); }), save(), close_store(),
           open_store("pulled-away"), act([] {
             CHECK_EQ(store->get_int("level"), 5);
             CHECK_EQ(store->get_int("hp"), 3);
             CHECK_EQ(store->get_int("mp"), 9);
           }),
           close_store()}};
}

test_case records_cleared_elsewhere_are_written_back() {
  return {"records other code cleared without a version change are written back with the next save",
          {open_store("cleared"), act([] {
             CHECK(store->set_int("level", 5));
             CHECK(store->set_string("name", std::string("a\0b", 3)));
           }),
           save(), act([] { clear_records_elsewhere("cleared"); }), WAIT_UNTIL(cleared_elsewhere()),
           act([] { CHECK(store->set_int("exp", 7)); }), save(), close_store(), open_store("cleared"), act([] {
             CHECK_EQ(store->get_int("level"), 5);
             CHECK_EQ(store->get_string("name"), std::string("a\0b", 3));
             CHECK_EQ(store->get_int("exp"), 7);
           }),
           close_store()}};
}

std::vector<test_case> make_tests() {
  return {records_cleared_elsewhere_are_written_back(),
          every_value_kind_survives_a_reopen(),
          a_commit_writes_only_what_changed(),
          an_aborted_transaction_changes_nothing_committed(),
          saves_during_a_commit_start_at_once(),
          an_aborted_commit_then_one_in_flight(),
          a_hide_during_a_save_commits_the_rest(),
          a_hide_commits_pending_changes(),
          one_store_is_open_once(),
          foreign_records_are_left_alone(),
          a_newer_format_is_refused(),
          a_versionless_database_still_opens(),
          a_foreign_version_bump_hides_nothing(),
          a_hide_with_nothing_pending(),
          the_interval_autosave(),
          a_second_tab_reads_then_takes_over(),
          a_database_pulled_away_while_open()};
}

void run_tests(std::shared_ptr<std::vector<test_case>> tests, std::size_t at) {
  if (at == tests->size()) {
    std::printf("%d checks passed, %d failed\n", passed, failed);
    return report_done(passed, failed);
  }
  current_test = (*tests)[at].name;
  int failed_before = failed;
  auto steps = std::make_shared<std::vector<step>>((*tests)[at].steps);
  run_steps(steps, 0, [tests, at, failed_before] {
    std::printf("%s %s\n", failed == failed_before ? "ok  " : "FAIL", (*tests)[at].name);
    store.reset();
    slots_tests_reset();
#if SAVEKIT_WEB_SEAL
    seal_tests_reset();
#endif
    run_tests(tests, at + 1);
  });
}

}  // namespace

int main() {
  // ?phase=NAME runs one part of a test that closes the browser between parts.
  std::vector<test_case> tests = slots_relaunch_phase();
  if (tests.empty()) {
    tests = make_tests();
    for (test_case& t : make_slots_tests()) tests.push_back(std::move(t));
#if SAVEKIT_WEB_SEAL
    for (test_case& t : make_seal_tests()) tests.push_back(std::move(t));
#endif
  }
  run_tests(std::make_shared<std::vector<test_case>>(std::move(tests)), 0);
  return 0;
}
