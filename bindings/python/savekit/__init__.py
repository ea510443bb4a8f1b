"""savekit from Python: the prefs store, save slots, sealed saves and MessagePack <-> JSON,
over savekit's C ABI (libsavekit_c) through ctypes. No compiler is needed; one library serves
every Python 3.

    import savekit
    with savekit.Prefs("player.prefs") as prefs:     # saved (durably) on a clean exit
        prefs["level"] = 12                           # int, float, str or bytes
        name = prefs.get_string("name", "nobody")
    with savekit.Slots("saves") as slots:
        slots.write("slot1", b"...", title="Chapter 2", playtime=11520)
        for slot in slots.list(): print(slot.name, slot.title)

Text is UTF-8; keys may be str or bytes (any bytes, NUL included). Every failure raises
SavekitError with the library's status, message, byte offset and JSONPath. Thread safety
is the C ABI's: one Prefs or Slots may be used from several threads.
"""
import ctypes
import dataclasses
import datetime
import functools
import json
import os
import threading

from . import _native

__all__ = ["SavekitError", "Prefs", "Slots", "SlotInfo", "Payload", "Keyring", "Recovery", "msgpack_to_json",
           "json_to_msgpack", "seal", "unseal", "version", "ENCODING_MSGPACK", "ENCODING_MSGPACK_COMPACT",
           "ENCODING_JSON", "ENCODING_BYTES", "PROTECTION_NONE", "PROTECTION_MAC", "PROTECTION_AEAD",
           "COMPRESSION_NONE", "COMPRESSION_ZSTD"]

_lib = _native.load()

ENCODING_MSGPACK, ENCODING_MSGPACK_COMPACT, ENCODING_JSON, ENCODING_BYTES = 0, 1, 2, 3
_ENCODINGS = {"msgpack": 0, "msgpack_compact": 1, "json": 2, "bytes": 3}
COMPRESSION_NONE, COMPRESSION_ZSTD = 0, 1
PROTECTION_NONE, PROTECTION_MAC, PROTECTION_AEAD = 0, 1, 2
_TYPE_INT, _TYPE_FLOAT, _TYPE_STRING, _TYPE_BYTES = 1, 2, 3, 4
_TYPE_MSGPACK, _TYPE_MSGPACK_COMPACT, _TYPE_JSON, _TYPE_SEALED = 5, 6, 7, 8
_NOT_FOUND, _WRONG_TYPE, _BUFFER_TOO_SMALL = 23, 24, 101


def version():
    """The library's version, "0.1.0"."""
    return _lib.sk_version().decode()


class SavekitError(Exception):
    """A failure the library reported: status (its number), name ("not_found", ...),
    message, offset (the byte of the input where it went wrong) and path (a JSONPath)."""

    def __init__(self, status, message="", offset=0, path=""):
        self.status = status
        self.name = _lib.sk_status_name(status).decode()
        self.message = message
        self.offset = offset
        self.path = path
        where = f" at byte {offset}" if offset else ""
        where += f" ({path})" if path and path != "$" else ""
        super().__init__(f"{self.name}{where}: {message}" if message else self.name)


def _take(buffer):
    """The bytes of an sk_buffer the library filled, which is then freed."""
    try:
        return ctypes.string_at(buffer.data, buffer.size) if buffer.size else b""
    finally:
        _lib.sk_buffer_free(ctypes.byref(buffer))


def _raise(code, handle=None):
    """Raise the failure kept with handle (or with this thread, for calls without one)."""
    e = _native.Error()
    if _lib.sk_last_error(handle, ctypes.byref(e)) != 0 or e.status != code:
        _lib.sk_error_free(ctypes.byref(e))
        raise SavekitError(code)
    message = ctypes.string_at(e.message.data, e.message.size).decode("utf-8", "replace") if e.message.size else ""
    path = ctypes.string_at(e.path.data, e.path.size).decode("utf-8", "replace") if e.path.size else ""
    offset = e.offset
    _lib.sk_error_free(ctypes.byref(e))
    raise SavekitError(code, message, offset, path)


def _check(code, handle=None):
    if code != 0:
        _raise(code, handle)


