"""The Python binding, with Debian's python3 and unittest: every API, bad input, and a store
and a slots folder written by C++ read here and written back (tests/bindings/interop.cpp).

Run by CTest (python_binding): SAVEKIT_LIBRARY names libsavekit_c, SAVEKIT_INTEROP the C++
half. By hand:
  SAVEKIT_LIBRARY=build/dev/libsavekit_c.so SAVEKIT_INTEROP=build/dev/tests/interop \\
  PYTHONPATH=bindings/python python3 -m unittest discover -s bindings/python/tests -v
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import savekit

# What tests/bindings/interop.cpp writes and expects (the same literals there).
TEXT_WITH_NUL = "h\u00e9llo\0w\U0001F3AEorld"
BYTES_VALUE = b"\x00\xff\x80\x00\x01"
NUL_KEY = b"k\0ey"


class Folder(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self._dir.name)

    def tearDown(self):
        self._dir.cleanup()


class PrefsTest(Folder):
    def test_values_round_trip_by_type(self):
        path = self.dir / "p.prefs"
        with savekit.Prefs(path) as prefs:
            prefs["level"] = 2**63 - 1
            prefs["speed"] = 1.5
            prefs["motto"] = TEXT_WITH_NUL
            prefs[NUL_KEY] = BYTES_VALUE
            prefs["empty"] = ""
            prefs.set_int("lives", 3)
        with savekit.Prefs(path) as prefs:  # committed on exit, read from the file
            self.assertEqual(prefs["level"], 2**63 - 1)
            self.assertEqual(prefs["speed"], 1.5)
            self.assertEqual(prefs["motto"], TEXT_WITH_NUL)
            self.assertEqual(prefs[NUL_KEY], BYTES_VALUE)
            self.assertEqual(prefs["empty"], "")
            self.assertEqual(prefs.type_of("motto"), "string")
            self.assertEqual(prefs.type_of(NUL_KEY), "bytes")
            self.assertEqual(prefs.keys(), ["empty", NUL_KEY.decode(), "level", "lives", "motto", "speed"])
            self.assertEqual(len(prefs), 6)
            self.assertIn("lives", prefs)
            self.assertEqual(prefs.get_bytes("motto"), TEXT_WITH_NUL.encode())  # a string's bytes

    def test_typed_getters_defaults_and_errors(self):
        with savekit.Prefs(self.dir / "p.prefs") as prefs:
            prefs["n"] = 7
            self.assertEqual(prefs.get_int("n"), 7)
            self.assertEqual(prefs.get_int("missing", -1), -1)
            self.assertIsNone(prefs.get_string("missing", None))
            self.assertIsNone(prefs.get("missing"))
            with self.assertRaises(KeyError):
                prefs.get_int("missing")
            with self.assertRaises(KeyError):
                prefs["missing"]
            with self.assertRaises(savekit.SavekitError) as caught:
                prefs.get_string("n")
            self.assertEqual(caught.exception.name, "wrong_type")
            self.assertEqual(caught.exception.status, 24)
            with self.assertRaises(TypeError):
                prefs["b"] = True
            with self.assertRaises(TypeError):
                prefs["x"] = [1, 2]
            with self.assertRaises(TypeError):
                prefs.set_int("x", 1.5)
            with self.assertRaises(OverflowError):
                prefs["big"] = 2**63
            self.assertNotIn("big", prefs)

    def test_a_long_value_is_read_whole(self):
        with savekit.Prefs(self.dir / "p.prefs") as prefs:
            long_value = bytes(range(256)) * 100
            prefs["long"] = long_value
            self.assertEqual(prefs.get_bytes("long"), long_value)

    def test_text_that_is_not_utf8_is_refused_with_its_offset(self):
        with savekit.Prefs(self.dir / "p.prefs") as prefs:
            with self.assertRaises(savekit.SavekitError) as caught:
                prefs["bad"] = "ab\udc80"  # a lone surrogate
            self.assertEqual(caught.exception.name, "invalid_utf8")
            self.assertEqual(caught.exception.offset, 2)
            self.assertNotIn("bad", prefs)
            prefs["ok"] = "fine"

    def test_delete_clear_and_an_exception_in_the_with_block_does_not_save(self):
        path = self.dir / "p.prefs"
        with savekit.Prefs(path) as prefs:
            prefs["a"] = 1
            prefs["b"] = 2
            del prefs["a"]
            with self.assertRaises(KeyError):
                del prefs["a"]
        with self.assertRaises(RuntimeError):
            with savekit.Prefs(path) as prefs:
                prefs.clear()
                raise RuntimeError("the game failed half-way")
        with savekit.Prefs(path) as prefs:
            self.assertEqual(prefs.keys(), ["b"])  # the clear was never committed

    def test_save_async_reports_on_the_worker(self):
        path = self.dir / "p.prefs"
        outcomes = []
        ran = threading.Event()
        prefs = savekit.Prefs(path)
        prefs["a"] = 1

        def done(error):
            outcomes.append(error)
            ran.set()
            raise ValueError("a callback that throws is contained")

        prefs.save_async(done)
        self.assertTrue(ran.wait(120))
        prefs.close()
        self.assertEqual(outcomes, [None])
        with savekit.Prefs(path) as again:
            self.assertEqual(again["a"], 1)

    def test_a_second_open_is_locked_and_read_only_commits_nothing(self):
        path = self.dir / "p.prefs"
        with savekit.Prefs(path) as prefs:
            prefs["a"] = 1
            with self.assertRaises(savekit.SavekitError) as caught:
                savekit.Prefs(path)
            self.assertEqual(caught.exception.name, "locked")
        reader = savekit.Prefs(path, read_only=True)
        self.assertEqual(reader["a"], 1)
        reader["a"] = 2
        with self.assertRaises(savekit.SavekitError):
            reader.save()
        reader.close()
        with self.assertRaises(savekit.SavekitError) as caught:
            savekit.Prefs(self.dir / "missing.prefs", create_if_missing=False)
        self.assertEqual(caught.exception.name, "not_found")

    def test_a_closed_store_and_bad_arguments(self):
        prefs = savekit.Prefs(self.dir / "p.prefs")
        prefs.close()
        prefs.close()  # twice is fine
        with self.assertRaises(ValueError):
            prefs["a"] = 1
        with self.assertRaises(savekit.SavekitError) as caught:
            savekit.Prefs("a\0b.prefs")
        self.assertEqual((caught.exception.name, caught.exception.offset), ("invalid_path", 1))
        with savekit.Prefs(self.dir / "q.prefs") as prefs:
            with self.assertRaises(TypeError):
                prefs[5] = 1
            with self.assertRaises(savekit.SavekitError) as caught:
                prefs[""] = 1
            self.assertEqual(caught.exception.name, "invalid_key")

    def test_recovery_of_a_torn_tail(self):
        path = self.dir / "p.prefs"
        with savekit.Prefs(path) as prefs:
            prefs["a"] = 1
        with open(path, "ab") as f:
            f.write(b"\x01torn")
        with savekit.Prefs(path) as prefs:
            self.assertEqual(prefs["a"], 1)
            self.assertTrue(prefs.recovery.recovered)
            self.assertEqual(prefs.recovery.bytes_discarded, 5)


class SlotsTest(Folder):
    def test_write_list_read_and_manage(self):
        with savekit.Slots(self.dir / "saves") as slots:
            slots.write("slot1", b"\x00first", title="Chapter 1", playtime=60, progress=0.25,
                        thumbnail=b"\x89PNG", user={"level": "3"}, schema_version=2)
            slots.write("slot2", b"second")
            menu = slots.list()
            self.assertEqual([s.name for s in menu], ["slot2", "slot1"])
            one = slots.info("slot1")
            self.assertEqual((one.title, one.playtime, one.progress, one.user), ("Chapter 1", 60, 0.25, {"level": "3"}))
            self.assertEqual((one.schema_version, one.encoding, one.bytes, one.thumbnail_bytes), (2, "bytes", 6, 4))
            self.assertEqual(slots.read("slot1"), b"\x00first")
            self.assertEqual(slots.thumbnail("slot1"), b"\x89PNG")
            for i in range(3):
                slots.write("slot1", bytes([i]))
            history = slots.history("slot1")
            self.assertEqual([g.generation for g in history], [4, 3, 2])
            slots.restore("slot1", 2)
            payload = slots.read_payload("slot1")
            self.assertEqual((payload.data, payload.generation), (b"\x00", 5))
            self.assertEqual(slots.read_generation("slot1", 3).data, b"\x01")
            slots.copy("slot1", "copy")
            slots.rename("copy", "renamed")
            with self.assertRaises(savekit.SavekitError) as caught:
                slots.rename("renamed", "slot2")
            self.assertEqual(caught.exception.name, "already_exists")
            slots.remove("renamed")
            with self.assertRaises(savekit.SavekitError) as caught:
                slots.read("renamed")
            self.assertEqual(caught.exception.name, "not_found")

    def test_json_and_msgpack_are_checked(self):
        with savekit.Slots(self.dir / "saves") as slots:
            slots.write("j", b'{"a": 1}', encoding="json")
            with self.assertRaises(savekit.SavekitError) as caught:
                slots.write("j", b'{"a": ', encoding="json")
            self.assertEqual((caught.exception.name, caught.exception.offset), ("unexpected_end", 6))
            slots.write("m", savekit.json_to_msgpack('{"a": [1, 2]}'), encoding="msgpack")
            self.assertEqual(json.loads(savekit.msgpack_to_json(slots.read("m"))), {"a": [1, 2]})
            with self.assertRaises(ValueError):
                slots.write("m", b"", encoding="yaml")
            self.assertEqual(slots.read("j"), b'{"a": 1}')

    def test_background_writes(self):
        outcomes = []
        with savekit.Slots(self.dir / "saves") as slots:
            for i in range(10):
                slots.write_async("bg", b"save %d" % i, outcomes.append, title="bg")
            slots.write_async("bad/\n", b"x", outcomes.append)
            slots.flush()
            self.assertEqual(slots.read("bg"), b"save 9")
        self.assertEqual(outcomes.count(None), 10)
        self.assertEqual([e.name for e in outcomes if e is not None], ["invalid_name"])

    def test_locks_bad_names_and_a_closed_folder(self):
        folder = self.dir / "saves"
        slots = savekit.Slots(folder)
        with self.assertRaises(savekit.SavekitError) as caught:
            savekit.Slots(folder)
        self.assertEqual(caught.exception.name, "locked")
        with self.assertRaises(savekit.SavekitError) as caught:
            slots.write("", b"x")
        self.assertEqual(caught.exception.name, "invalid_name")
        slots.write("a", b"x")
        with savekit.Slots(folder, read_only=True) as reader:
            self.assertEqual(reader.read("a"), b"x")
        slots.close()
        with self.assertRaises(ValueError):
            slots.list()

    def test_sealed_folder(self):
        keys = savekit.Keyring()
        key = keys.generate(1)
        self.assertEqual(len(key), 32)
        with savekit.Slots(self.dir / "saves", keyring=keys, player="p1") as slots:
            slots.write("s", b"secret save")
            self.assertTrue(slots.read_payload("s").sealed)
        with savekit.Slots(self.dir / "saves") as slots:  # no key: the menu, not the payload
            self.assertTrue(slots.list()[0].sealed)
            with self.assertRaises(savekit.SavekitError) as caught:
                slots.read("s")
            self.assertEqual(caught.exception.name, "key_not_held")
        other = savekit.Keyring()
        other.add(1, key)
        with savekit.Slots(self.dir / "saves", keyring=other, player="p2") as slots:
            with self.assertRaises(savekit.SavekitError) as caught:
                slots.read("s")  # another player's save
            self.assertEqual(caught.exception.name, "tampered")


class ThreadsTest(Folder):
    """Found by an attack on the bindings: each crashed or mixed up answers before its fix."""

    def test_close_while_other_threads_call_never_frees_under_them(self):
        prefs = savekit.Prefs(self.dir / "p.prefs")
        for i in range(2000):
            prefs[f"key {i}"] = i
        prefs.save()
        started = threading.Barrier(3)
        outcomes = []

        def caller():
            started.wait()
            calls = 0
            try:
                while calls < 100000:  # bounded: ends at the close in practice
                    prefs.keys()
                    calls += 1
                outcomes.append("never closed")
            except ValueError:
                outcomes.append(calls)

        threads = [threading.Thread(target=caller) for _ in range(2)]
        for t in threads:
            t.start()
        started.wait()
        time.sleep(0.02)  # both are calling by now (in C, mostly: the GIL is let go there)
        prefs.close()
        for t in threads:
            t.join(120)
        self.assertEqual(len(outcomes), 2)
        self.assertNotIn("never closed", outcomes)
        with self.assertRaises(ValueError):
            prefs["a"] = 1
        with savekit.Prefs(self.dir / "p.prefs") as again:  # released: the lock is free
            self.assertEqual(again["key 7"], 7)

    def test_each_thread_gets_its_own_failures_details(self):
        with savekit.Prefs(self.dir / "p.prefs") as prefs:
            prefs["A"] = "text"
            prefs["B"] = "text"
            mixed = []

            def reader(key):
                for _ in range(3000):
                    try:
                        prefs.get_int(key)
                    except savekit.SavekitError as e:
                        if e.path != f'$["{key}"]':
                            mixed.append(e.path)

            threads = [threading.Thread(target=reader, args=(k,)) for k in "AB"]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            self.assertEqual(mixed, [])

    def test_a_failure_while_closing_keeps_its_message(self):
        path = self.dir / "p.prefs"
        with savekit.Prefs(path) as prefs:
            prefs["a"] = 1
        reader = savekit.Prefs(path, read_only=True)
        reader["a"] = 2
        errors = []
        for _ in range(3):
            reader.save_async(errors.append)
        reader.close()  # waits for the three
        self.assertEqual(len(errors), 3)
        for e in errors:
            self.assertIsNotNone(e)
            self.assertIn("read-only", e.message)

    def test_slots_dropped_inside_their_own_callback(self):
        ran = []
        junk = []
        done_all = threading.Event()
        slots = savekit.Slots(self.dir / "saves")

        def first(error):
            nonlocal slots
            ran.append(("first", error))
            slots = None  # the last reference goes on the library's worker thread
            # New C callbacks that would take the memory of freed ones, and run instead of them.
            junk.extend(savekit._native.DONE_CALLBACK(lambda user, code: ran.append("wrong callback"))
                        for _ in range(200))

        slots.write_async("a", b"1", first)
        for i in range(20):  # queued behind the first: their callbacks must outlive the object
            slots.write_async(f"b{i}", b"2", lambda error, i=i: ran.append((i, error)))
        del first
        deadline = time.monotonic() + 120
        while len(ran) < 21 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(ran, [("first", None)] + [(i, None) for i in range(20)])
        # The folder is released (its close ran on a thread of its own): it opens again.
        while time.monotonic() < deadline:
            try:
                with savekit.Slots(self.dir / "saves") as again:
                    self.assertEqual(again.read("a"), b"1")
                    done_all.set()
                    break
            except savekit.SavekitError as e:
                if e.name != "locked":
                    raise
                time.sleep(0.01)
        self.assertTrue(done_all.is_set())

    def test_numbers_out_of_range_are_refused_not_wrapped(self):
        with savekit.Slots(self.dir / "saves") as slots:
            with self.assertRaises(OverflowError):
                slots.write("s", b"x", schema_version=2**32 + 1)
            with self.assertRaises(OverflowError):
                slots.write("s", b"x", schema_version=-1)
            with self.assertRaises(OverflowError):
                slots.restore("s", -1)
            with self.assertRaises(OverflowError):
                slots.write("s", b"x", playtime=2**63)
            with self.assertRaises(savekit.SavekitError) as caught:
                slots.write("s", b"x", title=b"\xff")
            self.assertEqual(caught.exception.name, "invalid_utf8")
        with self.assertRaises(OverflowError):
            savekit.Keyring().add(2**32, b"k" * 32)


class SealAndTranscodeTest(unittest.TestCase):
    def test_seal_and_unseal(self):
        keys = savekit.Keyring()
        keys.generate(3)
        sealed = savekit.seal(b"plain" * 20, keys, name="slot1", schema_version=2)
        self.assertNotIn(b"plain", sealed)
        self.assertEqual(savekit.unseal(sealed, keys, name="slot1", schema_version=2), b"plain" * 20)
        with self.assertRaises(savekit.SavekitError) as caught:
            savekit.unseal(sealed, keys, name="slot2", schema_version=2)
        self.assertEqual(caught.exception.name, "tampered")
        with self.assertRaises(savekit.SavekitError) as caught:
            savekit.seal(b"x", None)  # AEAD needs a key
        self.assertEqual(caught.exception.name, "key_not_held")
        with self.assertRaises(savekit.SavekitError) as caught:
            keys.add(4, b"short")
        self.assertEqual(caught.exception.name, "invalid_value")

    def test_transcoding_keeps_what_json_can_say(self):
        packed = savekit.json_to_msgpack('{"big": 18446744073709551615, "x": 0.1, "s": "\\u0000"}')
        self.assertEqual(json.loads(savekit.msgpack_to_json(packed)), {"big": 2**64 - 1, "x": 0.1, "s": "\0"})
        self.assertIn("\n", savekit.msgpack_to_json(packed, pretty=True))
        with self.assertRaises(savekit.SavekitError) as caught:
            savekit.json_to_msgpack("[1, 2")
        self.assertEqual((caught.exception.name, caught.exception.offset), ("unexpected_end", 5))
        with self.assertRaises(savekit.SavekitError) as caught:
            savekit.msgpack_to_json(b"\x92\x01")
        self.assertEqual(caught.exception.name, "length_exceeds_input")

    def test_version(self):
        self.assertRegex(savekit.version(), r"^\d+\.\d+\.\d+")


@unittest.skipUnless(os.environ.get("SAVEKIT_INTEROP"), "SAVEKIT_INTEROP (tests/bindings/interop) not given")
class InteropTest(Folder):
    """C++ writes, Python reads; Python writes, C++ reads: byte for byte."""

    def interop(self, mode):
        subprocess.run([os.environ["SAVEKIT_INTEROP"], mode, str(self.dir)], check=True)

    def test_both_ways(self):
        self.interop("write")
        with savekit.Prefs(self.dir / "cpp.prefs", read_only=True) as prefs:
            self.assertEqual(prefs["level"], -9007199254740993)
            self.assertEqual(prefs["speed"], 0.1)
            self.assertEqual(prefs["motto"], TEXT_WITH_NUL)
            self.assertEqual(prefs[NUL_KEY], BYTES_VALUE)
            self.assertEqual(prefs.type_of("status"), "msgpack")
            self.assertEqual(prefs["status"]["equip"]["name"], "")  # a C++ object, as Python values
            with savekit.Prefs(self.dir / "binding.prefs") as mine:
                for key in ("level", "speed", "motto", NUL_KEY):
                    mine[key] = prefs[key]
        with savekit.Slots(self.dir / "saves") as slots:
            cpp_object = slots.read_payload("cpp-object")
            self.assertEqual(cpp_object.encoding, "msgpack")
            self.assertEqual(json.loads(savekit.msgpack_to_json(cpp_object.data)),
                             {"Name": "Speed Run", "HighScore": 10000,
                              "Inventory": [{"Id": 100, "Quantity": 5}, {"Id": 200, "Quantity": 20}]})
            own = slots.read_payload("cpp-bytes")
            self.assertEqual((own.data, own.encoding, own.schema_version), (BYTES_VALUE, "bytes", 3))
            info = slots.info("cpp-object")
            self.assertEqual((info.title, info.playtime, info.user), ("Chapter 2 — The Forest", 11520, {"level": "12"}))
            slots.write("from-binding", cpp_object.data, encoding="msgpack", schema_version=1, title=info.title,
                        playtime=info.playtime, user=info.user)
        self.interop("check")


if __name__ == "__main__":
    unittest.main()
