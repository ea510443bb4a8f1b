// A store and a slots folder written by C++ read from C#, and what C# writes read by C++,
// byte for byte (tests/bindings/interop.cpp, named by SAVEKIT_INTEROP; under Mono only).
#if !UNITY_5_3_OR_NEWER
using System;
using System.Diagnostics;
using NUnit.Framework;

namespace Savekit.Tests
{
    [TestFixture]
    public class InteropTests
    {
        // The literals tests/bindings/interop.cpp writes and expects.
        const string TextWithNul = "h\u00e9llo\0w\U0001F3AEorld";
        static readonly byte[] BytesValue = { 0x00, 0xff, 0x80, 0x00, 0x01 };
        const string NulKey = "k\0ey";

        static void Interop(string mode, string folder)
        {
            string program = Environment.GetEnvironmentVariable("SAVEKIT_INTEROP");
            if (string.IsNullOrEmpty(program)) Assert.Ignore("SAVEKIT_INTEROP is not set");
            using (Process p = Process.Start(new ProcessStartInfo(program, mode + " \"" + folder + "\"") { UseShellExecute = false }))
            {
                p.WaitForExit();
                Assert.AreEqual(0, p.ExitCode, "interop " + mode);
            }
        }

        [Test]
        public void BothWays()
        {
            using (var scratch = new Scratch())
            {
                Interop("write", scratch.Folder);
                using (var cpp = PrefsStore.Open(scratch.File("cpp.prefs"), new PrefsOpenOptions { ReadOnly = true }))
                using (var mine = PrefsStore.Open(scratch.File("binding.prefs")))
                {
                    Assert.AreEqual(-9007199254740993L, cpp.GetLong("level"));
                    Assert.AreEqual(0.1, cpp.GetDouble("speed"));
                    Assert.AreEqual(TextWithNul, cpp.GetString("motto"));
                    CollectionAssert.AreEqual(BytesValue, cpp.GetBytes(NulKey));
                    mine.SetLong("level", cpp.GetLong("level"));
                    mine.SetDouble("speed", cpp.GetDouble("speed"));
                    mine.SetString("motto", cpp.GetString("motto"));
                    mine.SetBytes(NulKey, cpp.GetBytes(NulKey));
                    mine.Save();
                }
                using (var slots = SaveSlots.Open(scratch.File("saves")))
                {
                    SlotPayload cppObject = slots.ReadPayload("cpp-object");
                    Assert.AreEqual(SlotEncoding.MessagePack, cppObject.Encoding);
                    Assert.AreEqual("{\"Name\":\"Speed Run\",\"HighScore\":10000,\"Inventory\":[{\"Id\":100,\"Quantity\":5},{\"Id\":200,\"Quantity\":20}]}",
                                    Transcode.MessagePackToJson(cppObject.Data));
                    SlotPayload own = slots.ReadPayload("cpp-bytes");
                    CollectionAssert.AreEqual(BytesValue, own.Data);
                    Assert.AreEqual(3u, own.SchemaVersion);
                    SlotInfo info = slots.Info("cpp-object");
                    Assert.AreEqual("Chapter 2 \u2014 The Forest", info.Title);
                    slots.Write("from-binding", cppObject.Data,
                                new SlotMeta { Encoding = SlotEncoding.MessagePack, Title = info.Title, Playtime = info.Playtime, User = info.User });
                }
                Interop("check", scratch.Folder);
            }
        }
    }
}
#endif
