"""The C ABI (include/savekit/savekit.h) as ctypes declarations, and the shared library.

Nothing here is public: savekit/__init__.py wraps it. Every signature is declared, so
ctypes checks argument types and never guesses an int where a pointer goes.
"""
import ctypes
import ctypes.util
import glob
import os

ABI_VERSION = 1

status = ctypes.c_int32
c_size = ctypes.c_size_t
u8p = ctypes.POINTER(ctypes.c_uint8)


class Buffer(ctypes.Structure):
    _fields_ = [("data", u8p), ("size", c_size)]


class Error(ctypes.Structure):
    _fields_ = [("status", status), ("offset", ctypes.c_uint64), ("message", Buffer), ("path", Buffer)]


class PrefsOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("read_only", ctypes.c_int32), ("create_if_missing", ctypes.c_int32),
                ("max_store_bytes", ctypes.c_uint64), ("compact_ratio", ctypes.c_double),
                ("compact_min_bytes", ctypes.c_uint64)]


class Recovery(ctypes.Structure):
    _fields_ = [("recovered", ctypes.c_int32), ("commits_loaded", ctypes.c_uint64),
                ("bytes_discarded", ctypes.c_uint64), ("detail", Buffer), ("damaged_copy", Buffer)]


class SealOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("compression", ctypes.c_int32), ("level", ctypes.c_int32),
                ("protection", ctypes.c_int32), ("minimum_protection", ctypes.c_int32)]


class SealContext(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("name", ctypes.c_char_p), ("name_size", c_size),
                ("schema_version", ctypes.c_uint32), ("player", ctypes.c_char_p), ("player_size", c_size)]


class SlotsOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("keep_generations", ctypes.c_uint32), ("read_only", ctypes.c_int32),
                ("create_if_missing", ctypes.c_int32), ("max_payload_bytes", ctypes.c_uint64),
                ("keyring", ctypes.c_void_p), ("seal", ctypes.POINTER(SealOptions)), ("player", ctypes.c_char_p),
                ("player_size", c_size), ("accept_unsealed", ctypes.c_int32)]


class StringPair(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("key_size", c_size), ("value", ctypes.c_char_p), ("value_size", c_size)]


class SlotWriteOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("encoding", ctypes.c_int32), ("schema_version", ctypes.c_uint32),
                ("title", ctypes.c_char_p), ("title_size", c_size), ("playtime_seconds", ctypes.c_int64),
                ("progress", ctypes.c_double), ("thumbnail", ctypes.c_char_p), ("thumbnail_size", c_size),
                ("user", ctypes.POINTER(StringPair)), ("user_count", c_size), ("sealed", ctypes.c_int32)]


class String(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", c_size)]


class ViewPair(ctypes.Structure):  # sk_string_pair as the library hands it out
    _fields_ = [("key", ctypes.c_void_p), ("key_size", c_size), ("value", ctypes.c_void_p), ("value_size", c_size)]


class SlotInfo(ctypes.Structure):
    _fields_ = [("name", String), ("generation", ctypes.c_uint64), ("saved_at_us", ctypes.c_int64),
                ("schema_version", ctypes.c_uint32), ("encoding", ctypes.c_int32), ("bytes", ctypes.c_uint64),
                ("thumbnail_bytes", ctypes.c_uint64), ("restored_from", ctypes.c_uint64), ("sealed", ctypes.c_int32),
                ("title", String), ("playtime_seconds", ctypes.c_int64), ("progress", ctypes.c_double),
                ("user", ctypes.POINTER(ViewPair)), ("user_count", c_size), ("damaged", ctypes.c_int32),
                ("problem_status", status), ("problem", String), ("damaged_newer", ctypes.c_uint64)]


class PayloadInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("encoding", ctypes.c_int32), ("schema_version", ctypes.c_uint32),
                ("generation", ctypes.c_uint64), ("sealed", ctypes.c_int32), ("skipped", ctypes.c_uint32)]


DONE_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, status)

H = ctypes.c_void_p  # every handle
P = ctypes.POINTER

