using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Savekit
{
    /// <summary>How a slots folder is opened.</summary>
    public sealed class SlotsOpenOptions
    {
        public bool ReadOnly;               // list and read beside a game that writes; no lock
        public bool CreateIfMissing = true;
        public uint KeepGenerations = 3;    // per slot, the newest included
        /// <summary>Seal every save written, and open sealed ones, with these keys (copied at
        /// Open); the load menu stays readable without them.</summary>
        public Keyring Keyring;
        public SealProtection Protection = SealProtection.Aead;
        /// <summary>Bound into every seal: another player's save does not open.</summary>
        public string Player = "";
    }

    /// <summary>Save slots: a folder of named saves with a load menu. Each write is a new
    /// generation, durable when Write returns; the last few are kept (History, Restore); a
    /// damaged one is set aside and the slot falls back, saying so. Thread-safe; the folder is
    /// locked against a second process.</summary>
    public sealed class SaveSlots : IDisposable
    {
        readonly SlotsHandle handle;

        SaveSlots(SlotsHandle handle) { this.handle = handle; }

        public static SaveSlots Open(string path, SlotsOpenOptions options = null)
        {
            Versions.Check();
            options = options ?? new SlotsOpenOptions();
            Native.SlotsOptions native;
            Native.sk_slots_options_init(out native);
            native.ReadOnly = options.ReadOnly ? 1 : 0;
            native.CreateIfMissing = options.CreateIfMissing ? 1 : 0;
            native.KeepGenerations = options.KeepGenerations;
            byte[] p = Text.ToUtf8(path, "path");
            byte[] player = Text.ToUtf8(options.Player ?? "", "the player id");
            Native.SealOptions seal;
            Native.sk_seal_options_init(out seal);
            seal.Protection = (int)options.Protection;
            GCHandle pinnedPlayer = GCHandle.Alloc(player, GCHandleType.Pinned);
            IntPtr sealOptions = Marshal.AllocHGlobal(Marshal.SizeOf(typeof(Native.SealOptions)));
            bool added = false;
            try
            {
                Marshal.StructureToPtr(seal, sealOptions, false);
                if (options.Keyring != null)
                {
                    options.Keyring.Handle.DangerousAddRef(ref added);  // the library copies the keys
                    native.Keyring = options.Keyring.Handle.DangerousGetHandle();
                    native.Seal = sealOptions;
                    native.Player = pinnedPlayer.AddrOfPinnedObject();
                    native.PlayerSize = Text.Size(player);
                }
                IntPtr opened;
                Failures.Check(Native.sk_slots_open(p, Text.Size(p), ref native, out opened), null);
                return new SaveSlots(new SlotsHandle(opened));
            }
            finally
            {
                if (added) options.Keyring.Handle.DangerousRelease();
                Marshal.FreeHGlobal(sealOptions);
                pinnedPlayer.Free();
            }
        }

        /// <summary>Waits for queued writes (their callbacks run), then releases the folder.</summary>
        public void Dispose()
        {
            if (Callbacks.InCallback)  // on the library's worker: closing waits for it
                System.Threading.ThreadPool.QueueUserWorkItem(_ => handle.Dispose());
            else
                handle.Dispose();
        }

        SlotsHandle H
        {
            get
            {
                if (handle.IsClosed) throw new ObjectDisposedException("SaveSlots");
                return handle;
            }
        }

        static byte[] Name(string name) { return Text.ToUtf8(name, "a slot name"); }

        // The write options, with every array they point to pinned until Dispose.
        sealed class PinnedMeta : IDisposable
        {
            readonly List<GCHandle> pins = new List<GCHandle>();
            public Native.SlotWriteOptions Options;

            public PinnedMeta(SlotMeta meta)
            {
                try
                {
                    Fill(meta ?? new SlotMeta());
                }
                catch
                {
                    Dispose();  // what was pinned before the failure (a bad string, say)
                    throw;
                }
            }

            void Fill(SlotMeta meta)
            {
                Native.sk_slot_write_options_init(out Options);
                Options.Encoding = (int)meta.Encoding;
                Options.SchemaVersion = meta.SchemaVersion;
                byte[] title = Text.ToUtf8(meta.Title ?? "", "the title");
                Options.Title = Pin(title);
                Options.TitleSize = Text.Size(title);
                Options.PlaytimeSeconds = (long)meta.Playtime.TotalSeconds;
                Options.Progress = meta.Progress;
                Options.Thumbnail = Pin(meta.Thumbnail);
                Options.ThumbnailSize = Text.Size(meta.Thumbnail);
                var pairs = new Native.StringPair[meta.User == null ? 0 : meta.User.Count];
                int i = 0;
                if (meta.User != null)
                    foreach (KeyValuePair<string, string> field in meta.User)
                    {
                        byte[] k = Text.ToUtf8(field.Key, "a user field's key");
                        byte[] v = Text.ToUtf8(field.Value ?? "", "a user field's value");
                        pairs[i++] = new Native.StringPair { Key = Pin(k), KeySize = Text.Size(k), Value = Pin(v), ValueSize = Text.Size(v) };
                    }
                Options.User = pairs.Length == 0 ? IntPtr.Zero : Pin(pairs);
                Options.UserCount = (UIntPtr)pairs.Length;
            }

            IntPtr Pin(object array)
            {
                if (array == null) return IntPtr.Zero;
                GCHandle pinned = GCHandle.Alloc(array, GCHandleType.Pinned);
                pins.Add(pinned);
                return pinned.AddrOfPinnedObject();
            }

            public void Dispose()
            {
                foreach (GCHandle pinned in pins) pinned.Free();
                pins.Clear();
            }
        }

        /// <summary>Writes data as the slot's newest generation, durably; on failure the slot is
        /// as it was.</summary>
        public void Write(string name, byte[] data, SlotMeta meta = null)
        {
            if (data == null) throw new ArgumentNullException("data");
            byte[] n = Name(name);
            using (var pinned = new PinnedMeta(meta))
                Failures.Check(Native.sk_slots_write(H, n, Text.Size(n), data, Text.Size(data), ref pinned.Options), handle);
        }

        /// <summary>The same on the slots' worker thread (data is copied before this returns);
        /// done(null or the failure) runs on that thread.</summary>
        public void WriteAsync(string name, byte[] data, SlotMeta meta, Action<SavekitException> done)
        {
            if (data == null) throw new ArgumentNullException("data");
            byte[] n = Name(name);
            SlotsHandle h = H;  // (a closed folder throws before anything is held)
            using (var pinned = new PinnedMeta(meta))
            {
                IntPtr user = Callbacks.Hold(done, handle);
                int status = Native.sk_slots_write_async(h, n, Text.Size(n), data, Text.Size(data), ref pinned.Options,
                                                         Callbacks.OnDone, user);
                if (status != 0)
                {
                    Callbacks.Release(user);
                    Failures.Check(status, handle);
                }
            }
        }

        /// <summary>Waits for queued writes; throws the first failure since the last Flush.</summary>
        public void Flush() { Failures.Check(Native.sk_slots_flush(H), handle); }

        /// <summary>The load menu: every slot's newest intact generation, newest first.</summary>
        public SlotInfo[] List()
        {
            IntPtr list;
            Failures.Check(Native.sk_slots_list(H, out list), handle);
            return Infos(list);
        }

        public SlotInfo Info(string name)
        {
            byte[] n = Name(name);
            IntPtr list;
            Failures.Check(Native.sk_slots_info(H, n, Text.Size(n), out list), handle);
            return Infos(list)[0];
        }

        /// <summary>The kept generations, newest first; damaged ones included and marked.</summary>
        public SlotInfo[] History(string name)
        {
            byte[] n = Name(name);
            IntPtr list;
            Failures.Check(Native.sk_slots_history(H, n, Text.Size(n), out list), handle);
            return Infos(list);
        }

        // What the load menu shows: one slot's odd text or time (written by another program)
        // must not take the whole menu down, so it is decoded leniently; names are exact.
        static string Shown(Native.SkString s) { return Shown(s.Data, s.Size); }
        static string Shown(IntPtr data, UIntPtr size)
        {
            return (ulong)size == 0 ? "" : System.Text.Encoding.UTF8.GetString(Text.Copy(data, (ulong)size));
        }
        static TimeSpan Seconds(long seconds)
        {
            const long most = long.MaxValue / TimeSpan.TicksPerSecond;
            return seconds >= most ? TimeSpan.MaxValue : seconds <= -most ? TimeSpan.MinValue : TimeSpan.FromTicks(seconds * TimeSpan.TicksPerSecond);
        }

        static SlotInfo[] Infos(IntPtr list)
        {
            try
            {
                var infos = new SlotInfo[(int)(ulong)Native.sk_slot_list_count(list)];
                for (int i = 0; i < infos.Length; ++i)
                {
                    var s = (Native.SlotInfo)Marshal.PtrToStructure(Native.sk_slot_list_at(list, (UIntPtr)i), typeof(Native.SlotInfo));
                    var user = new Dictionary<string, string>();
                    int pairSize = Marshal.SizeOf(typeof(Native.StringPair));
                    for (int p = 0; p < (int)(ulong)s.UserCount; ++p)
                    {
                        var pair = (Native.StringPair)Marshal.PtrToStructure(new IntPtr(s.User.ToInt64() + p * pairSize), typeof(Native.StringPair));
                        user[Shown(pair.Key, pair.KeySize)] = Shown(pair.Value, pair.ValueSize);
                    }
                    infos[i] = new SlotInfo
                    {
                        Name = Text.FromUtf8(s.Name.Data, (ulong)s.Name.Size),
                        Generation = s.Generation,
                        SavedAt = new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddTicks(s.SavedAtUs * 10),
                        SchemaVersion = s.SchemaVersion,
                        Encoding = (SlotEncoding)s.Encoding,
                        Bytes = s.Bytes,
                        ThumbnailBytes = s.ThumbnailBytes,
                        RestoredFrom = s.RestoredFrom,
                        Sealed = s.Sealed != 0,
                        Title = Shown(s.Title),
                        Playtime = Seconds(s.PlaytimeSeconds),
                        Progress = s.Progress,
                        User = user,
                        Damaged = s.Damaged != 0,
                        ProblemStatus = s.ProblemStatus,
                        Problem = Shown(s.Problem),
                        DamagedNewer = s.DamagedNewer,
                    };
                }
                return infos;
            }
            finally
            {
                Native.sk_slot_list_free(list);
            }
        }

        /// <summary>The newest intact generation's bytes.</summary>
        public byte[] Read(string name) { return ReadPayload(name).Data; }

        public SlotPayload ReadPayload(string name)
        {
            byte[] n = Name(name);
            return ReadWith((out Native.Buffer b, ref Native.PayloadInfo i) => Native.sk_slots_read(H, n, Text.Size(n), out b, ref i));
        }

        public SlotPayload ReadGeneration(string name, ulong generation)
        {
            byte[] n = Name(name);
            return ReadWith((out Native.Buffer b, ref Native.PayloadInfo i) =>
                Native.sk_slots_read_generation(H, n, Text.Size(n), generation, out b, ref i));
        }

        delegate int ReadCall(out Native.Buffer payload, ref Native.PayloadInfo info);

        SlotPayload ReadWith(ReadCall call)
        {
            var info = new Native.PayloadInfo { StructSize = (UIntPtr)Marshal.SizeOf(typeof(Native.PayloadInfo)) };
            Native.Buffer payload;
            Failures.Check(call(out payload, ref info), handle);
            return new SlotPayload
            {
                Data = Text.Take(ref payload),
                Encoding = (SlotEncoding)info.Encoding,
                SchemaVersion = info.SchemaVersion,
                Generation = info.Generation,
                Sealed = info.Sealed != 0,
                Skipped = info.Skipped,
            };
        }

        public byte[] Thumbnail(string name)
        {
            byte[] n = Name(name);
            Native.Buffer picture;
            Failures.Check(Native.sk_slots_thumbnail(H, n, Text.Size(n), out picture), handle);
            return Text.Take(ref picture);
        }

        /// <summary>A copy of that generation becomes the newest.</summary>
        public void Restore(string name, ulong generation)
        {
            byte[] n = Name(name);
            Failures.Check(Native.sk_slots_restore(H, n, Text.Size(n), generation), handle);
        }

        public void Remove(string name)
        {
            byte[] n = Name(name);
            Failures.Check(Native.sk_slots_remove(H, n, Text.Size(n)), handle);
        }

        public void Copy(string from, string to)
        {
            byte[] f = Name(from), t = Name(to);
            Failures.Check(Native.sk_slots_copy(H, f, Text.Size(f), t, Text.Size(t)), handle);
        }

        /// <summary>Statuses.AlreadyExists if `to` is a slot.</summary>
        public void Rename(string from, string to)
        {
            byte[] f = Name(from), t = Name(to);
            Failures.Check(Native.sk_slots_rename(H, f, Text.Size(f), t, Text.Size(t)), handle);
        }
    }

    /// <summary>Any save read without its types: MessagePack as JSON text and back.</summary>
    public static class Transcode
    {
        public static string MessagePackToJson(byte[] data, bool pretty = false)
        {
            if (data == null) throw new ArgumentNullException("data");
            Native.Buffer json;
            Failures.Check(Native.sk_msgpack_to_json(data, Text.Size(data), pretty ? 1 : 0, out json), null);
            return Text.FromUtf8(Text.Take(ref json));
        }

        public static byte[] JsonToMessagePack(string json)
        {
            byte[] text = Text.ToUtf8(json, "the JSON text");
            Native.Buffer packed;
            Failures.Check(Native.sk_json_to_msgpack(text, Text.Size(text), out packed), null);
            return Text.Take(ref packed);
        }

        /// <summary>The native library's version, "0.1.0".</summary>
        public static string LibraryVersion() { return Versions.Library(); }
    }
}
