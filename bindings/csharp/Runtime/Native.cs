// savekit's C ABI (include/savekit/savekit.h) as P/Invoke declarations, shaped as IL2CPP
// needs them: blittable signatures only (IntPtr, byte[], integers, sequential structs), no
// generics, callbacks as static methods (see Callbacks.cs). Nothing here is public.
using System;
using System.Runtime.InteropServices;

namespace Savekit
{
    internal static class Native
    {
        // iOS and WebGL link native code statically into the player: "__Internal". Elsewhere
        // the shared library: libsavekit_c.so, libsavekit_c.dylib, savekit_c.dll.
#if (UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR
        internal const string Library = "__Internal";
#else
        internal const string Library = "savekit_c";
#endif
        internal const uint AbiVersion = 1;

        [StructLayout(LayoutKind.Sequential)]
        internal struct Buffer { public IntPtr Data; public UIntPtr Size; }

        [StructLayout(LayoutKind.Sequential)]
        internal struct Error { public int Status; public ulong Offset; public Buffer Message; public Buffer Path; }

        [StructLayout(LayoutKind.Sequential)]
        internal struct PrefsOptions
        {
            public UIntPtr StructSize; public int ReadOnly; public int CreateIfMissing; public ulong MaxStoreBytes;
            public double CompactRatio; public ulong CompactMinBytes;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct SlotsOptions
        {
            public UIntPtr StructSize; public uint KeepGenerations; public int ReadOnly; public int CreateIfMissing;
            public ulong MaxPayloadBytes; public IntPtr Keyring; public IntPtr Seal; public IntPtr Player;
            public UIntPtr PlayerSize; public int AcceptUnsealed;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct StringPair { public IntPtr Key; public UIntPtr KeySize; public IntPtr Value; public UIntPtr ValueSize; }

        [StructLayout(LayoutKind.Sequential)]
        internal struct SlotWriteOptions
        {
            public UIntPtr StructSize; public int Encoding; public uint SchemaVersion; public IntPtr Title;
            public UIntPtr TitleSize; public long PlaytimeSeconds; public double Progress; public IntPtr Thumbnail;
            public UIntPtr ThumbnailSize; public IntPtr User; public UIntPtr UserCount; public int Sealed;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct SkString { public IntPtr Data; public UIntPtr Size; }

        [StructLayout(LayoutKind.Sequential)]
        internal struct SlotInfo
        {
            public SkString Name; public ulong Generation; public long SavedAtUs; public uint SchemaVersion;
            public int Encoding; public ulong Bytes; public ulong ThumbnailBytes; public ulong RestoredFrom;
            public int Sealed; public SkString Title; public long PlaytimeSeconds; public double Progress;
            public IntPtr User; public UIntPtr UserCount; public int Damaged; public int ProblemStatus;
            public SkString Problem; public ulong DamagedNewer;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct PayloadInfo
        {
            public UIntPtr StructSize; public int Encoding; public uint SchemaVersion; public ulong Generation;
            public int Sealed; public uint Skipped;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct SealOptions
        {
            public UIntPtr StructSize; public int Compression; public int Level; public int Protection;
            public int MinimumProtection;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct SealContext
        {
            public UIntPtr StructSize; public IntPtr Name; public UIntPtr NameSize; public uint SchemaVersion;
            public IntPtr Player; public UIntPtr PlayerSize;
        }

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void DoneCallback(IntPtr user, int status);

        [DllImport(Library)] internal static extern IntPtr sk_status_name(int status);
        [DllImport(Library)] internal static extern IntPtr sk_version();
        [DllImport(Library)] internal static extern uint sk_abi_version();
        [DllImport(Library)] internal static extern void sk_buffer_free(ref Buffer buffer);
        [DllImport(Library)] internal static extern int sk_last_error(IntPtr handle, out Error error);
        [DllImport(Library)] internal static extern void sk_error_free(ref Error error);

        [DllImport(Library)] internal static extern void sk_prefs_options_init(out PrefsOptions options);
        [DllImport(Library)] internal static extern int sk_prefs_open(byte[] path, UIntPtr pathSize, ref PrefsOptions options, out IntPtr store);
        [DllImport(Library)] internal static extern void sk_prefs_close(IntPtr store);
        [DllImport(Library)] internal static extern int sk_prefs_set_int(PrefsHandle store, byte[] key, UIntPtr keySize, long value);
        [DllImport(Library)] internal static extern int sk_prefs_set_float(PrefsHandle store, byte[] key, UIntPtr keySize, double value);
        [DllImport(Library)] internal static extern int sk_prefs_set_string(PrefsHandle store, byte[] key, UIntPtr keySize, byte[] value, UIntPtr valueSize);
        [DllImport(Library)] internal static extern int sk_prefs_set_bytes(PrefsHandle store, byte[] key, UIntPtr keySize, byte[] value, UIntPtr valueSize);
        [DllImport(Library)] internal static extern int sk_prefs_get_int(PrefsHandle store, byte[] key, UIntPtr keySize, out long value);
        [DllImport(Library)] internal static extern int sk_prefs_get_float(PrefsHandle store, byte[] key, UIntPtr keySize, out double value);
        [DllImport(Library)] internal static extern int sk_prefs_get_string(PrefsHandle store, byte[] key, UIntPtr keySize, byte[] value, UIntPtr capacity, out UIntPtr needed);
        [DllImport(Library)] internal static extern int sk_prefs_get_bytes(PrefsHandle store, byte[] key, UIntPtr keySize, byte[] value, UIntPtr capacity, out UIntPtr needed);
        [DllImport(Library)] internal static extern int sk_prefs_has_key(PrefsHandle store, byte[] key, UIntPtr keySize, out int has);
        [DllImport(Library)] internal static extern int sk_prefs_delete_key(PrefsHandle store, byte[] key, UIntPtr keySize);
        [DllImport(Library)] internal static extern int sk_prefs_delete_all(PrefsHandle store);
        [DllImport(Library)] internal static extern int sk_prefs_keys(PrefsHandle store, out Buffer keys, out UIntPtr count);
        [DllImport(Library)] internal static extern int sk_prefs_save(PrefsHandle store);
        [DllImport(Library)] internal static extern int sk_prefs_save_async(PrefsHandle store, DoneCallback done, IntPtr user);

        [DllImport(Library)] internal static extern void sk_slots_options_init(out SlotsOptions options);
        [DllImport(Library)] internal static extern int sk_slots_open(byte[] path, UIntPtr pathSize, ref SlotsOptions options, out IntPtr slots);
        [DllImport(Library)] internal static extern void sk_slots_close(IntPtr slots);
        [DllImport(Library)] internal static extern void sk_slot_write_options_init(out SlotWriteOptions options);
        [DllImport(Library)] internal static extern int sk_slots_write(SlotsHandle slots, byte[] name, UIntPtr nameSize, byte[] payload, UIntPtr payloadSize, ref SlotWriteOptions options);
        [DllImport(Library)] internal static extern int sk_slots_write_async(SlotsHandle slots, byte[] name, UIntPtr nameSize, byte[] payload, UIntPtr payloadSize, ref SlotWriteOptions options, DoneCallback done, IntPtr user);
        [DllImport(Library)] internal static extern int sk_slots_flush(SlotsHandle slots);
        [DllImport(Library)] internal static extern int sk_slots_list(SlotsHandle slots, out IntPtr list);
        [DllImport(Library)] internal static extern int sk_slots_info(SlotsHandle slots, byte[] name, UIntPtr nameSize, out IntPtr list);
        [DllImport(Library)] internal static extern int sk_slots_history(SlotsHandle slots, byte[] name, UIntPtr nameSize, out IntPtr list);
        [DllImport(Library)] internal static extern UIntPtr sk_slot_list_count(IntPtr list);
        [DllImport(Library)] internal static extern IntPtr sk_slot_list_at(IntPtr list, UIntPtr index);
        [DllImport(Library)] internal static extern void sk_slot_list_free(IntPtr list);
        [DllImport(Library)] internal static extern int sk_slots_read(SlotsHandle slots, byte[] name, UIntPtr nameSize, out Buffer payload, ref PayloadInfo info);
        [DllImport(Library)] internal static extern int sk_slots_read_generation(SlotsHandle slots, byte[] name, UIntPtr nameSize, ulong generation, out Buffer payload, ref PayloadInfo info);
        [DllImport(Library)] internal static extern int sk_slots_thumbnail(SlotsHandle slots, byte[] name, UIntPtr nameSize, out Buffer picture);
        [DllImport(Library)] internal static extern int sk_slots_restore(SlotsHandle slots, byte[] name, UIntPtr nameSize, ulong generation);
        [DllImport(Library)] internal static extern int sk_slots_remove(SlotsHandle slots, byte[] name, UIntPtr nameSize);
        [DllImport(Library)] internal static extern int sk_slots_copy(SlotsHandle slots, byte[] from, UIntPtr fromSize, byte[] to, UIntPtr toSize);
        [DllImport(Library)] internal static extern int sk_slots_rename(SlotsHandle slots, byte[] from, UIntPtr fromSize, byte[] to, UIntPtr toSize);

        [DllImport(Library)] internal static extern int sk_keyring_new(out IntPtr keys);
        [DllImport(Library)] internal static extern void sk_keyring_free(IntPtr keys);
        [DllImport(Library)] internal static extern int sk_keyring_add(KeyringHandle keys, uint id, byte[] key, UIntPtr keySize);
        [DllImport(Library)] internal static extern int sk_keyring_generate(KeyringHandle keys, uint id, byte[] keyOut, UIntPtr keyOutSize);
        [DllImport(Library)] internal static extern int sk_keyring_use(KeyringHandle keys, uint id);
        [DllImport(Library)] internal static extern void sk_seal_options_init(out SealOptions options);
        [DllImport(Library)] internal static extern int sk_seal(byte[] plain, UIntPtr size, IntPtr keys, ref SealOptions options, ref SealContext context, out Buffer sealedOut);
        [DllImport(Library)] internal static extern int sk_unseal(byte[] sealedIn, UIntPtr size, IntPtr keys, ref SealOptions options, ref SealContext context, out Buffer plain);

        [DllImport(Library)] internal static extern int sk_msgpack_to_json(byte[] data, UIntPtr size, int pretty, out Buffer json);
        [DllImport(Library)] internal static extern int sk_json_to_msgpack(byte[] text, UIntPtr size, out Buffer msgpack);
    }
}
