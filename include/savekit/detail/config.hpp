// Compiler hints used on the codecs' hot paths.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define SAVEKIT_ALWAYS_INLINE inline __attribute__((always_inline))
#define SAVEKIT_LIKELY(x) __builtin_expect(!!(x), 1)
#define SAVEKIT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SAVEKIT_COLD __attribute__((cold, noinline))
#define SAVEKIT_NOINLINE __attribute__((noinline))
#else
#define SAVEKIT_COLD
#define SAVEKIT_NOINLINE
#define SAVEKIT_ALWAYS_INLINE inline
#define SAVEKIT_LIKELY(x) (x)
#define SAVEKIT_UNLIKELY(x) (x)
#endif
