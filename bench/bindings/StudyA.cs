// Study A from C# (issue 43), as the seed's Unity developers ran it, over savekit's
// SavekitPrefs: the seed's Status saved per key (its eleven fields: SetInt / SetString) and
// as one object (the C# side's own JSON, DataContractJsonSerializer, through SetString),
// each without and with a durable Save() after every save. Prints JSON lines as
// study_a_layers.cpp does (ms per 10,000, one run each).
//   mono StudyA.exe FOLDER [ITERATIONS] [RUNS] [DURABLE_ITERATIONS]
// (A durable save is an fsync: DURABLE_ITERATIONS, 1,000 by default, scaled to ms per 10,000.)
using System;
using System.Diagnostics;
using System.IO;
using System.Runtime.Serialization;
using System.Runtime.Serialization.Json;
using System.Text;
using Savekit;

[DataContract]
public sealed class Equip
{
    [DataMember(Order = 0)] public string name = "";
    [DataMember(Order = 1)] public int atk;
    [DataMember(Order = 2)] public int def;
    [DataMember(Order = 3)] public int spd;
}

[DataContract]
public sealed class Status
{
    [DataMember(Order = 0)] public int lv;
    [DataMember(Order = 1)] public int exp;
    [DataMember(Order = 2)] public int hp;
    [DataMember(Order = 3)] public int max_hp;
    [DataMember(Order = 4)] public int atk;
    [DataMember(Order = 5)] public int def;
    [DataMember(Order = 6)] public int spd;
    [DataMember(Order = 7)] public Equip equip = new Equip();

    public static Status Seed()
    {
        return new Status { lv = 1, exp = 0, hp = 10, max_hp = 10, atk = 1, def = 1, spd = 1,
                            equip = new Equip { name = "ぬののふく", atk = 0, def = 1, spd = 0 } };
    }

    public bool SameAs(Status o)
    {
        return lv == o.lv && exp == o.exp && hp == o.hp && max_hp == o.max_hp && atk == o.atk && def == o.def &&
               spd == o.spd && equip.name == o.equip.name && equip.atk == o.equip.atk && equip.def == o.equip.def &&
               equip.spd == o.equip.spd;
    }
}

public static class StudyA
{
    static readonly DataContractJsonSerializer Json = new DataContractJsonSerializer(typeof(Status));

    static void SavePerKey(Status s)
    {
        SavekitPrefs.SetInt("Status1.lv", s.lv);
        SavekitPrefs.SetInt("Status1.exp", s.exp);
        SavekitPrefs.SetInt("Status1.hp", s.hp);
        SavekitPrefs.SetInt("Status1.max_hp", s.max_hp);
        SavekitPrefs.SetInt("Status1.atk", s.atk);
        SavekitPrefs.SetInt("Status1.def", s.def);
        SavekitPrefs.SetInt("Status1.spd", s.spd);
        SavekitPrefs.SetInt("Status1.equip.atk", s.equip.atk);
        SavekitPrefs.SetInt("Status1.equip.def", s.equip.def);
        SavekitPrefs.SetInt("Status1.equip.spd", s.equip.spd);
        SavekitPrefs.SetString("Status1.equip.name", s.equip.name);
    }

    static Status LoadPerKey()
    {
        return new Status
        {
            lv = SavekitPrefs.GetInt("Status1.lv"), exp = SavekitPrefs.GetInt("Status1.exp"),
            hp = SavekitPrefs.GetInt("Status1.hp"), max_hp = SavekitPrefs.GetInt("Status1.max_hp"),
            atk = SavekitPrefs.GetInt("Status1.atk"), def = SavekitPrefs.GetInt("Status1.def"),
            spd = SavekitPrefs.GetInt("Status1.spd"),
            equip = new Equip
            {
                name = SavekitPrefs.GetString("Status1.equip.name"), atk = SavekitPrefs.GetInt("Status1.equip.atk"),
                def = SavekitPrefs.GetInt("Status1.equip.def"), spd = SavekitPrefs.GetInt("Status1.equip.spd"),
            },
        };
    }

    static void SaveObject(Status s)
    {
        using (var stream = new MemoryStream())
        {
            Json.WriteObject(stream, s);
            SavekitPrefs.SetString("Status1", Encoding.UTF8.GetString(stream.GetBuffer(), 0, (int)stream.Length));
        }
    }

    static Status LoadObject()
    {
        using (var stream = new MemoryStream(Encoding.UTF8.GetBytes(SavekitPrefs.GetString("Status1"))))
            return (Status)Json.ReadObject(stream);
    }

    public static int Main(string[] args)
    {
        string folder = args[0];
        int iterations = args.Length > 1 ? int.Parse(args[1]) : 10000;
        int runs = args.Length > 2 ? int.Parse(args[2]) : 3;
        int durableN = args.Length > 3 ? int.Parse(args[3]) : 1000;
        Status status = Status.Seed();
        foreach (bool durable in new[] { false, true })
            foreach (string way in new[] { "per key", "object (DataContractJsonSerializer)" })
                for (int run = 0; run < runs; ++run)
                {
                    string path = Path.Combine(folder, "cs-study-a.prefs");
                    File.Delete(path);
                    SavekitPrefs.Open(path);
                    bool perKey = way == "per key";
                    int n = durable ? durableN : iterations;
                    if (run == 0)  // a first call of each way outside the timing: the JIT
                    {
                        if (perKey) { SavePerKey(status); LoadPerKey(); } else { SaveObject(status); LoadObject(); }
                    }
                    var watch = Stopwatch.StartNew();
                    for (int i = 0; i < n; ++i)
                    {
                        if (perKey) SavePerKey(status); else SaveObject(status);
                        if (durable) SavekitPrefs.Save();
                    }
                    double saveMs = watch.Elapsed.TotalMilliseconds;
                    Status loaded = null;
                    watch = Stopwatch.StartNew();
                    for (int i = 0; i < n; ++i) loaded = perKey ? LoadPerKey() : LoadObject();
                    double loadMs = watch.Elapsed.TotalMilliseconds;
                    SavekitPrefs.Close();
                    if (!loaded.SameAs(status)) { Console.Error.WriteLine(way + ": the loaded Status differs"); return 1; }
                    var c = System.Globalization.CultureInfo.InvariantCulture;
                    Console.WriteLine("{\"layer\":\"C#\",\"way\":\"" + way + "\",\"durable\":" + (durable ? "true" : "false") +
                                      ",\"save_ms\":" + (saveMs * 10000 / n).ToString("F3", c) +
                                      ",\"load_ms\":" + (loadMs * 10000 / n).ToString("F3", c) + "}");
                }
        return 0;
    }
}
