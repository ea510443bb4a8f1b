using System;
using System.Collections.Generic;

namespace Savekit
{
    /// <summary>What a save's bytes are. The game's own format (Bytes) is the default;
    /// MessagePack and JSON are checked to be one well-formed document, so that the tools and
    /// C++ read them as objects.</summary>
    public enum SlotEncoding { MessagePack = 0, MessagePackCompact = 1, Json = 2, Bytes = 3 }

    /// <summary>How a save is written, and what the load menu shows of it.</summary>
    public sealed class SlotMeta
    {
        public string Title = "";
        public TimeSpan Playtime = TimeSpan.Zero;
        public double Progress;  // 0..1 by convention
        public byte[] Thumbnail; // a PNG, say; may be null
        public Dictionary<string, string> User = new Dictionary<string, string>();
        public SlotEncoding Encoding = SlotEncoding.Bytes;
        public uint SchemaVersion = 1;  // the version of the game's save layout
    }

    /// <summary>A slot in the load menu, or one generation in a history.</summary>
    public sealed class SlotInfo
    {
        public string Name;
        public ulong Generation;
        public DateTime SavedAt;  // UTC
        public uint SchemaVersion;
        public SlotEncoding Encoding;
        public ulong Bytes;
        public ulong ThumbnailBytes;
        public ulong RestoredFrom;
        public bool Sealed;
        public string Title;
        public TimeSpan Playtime;
        public double Progress;
        public Dictionary<string, string> User;
        public bool Damaged;       // set aside as damaged (history only)
        public int ProblemStatus;  // why it cannot be read (Statuses), 0 when it can
        public string Problem;
        public ulong DamagedNewer; // newer generations found damaged: the slot fell back
    }

    /// <summary>A save's bytes and what the read found.</summary>
    public sealed class SlotPayload
    {
        public byte[] Data;
        public SlotEncoding Encoding;
        public uint SchemaVersion;
        public ulong Generation;
        public bool Sealed;
        public uint Skipped;  // newer generations found damaged: the slot fell back
    }
}