SIGNATURES = {
    "sk_status_name": (ctypes.c_char_p, [status]),
    "sk_version": (ctypes.c_char_p, []),
    "sk_abi_version": (ctypes.c_uint32, []),
    "sk_buffer_free": (None, [P(Buffer)]),
    "sk_last_error": (status, [H, P(Error)]),
    "sk_error_free": (None, [P(Error)]),
    "sk_prefs_options_init": (None, [P(PrefsOptions)]),
    "sk_prefs_open": (status, [ctypes.c_char_p, c_size, P(PrefsOptions), P(H)]),
    "sk_prefs_close": (None, [H]),
    "sk_prefs_set_int": (status, [H, ctypes.c_char_p, c_size, ctypes.c_int64]),
    "sk_prefs_set_float": (status, [H, ctypes.c_char_p, c_size, ctypes.c_double]),
    "sk_prefs_set_string": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size]),
    "sk_prefs_set_bytes": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size]),
    "sk_prefs_get_int": (status, [H, ctypes.c_char_p, c_size, P(ctypes.c_int64)]),
    "sk_prefs_get_float": (status, [H, ctypes.c_char_p, c_size, P(ctypes.c_double)]),
    "sk_prefs_get_string": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size, P(c_size)]),
    "sk_prefs_get_bytes": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size, P(c_size)]),
    "sk_prefs_has_key": (status, [H, ctypes.c_char_p, c_size, P(ctypes.c_int32)]),
    "sk_prefs_type": (status, [H, ctypes.c_char_p, c_size, P(ctypes.c_int32)]),
    "sk_prefs_get_raw": (status, [H, ctypes.c_char_p, c_size, P(ctypes.c_int32), P(Buffer)]),
    "sk_prefs_delete_key": (status, [H, ctypes.c_char_p, c_size]),
    "sk_prefs_delete_all": (status, [H]),
    "sk_prefs_keys": (status, [H, P(Buffer), P(c_size)]),
    "sk_prefs_save": (status, [H]),
    "sk_prefs_save_async": (status, [H, DONE_CALLBACK, ctypes.c_void_p]),
    "sk_prefs_recovery": (status, [H, P(Recovery)]),
    "sk_recovery_free": (None, [P(Recovery)]),
    "sk_keyring_new": (status, [P(H)]),
    "sk_keyring_free": (None, [H]),
    "sk_keyring_add": (status, [H, ctypes.c_uint32, ctypes.c_char_p, c_size]),
    "sk_keyring_generate": (status, [H, ctypes.c_uint32, ctypes.c_char_p, c_size]),
    "sk_keyring_use": (status, [H, ctypes.c_uint32]),
    "sk_seal_options_init": (None, [P(SealOptions)]),
    "sk_seal": (status, [ctypes.c_char_p, c_size, H, P(SealOptions), P(SealContext), P(Buffer)]),
    "sk_unseal": (status, [ctypes.c_char_p, c_size, H, P(SealOptions), P(SealContext), P(Buffer)]),
    "sk_slots_options_init": (None, [P(SlotsOptions)]),
    "sk_slots_open": (status, [ctypes.c_char_p, c_size, P(SlotsOptions), P(H)]),
    "sk_slots_close": (None, [H]),
    "sk_slot_write_options_init": (None, [P(SlotWriteOptions)]),
    "sk_slots_write": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size, P(SlotWriteOptions)]),
    "sk_slots_write_async": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size, P(SlotWriteOptions),
                                      DONE_CALLBACK, ctypes.c_void_p]),
    "sk_slots_flush": (status, [H]),
    "sk_slots_list": (status, [H, P(H)]),
    "sk_slots_info": (status, [H, ctypes.c_char_p, c_size, P(H)]),
    "sk_slots_history": (status, [H, ctypes.c_char_p, c_size, P(H)]),
    "sk_slot_list_count": (c_size, [H]),
    "sk_slot_list_at": (P(SlotInfo), [H, c_size]),
    "sk_slot_list_free": (None, [H]),
    "sk_slots_read": (status, [H, ctypes.c_char_p, c_size, P(Buffer), P(PayloadInfo)]),
    "sk_slots_read_generation": (status, [H, ctypes.c_char_p, c_size, ctypes.c_uint64, P(Buffer), P(PayloadInfo)]),
    "sk_slots_thumbnail": (status, [H, ctypes.c_char_p, c_size, P(Buffer)]),
    "sk_slots_restore": (status, [H, ctypes.c_char_p, c_size, ctypes.c_uint64]),
    "sk_slots_remove": (status, [H, ctypes.c_char_p, c_size]),
    "sk_slots_copy": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size]),
    "sk_slots_rename": (status, [H, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size]),
    "sk_msgpack_to_json": (status, [ctypes.c_char_p, c_size, ctypes.c_int32, P(Buffer)]),
    "sk_json_to_msgpack": (status, [ctypes.c_char_p, c_size, P(Buffer)]),
}


def _candidates():
    given = os.environ.get("SAVEKIT_LIBRARY")
    if given:
        yield given
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield from sorted(glob.glob(os.path.join(here, "libsavekit_c.so*")))
    yield from sorted(glob.glob(os.path.join(here, "libsavekit_c*.dylib")))
    yield from sorted(glob.glob(os.path.join(here, "savekit_c.dll")))
    found = ctypes.util.find_library("savekit_c")
    if found:
        yield found


def load():
    """The shared library, its signatures declared; OSError when there is none."""
    tried = []
    for candidate in _candidates():
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as e:
            tried.append(f"{candidate}: {e}")
            continue
        for name, (restype, argtypes) in SIGNATURES.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        if lib.sk_abi_version() != ABI_VERSION:
            raise OSError(f"{candidate} has ABI version {lib.sk_abi_version()}; this binding needs {ABI_VERSION}")
        return lib
    raise OSError("libsavekit_c not found (set SAVEKIT_LIBRARY to its path, or put it beside this package): "
                  + ("; ".join(tried) or "no candidate"))
