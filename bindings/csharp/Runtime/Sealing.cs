using System;
using System.Runtime.InteropServices;

namespace Savekit
{
    /// <summary>How much a seal protects: a digest finds damage; a MAC proves a key holder
    /// wrote the save; AEAD also encrypts it.</summary>
    public enum SealProtection { Digest = 0, Mac = 1, Aead = 2 }

    /// <summary>Keys that seal and open saves: 32 bytes each, under a number of the game's
    /// choosing. Keep the bytes Generate returns (a save sealed with a lost key is lost).</summary>
    public sealed class Keyring : IDisposable
    {
        public const int KeyBytes = 32;
        internal readonly KeyringHandle Handle;

        public Keyring()
        {
            Versions.Check();
            IntPtr made;
            Failures.Check(Native.sk_keyring_new(out made), null);
            Handle = new KeyringHandle(made);
        }

        public void Dispose() { Handle.Dispose(); }

        KeyringHandle H
        {
            get
            {
                if (Handle.IsClosed) throw new ObjectDisposedException("Keyring");
                return Handle;
            }
        }

        public void Add(uint id, byte[] key)
        {
            if (key == null) throw new ArgumentNullException("key");
            Failures.Check(Native.sk_keyring_add(H, id, key, Text.Size(key)), Handle);
        }

        /// <summary>A new key from the system's random source, added; its bytes, to keep.</summary>
        public byte[] Generate(uint id)
        {
            var key = new byte[KeyBytes];
            Failures.Check(Native.sk_keyring_generate(H, id, key, Text.Size(key)), Handle);
            return key;
        }

        /// <summary>Seal with this key from now on (Statuses.KeyNotHeld if it was not added).</summary>
        public void Use(uint id) { Failures.Check(Native.sk_keyring_use(H, id), Handle); }
    }

    /// <summary>Seal and open bytes by hand (SaveSlots seal by themselves when opened with a
    /// Keyring): bound to a name, a schema version and a player id, so that a save copied to
    /// another slot or player does not open (Statuses.Tampered).</summary>
    public static class Seal
    {
        public static byte[] Close(byte[] plain, Keyring keys, string name, uint schemaVersion = 1, string player = "",
                                   SealProtection protection = SealProtection.Aead)
        {
            return Call(plain, keys, name, schemaVersion, player, (int)protection, -1, true);
        }

        public static byte[] Open(byte[] sealedSave, Keyring keys, string name, uint schemaVersion = 1, string player = "")
        {
            return Call(sealedSave, keys, name, schemaVersion, player, -1, -1, false);
        }

        static byte[] Call(byte[] input, Keyring keys, string name, uint schemaVersion, string player, int protection,
                           int minimum, bool sealing)
        {
            if (input == null) throw new ArgumentNullException("input");
            byte[] n = Text.ToUtf8(name ?? "", "the name"), p = Text.ToUtf8(player ?? "", "the player id");
            Native.SealOptions options;
            Native.sk_seal_options_init(out options);
            if (protection >= 0) options.Protection = protection;
            if (minimum >= 0) options.MinimumProtection = minimum;
            GCHandle pinnedName = GCHandle.Alloc(n, GCHandleType.Pinned), pinnedPlayer = GCHandle.Alloc(p, GCHandleType.Pinned);
            bool added = false;
            try
            {
                var context = new Native.SealContext
                {
                    StructSize = (UIntPtr)Marshal.SizeOf(typeof(Native.SealContext)),
                    Name = pinnedName.AddrOfPinnedObject(), NameSize = Text.Size(n), SchemaVersion = schemaVersion,
                    Player = pinnedPlayer.AddrOfPinnedObject(), PlayerSize = Text.Size(p),
                };
                IntPtr k = IntPtr.Zero;
                if (keys != null)
                {
                    keys.Handle.DangerousAddRef(ref added);  // not released under the call
                    k = keys.Handle.DangerousGetHandle();
                }
                Native.Buffer output;
                int status = sealing ? Native.sk_seal(input, Text.Size(input), k, ref options, ref context, out output)
                                     : Native.sk_unseal(input, Text.Size(input), k, ref options, ref context, out output);
                Failures.Check(status, null);
                return Text.Take(ref output);
            }
            finally
            {
                if (added) keys.Handle.DangerousRelease();
                pinnedName.Free();
                pinnedPlayer.Free();
            }
        }
    }
}
