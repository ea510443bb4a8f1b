using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using NUnit.Framework;

namespace Savekit.Tests
{
    [TestFixture]
    public class SlotsTests
    {
        static byte[] Bytes(string s) { return Encoding.UTF8.GetBytes(s); }

        [Test]
        public void WriteListReadAndManage()
        {
            using (var scratch = new Scratch())
            using (var slots = SaveSlots.Open(scratch.File("saves")))
            {
                var meta = new SlotMeta
                {
                    Title = "Chapter 2 \u2014 The Forest",
                    Playtime = TimeSpan.FromSeconds(11520),
                    Progress = 0.42,
                    Thumbnail = new byte[] { 0x89, (byte)'P', (byte)'N', (byte)'G' },
                    User = new Dictionary<string, string> { { "level", "12" } },
                    SchemaVersion = 3,
                };
                slots.Write("slot1", new byte[] { 0, 1, 2 }, meta);
                slots.Write("slot2", Bytes("{\"gold\": 300}"), new SlotMeta { Encoding = SlotEncoding.Json });
                SlotInfo[] menu = slots.List();
                Assert.AreEqual(2, menu.Length);
                Assert.AreEqual("slot2", menu[0].Name);  // newest first
                SlotInfo one = slots.Info("slot1");
                Assert.AreEqual(meta.Title, one.Title);
                Assert.AreEqual(meta.Playtime, one.Playtime);
                Assert.AreEqual(0.42, one.Progress);
                Assert.AreEqual("12", one.User["level"]);
                Assert.AreEqual(3u, one.SchemaVersion);
                Assert.AreEqual(SlotEncoding.Bytes, one.Encoding);
                Assert.AreEqual(4UL, one.ThumbnailBytes);
                Assert.Less((DateTime.UtcNow - one.SavedAt).Duration(), TimeSpan.FromHours(1));
                CollectionAssert.AreEqual(new byte[] { 0, 1, 2 }, slots.Read("slot1"));
                CollectionAssert.AreEqual(meta.Thumbnail, slots.Thumbnail("slot1"));
                Assert.AreEqual(SlotEncoding.Json, slots.ReadPayload("slot2").Encoding);

                for (byte i = 10; i < 13; ++i) slots.Write("slot1", new[] { i });
                SlotInfo[] history = slots.History("slot1");
                Assert.AreEqual(new ulong[] { 4, 3, 2 }, Array.ConvertAll(history, g => g.Generation));
                slots.Restore("slot1", 2);
                SlotPayload restored = slots.ReadPayload("slot1");
                Assert.AreEqual(5UL, restored.Generation);
                CollectionAssert.AreEqual(new byte[] { 10 }, restored.Data);
                CollectionAssert.AreEqual(new byte[] { 11 }, slots.ReadGeneration("slot1", 3).Data);
                slots.Copy("slot1", "copy");
                slots.Rename("copy", "renamed");
                var e = Assert.Throws<SavekitException>(() => slots.Rename("renamed", "slot2"));
                Assert.AreEqual(Statuses.AlreadyExists, e.Status);
                slots.Remove("renamed");
                e = Assert.Throws<SavekitException>(() => slots.Read("renamed"));
                Assert.AreEqual(Statuses.NotFound, e.Status);
            }
        }

        [Test]
        public void JsonAndMessagePackAreChecked()
        {
            using (var scratch = new Scratch())
            using (var slots = SaveSlots.Open(scratch.File("saves")))
            {
                var json = new SlotMeta { Encoding = SlotEncoding.Json };
                var e = Assert.Throws<SavekitException>(() => slots.Write("s", Bytes("{\"a\": "), json));
                Assert.AreEqual("unexpected_end", e.StatusName);
                Assert.AreEqual(6UL, e.Offset);
                byte[] packed = Transcode.JsonToMessagePack("{\"a\":[1,2.5,\"x\"]}");
                slots.Write("s", packed, new SlotMeta { Encoding = SlotEncoding.MessagePack });
                Assert.AreEqual("{\"a\":[1,2.5,\"x\"]}", Transcode.MessagePackToJson(slots.Read("s")));
                StringAssert.Contains("\n", Transcode.MessagePackToJson(packed, true));
                e = Assert.Throws<SavekitException>(() => Transcode.MessagePackToJson(new byte[] { 0x92, 0x01 }));
                Assert.AreEqual("length_exceeds_input", e.StatusName);
                StringAssert.StartsWith("0.", Transcode.LibraryVersion());
            }
        }

        [Test]
        public void BackgroundWritesCallBackAndAFailureReportsItself()
        {
            using (var scratch = new Scratch())
            using (var slots = SaveSlots.Open(scratch.File("saves")))
            {
                int succeeded = 0;
                var failures = new List<SavekitException>();
                for (int i = 0; i < 10; ++i)
                    slots.WriteAsync("bg", Bytes("save " + i), null, error =>
                    {
                        if (error == null) Interlocked.Increment(ref succeeded);
                    });
                slots.WriteAsync("bad/\n", Bytes("x"), null, error => { lock (failures) failures.Add(error); });
                slots.Flush();
                Assert.AreEqual(10, succeeded);
                Assert.AreEqual(1, failures.Count);
                Assert.AreEqual(Statuses.InvalidName, failures[0].Status);
                Assert.AreEqual("save 9", Encoding.UTF8.GetString(slots.Read("bg")));
            }
        }

