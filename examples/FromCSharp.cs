using System;
using System.Text;
using Savekit;

public static class FromCSharp
{
    public static void Main(string[] args)
    {
        string folder = args.Length > 0 ? args[0] : "saves";
        SavekitPrefs.Open(folder + "/player.prefs");  // Application.persistentDataPath in a game
        SavekitPrefs.SetInt("level", 12);
        SavekitPrefs.SetString("name", "Ada\0Lovelace \u3042");  // byte-clean: nothing is cut
        SavekitPrefs.Save();  // durable when it returns
        Console.WriteLine(SavekitPrefs.GetString("name").Length + " chars, level " + SavekitPrefs.GetInt("level"));
        SavekitPrefs.Close();

        using (SaveSlots slots = SaveSlots.Open(folder + "/slots"))
        {
            byte[] save = Encoding.UTF8.GetBytes("{\"gold\": 300}");  // the game's own serializer's bytes
            slots.Write("slot1", save, new SlotMeta { Title = "Chapter 2", Playtime = TimeSpan.FromHours(3.2) });
            foreach (SlotInfo slot in slots.List())
                Console.WriteLine(slot.Name + ": " + slot.Title + ", " + slot.Playtime.TotalSeconds + "s");
        }
    }
}
