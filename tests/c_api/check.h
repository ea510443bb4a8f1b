/* The checks the C ABI's tests share: each failed one is printed and counted. */
#ifndef SAVEKIT_TEST_C_CHECK_H
#define SAVEKIT_TEST_C_CHECK_H

#include <savekit/savekit.h>

#include <stdio.h>

static int failures = 0; /* one per test program: each includes this once */

#define CHECK(condition)                                                          \
  do {                                                                            \
    if (!(condition)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                                 \
    }                                                                             \
  } while (0)

#define CHECK_STATUS(call, expected)                                                                 \
  do {                                                                                               \
    sk_status got_ = (call);                                                                         \
    if (got_ != (expected)) {                                                                        \
      fprintf(stderr, "%s:%d: %s gave %s, not %s\n", __FILE__, __LINE__, #call, sk_status_name(got_), \
              sk_status_name(expected));                                                             \
      ++failures;                                                                                    \
    }                                                                                                \
  } while (0)

#endif