        // Found by an attack on the bindings: closing from the library's own worker thread.
        [Test]
        public void DisposedInsideItsOwnCallbackTheRestStillReport()
        {
            using (var scratch = new Scratch())
            {
                string folder = scratch.File("saves");
                var slots = SaveSlots.Open(folder);
                var ran = new List<string>();
                var all = new CountdownEvent(11);
                slots.WriteAsync("a", new byte[] { 1 }, null, error =>
                {
                    lock (ran) ran.Add("first " + (error == null));
                    slots.Dispose();
                    all.Signal();
                });
                for (int i = 0; i < 10; ++i)
                {
                    int n = i;
                    slots.WriteAsync("b" + i, new byte[] { 2 }, null, error =>
                    {
                        lock (ran) ran.Add(n + " " + (error == null));
                        all.Signal();
                    });
                }
                Assert.IsTrue(all.Wait(TimeSpan.FromMinutes(2)), "every callback ran");
                Assert.AreEqual("first True", ran[0]);
                Assert.AreEqual(11, ran.Count);
                Assert.Throws<ObjectDisposedException>(() => slots.WriteAsync("c", new byte[0], null, null));
                var deadline = DateTime.UtcNow + TimeSpan.FromMinutes(2);
                while (true)  // released by the thread pool once the queue is done
                {
                    try
                    {
                        using (var again = SaveSlots.Open(folder)) Assert.AreEqual(11, again.List().Length);
                        break;
                    }
                    catch (SavekitException e)
                    {
                        if (e.Status != Statuses.Locked || DateTime.UtcNow > deadline) throw;
                        Thread.Sleep(10);
                    }
                }
            }
        }

        [Test]
        public void SealedSavesOpenOnlyWithTheKeyAndForTheirPlayer()
        {
            using (var scratch = new Scratch())
            using (var keys = new Keyring())
            {
                string folder = scratch.File("saves");
                byte[] key = keys.Generate(1);
                Assert.AreEqual(Keyring.KeyBytes, key.Length);
                byte[] save = Encoding.UTF8.GetBytes("a save worth protecting");
                using (var slots = SaveSlots.Open(folder, new SlotsOpenOptions { Keyring = keys, Player = "p1" }))
                {
                    slots.Write("s", save);
                    Assert.IsTrue(slots.ReadPayload("s").Sealed);
                    CollectionAssert.AreEqual(save, slots.Read("s"));
                }
                using (var slots = SaveSlots.Open(folder))  // no key: the menu, not the payload
                {
                    Assert.IsTrue(slots.List()[0].Sealed);
                    var e = Assert.Throws<SavekitException>(() => slots.Read("s"));
                    Assert.AreEqual(Statuses.KeyNotHeld, e.Status);
                }
                using (var other = new Keyring())
                {
                    other.Add(1, key);
                    using (var slots = SaveSlots.Open(folder, new SlotsOpenOptions { Keyring = other, Player = "p2" }))
                    {
                        var e = Assert.Throws<SavekitException>(() => slots.Read("s"));
                        Assert.AreEqual(Statuses.Tampered, e.Status);
                    }
                }
                byte[] sealedBytes = Seal.Close(save, keys, "slot1", 2);
                CollectionAssert.AreEqual(save, Seal.Open(sealedBytes, keys, "slot1", 2));
                var wrong = Assert.Throws<SavekitException>(() => Seal.Open(sealedBytes, keys, "slot2", 2));
                Assert.AreEqual(Statuses.Tampered, wrong.Status);
                var noKey = Assert.Throws<SavekitException>(() => keys.Use(9));
                Assert.AreEqual(Statuses.KeyNotHeld, noKey.Status);
                Assert.Throws<SavekitException>(() => keys.Add(2, new byte[5]));
            }
        }

        [Test]
        public void LocksNamesAndADisposedFolder()
        {
            using (var scratch = new Scratch())
            {
                string folder = scratch.File("saves");
                var slots = SaveSlots.Open(folder);
                var e = Assert.Throws<SavekitException>(() => SaveSlots.Open(folder));
                Assert.AreEqual(Statuses.Locked, e.Status);
                e = Assert.Throws<SavekitException>(() => slots.Write("", new byte[0]));
                Assert.AreEqual(Statuses.InvalidName, e.Status);
                e = Assert.Throws<SavekitException>(() => slots.Write("\uD800", new byte[0]));
                Assert.AreEqual(Statuses.InvalidUtf8, e.Status);
                Assert.Throws<ArgumentNullException>(() => slots.Write("a", null));
                slots.Write("a", new byte[] { 1 });
                using (var reader = SaveSlots.Open(folder, new SlotsOpenOptions { ReadOnly = true }))
                    CollectionAssert.AreEqual(new byte[] { 1 }, reader.Read("a"));
                slots.Dispose();
                Assert.Throws<ObjectDisposedException>(() => slots.List());
                using (var again = SaveSlots.Open(folder))  // the lock went with Dispose
                    Assert.AreEqual(1, again.List().Length);
            }
        }
    }
}