def _bytes_of(value, what):
    """A key, name or text as bytes: str as UTF-8 (a lone surrogate passes through, and the
    library refuses it as invalid UTF-8 where UTF-8 is required), bytes-like as they are."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")


def _uint(value, bits, what):
    """An unsigned integer for the ABI, range-checked (ctypes would wrap it silently)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int")
    if not 0 <= value < 2**bits:
        raise OverflowError(f"{what} must be in 0..{2**bits - 1}")
    return value


def _text(data):
    """Bytes from the library as str when they are UTF-8, else as bytes (keys are any bytes)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _view(s):
    return ctypes.string_at(s.data, s.size) if s.size else b""


_MISSING = object()  # a getter's default when none is given: KeyError instead


class _Callbacks:
    """C callbacks alive until they have run: ctypes frees a callback's thunk with its last
    reference, and the library calls it later, from its worker thread. One registry for the
    module, not per object: a callback outlives the Prefs or Slots that queued it (one
    dropped inside its own callback, say). One that has run is dropped at the next call
    (never from inside itself)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._live = []  # [callback, ran]

    def make(self, done, handle):
        entry = [None, False]

        def on_done(_user, code):
            try:
                if done is not None:
                    done(None if code == 0 else _error_of(code, handle))  # open until close has run it
            except Exception:  # must not unwind into C; dropped, as the C++ API drops it
                pass
            finally:
                entry[1] = True

        entry[0] = _native.DONE_CALLBACK(on_done)
        with self._lock:
            self._live = [e for e in self._live if not e[1]]
            self._live.append(entry)
        return entry

    def cancel(self, entry):
        """The call that would have run it failed: it never runs."""
        entry[1] = True


_CALLBACKS = _Callbacks()


def _in_call(method):
    """Counts the calls in flight on a handle, so that close() from another thread never
    frees it under one of them: the last call out releases it."""
    @functools.wraps(method)
    def counted(self, *args, **kwargs):
        with self._lock:
            if self._handle is None or self._closing:
                raise ValueError(f"this {type(self).__name__} is closed")
            self._calls += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            with self._lock:
                self._calls -= 1
                handle = None
                if self._closing and self._calls == 0 and self._handle is not None:
                    handle, self._handle = self._handle, None
            if handle is not None:
                self._release(handle)
    return counted


def _opened(open_function, path, options):
    """A store or folder opened at path (str, bytes or os.PathLike): its handle."""
    raw = _bytes_of(os.fspath(path), "path")
    handle = ctypes.c_void_p()
    _check(open_function(raw, len(raw), ctypes.byref(options), ctypes.byref(handle)))
    return handle


class _Handle:
    """An open handle of the C ABI, closed once (close, the with block, or the collector),
    never while a call on it runs on another thread."""

    _close = None

    def __enter__(self):
        return self

    def __init__(self, handle):
        self._handle = handle
        self._lock = threading.Lock()
        self._calls = 0
        self._closing = False

    @property
    def closed(self):
        return self._closing or self._handle is None

    def _h(self):
        handle = self._handle
        if handle is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        return handle

    def close(self):
        """Releases the handle (a store or folder waits for its background work first). From
        another thread while calls run, the last of them releases it."""
        with self._lock:
            if self._handle is None or self._closing:
                return
            self._closing = True
            if self._calls:
                return
            handle, self._handle = self._handle, None
        self._release(handle)

    def _release(self, handle):
        if isinstance(threading.current_thread(), threading._DummyThread):
            # On one of the library's threads (a callback): closing waits for that thread's
            # queue, this callback included, so it is done from a thread of its own.
            threading.Thread(target=type(self)._close, args=(handle,), name="savekit close").start()
        else:
            type(self)._close(handle)

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            self.close()


@dataclasses.dataclass
class Recovery:
    """What opening a store had to repair."""
    recovered: bool
    commits_loaded: int
    bytes_discarded: int
    detail: str
    damaged_copy: str


