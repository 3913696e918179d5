/* Status strings and the per-thread message of the last failure. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

/* Per thread so that concurrent instances never read each other's errors;
 * a fixed buffer so that reporting a failure cannot itself fail. */
static _Thread_local char last_error[1024];

const char *agl_status_string(agl_status status) {
  switch (status) {
  case AGL_OK:
    return "ok";
  case AGL_ERR_INVALID_ARGUMENT:
    return "invalid argument";
  case AGL_ERR_OUT_OF_MEMORY:
    return "out of memory";
  case AGL_ERR_IO:
    return "I/O error";
  case AGL_ERR_ABI_MISMATCH:
    return "ABI version mismatch";
  case AGL_ERR_NOT_FOUND:
    return "not found";
  case AGL_ERR_MODEL_FAILED:
    return "model failed";
  case AGL_ERR_CACHE_FULL:
    return "KV cache full";
  case AGL_ERR_DEVICE:
    return "device error";
  }
  return "unknown status";
}

const char *agl_last_error(void) { return last_error; }

agl_status agl_fail(agl_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(last_error, sizeof last_error, format, args);
  va_end(args);
  return status;
}
