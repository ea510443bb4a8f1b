// Strings across the ABI: C# strings are UTF-16, savekit's text is UTF-8. A string that
// cannot be UTF-8 (a lone surrogate) is refused with its index, never replaced by U+FFFD:
// a save must come back as it went in. Bytes go through SetBytes untouched.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Savekit
{
    internal static class Text
    {
        static readonly UTF8Encoding Strict = new UTF8Encoding(false, true);

        internal static byte[] ToUtf8(string text, string what)
        {
            if (text == null) throw new ArgumentNullException(what);
            try
            {
                return Strict.GetBytes(text);
            }
            catch (EncoderFallbackException e)
            {
                throw new SavekitException(Statuses.InvalidUtf8,
                    what + " holds a lone UTF-16 surrogate at index " + e.Index +
                    ": it has no UTF-8 form (store such data with SetBytes)", (ulong)e.Index);
            }
        }

        // Keys are most often the same few string literals: their UTF-8 is kept in a small
        // table found by the string's identity, not its contents, so a hit costs a load and a
        // compare. Each entry is immutable and replaced whole, so readers on any thread see
        // either the old pair or the new; the bytes are never written (the ABI takes them const).
        sealed class Encoded
        {
            public readonly string Key;
            public readonly byte[] Bytes;
            public Encoded(string key, byte[] bytes) { Key = key; Bytes = bytes; }
        }

        static readonly Encoded[] RecentKeys = new Encoded[64];

        internal static byte[] KeyToUtf8(string key)
        {
            if (key == null) throw new ArgumentNullException("key");
            int slot = System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(key) & (RecentKeys.Length - 1);
            Encoded hit = RecentKeys[slot];
            if (hit != null && ReferenceEquals(hit.Key, key)) return hit.Bytes;
            byte[] bytes = ToUtf8(key, "a key");
            if (bytes.Length <= 256) RecentKeys[slot] = new Encoded(key, bytes);
            return bytes;
        }

        internal static string FromUtf8(byte[] bytes)
        {
            try
            {
                return Strict.GetString(bytes);
            }
            catch (DecoderFallbackException e)
            {
                throw new SavekitException(Statuses.InvalidUtf8, "the stored text is not UTF-8 (read it with GetBytes)",
                                           (ulong)Math.Max(0, e.Index));
            }
        }

        internal static string FromUtf8(IntPtr data, ulong size)
        {
            return size == 0 ? "" : FromUtf8(Copy(data, size));
        }

        // A NUL-terminated string the library owns (status names, the version).
        internal static string FromUtf8(IntPtr zeroTerminated)
        {
            int n = 0;
            while (Marshal.ReadByte(zeroTerminated, n) != 0) ++n;
            return FromUtf8(zeroTerminated, (ulong)n);
        }

        internal static byte[] Copy(IntPtr data, ulong size)
        {
            var bytes = new byte[size];
            if (size != 0) Marshal.Copy(data, bytes, 0, checked((int)size));
            return bytes;
        }

        // The bytes of an sk_buffer, which is then freed.
        internal static byte[] Take(ref Native.Buffer buffer)
        {
            try { return Copy(buffer.Data, (ulong)buffer.Size); }
            finally { Native.sk_buffer_free(ref buffer); }
        }

        internal static UIntPtr Size(byte[] bytes) { return (UIntPtr)(bytes == null ? 0 : bytes.Length); }
    }

    internal static class Failures
    {
        // Throws the failure the library kept with handle (IntPtr.Zero: the calling thread's).
        internal static void Check(int status, SafeHandle handle)
        {
            if (status == 0) return;
            throw For(status, handle == null ? IntPtr.Zero : handle.DangerousGetHandle());
        }

        internal static SavekitException For(int status, IntPtr handle)
        {
            Native.Error e;
            if (Native.sk_last_error(handle, out e) != 0) return new SavekitException(status, "");
            try
            {
                if (e.Status != status) return new SavekitException(status, "");
                return new SavekitException(status, Lossy(e.Message), e.Offset, Lossy(e.Path));
            }
            finally
            {
                Native.sk_error_free(ref e);
            }
        }

        static string Lossy(Native.Buffer b)
        {
            return (ulong)b.Size == 0 ? "" : Encoding.UTF8.GetString(Text.Copy(b.Data, (ulong)b.Size));
        }
    }
}
