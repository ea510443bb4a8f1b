using System;
using System.IO;

namespace Savekit.Tests
{
    /// <summary>A folder of its own for each test, removed after it.</summary>
    public sealed class Scratch : IDisposable
    {
        public readonly string Folder;

        public Scratch()
        {
            Folder = Path.Combine(Path.GetTempPath(), "savekit-cs-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(Folder);
        }

        public string File(string name) { return Path.Combine(Folder, name); }

        public void Dispose()
        {
            try { Directory.Delete(Folder, true); }
            catch (IOException) { }
        }
    }
}
