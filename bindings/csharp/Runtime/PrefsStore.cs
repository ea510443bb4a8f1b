using System;
using System.Collections.Generic;

namespace Savekit
{
    /// <summary>How a store is opened.</summary>
    public sealed class PrefsOpenOptions
    {
        /// <summary>Open without changing anything (tools); Save() then fails.</summary>
        public bool ReadOnly;
        /// <summary>Create the file and its folder when missing (else NotFound).</summary>
        public bool CreateIfMissing = true;
    }

    /// <summary>One prefs store file: PlayerPrefs' calls, byte-clean, committed whole by Save()
    /// (durable when it returns). Thread-safe. A second process opening the same file gets
    /// SavekitException with Statuses.Locked.</summary>
    public sealed class PrefsStore : IDisposable
    {
        readonly PrefsHandle handle;

        PrefsStore(PrefsHandle handle) { this.handle = handle; }

        public static PrefsStore Open(string path, PrefsOpenOptions options = null)
        {
            Versions.Check();
            options = options ?? new PrefsOpenOptions();
            Native.PrefsOptions native;
            Native.sk_prefs_options_init(out native);
            native.ReadOnly = options.ReadOnly ? 1 : 0;
            native.CreateIfMissing = options.CreateIfMissing ? 1 : 0;
            byte[] p = Text.ToUtf8(path, "path");
            IntPtr opened;
            Failures.Check(Native.sk_prefs_open(p, Text.Size(p), ref native, out opened), null);
            return new PrefsStore(new PrefsHandle(opened));
        }

        /// <summary>Waits for background saves, then releases the file.</summary>
        public void Dispose()
        {
            if (Callbacks.InCallback)  // on the library's worker: closing waits for it
                System.Threading.ThreadPool.QueueUserWorkItem(_ => handle.Dispose());
            else
                handle.Dispose();
        }

        PrefsHandle H
        {
            get
            {
                if (handle.IsClosed) throw new ObjectDisposedException("PrefsStore");
                return handle;
            }
        }

        static byte[] Key(string key) { return Text.KeyToUtf8(key); }

        public void SetInt(string key, int value) { SetLong(key, value); }
        public void SetLong(string key, long value)
        {
            byte[] k = Key(key);
            Failures.Check(Native.sk_prefs_set_int(H, k, Text.Size(k), value), handle);
        }
        public void SetFloat(string key, float value) { SetDouble(key, value); }
        public void SetDouble(string key, double value)
        {
            byte[] k = Key(key);
            Failures.Check(Native.sk_prefs_set_float(H, k, Text.Size(k), value), handle);
        }
        /// <summary>Any string that has a UTF-8 form, NUL and every plane included; one with a
        /// lone surrogate is refused (Statuses.InvalidUtf8, Offset = its UTF-16 index).</summary>
        public void SetString(string key, string value)
        {
            byte[] k = Key(key), v = Text.ToUtf8(value, "the value");
            Failures.Check(Native.sk_prefs_set_string(H, k, Text.Size(k), v, Text.Size(v)), handle);
        }
        public void SetBytes(string key, byte[] value)
        {
            if (value == null) throw new ArgumentNullException("value");
            byte[] k = Key(key);
            Failures.Check(Native.sk_prefs_set_bytes(H, k, Text.Size(k), value, Text.Size(value)), handle);
        }

        /// <summary>The value, or defaultValue when there is no such key (as PlayerPrefs). A key
        /// holding another type throws (Statuses.WrongType): that is a bug to see, not hide.</summary>
        public int GetInt(string key, int defaultValue = 0)
        {
            long value = GetLong(key, defaultValue);
            if (value < int.MinValue || value > int.MaxValue)
                throw new SavekitException(Statuses.InvalidValue, "'" + key + "' holds " + value + ": use GetLong");
            return (int)value;
        }
        public long GetLong(string key, long defaultValue = 0)
        {
            byte[] k = Key(key);
            long value;
            int status = Native.sk_prefs_get_int(H, k, Text.Size(k), out value);
            if (status == Statuses.NotFound) return defaultValue;
            Failures.Check(status, handle);
            return value;
        }
        public float GetFloat(string key, float defaultValue = 0f) { return (float)GetDouble(key, defaultValue); }
        public double GetDouble(string key, double defaultValue = 0)
        {
            byte[] k = Key(key);
            double value;
            int status = Native.sk_prefs_get_float(H, k, Text.Size(k), out value);
            if (status == Statuses.NotFound) return defaultValue;
            Failures.Check(status, handle);
            return value;
        }
        public string GetString(string key, string defaultValue = "")
        {
            byte[] value = GetSized(key, true);
            return value == null ? defaultValue : Text.FromUtf8(value);
        }
        /// <summary>A bytes entry (or a string entry's bytes); null when there is no such key.</summary>
        public byte[] GetBytes(string key) { return GetSized(key, false); }