class Prefs(_Handle):
    """A prefs store: a PlayerPrefs-style file of typed entries, committed whole by save().

    Mapping access stores by the value's type: int (64-bit), float, str (UTF-8) or bytes;
    reading gives the stored type back, and objects written from C++ (MessagePack or JSON)
    as Python values. Used as a context manager, it saves on a clean exit and closes."""

    _close = staticmethod(_lib.sk_prefs_close)

    def __init__(self, path, *, read_only=False, create_if_missing=True, max_store_bytes=None):
        options = _native.PrefsOptions()
        _lib.sk_prefs_options_init(ctypes.byref(options))
        options.read_only = int(read_only)
        options.create_if_missing = int(create_if_missing)
        if max_store_bytes is not None:
            options.max_store_bytes = max_store_bytes
        super().__init__(_opened(_lib.sk_prefs_open, path, options))

    def __exit__(self, kind, value, traceback):
        try:
            if kind is None and not self.closed:
                self.save()
        finally:
            self.close()
        return False

    # ---- setting ----

    @_in_call
    def __setitem__(self, key, value):
        k = _bytes_of(key, "a key")
        if isinstance(value, bool):
            raise TypeError("a bool is stored as an int: write int(value)")
        if isinstance(value, int):
            if not -2**63 <= value < 2**63:
                raise OverflowError("an int entry is 64-bit signed")
            _check(_lib.sk_prefs_set_int(self._h(), k, len(k), value), self._handle)
        elif isinstance(value, float):
            _check(_lib.sk_prefs_set_float(self._h(), k, len(k), value), self._handle)
        elif isinstance(value, str):
            v = value.encode("utf-8", "surrogatepass")
            _check(_lib.sk_prefs_set_string(self._h(), k, len(k), v, len(v)), self._handle)
        elif isinstance(value, (bytes, bytearray, memoryview)):
            v = bytes(value)
            _check(_lib.sk_prefs_set_bytes(self._h(), k, len(k), v, len(v)), self._handle)
        else:
            raise TypeError(f"an entry is int, float, str or bytes, not {type(value).__name__}")

    def set_int(self, key, value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError("set_int takes an int")
        self[key] = value

    def set_float(self, key, value):
        self[key] = float(value)

    def set_string(self, key, value):
        if not isinstance(value, str):
            raise TypeError("set_string takes a str")
        self[key] = value

    def set_bytes(self, key, value):
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise TypeError("set_bytes takes bytes")
        self[key] = value

    # ---- getting ----

    @_in_call
    def type_of(self, key):
        """"int", "float", "string", "bytes", "msgpack", "msgpack_compact", "json" or "sealed"."""
        k = _bytes_of(key, "a key")
        out = ctypes.c_int32()
        _check(_lib.sk_prefs_type(self._h(), k, len(k), ctypes.byref(out)), self._handle)
        return {1: "int", 2: "float", 3: "string", 4: "bytes", 5: "msgpack", 6: "msgpack_compact", 7: "json",
                8: "sealed"}.get(out.value, "unknown")

    @_in_call
    def __getitem__(self, key):
        k = _bytes_of(key, "a key")
        kind = ctypes.c_int32()
        raw = _native.Buffer()
        code = _lib.sk_prefs_get_raw(self._h(), k, len(k), ctypes.byref(kind), ctypes.byref(raw))
        if code == _NOT_FOUND:
            raise KeyError(key)
        _check(code, self._handle)
        data = _take(raw)
        t = kind.value
        if t == _TYPE_INT:
            return self.get_int(key)
        if t == _TYPE_FLOAT:
            return self.get_float(key)
        if t == _TYPE_STRING:
            return data.decode("utf-8")
        if t == _TYPE_BYTES:
            return data
        if t in (_TYPE_MSGPACK, _TYPE_MSGPACK_COMPACT):
            return json.loads(msgpack_to_json(data))
        if t == _TYPE_JSON:
            return json.loads(data)
        raise SavekitError(_WRONG_TYPE, f"entry {key!r} is sealed: it opens only from C++ with its key")

    @_in_call
    def _get_number(self, function, ctype, key, default):
        k = _bytes_of(key, "a key")
        out = ctype()
        code = function(self._h(), k, len(k), ctypes.byref(out))
        if code == _NOT_FOUND and default is not _MISSING:
            return default
        if code == _NOT_FOUND:
            raise KeyError(key)
        _check(code, self._handle)
        return out.value

    @_in_call
    def _get_sized(self, function, key, default):
        k = _bytes_of(key, "a key")
        needed = ctypes.c_size_t(0)
        out = ctypes.create_string_buffer(256)
        while True:
            code = function(self._h(), k, len(k), out, len(out), ctypes.byref(needed))
            if code != _BUFFER_TOO_SMALL:
                break
            out = ctypes.create_string_buffer(needed.value)  # it grew meanwhile: ask again
        if code == _NOT_FOUND and default is not _MISSING:
            return default
        if code == _NOT_FOUND:
            raise KeyError(key)
        _check(code, self._handle)
        return out.raw[:needed.value]

    def get_int(self, key, default=_MISSING):
        """The int entry; default when there is none (KeyError without a default).
        SavekitError wrong_type when it holds another type."""
        return self._get_number(_lib.sk_prefs_get_int, ctypes.c_int64, key, default)

    def get_float(self, key, default=_MISSING):
        return self._get_number(_lib.sk_prefs_get_float, ctypes.c_double, key, default)

    def get_string(self, key, default=_MISSING):
        got = self._get_sized(_lib.sk_prefs_get_string, key, default)
        return got.decode("utf-8") if isinstance(got, bytes) else got

    def get_bytes(self, key, default=_MISSING):
        """A bytes entry (or a string entry's bytes)."""
        return self._get_sized(_lib.sk_prefs_get_bytes, key, default)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    # ---- keys ----

    @_in_call
    def __contains__(self, key):
        k = _bytes_of(key, "a key")
        out = ctypes.c_int32()
        _check(_lib.sk_prefs_has_key(self._h(), k, len(k), ctypes.byref(out)), self._handle)
        return bool(out.value)

    @_in_call
    def __delitem__(self, key):
        k = _bytes_of(key, "a key")
        code = _lib.sk_prefs_delete_key(self._h(), k, len(k))
        if code == _NOT_FOUND:
            raise KeyError(key)
        _check(code, self._handle)

    @_in_call
    def clear(self):
        """Deletes every entry (committed by the next save)."""
        _check(_lib.sk_prefs_delete_all(self._h()), self._handle)

    @_in_call
    def keys(self):
        """Every key, sorted by its bytes: str when UTF-8, else bytes."""
        packed = _native.Buffer()
        count = ctypes.c_size_t()
        _check(_lib.sk_prefs_keys(self._h(), ctypes.byref(packed), ctypes.byref(count)), self._handle)
        data = _take(packed)
        out, at = [], 0
        while at + 4 <= len(data):
            n = int.from_bytes(data[at:at + 4], "little")
            out.append(_text(data[at + 4:at + 4 + n]))
            at += 4 + n
        return out

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    # ---- committing ----

    @_in_call
    def save(self):
        """Commits every change since the last save, durably (fsync) before it returns."""
        _check(_lib.sk_prefs_save(self._h()), self._handle)

    @_in_call
    def save_async(self, done=None):
        """Commits on the store's worker thread; done(error_or_None) runs on that thread."""
        entry = _CALLBACKS.make(done, self._h())
        code = _lib.sk_prefs_save_async(self._h(), entry[0], None)
        if code != 0:
            _CALLBACKS.cancel(entry)
            _raise(code, self._handle)

    @property
    @_in_call
    def recovery(self):
        r = _native.Recovery()
        _check(_lib.sk_prefs_recovery(self._h(), ctypes.byref(r)), self._handle)
        try:
            return Recovery(bool(r.recovered), r.commits_loaded, r.bytes_discarded,
                            ctypes.string_at(r.detail.data, r.detail.size).decode("utf-8", "replace"),
                            ctypes.string_at(r.damaged_copy.data, r.damaged_copy.size).decode("utf-8", "replace"))
        finally:
            _lib.sk_recovery_free(ctypes.byref(r))


def _error_of(code, handle):
    try:
        _raise(code, handle)
    except SavekitError as e:
        return e


class Keyring(_Handle):
    """Keys that seal and open saves: 32 bytes each, under a number of the game's choosing."""

    _close = staticmethod(_lib.sk_keyring_free)
    KEY_BYTES = 32

    def __init__(self):
        handle = ctypes.c_void_p()
        _check(_lib.sk_keyring_new(ctypes.byref(handle)))
        super().__init__(handle)

    @_in_call
    def add(self, key_id, key):
        k = bytes(key)
        _check(_lib.sk_keyring_add(self._h(), _uint(key_id, 32, "a key id"), k, len(k)), self._handle)

    @_in_call
    def generate(self, key_id):
        """A new key from the system's random source, added; its bytes, for the game to keep."""
        out = ctypes.create_string_buffer(self.KEY_BYTES)
        _check(_lib.sk_keyring_generate(self._h(), _uint(key_id, 32, "a key id"), out, len(out)), self._handle)
        return out.raw

    @_in_call
    def use(self, key_id):
        _check(_lib.sk_keyring_use(self._h(), _uint(key_id, 32, "a key id")), self._handle)


def _seal_options(compression, level, protection, minimum_protection):
    options = _native.SealOptions()
    _lib.sk_seal_options_init(ctypes.byref(options))
    if compression is not None:
        options.compression = compression
    if level is not None:
        options.level = level
    if protection is not None:
        options.protection = protection
    if minimum_protection is not None:
        options.minimum_protection = minimum_protection
    return options


def _seal_context(name, schema_version, player):
    n, p = _bytes_of(name, "a name"), _bytes_of(player, "a player id")
    return _native.SealContext(ctypes.sizeof(_native.SealContext), n, len(n), _uint(schema_version, 32, "schema_version"),
                               p, len(p))


def seal(plain, keys=None, *, name="", schema_version=0, player="", compression=None, level=None, protection=None):
    """plain compressed and protected (AEAD by default: keys needed), bound to name,
    schema_version and player."""
    data = bytes(plain)
    out = _native.Buffer()
    options = _seal_options(compression, level, protection, None)
    context = _seal_context(name, schema_version, player)
    _check(_lib.sk_seal(data, len(data), keys._h() if keys else None, ctypes.byref(options),
                        ctypes.byref(context), ctypes.byref(out)))
    return _take(out)


def unseal(sealed, keys=None, *, name="", schema_version=0, player="", minimum_protection=None):
    """Checked, decrypted, decompressed: SavekitError tampered, key_not_held, ..."""
    data = bytes(sealed)
    out = _native.Buffer()
    options = _seal_options(None, None, None, minimum_protection)
    context = _seal_context(name, schema_version, player)
    _check(_lib.sk_unseal(data, len(data), keys._h() if keys else None, ctypes.byref(options),
                          ctypes.byref(context), ctypes.byref(out)))
    return _take(out)


@dataclasses.dataclass
class SlotInfo:
    """A slot in the load menu, or one generation in a history."""
    name: str
    generation: int
    saved_at: datetime.datetime  # UTC
    schema_version: int
    encoding: str  # "msgpack", "msgpack_compact", "json" or "bytes"
    bytes: int
    thumbnail_bytes: int
    restored_from: int
    sealed: bool
    title: str
    playtime: int  # seconds
    progress: float
    user: dict
    damaged: bool
    problem: str
    problem_status: int
    damaged_newer: int


@dataclasses.dataclass
class Payload:
    """A slot's payload and what the read found."""
    data: bytes
    encoding: str
    schema_version: int
    generation: int
    sealed: bool
    skipped: int  # newer generations found damaged: the slot fell back


_ENCODING_NAMES = {v: k for k, v in _ENCODINGS.items()}


def _slot_info(i):
    return SlotInfo(
        name=_text(_view(i.name)), generation=i.generation,
        saved_at=datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        + datetime.timedelta(microseconds=i.saved_at_us),
        schema_version=i.schema_version, encoding=_ENCODING_NAMES.get(i.encoding, str(i.encoding)), bytes=i.bytes,
        thumbnail_bytes=i.thumbnail_bytes, restored_from=i.restored_from, sealed=bool(i.sealed),
        title=_view(i.title).decode("utf-8", "replace"), playtime=i.playtime_seconds, progress=i.progress,
        user={_text(ctypes.string_at(p.key, p.key_size) if p.key_size else b""):
              _text(ctypes.string_at(p.value, p.value_size) if p.value_size else b"")
              for p in (i.user[n] for n in range(i.user_count))},
        damaged=bool(i.damaged), problem=_view(i.problem).decode("utf-8", "replace"),
        problem_status=i.problem_status, damaged_newer=i.damaged_newer)


class Slots(_Handle):
    """A folder of named saves with a load menu: each write a new generation, durable when
    write() returns; the last few kept (history, restore); damage set aside, never hidden.
    A save is bytes: the game's own format ("bytes", the default), or JSON or MessagePack
    (checked, so that C++ and the tools can read them as objects)."""

    _close = staticmethod(_lib.sk_slots_close)

    def __init__(self, path, *, read_only=False, create_if_missing=True, keep_generations=3, keyring=None,
                 player="", protection=None, accept_unsealed=False):
        options = _native.SlotsOptions()
        _lib.sk_slots_options_init(ctypes.byref(options))
        options.read_only = int(read_only)
        options.create_if_missing = int(create_if_missing)
        options.keep_generations = _uint(keep_generations, 32, "keep_generations")
        options.accept_unsealed = int(accept_unsealed)
        seal_options = _seal_options(None, None, protection, None)
        p = _bytes_of(player, "a player id")
        if keyring is not None:
            options.keyring = keyring._h()
            options.seal = ctypes.pointer(seal_options)
            options.player, options.player_size = p, len(p)
        super().__init__(_opened(_lib.sk_slots_open, path, options))

    def __exit__(self, kind, value, traceback):
        self.close()  # waits for queued writes
        return False

    def _write_options(self, encoding, schema_version, title, playtime, progress, thumbnail, user, sealed):
        how = _native.SlotWriteOptions()
        _lib.sk_slot_write_options_init(ctypes.byref(how))
        if encoding not in _ENCODINGS:
            raise ValueError(f"encoding is one of {sorted(_ENCODINGS)}")
        how.encoding = _ENCODINGS[encoding]
        how.schema_version = _uint(schema_version, 32, "schema_version")
        t = _bytes_of(title, "a title")
        how.title, how.title_size = t, len(t)
        seconds = int(playtime.total_seconds() if isinstance(playtime, datetime.timedelta) else playtime)
        if not -2**63 <= seconds < 2**63:
            raise OverflowError("playtime is a 64-bit number of seconds")
        how.playtime_seconds = seconds
        how.progress = progress
        thumb = bytes(thumbnail)
        how.thumbnail, how.thumbnail_size = thumb, len(thumb)
        pairs = [(_bytes_of(k, "a user key"), _bytes_of(v, "a user value")) for k, v in (user or {}).items()]
        array = (_native.StringPair * max(len(pairs), 1))(*[_native.StringPair(k, len(k), v, len(v)) for k, v in pairs])
        how.user, how.user_count = array, len(pairs)
        how.sealed = -1 if sealed is None else int(bool(sealed))
        return how, (t, thumb, pairs, array)  # the second keeps the memory alive through the call

    @_in_call
    def write(self, name, data, *, encoding="bytes", schema_version=1, title="", playtime=0, progress=0.0,
              thumbnail=b"", user=None, sealed=None):
        """Writes data as the slot's newest generation, durably."""
        n, d = _bytes_of(name, "a slot name"), bytes(data)
        how, _keep = self._write_options(encoding, schema_version, title, playtime, progress, thumbnail, user, sealed)
        _check(_lib.sk_slots_write(self._h(), n, len(n), d, len(d), ctypes.byref(how)), self._handle)

    @_in_call
    def write_async(self, name, data, done=None, **meta):
        """The same on the slots' worker thread; done(error_or_None) runs there."""
        n, d = _bytes_of(name, "a slot name"), bytes(data)
        how, _keep = self._write_options(meta.pop("encoding", "bytes"), meta.pop("schema_version", 1),
                                         meta.pop("title", ""), meta.pop("playtime", 0), meta.pop("progress", 0.0),
                                         meta.pop("thumbnail", b""), meta.pop("user", None), meta.pop("sealed", None))
        if meta:
            raise TypeError(f"unknown arguments: {sorted(meta)}")
        entry = _CALLBACKS.make(done, self._h())
        code = _lib.sk_slots_write_async(self._h(), n, len(n), d, len(d), ctypes.byref(how), entry[0], None)
        if code != 0:
            _CALLBACKS.cancel(entry)
            _raise(code, self._handle)

    @_in_call
    def flush(self):
        """Waits for queued writes; raises the first failure since the last flush."""
        _check(_lib.sk_slots_flush(self._h()), self._handle)

    @_in_call
    def _list(self, function, *args):
        out = ctypes.c_void_p()
        _check(function(self._h(), *args, ctypes.byref(out)), self._handle)
        try:
            return [_slot_info(_lib.sk_slot_list_at(out, i).contents) for i in range(_lib.sk_slot_list_count(out))]
        finally:
            _lib.sk_slot_list_free(out)

    def list(self):
        """The load menu: every slot's newest intact generation, newest first."""
        return self._list(_lib.sk_slots_list)

    def info(self, name):
        n = _bytes_of(name, "a slot name")
        return self._list(_lib.sk_slots_info, n, len(n))[0]

    def history(self, name):
        """The kept generations, newest first; damaged ones included and marked."""
        n = _bytes_of(name, "a slot name")
        return self._list(_lib.sk_slots_history, n, len(n))

    @_in_call
    def _read(self, call):
        out = _native.Buffer()
        info = _native.PayloadInfo()
        info.struct_size = ctypes.sizeof(info)
        _check(call(ctypes.byref(out), ctypes.byref(info)), self._handle)
        return Payload(_take(out), _ENCODING_NAMES.get(info.encoding, str(info.encoding)), info.schema_version,
                       info.generation, bool(info.sealed), info.skipped)

    def read(self, name):
        """The newest intact generation's bytes (opened, if sealed)."""
        return self.read_payload(name).data

    def read_payload(self, name):
        n = _bytes_of(name, "a slot name")
        return self._read(lambda out, info: _lib.sk_slots_read(self._h(), n, len(n), out, info))

    def read_generation(self, name, generation):
        n = _bytes_of(name, "a slot name")
        g = _uint(generation, 64, "a generation")
        return self._read(lambda out, info: _lib.sk_slots_read_generation(self._h(), n, len(n), g, out, info))

    @_in_call
    def thumbnail(self, name):
        n = _bytes_of(name, "a slot name")
        out = _native.Buffer()
        _check(_lib.sk_slots_thumbnail(self._h(), n, len(n), ctypes.byref(out)), self._handle)
        return _take(out)

    @_in_call
    def restore(self, name, generation):
        """A copy of that generation becomes the newest."""
        n = _bytes_of(name, "a slot name")
        _check(_lib.sk_slots_restore(self._h(), n, len(n), _uint(generation, 64, "a generation")), self._handle)

    @_in_call
    def remove(self, name):
        n = _bytes_of(name, "a slot name")
        _check(_lib.sk_slots_remove(self._h(), n, len(n)), self._handle)

    @_in_call
    def copy(self, source, target):
        f, t = _bytes_of(source, "a slot name"), _bytes_of(target, "a slot name")
        _check(_lib.sk_slots_copy(self._h(), f, len(f), t, len(t)), self._handle)

    @_in_call
    def rename(self, source, target):
        f, t = _bytes_of(source, "a slot name"), _bytes_of(target, "a slot name")
        _check(_lib.sk_slots_rename(self._h(), f, len(f), t, len(t)), self._handle)


def msgpack_to_json(data, pretty=False):
    """Any MessagePack document as JSON text (a save read without its types)."""
    d = bytes(data)
    out = _native.Buffer()
    _check(_lib.sk_msgpack_to_json(d, len(d), int(pretty), ctypes.byref(out)))
    return _take(out).decode("utf-8")


def json_to_msgpack(text):
    """JSON text (str or UTF-8 bytes) as MessagePack bytes."""
    t = _bytes_of(text, "JSON text")
    out = _native.Buffer()
    _check(_lib.sk_json_to_msgpack(t, len(t), ctypes.byref(out)))
    return _take(out)
