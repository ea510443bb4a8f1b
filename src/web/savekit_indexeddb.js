// The IndexedDB backend: the JavaScript half (an Emscripten --js-library). See
// src/web/idb_bridge.cpp for the C++ half and the byte layouts they exchange.
//
// One database per store, named by the C++ half: "savekit:NAME" for a prefs store,
// "savekit-slots:NAME" for a slots folder (created at version 1; any version other code
// moved it to is fine). Object store "entries": out-of-line binary keys and Uint8Array
// values (a prefs key and [value_type][bytes]; a slot file's name and its bytes), and
// "meta" ("format" → 1 for a store, 2 for slots: which savekit wrote it). Slots also have
// "heads": a generation file's name → [u64 file size][its first bytes: header, name,
// metadata, thumbnail], written in the same transaction as its entry, read alone at open
// (format 1 had none: an entry without a head is loaded whole, and the C++ half writes its
// head). The Web Lock has the database's name.
//
// Invariants:
// 1. Every commit counts the records after its changes: fewer than the C++ half knows of
//    means other code deleted some (clear() on the store, say). The commit completes (its
//    changes are in) but is reported as kind.lost, and the C++ half writes everything back
//    before it reports "ok" — never an "ok" over saves that are gone.
// 2. A reconnection that is blocked (other code upgraded the database and keeps its
//    connection open) fails the commits waiting for it at once, and every later one until
//    it completes; it keeps waiting, and when it completes, the C++ half writes back.
// 3. A slots folder's files are kept here (SAVEKIT_IDB.blobs), not in the WebAssembly heap:
//    that heap is limited to 2 GB, and a folder's kept generations may be larger.
// 4. A slots folder opens on its heads: an entry is read (savekit_idb_fetch) when a save is
//    loaded, after the commits sent before it. A file moved without its bytes here is moved
//    inside the commit (read from its old key before any of the commit's deletions).

