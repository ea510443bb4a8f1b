using System;

namespace Savekit
{
    /// <summary>A failure savekit reported: the C ABI's status (a stable number, and its name
    /// such as "not_found"), the message, the byte offset in the input where it went wrong, and
    /// a JSONPath.</summary>
    public sealed class SavekitException : Exception
    {
        public int Status { get; private set; }
        public string StatusName { get; private set; }
        public ulong Offset { get; private set; }
        public string PathInValue { get; private set; }

        public SavekitException(int status, string message, ulong offset = 0, string path = "")
            : base(Describe(status, message, offset, path))
        {
            Status = status;
            StatusName = Statuses.Name(status);
            Offset = offset;
            PathInValue = path ?? "";
        }

        static string Describe(int status, string message, ulong offset, string path)
        {
            string where = offset != 0 ? " at byte " + offset : "";
            if (!string.IsNullOrEmpty(path) && path != "$") where += " (" + path + ")";
            return Statuses.Name(status) + where + (string.IsNullOrEmpty(message) ? "" : ": " + message);
        }
    }

    /// <summary>The C ABI's status numbers that a game tests for (savekit.h lists all).</summary>
    public static class Statuses
    {
        public const int Ok = 0;
        public const int InvalidUtf8 = 3;
        public const int InvalidValue = 22;
        public const int NotFound = 23;
        public const int WrongType = 24;
        public const int InvalidKey = 25;
        public const int Locked = 27;
        public const int IoError = 28;
        public const int InvalidPath = 36;
        public const int InvalidName = 37;
        public const int AlreadyExists = 38;
        public const int Damaged = 39;
        public const int Tampered = 42;
        public const int KeyNotHeld = 43;
        public const int NullArgument = 100;
        public const int BufferTooSmall = 101;

        public static string Name(int status)
        {
            try { return Text.FromUtf8(Native.sk_status_name(status)); }
            catch (DllNotFoundException) { return "status " + status; }
        }
    }
}