        byte[] GetSized(string key, bool text)
        {
            byte[] k = Key(key);
            byte[] value = new byte[256];
            while (true)
            {
                UIntPtr needed;
                int status = text ? Native.sk_prefs_get_string(H, k, Text.Size(k), value, Text.Size(value), out needed)
                                  : Native.sk_prefs_get_bytes(H, k, Text.Size(k), value, Text.Size(value), out needed);
                if (status == Statuses.NotFound) return null;
                if (status == Statuses.BufferTooSmall)
                {
                    value = new byte[(ulong)needed];  // it may grow meanwhile: ask again
                    continue;
                }
                Failures.Check(status, handle);
                if ((ulong)needed != (ulong)value.Length) Array.Resize(ref value, checked((int)(ulong)needed));
                return value;
            }
        }

        public bool HasKey(string key)
        {
            byte[] k = Key(key);
            int has;
            Failures.Check(Native.sk_prefs_has_key(H, k, Text.Size(k), out has), handle);
            return has != 0;
        }

        /// <summary>Removes the key; nothing happens when there is none (as PlayerPrefs).</summary>
        public void DeleteKey(string key)
        {
            byte[] k = Key(key);
            int status = Native.sk_prefs_delete_key(H, k, Text.Size(k));
            if (status != Statuses.NotFound) Failures.Check(status, handle);
        }

        public void DeleteAll() { Failures.Check(Native.sk_prefs_delete_all(H), handle); }

        /// <summary>Every key, sorted by its UTF-8 bytes.</summary>
        public string[] Keys()
        {
            Native.Buffer packed;
            UIntPtr count;
            Failures.Check(Native.sk_prefs_keys(H, out packed, out count), handle);
            byte[] data = Text.Take(ref packed);
            var keys = new List<string>((int)(ulong)count);
            int at = 0;
            while (at + 4 <= data.Length)
            {
                int n = data[at] | data[at + 1] << 8 | data[at + 2] << 16 | data[at + 3] << 24;
                var key = new byte[n];
                Array.Copy(data, at + 4, key, 0, n);
                keys.Add(Text.FromUtf8(key));
                at += 4 + n;
            }
            return keys.ToArray();
        }

        /// <summary>Commits every change since the last Save, durably (fsync) before it returns.</summary>
        public void Save() { Failures.Check(Native.sk_prefs_save(H), handle); }

        /// <summary>Commits on the store's worker thread; done(null or the failure) runs on that
        /// thread (marshal to the main thread yourself before touching Unity objects).</summary>
        public void SaveAsync(Action<SavekitException> done)
        {
            PrefsHandle h = H;  // (a closed store throws before anything is held)
            IntPtr user = Callbacks.Hold(done, handle);
            int status = Native.sk_prefs_save_async(h, Callbacks.OnDone, user);
            if (status != 0)
            {
                Callbacks.Release(user);
                Failures.Check(status, handle);
            }
        }
    }

    internal static class Versions
    {
        static bool checkedOnce;

        // The library loaded is one this binding was written for.
        internal static void Check()
        {
            if (checkedOnce) return;
            uint abi = Native.sk_abi_version();
            if (abi != Native.AbiVersion)
                throw new SavekitException(Statuses.InvalidValue,
                    "the native savekit_c has ABI version " + abi + "; this binding needs " + Native.AbiVersion);
            checkedOnce = true;
        }

        internal static string Library() { return Text.FromUtf8(Native.sk_version()); }
    }
}
