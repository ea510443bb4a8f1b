using System;
using System.Text;
using System.Threading;
using NUnit.Framework;

namespace Savekit.Tests
{
    [TestFixture]
    public class PrefsTests
    {
        const string Text = "h\u00e9llo\0w\U0001F3AEorld";  // NUL and a character outside the BMP

        [Test]
        public void PlayerPrefsCallsRoundTripThroughTheFile()
        {
            using (var scratch = new Scratch())
            {
                string path = scratch.File("player.prefs");
                SavekitPrefs.Open(path);
                try
                {
                    SavekitPrefs.SetInt("level", -12);
                    SavekitPrefs.SetFloat("speed", 0.1f);
                    SavekitPrefs.SetString("motto", Text);
                    SavekitPrefs.SetBytes("blob", new byte[] { 0, 255, 0, 128 });
                    SavekitPrefs.SetString("empty", "");
                    SavekitPrefs.Save();
                }
                finally
                {
                    SavekitPrefs.Close();
                }
                Assert.IsFalse(SavekitPrefs.IsOpen);
                SavekitPrefs.Open(path);  // read back from the file
                try
                {
                    Assert.AreEqual(-12, SavekitPrefs.GetInt("level"));
                    Assert.AreEqual(0.1f, SavekitPrefs.GetFloat("speed"));
                    Assert.AreEqual(Text, SavekitPrefs.GetString("motto"));
                    CollectionAssert.AreEqual(new byte[] { 0, 255, 0, 128 }, SavekitPrefs.GetBytes("blob"));
                    Assert.AreEqual("", SavekitPrefs.GetString("empty", "default"));
                    Assert.IsTrue(SavekitPrefs.HasKey("level"));
                    Assert.AreEqual(7, SavekitPrefs.GetInt("missing", 7));
                    Assert.AreEqual("none", SavekitPrefs.GetString("missing", "none"));
                    Assert.IsNull(SavekitPrefs.GetBytes("missing"));
                    SavekitPrefs.DeleteKey("level");
                    SavekitPrefs.DeleteKey("level");  // as PlayerPrefs: nothing to delete is fine
                    Assert.IsFalse(SavekitPrefs.HasKey("level"));
                    SavekitPrefs.DeleteAll();
                    Assert.IsFalse(SavekitPrefs.HasKey("motto"));
                }
                finally
                {
                    SavekitPrefs.Close();
                }
            }
        }

        [Test]
        public void AStoreWithoutOpenSaysWhatToDo()
        {
            SavekitPrefs.Close();
            var e = Assert.Throws<InvalidOperationException>(() => SavekitPrefs.GetInt("x"));
            StringAssert.Contains("SavekitPrefs.Open", e.Message);
        }

        [Test]
        public void LongStringsAndBytesAndKeysComeBackWhole()
        {
            using (var scratch = new Scratch())
            using (var store = PrefsStore.Open(scratch.File("p.prefs")))
            {
                var big = new StringBuilder();
                for (int i = 0; i < 5000; ++i) big.Append("\u3042\0");
                store.SetString("long", big.ToString());
                Assert.AreEqual(big.ToString(), store.GetString("long"));
                var bytes = new byte[100000];
                new Random(1).NextBytes(bytes);
                store.SetBytes("bytes", bytes);
                CollectionAssert.AreEqual(bytes, store.GetBytes("bytes"));
                store.SetLong("wide", long.MinValue);
                Assert.AreEqual(long.MinValue, store.GetLong("wide"));
                Assert.Throws<SavekitException>(() => store.GetInt("wide"));
                store.SetString("k\0ey", "v");
                CollectionAssert.AreEqual(new[] { "bytes", "k\0ey", "long", "wide" }, store.Keys());
            }
        }

        [Test]
        public void ALoneSurrogateIsRefusedNotReplaced()
        {
            using (var scratch = new Scratch())
            using (var store = PrefsStore.Open(scratch.File("p.prefs")))
            {
                var e = Assert.Throws<SavekitException>(() => store.SetString("bad", "ab\uD800c"));
                Assert.AreEqual(Statuses.InvalidUtf8, e.Status);
                Assert.AreEqual("invalid_utf8", e.StatusName);
                Assert.AreEqual(2UL, e.Offset);
                Assert.IsFalse(store.HasKey("bad"));
                e = Assert.Throws<SavekitException>(() => store.SetInt("\uDC00", 1));
                Assert.AreEqual(Statuses.InvalidUtf8, e.Status);
            }
        }

        [Test]
        public void AValueOfAnotherTypeIsAnErrorNotADefault()
        {
            using (var scratch = new Scratch())
            using (var store = PrefsStore.Open(scratch.File("p.prefs")))
            {
                store.SetString("name", "Ada");
                var e = Assert.Throws<SavekitException>(() => store.GetInt("name"));
                Assert.AreEqual(Statuses.WrongType, e.Status);
                StringAssert.Contains("name", e.Message);
            }
        }

        [Test]
        public void SaveAsyncCallsBackOnTheWorkerAndAThrowingCallbackIsContained()
        {
            using (var scratch = new Scratch())
            {
                string path = scratch.File("p.prefs");
                var ran = new ManualResetEvent(false);
                Exception caught = null;
                Action<Exception> onFailed = e => { caught = e; ran.Set(); };
                Callbacks.Failed += onFailed;
                try
                {
                    using (var store = PrefsStore.Open(path))
                    {
                        store.SetInt("a", 1);
                        store.SaveAsync(error =>
                        {
                            Assert.IsNull(error);  // (an assertion here would be caught, as any exception)
                            throw new InvalidOperationException("thrown by the game's callback");
                        });
                        Assert.IsTrue(ran.WaitOne(TimeSpan.FromMinutes(2)), "the callback ran");
                        store.SetInt("b", 2);  // the store still works
                        store.Save();
                    }
                }
                finally
                {
                    Callbacks.Failed -= onFailed;
                }
                Assert.IsInstanceOf<InvalidOperationException>(caught);
                using (var store = PrefsStore.Open(path))
                    Assert.AreEqual(2, store.GetInt("b"));
            }
        }

        [Test]
        public void ReadOnlyAndMissingAndDisposed()
        {
            using (var scratch = new Scratch())
            {
                string path = scratch.File("p.prefs");
                using (var store = PrefsStore.Open(path))
                {
                    store.SetInt("a", 1);
                    store.Save();
                }
                using (var reader = PrefsStore.Open(path, new PrefsOpenOptions { ReadOnly = true }))
                {
                    Assert.AreEqual(1, reader.GetInt("a"));
                    reader.SetInt("a", 2);
                    Assert.Throws<SavekitException>(() => reader.Save());
                }
                var e = Assert.Throws<SavekitException>(
                    () => PrefsStore.Open(scratch.File("none.prefs"), new PrefsOpenOptions { CreateIfMissing = false }));
                Assert.AreEqual(Statuses.NotFound, e.Status);
                e = Assert.Throws<SavekitException>(() => PrefsStore.Open("a\0b"));
                Assert.AreEqual(Statuses.InvalidPath, e.Status);
                Assert.AreEqual(1UL, e.Offset);
                var closed = PrefsStore.Open(path);
                closed.Dispose();
                closed.Dispose();
                Assert.Throws<ObjectDisposedException>(() => closed.SetInt("a", 1));
                using (var store = PrefsStore.Open(path))
                {
                    Assert.Throws<ArgumentNullException>(() => store.SetBytes("a", null));
                    e = Assert.Throws<SavekitException>(() => store.SetInt("", 1));
                    Assert.AreEqual(Statuses.InvalidKey, e.Status);
                }
            }
        }
    }
}