mergeInto(LibraryManager.library, {
  $SAVEKIT_IDB__deps: ['$callUserCallback'],
  // Module.savekitPromise(fn): a promise that C++ settles with
  // savekit::web::settle_js_promise(id, status); fn gets the id.
  $SAVEKIT_IDB__postset:
    'Module["savekitPromise"] = function(fn) {' +
    '  var id = ++SAVEKIT_IDB.nextPromise;' +
    '  return new Promise(function(resolve, reject) {' +
    '    SAVEKIT_IDB.promises[id] = {resolve: resolve, reject: reject};' +
    '    fn(id);' +
    '  });' +
    '};',
  $SAVEKIT_IDB: {
    kind: {ok: 0, unavailable: 1, full: 2, io: 3, locked: 4, newerFormat: 5, lost: 6},
    format: 1,       // of a store's database
    slotsFormat: 2,  // of a slots folder's (1: no heads)
    connections: {},  // id -> {db, releaseLock, name}
    nextConnection: 1,
    pageWatched: false,
    promises: {},
    releasing: {},  // name -> promise of the lock's release
    nextPromise: 0,
    blobs: {},  // id -> Uint8Array: the bytes of a slot file (see savekit_idb_blob_*)
    nextBlob: 1,

    kindOf: function(error) {
      var name = error && error.name;
      if (name === 'QuotaExceededError') return SAVEKIT_IDB.kind.full;
      if (name === 'SecurityError' || name === 'UnknownError' || name === 'NotAllowedError')
        return SAVEKIT_IDB.kind.unavailable;
      return SAVEKIT_IDB.kind.io;
    },
    describe: function(error, fallback) {
      if (!error) return fallback;
      return (error.name ? error.name + ': ' : '') + (error.message || String(error));
    },
    // Calls a C function with a string argument allocated for the call.
    // (Memory comes from the C++ half: malloc is not always exported to JavaScript.)
    withString: function(text, fn) {
      text = text || '';
      var size = lengthBytesUTF8(text) + 1;
      var ptr = _savekit_idb_alloc(size);
      stringToUTF8(text, ptr, size);
      try { fn(ptr); } finally { _savekit_idb_free(ptr); }
    },
    // missing: the keys of files a commit found gone (slots), told before the outcome.
    reportCommit: function(request, kind, message, missing) {
      callUserCallback(function() {
        if (missing && missing.length) {
          var flat = SAVEKIT_IDB.flatten(missing);
          var ptr = _savekit_idb_alloc(flat.length || 1);
          HEAPU8.set(flat, ptr);
          try { _savekit_idb_commit_missing(request, ptr, flat.length); } finally { _savekit_idb_free(ptr); }
        }
        SAVEKIT_IDB.withString(message, function(ptr) { _savekit_idb_finished(request, kind, ptr); });
      });
    },
    // ([u32 size][bytes])* of a list of Uint8Arrays.
    flatten: function(parts) {
      var total = 0;
      for (var i = 0; i < parts.length; ++i) total += 4 + parts[i].length;
      var out = new Uint8Array(total), view = new DataView(out.buffer), at = 0;
      for (var j = 0; j < parts.length; ++j) {
        view.setUint32(at, parts[j].length, true);
        out.set(parts[j], at + 4);
        at += 4 + parts[j].length;
      }
      return out;
    },
    keyBytes: function(key) {
      return key instanceof ArrayBuffer ? new Uint8Array(key) : new Uint8Array(key.buffer, key.byteOffset, key.byteLength);
    },
    // visibilitychange (hidden) and pagehide: the last moments a page reliably gets.
    watchPage: function() {
      if (SAVEKIT_IDB.pageWatched || typeof document === 'undefined') return;
      SAVEKIT_IDB.pageWatched = true;
      var hidden = function() { callUserCallback(function() { _savekit_idb_page_hidden(); }); };
      document.addEventListener('visibilitychange', function() {
        if (document.visibilityState === 'hidden') hidden();
      });
      window.addEventListener('pagehide', hidden);
    },
    // Holds the Web Lock named like the database until the store closes: calls then(release), or
    // then(null, kind, message) when another holder has it or locks are refused. With
    // wait, waits for the holder (another tab) to let it go instead.
    lock: function(name, exclusive, wait, then) {
      if (!exclusive) return then(function() {});
      if (typeof navigator === 'undefined' || !navigator.locks) {
        // Web Locks exist only in secure contexts (https, or http from localhost). Without
        // them nothing keeps a second tab from writing over this one's saves.
        return then(null, SAVEKIT_IDB.kind.unavailable,
                    'no Web Locks here (' + (typeof isSecureContext !== 'undefined' && !isSecureContext
                        ? 'the page is not a secure context: serve it over https, or from localhost'
                        : 'this browser has none') +
                    '), so a second tab could overwrite the saves; open with exclusive = false to accept that');
      }
      // A store this page has just closed releases its lock asynchronously: wait for that.
      (SAVEKIT_IDB.releasing[name] || Promise.resolve()).then(function() {
        var held = false;
        var request = navigator.locks.request(name, wait ? {} : {ifAvailable: true}, function(lock) {
          if (!lock) { then(null, SAVEKIT_IDB.kind.locked, name + ' is open in another tab or window'); return undefined; }
          held = true;
          return new Promise(function(resolve) {
            then(function() {
              SAVEKIT_IDB.releasing[name] = request.then(function() {}, function() {});
              resolve();
            });
          });
        });
        request.catch(function(e) {
          if (!held) then(null, SAVEKIT_IDB.kindOf(e), SAVEKIT_IDB.describe(e, 'Web Locks refused'));
        });
      }).catch(function(e) {
        then(null, SAVEKIT_IDB.kindOf(e), SAVEKIT_IDB.describe(e, 'Web Locks refused'));
      });
    },
    // A binary key as a string, to look it up in a plain object.
    keyString: function(bytes) {
      var text = '';
      for (var i = 0; i < bytes.length; ++i) text += String.fromCharCode(bytes[i]);
      return text;
    },
    // The object stores savekit keeps in a database.
    storesOf: function(slots) { return slots ? ['entries', 'meta', 'heads'] : ['entries', 'meta']; },
    // Creates what savekit keeps in its database, where missing (tx: the upgrade's).
    // (Returns whether the entries store had to be made: then whatever it held is gone.)
    createStores: function(db, tx, slots) {
      var I = SAVEKIT_IDB;
      var made = !db.objectStoreNames.contains('entries');
      if (made) db.createObjectStore('entries');
      if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta').put(slots ? I.slotsFormat : I.format, 'format');
      if (slots && !db.objectStoreNames.contains('heads')) {
        db.createObjectStore('heads');
        tx.objectStore('meta').put(I.slotsFormat, 'format');  // format 1's entries get their heads when loaded
      }
      return made;
    },
    // Opens the database at whatever version it has (creating it at version 1), then
    // ready(db). Other code on the origin may have opened the database first — without a
    // version, which creates it empty, or with a version of its own: the database is then
    // reopened at the next version to add savekit's stores, and a foreign version number
    // alone never hides a save (only meta.format says which savekit wrote it).
    // ready(db, emptied): emptied tells that the entries store had to be created — a new
    // database, or one whose saves other code deleted. blocked(), if given, hears that
    // another connection holds the upgrade up, and the attempt goes on waiting for it;
    // without it, the attempt fails.
    openDatabase: function(name, slots, ready, fail, blocked) {
      var I = SAVEKIT_IDB;
      var emptied = false;
      var attempt = function(version, tries) {
        var opening, done = false;
        try {
          opening = version ? indexedDB.open(name, version) : indexedDB.open(name);
        } catch (e) {
          return fail(I.kind.unavailable, I.describe(e, 'IndexedDB refused to open'));
        }
        var give_up = function(kind, message) {
          if (done) return;
          done = true;
          fail(kind, message);
        };
        opening.onupgradeneeded = function() {
          if (I.createStores(opening.result, opening.transaction, slots)) emptied = true;
        };
        opening.onerror = function(event) {
          event.preventDefault();
          var e = opening.error;
          if (e && e.name === 'VersionError' && tries < 3) { done = true; return attempt(0, tries + 1); }
          give_up(I.kind.unavailable, I.describe(e, 'IndexedDB refused to open'));
        };
        // Adding the stores needs every other connection closed: savekit's own close on a
        // version change; other code on the origin may not.
        opening.onblocked = function() {
          if (blocked) return blocked();
          give_up(I.kind.io, name + ' lacks savekit\'s stores and another connection keeps it open ' +
                             '(code on this page or another page of this site): close it and try again');
        };
        opening.onsuccess = function() {
          var db = opening.result;
          if (done) return db.close();  // blocked and given up on, then let through
          var stores = I.storesOf(slots);
          if (stores.every(function(s) { return db.objectStoreNames.contains(s); })) {
            done = true;
            return ready(db, emptied);
          }
          var next = db.version + 1;
          db.close();
          done = true;
          if (tries >= 3) return fail(I.kind.io, name + ': could not add savekit\'s stores');
          attempt(next, tries + 1);
        };
      };
      attempt(0, 0);
    },
    // Other code on the site upgrading or deleting the database closes savekit's
    // connection (versionchange), and the browser may close it (onclose): reconnect, with
    // the commits made meanwhile queued in order, and — when the saves are gone (deleted,
    // or their store dropped) — let the C++ half write back everything committed.
    keepConnected: function(id, db) {
      var I = SAVEKIT_IDB;
      var lost = function() {
        var entry = I.connections[id];
        if (!entry || entry.db !== db) return;
        try { db.close(); } catch (ignored) {}
        entry.db = null;
        entry.queue = entry.queue || [];
        setTimeout(function() { I.reconnect(id, 0); }, 0);
      };
      db.onversionchange = lost;
      db.onclose = lost;
    },
    // Reopens a lost connection. The commits made meanwhile wait in entry.queue, in order —
    // unless other code holds the reopening up (entry.blocked): they then fail at once, and
    // the reopening goes on waiting (invariant 2).
    reconnect: function(id, tries) {
      var I = SAVEKIT_IDB;
      var entry = I.connections[id];
      if (!entry) return;
      I.openDatabase(entry.name, entry.slots, function(db, emptied) {
        if (!I.connections[id]) return db.close();  // the store was closed meanwhile
        var hooks = Module['savekitTestHooks'];  // tests/web: counts reconnections
        if (hooks && hooks.onReconnected) hooks.onReconnected(entry.name);
        entry.db = db;
        entry.blocked = null;
        entry.broken = null;
        I.keepConnected(id, db);
        // First the write-back of everything committed (if the saves were lost), then the
        // commits made meanwhile, in order: readwrite transactions run in creation order.
        var queue = entry.queue || [];
        entry.queue = null;
        if (!entry.closeWhenDone) callUserCallback(function() { _savekit_idb_reconnected(id, emptied ? 1 : 0); });
        for (var i = 0; i < queue.length; ++i) queue[i]();
        if (entry.closeWhenDone) I.closeConnection(id);
      }, function(kind, message) {
        if (!I.connections[id]) return;
        if (tries < 5) return setTimeout(function() { I.reconnect(id, tries + 1); }, 200 * (tries + 1));
        // Give up: the queued commits fail (their changes stay pending for a later retry), and
        // the next commit starts a reconnection again.
        entry.broken = message;
        I.failWaiting(entry);
        entry.queue = null;
        if (entry.closeWhenDone) I.closeConnection(id);
      }, function() {
        if (!I.connections[id] || entry.blocked) return;
        entry.blocked = entry.name + ' is held open by other code on this site, which upgraded it: ' +
                        'nothing is saved until that connection closes';
        I.failWaiting(entry);
      });
    },
    // Runs the commits waiting for a reconnection now: without a connection, each reports
    // why (entry.blocked or entry.broken).
    failWaiting: function(entry) {
      var queue = entry.queue || [];
      entry.queue = [];
      for (var i = 0; i < queue.length; ++i) queue[i]();
    },
    // One commit: a readwrite transaction of the change set (see savekit_idb_commit).
    runCommit: function(connection, request, bytes) {
      var I = SAVEKIT_IDB;
      var entry = I.connections[connection];
      if (!entry) return I.reportCommit(request, I.kind.io, 'the IndexedDB connection is closed');
      if (!entry.db) {
        return I.reportCommit(request, I.kind.io, entry.blocked ||
                              entry.name + ' could not be reopened: ' + (entry.broken || 'closed'));
      }
      var tx, lost = false, missing = [];
      try {
        tx = entry.db.transaction(entry.slots ? ['entries', 'heads'] : ['entries'], 'readwrite', {durability: 'strict'});
        var store = tx.objectStore('entries');
        var heads = entry.slots ? tx.objectStore('heads') : null;
        // [u8 clear_all][u32 records expected after it] then the operations (idb_bridge.hpp)
        var view = new DataView(bytes.buffer), at = 5, operations = 0;
        var expected = view.getUint32(1, true);
        var sized = function() {  // [u32 size][bytes] at `at`
          var size = view.getUint32(at, true);
          var part = bytes.slice(at + 4, at + 4 + size);
          at += 4 + size;
          return part;
        };
        var putHead = function(key, head) {
          if (head.length) heads.put(head, key);
          else heads.delete(key);
        };
        // Requests whose answer decides a put (moves, ensures) are outstanding; the count
        // that checks the records (invariant 1) goes after the last of them.
        // Then the transaction is sent (commit()): no request can be added to it after that.
        var outstanding = 1;
        var settled = function() {
          if (--outstanding) return;
          // Nothing may throw from here on: an exception would unwind through the C++ caller.
          try {
            store.count().onsuccess = function(e) { lost = e.target.result < expected - missing.length; };
            var hooks = Module['savekitTestHooks'];  // tests/web: counts operations, aborts on request
            if (hooks && hooks.onCommit) hooks.onCommit(tx, operations);
            if (tx.commit) tx.commit();  // send it now: a page being hidden may not get another task
          } catch (ignored) {
            // Already aborted or finished: oncomplete or onabort reports the outcome.
          }
        };
        var later = [];  // the operations after the moves' reads (invariant 4)
        if (bytes[0]) store.clear();
        for (; at < bytes.length; ++operations) {
          var op = bytes[at];
          at += 1;
          var key = sized().buffer;
          if (op === 2) {
            later.push(function(key) { store.delete(key); if (heads) heads.delete(key); }.bind(null, key));
          } else if (op === 3) {  // a file's bytes kept here (a blob id), and its head
            var blob = I.blobs[view.getUint32(at, true)];
            at += 4;
            later.push(function(key, blob, head) { store.put(blob, key); putHead(key, head); }.bind(null, key, blob, sized()));
          } else if (op === 4) {  // a file not loaded, moved from another key within the commit
            var from = sized().buffer, head = sized();
            ++outstanding;
            store.get(from).onsuccess = function(key, head, e) {
              var value = e.target.result;
              if (value instanceof Uint8Array) {
                store.put(value, key);
                putHead(key, head);
              } else {
                missing.push(I.keyBytes(key));
                heads.delete(key);
              }
              settled();
            }.bind(null, key, head);
          } else if (op === 5) {  // a file that must be there (a write-back): put if gone
            var id = view.getUint32(at, true);
            var kept = id ? I.blobs[id] : null;  // taken now: the C++ half may let go of it meanwhile
            at += 4;
            var wanted = sized();
            later.push(function(key, kept, head) {
              ++outstanding;
              store.count(key).onsuccess = function(e) {
                if (!e.target.result) {
                  if (kept) {
                    store.put(kept, key);
                    putHead(key, head);
                  } else {  // not loaded, and gone: the C++ half hears which
                    missing.push(I.keyBytes(key));
                    heads.delete(key);
                  }
                }
                settled();
              };
            }.bind(null, key, kept, wanted));
          } else if (op === 6) {  // a head alone (format 1's files, loaded whole at open)
            later.push(function(key, head) { putHead(key, head); }.bind(null, key, sized()));
          } else {
            later.push(function(key, record) { store.put(record, key); }.bind(null, key, sized()));
          }
        }
        for (var i = 0; i < later.length; ++i) later[i]();
        settled();
      } catch (e) {
        if (tx) try { tx.abort(); } catch (ignored) {}
        return I.reportCommit(request, I.kindOf(e), I.describe(e, 'the IndexedDB transaction could not start'));
      }
      tx.oncomplete = function() {
        if (!lost) return I.reportCommit(request, I.kind.ok, '', missing);
        I.reportCommit(request, I.kind.lost, entry.name + ' holds fewer records than savekit wrote: ' +
                       'other code on this site deleted some', missing);
      };
      tx.onabort = function() {
        I.reportCommit(request, I.kindOf(tx.error), I.describe(tx.error, 'the IndexedDB transaction was aborted'));
      };
    },
    closeConnection: function(id) {
      var entry = SAVEKIT_IDB.connections[id];
      if (!entry) return;
      delete SAVEKIT_IDB.connections[id];
      if (entry.db) entry.db.close();  // transactions already committed still complete
      entry.release();
      if (entry.whenClosed) (SAVEKIT_IDB.releasing[entry.name] || Promise.resolve()).then(entry.whenClosed);
    },
    persistence: function(request) {
      // 0 not requested, 1 granted, 2 denied, 3 unsupported; estimate: [usage, quota]
      var storage = typeof navigator !== 'undefined' && navigator.storage;
      if (!storage || !storage.persist) return Promise.resolve({persisted: request ? 3 : 0, usage: 0, quota: 0});
      var asked = request ? storage.persist().then(function(granted) { return granted ? 1 : 2; },
                                                    function() { return 2; })
                          : Promise.resolve(0);
      var estimate = storage.estimate ? storage.estimate().catch(function() { return {}; }) : Promise.resolve({});
      return Promise.all([asked, estimate]).then(function(both) {
        return {persisted: both[0], usage: both[1].usage || 0, quota: both[1].quota || 0};
      });
    },
  },

  // contents: 0 a store's records, inline; 1 a slots folder's heads (entries loaded when
  // fetched); 2 a slots folder's every file, kept here.
  savekit_idb_open__deps: ['$SAVEKIT_IDB'],
  savekit_idb_open: function(namePtr, request, requestPersistence, exclusive, waitForLock, contents) {
    var name = UTF8ToString(namePtr);
    var I = SAVEKIT_IDB;
    var storage = {persisted: 0, usage: 0, quota: 0};
    var finished = false;
    var finish = function(connection, records, kind, message) {
      if (finished) return;
      finished = true;
      callUserCallback(function() {
        var size = records ? records.length : 0;
        var ptr = size ? _savekit_idb_alloc(size) : 0;
        if (size) HEAPU8.set(records, ptr);
        I.withString(message, function(messagePtr) {
          _savekit_idb_opened(request, connection, ptr, size, kind, messagePtr, storage.persisted, storage.usage,
                              storage.quota);
        });
        if (ptr) _savekit_idb_free(ptr);
      });
    };
    if (typeof indexedDB === 'undefined' || !indexedDB) {
      return finish(0, null, I.kind.unavailable, 'this browser offers no IndexedDB (disabled storage?)');
    }
    if (typeof origin !== 'undefined' && origin === 'null') {  // sandboxed frame, data: URL...
      return finish(0, null, I.kind.unavailable, 'an opaque origin has no storage that outlives the page');
    }
    I.lock(name, exclusive, waitForLock, function(release, kind, message) {
      if (!release) return finish(0, null, kind, message);
      var fail = function(kind, message) { release(); finish(0, null, kind, message); };
      I.persistence(requestPersistence).then(function(answer) {
        storage = answer;
        var slots = contents !== 0;
        I.openDatabase(name, slots, function(db) {
          var id = I.nextConnection++;
          I.connections[id] = {db: db, release: release, name: name, queue: null, slots: slots};
          I.keepConnected(id, db);
          var failed = function(kind, message) {
            delete I.connections[id];
            db.close();
            fail(kind, message);
          };
          var reading = function(stores, issue, then) {  // a readonly transaction
            var tx;
            try {
              tx = db.transaction(stores, 'readonly');
              issue(tx);
            } catch (e) {
              return failed(I.kind.io, I.describe(e, 'reading the saves failed'));
            }
            tx.onabort = function() { failed(I.kind.io, I.describe(tx.error, 'reading the saves was aborted')); };
            tx.oncomplete = then;
          };
          var keep = function(value) {  // [u32 blob id][u32 size]: the bytes stay here (invariant 3)
            var blob = I.nextBlob++;
            I.blobs[blob] = value;
            var reference = new Uint8Array(8);
            new DataView(reference.buffer).setUint32(0, blob, true);
            new DataView(reference.buffer).setUint32(4, value.length, true);
            return reference;
          };
          var tagged = function(tag, bytes) {
            var out = new Uint8Array(1 + bytes.length);
            out[0] = tag;
            out.set(bytes, 1);
            return out;
          };
          var keyOf = function(key) {
            return key instanceof ArrayBuffer || ArrayBuffer.isView(key) ? I.keyBytes(key) : new Uint8Array(0);
          };
          // Flattened to ([u32 key size][key][u32 record size][record])* (idb_bridge.hpp).
          // Non-binary records are passed as empty ones, which the C++ half leaves alone.
          var finishWith = function(parts) {
            I.watchPage();
            finish(id, I.flatten(parts), I.kind.ok, '');
          };
          var keys, values, headKeys, headValues, format;
          reading(I.storesOf(slots), function(tx) {
            var entries = tx.objectStore('entries');
            entries.getAllKeys().onsuccess = function(e) { keys = e.target.result; };
            if (contents !== 1) entries.getAll().onsuccess = function(e) { values = e.target.result; };
            if (slots) {
              var heads = tx.objectStore('heads');
              heads.getAllKeys().onsuccess = function(e) { headKeys = e.target.result; };
              heads.getAll().onsuccess = function(e) { headValues = e.target.result; };
            }
            tx.objectStore('meta').get('format').onsuccess = function(e) { format = e.target.result; };
          }, function() {
            if (typeof format === 'number' && format > (slots ? I.slotsFormat : I.format))
              return failed(I.kind.newerFormat, name + ' was written by a newer savekit (format ' + format + ')');
            var parts = [], i;
            if (!slots) {
              for (i = 0; i < keys.length; ++i)
                parts.push(keyOf(keys[i]), values[i] instanceof Uint8Array ? values[i] : new Uint8Array(0));
              return finishWith(parts);
            }
            // Slots: [u8 1][head record] for a file with a head; [u8 2 (head stored) or
            // 3 (none)][u32 blob id][u32 size] for a file loaded whole — every file with
            // contents 2, else those without a head (format 1's, files that are not
            // generations, an entry other code put).
            var headOf = {};
            for (i = 0; i < headKeys.length; ++i) {
              var head = headValues[i];
              if (head instanceof Uint8Array && head.length >= 8) headOf[I.keyString(keyOf(headKeys[i]))] = head;
            }
            var whole = [];  // [key, value, head stored]
            var unread = [];
            for (i = 0; i < keys.length; ++i) {
              var key = keyOf(keys[i]), name = I.keyString(key), known = headOf[name];
              delete headOf[name];
              if (contents === 2) whole.push([key, values[i], !!known]);
              else if (known) parts.push(key, tagged(1, known));
              else unread.push(keys[i]);
            }
            // [u8 4]: a head whose file other code deleted.
            for (i = 0; i < headKeys.length; ++i)
              if (headOf[I.keyString(keyOf(headKeys[i]))]) parts.push(keyOf(headKeys[i]), new Uint8Array([4]));
            var deliver = function() {
              for (var j = 0; j < whole.length; ++j) {
                var value = whole[j][1];
                parts.push(whole[j][0], value instanceof Uint8Array ? tagged(whole[j][2] ? 2 : 3, keep(value))
                                                                      : new Uint8Array(0));
              }
              finishWith(parts);
            };
            if (!unread.length) return deliver();
            reading(['entries'], function(tx) {
              var entries = tx.objectStore('entries');
              unread.forEach(function(key) {
                entries.get(key).onsuccess = function(e) { whole.push([keyOf(key), e.target.result, false]); };
              });
            }, deliver);
          });
        }, fail);
      });
    });
  },

  savekit_idb_commit__deps: ['$SAVEKIT_IDB'],
  savekit_idb_commit: function(connection, request, ptr, size) {
    var I = SAVEKIT_IDB;
    var bytes = HEAPU8.slice(ptr, ptr + size);  // a copy: the change set dies when we return
    var entry = I.connections[connection];
    if (!entry) return I.reportCommit(request, I.kind.io, 'the IndexedDB connection is closed');
    if (entry.queue && !entry.blocked) {  // reconnecting: in order, once the database is back
      return entry.queue.push(function() { I.runCommit(connection, request, bytes); });
    }
    if (!entry.db && !entry.queue) {  // a reconnection given up on: try again, with this commit
      entry.queue = [function() { I.runCommit(connection, request, bytes); }];
      entry.broken = null;
      return I.reconnect(connection, 0);
    }
    I.runCommit(connection, request, bytes);
  },
  // Reads one slot file's entry (invariant 4) after the commits sent before it; reports
  // savekit_idb_fetched(request, blob id (0: no such record, or not bytes), size, kind, message).
  savekit_idb_fetch__deps: ['$SAVEKIT_IDB', '$callUserCallback'],
  savekit_idb_fetch: function(connection, request, keyPtr, keySize) {
    var I = SAVEKIT_IDB;
    var key = HEAPU8.slice(keyPtr, keyPtr + keySize).buffer;
    var report = function(blob, size, kind, message) {
      callUserCallback(function() {
        I.withString(message, function(ptr) { _savekit_idb_fetched(request, blob, size, kind, ptr); });
      });
    };
    var run = function() {
      var entry = I.connections[connection];
      if (!entry) return report(0, 0, I.kind.io, 'the IndexedDB connection is closed');
      if (!entry.db) {
        return report(0, 0, I.kind.io, entry.blocked || entry.name + ' could not be reopened: ' + (entry.broken || 'closed'));
      }
      var tx, value;
      try {
        tx = entry.db.transaction(['entries'], 'readonly');
        tx.objectStore('entries').get(key).onsuccess = function(e) { value = e.target.result; };
      } catch (e) {
        return report(0, 0, I.kindOf(e), I.describe(e, 'reading a save failed'));
      }
      tx.oncomplete = function() {
        if (!(value instanceof Uint8Array)) return report(0, 0, I.kind.ok, '');
        var blob = I.nextBlob++;
        I.blobs[blob] = value;
        report(blob, value.length, I.kind.ok, '');
      };
      tx.onabort = function() { report(0, 0, I.kindOf(tx.error), I.describe(tx.error, 'reading a save was aborted')); };
    };
    var entry = I.connections[connection];
    if (entry && entry.queue && !entry.blocked) return entry.queue.push(run);  // reconnecting: in order
    if (entry && !entry.db && !entry.queue) {  // a reconnection given up on: try again
      entry.queue = [run];
      entry.broken = null;
      return I.reconnect(connection, 0);
    }
    run();
  },

  // Commits the store's pending changes every `ms` milliseconds (its autosave option).
  savekit_idb_autosave__deps: ['$SAVEKIT_IDB', '$callUserCallback'],
  savekit_idb_autosave: function(connection, ms) {
    var entry = SAVEKIT_IDB.connections[connection];
    if (!entry || !(ms > 0)) return;
    entry.autosave = setInterval(function() {
      callUserCallback(function() { _savekit_idb_autosave_tick(connection); });
    }, ms);
  },

  // Calls back once the running JavaScript task ends (a microtask): the changes a
  // synchronous call made go out together, as one transaction.
  savekit_idb_soon__deps: ['$callUserCallback'],
  savekit_idb_soon: function(connection) {
    var run = function() { callUserCallback(function() { _savekit_idb_soon_tick(connection); }); };
    if (typeof queueMicrotask === 'function') queueMicrotask(run);
    else Promise.resolve().then(run);
  },

  savekit_idb_close__deps: ['$SAVEKIT_IDB'],
  savekit_idb_close: function(connection) {
    var entry = SAVEKIT_IDB.connections[connection];
    if (!entry) return;
    if (entry.autosave) clearInterval(entry.autosave);
    // Reconnecting: the commits queued meanwhile (the last write-back among them) still go
    // out; the connection closes after them. (Blocked, nothing can go out: it closes now.)
    if (entry.queue && !entry.blocked) {
      entry.closeWhenDone = true;
      // An open of the same store from this page waits for this close (see lock).
      SAVEKIT_IDB.releasing[entry.name] = new Promise(function(resolve) { entry.whenClosed = resolve; });
      return;
    }
    SAVEKIT_IDB.closeConnection(connection);
  },

  savekit_idb_is_reconnecting__deps: ['$SAVEKIT_IDB'],
  savekit_idb_is_reconnecting: function(connection) {
    var entry = SAVEKIT_IDB.connections[connection];
    return entry && entry.queue ? 1 : 0;
  },

  // Bytes kept in JavaScript for the C++ half (invariant 3), by id.
  savekit_idb_blob_keep__deps: ['$SAVEKIT_IDB'],
  savekit_idb_blob_keep: function(ptr, size) {
    var id = SAVEKIT_IDB.nextBlob++;
    SAVEKIT_IDB.blobs[id] = HEAPU8.slice(ptr, ptr + size);
    return id;
  },
  // Copies n bytes from offset (a double: offsets pass 4 GiB in JavaScript) to ptr.
  savekit_idb_blob_read__deps: ['$SAVEKIT_IDB'],
  savekit_idb_blob_read: function(id, offset, n, ptr) {
    var bytes = SAVEKIT_IDB.blobs[id];
    HEAPU8.set(bytes.subarray(offset, offset + n), ptr);
  },
  savekit_idb_blob_release__deps: ['$SAVEKIT_IDB'],
  savekit_idb_blob_release: function(id) { delete SAVEKIT_IDB.blobs[id]; },

  savekit_idb_delete__deps: ['$SAVEKIT_IDB'],
  savekit_idb_delete: function(namePtr, request) {
    var I = SAVEKIT_IDB;
    var name = UTF8ToString(namePtr);
    var report = function(kind, message) {
      callUserCallback(function() {
        I.withString(message, function(ptr) { _savekit_idb_finished(request, kind, ptr); });
      });
    };
    if (typeof indexedDB === 'undefined' || !indexedDB) return report(I.kind.unavailable, 'this browser offers no IndexedDB');
    I.lock(name, true, false, function(release, kind, message) {
      if (!release) return report(kind, message);
      var deleting;
      try {
        deleting = indexedDB.deleteDatabase(name);
      } catch (e) {
        release();
        return report(I.kind.unavailable, I.describe(e, 'IndexedDB refused'));
      }
      deleting.onsuccess = function() { release(); report(I.kind.ok, ''); };
      deleting.onerror = function() { release(); report(I.kindOf(deleting.error), I.describe(deleting.error, 'delete failed')); };
    });
  },

  savekit_idb_settle_promise__deps: ['$SAVEKIT_IDB'],
  savekit_idb_settle_promise: function(id, ok, messagePtr) {
    var pending = SAVEKIT_IDB.promises[id];
    if (!pending) return;
    delete SAVEKIT_IDB.promises[id];
    if (ok) pending.resolve();
    else pending.reject(new Error(UTF8ToString(messagePtr)));
  },
});
