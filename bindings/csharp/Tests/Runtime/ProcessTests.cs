// A second process, and a process killed with SIGKILL in the middle of saving: run under
// Mono only (Unity's test runner does not start processes). SAVEKIT_CS_SAVE_LOOP names the
// built SaveLoop.exe.
#if !UNITY_5_3_OR_NEWER
using System;
using System.Diagnostics;
using NUnit.Framework;

namespace Savekit.Tests
{
    [TestFixture]
    public class ProcessTests
    {
        static Process Start(string mode, string path)
        {
            string loop = Environment.GetEnvironmentVariable("SAVEKIT_CS_SAVE_LOOP");
            if (string.IsNullOrEmpty(loop)) Assert.Ignore("SAVEKIT_CS_SAVE_LOOP is not set");
            var info = new ProcessStartInfo("mono", "\"" + loop + "\" " + mode + " \"" + path + "\"")
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
            };
            return Process.Start(info);
        }

        [Test]
        public void ASecondProcessIsLockedOut()
        {
            using (var scratch = new Scratch())
            {
                string path = scratch.File("p.prefs");
                using (var store = PrefsStore.Open(path))
                {
                    store.SetInt("a", 1);
                    store.Save();
                    using (Process other = Start("try-open", path))
                    {
                        Assert.AreEqual("locked", other.StandardOutput.ReadLine());
                        other.WaitForExit();
                    }
                }
                using (Process other = Start("try-open", path))  // released with Dispose
                {
                    Assert.AreEqual("opened", other.StandardOutput.ReadLine());
                    other.WaitForExit();
                }
            }
        }

        // Killed at a random point of its Save() loop, the store opens at a commit no older
        // than the last one Save() returned for, and whole (its two keys from one commit).
        [Test]
        public void AKillDuringSaveLeavesTheLastSavedCommit()
        {
            var random = new Random(Environment.TickCount);
            using (var scratch = new Scratch())
            {
                string path = scratch.File("p.prefs");
                for (int round = 0; round < 3; ++round)
                {
                    long acknowledged = 0;
                    int wanted = random.Next(3, 40);
                    using (Process loop = Start("loop", path))
                    {
                        // Waits for progress, not for time: a loaded machine only makes it slower.
                        for (int seen = 0; seen < wanted; ++seen)
                        {
                            string line = loop.StandardOutput.ReadLine();
                            Assert.IsNotNull(line, "the save loop ended early");
                            acknowledged = long.Parse(line);
                        }
                        loop.Kill();  // SIGKILL under Mono on Linux
                        loop.WaitForExit();
                    }
                    using (var store = PrefsStore.Open(path))
                    {
                        long counter = store.GetLong("counter", -1);
                        Assert.GreaterOrEqual(counter, acknowledged, "round " + round);
                        Assert.AreEqual(SaveLoop.PayloadFor(counter), store.GetString("payload"), "round " + round);
                    }
                }
            }
        }
    }
}
#endif
