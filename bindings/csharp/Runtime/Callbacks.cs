// Completion callbacks from the library's worker threads, as IL2CPP requires them: one
// static method marked [MonoPInvokeCallback], the state reached through a GCHandle passed as
// the C `void* user`. The game's callback runs on that worker thread; an exception it throws
// never unwinds into native code: it is caught and handed to Callbacks.Failed.
using System;
using System.Runtime.InteropServices;

#if !UNITY_5_3_OR_NEWER
namespace AOT
{
    /// <summary>Unity's marker for methods native code calls back (IL2CPP compiles a reverse
    /// wrapper for them); defined here when building outside Unity (Mono).</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { }
    }
}
#endif

namespace Savekit
{
    public static class Callbacks
    {
        /// <summary>Raised (on the worker thread) with an exception a completion callback threw.
        /// Without a subscriber the exception is dropped: it cannot be thrown into the library.</summary>
        public static event Action<Exception> Failed;

        sealed class Pending
        {
            public Action<SavekitException> Done;
            public SafeHandle Handle;  // whose sk_last_error holds the details of a failure
        }

        // Set while a completion callback runs on this (the library's) thread: a Dispose there
        // is handed to the thread pool, as closing waits for this very thread's queue.
        [ThreadStatic] static bool inCallback;
        internal static bool InCallback { get { return inCallback; } }

        // Kept in a static field: the delegate the library holds is never collected.
        internal static readonly Native.DoneCallback OnDone = Complete;

        internal static IntPtr Hold(Action<SavekitException> done, SafeHandle handle)
        {
            return GCHandle.ToIntPtr(GCHandle.Alloc(new Pending { Done = done, Handle = handle }));
        }

        // For a call that failed before queueing anything: the callback will not run.
        internal static void Release(IntPtr user)
        {
            GCHandle.FromIntPtr(user).Free();
        }

        [AOT.MonoPInvokeCallback(typeof(Native.DoneCallback))]
        static void Complete(IntPtr user, int status)
        {
            try
            {
                GCHandle held = GCHandle.FromIntPtr(user);
                var pending = (Pending)held.Target;
                held.Free();
                if (pending.Done == null) return;
                SavekitException error = null;
                if (status != 0) error = Failures.For(status, pending.Handle.DangerousGetHandle());
                inCallback = true;
                try { pending.Done(error); }
                finally { inCallback = false; }
            }
            catch (Exception e)
            {
                try
                {
                    Action<Exception> failed = Failed;
                    if (failed != null) failed(e);
                }
                catch (Exception)
                {
                    // Nothing may leave this method.
                }
            }
        }
    }
}
