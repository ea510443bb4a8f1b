// The child process of ProcessTests (not part of the Unity test assembly: it runs under
// Mono here). Usage:
//   SaveLoop.exe loop PATH       save, print the counter once Save() returned, forever
//   SaveLoop.exe try-open PATH   print "opened", or the status name opening failed with
#if !UNITY_5_3_OR_NEWER
using System;
using System.Text;

namespace Savekit.Tests
{
    public static class SaveLoop
    {
        // What a commit with counter i holds: a later reader checks one against the other.
        public static string PayloadFor(long i)
        {
            var text = new StringBuilder();
            while (text.Length < 4096) text.Append(i).Append('\u3042');
            return text.ToString();
        }

        public static int Main(string[] args)
        {
            if (args.Length != 2) return 2;
            if (args[0] == "try-open")
            {
                try
                {
                    using (PrefsStore.Open(args[1])) Console.WriteLine("opened");
                }
                catch (SavekitException e)
                {
                    Console.WriteLine(e.StatusName);
                }
                return 0;
            }
            using (var store = PrefsStore.Open(args[1]))
            {
                long start = store.GetLong("counter", 0);
                for (long i = start + 1; i < start + 1000000; ++i)
                {
                    store.SetLong("counter", i);
                    store.SetString("payload", PayloadFor(i));
                    store.Save();
                    Console.WriteLine(i);  // only after Save() returned: durable
                    Console.Out.Flush();
                }
            }
            return 0;
        }
    }
}
#endif
