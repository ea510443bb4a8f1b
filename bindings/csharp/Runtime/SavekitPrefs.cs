using System;

namespace Savekit
{
    /// <summary>PlayerPrefs' static API over one savekit store, at a path the game chooses
    /// (Application.persistentDataPath + "/prefs.savekit", say): byte-clean strings, bytes,
    /// and a Save() that is durable when it returns (PlayerPrefs flushes only on quit).
    /// <code>
    /// SavekitPrefs.Open(Application.persistentDataPath + "/player.prefs");
    /// SavekitPrefs.SetInt("level", 12);
    /// SavekitPrefs.Save();
    /// </code></summary>
    public static class SavekitPrefs
    {
        static readonly object Gate = new object();
        static PrefsStore store;

        /// <summary>Opens the store every call below uses (closing one opened before).</summary>
        public static void Open(string path, PrefsOpenOptions options = null)
        {
            PrefsStore opened = PrefsStore.Open(path, options);
            PrefsStore previous;
            lock (Gate)
            {
                previous = store;
                store = opened;
            }
            if (previous != null) previous.Dispose();
        }

        /// <summary>Waits for background saves and releases the file (OnApplicationQuit).</summary>
        public static void Close()
        {
            PrefsStore previous;
            lock (Gate)
            {
                previous = store;
                store = null;
            }
            if (previous != null) previous.Dispose();
        }

        public static bool IsOpen { get { lock (Gate) return store != null; } }

        static PrefsStore Store
        {
            get
            {
                lock (Gate)
                {
                    if (store == null) throw new InvalidOperationException("call SavekitPrefs.Open(path) first");
                    return store;
                }
            }
        }

        public static void SetInt(string key, int value) { Store.SetInt(key, value); }
        public static int GetInt(string key, int defaultValue = 0) { return Store.GetInt(key, defaultValue); }
        public static void SetFloat(string key, float value) { Store.SetFloat(key, value); }
        public static float GetFloat(string key, float defaultValue = 0f) { return Store.GetFloat(key, defaultValue); }
        public static void SetString(string key, string value) { Store.SetString(key, value); }
        public static string GetString(string key, string defaultValue = "") { return Store.GetString(key, defaultValue); }
        public static void SetBytes(string key, byte[] value) { Store.SetBytes(key, value); }
        public static byte[] GetBytes(string key) { return Store.GetBytes(key); }
        public static bool HasKey(string key) { return Store.HasKey(key); }
        public static void DeleteKey(string key) { Store.DeleteKey(key); }
        public static void DeleteAll() { Store.DeleteAll(); }
        public static void Save() { Store.Save(); }
        public static void SaveAsync(Action<SavekitException> done) { Store.SaveAsync(done); }
    }
}
