/* CHECK(condition) for the C tests of the runtime: on failure, prints the
 * condition and the runtime's last error and returns 1 from the caller. */
#ifndef AUTOGLM_TEST_CHECK_H
#define AUTOGLM_TEST_CHECK_H

#include "autoglm/runtime.h"

#include <stdio.h>

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,            \
              #condition, agl_last_error());                                   \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#endif /* AUTOGLM_TEST_CHECK_H */
