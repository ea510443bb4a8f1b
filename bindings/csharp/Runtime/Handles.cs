// The library's handles as SafeHandles: released exactly once, never while a call that
// uses them is running (the runtime counts those), and by the finalizer if the game forgets.
using System;
using System.Runtime.InteropServices;

namespace Savekit
{
    internal sealed class PrefsHandle : SafeHandle
    {
        internal PrefsHandle(IntPtr handle) : base(IntPtr.Zero, true) { SetHandle(handle); }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.sk_prefs_close(handle); return true; }
    }

    internal sealed class SlotsHandle : SafeHandle
    {
        internal SlotsHandle(IntPtr handle) : base(IntPtr.Zero, true) { SetHandle(handle); }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.sk_slots_close(handle); return true; }
    }

    internal sealed class KeyringHandle : SafeHandle
    {
        internal KeyringHandle(IntPtr handle) : base(IntPtr.Zero, true) { SetHandle(handle); }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.sk_keyring_free(handle); return true; }
    }
}
