// The C# half of bench/abi_overhead.cpp: the same calls through P/Invoke (Savekit.PrefsStore).
//   mono AbiOverhead.exe FOLDER [ROUNDS]
using System;
using System.Collections.Generic;
using System.Diagnostics;
using Savekit;

public static class AbiOverhead
{
    static double NsPerCall(int n, Action<int> body)
    {
        var watch = Stopwatch.StartNew();
        for (int i = 0; i < n; ++i) body(i);
        return watch.Elapsed.TotalMilliseconds * 1e6 / n;
    }

    static double Median(List<double> v)
    {
        v.Sort();
        return v[v.Count / 2];
    }

    static void Print(string op, double ns)
    {
        string value = ns.ToString("F2", System.Globalization.CultureInfo.InvariantCulture);
        Console.WriteLine("{\"layer\":\"C# P/Invoke\",\"op\":\"" + op + "\",\"ns\":" + value + "}");
    }

    public static int Main(string[] args)
    {
        int rounds = args.Length > 1 ? int.Parse(args[1]) : 5;
        var ints = new List<double>();
        var bytes = new List<double>();
        var blob = new byte[4096];
        long sink = 0;
        using (var store = PrefsStore.Open(args[0] + "/cs.prefs"))
        {
            for (int r = 0; r < rounds + 1; ++r)
            {
                double a = NsPerCall(200000, i => { store.SetLong("level", i); sink += store.GetLong("level"); });
                double b = NsPerCall(20000, i => store.SetBytes("blob", blob));
                if (r == 0) continue;  // warm-up (the JIT)
                ints.Add(a);
                bytes.Add(b);
            }
        }
        if (sink == 0) return 1;
        Print("set_int+get_int", Median(ints));
        Print("set_bytes 4 KB", Median(bytes));
        return 0;
    }
}
