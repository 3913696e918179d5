/* Host sections of compiled CUDA models.
 *
 * autoglm-compile --device-hint FAMILY=host runs that family's ops on the
 * host: each run of such ops becomes a host section in the model's host
 * code, which copies the device bytes the ops touch into the instance's
 * staging memory, runs them there and copies what they wrote back. The
 * staging memory is allocated at the first run (its size is the largest
 * any section asks for); later runs allocate nothing. The copies wait for
 * the work queued before them, and the copy back is done when it returns,
 * so the staging memory is free for the next section. Such a run is
 * launched op by op, never as a CUDA graph. */
#include "blas.h"
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>

enum { STAGING_ALIGNMENT = 64 };

void *agl_cuda_host_staging(int64_t bytes) {
  CUstream stream;
  agl_cuda_blas *state = agl_cuda_blas_of_run("agl_cuda_host_staging", &stream);
  if (!state)
    return NULL;
  /* Host code that waits for the GPU: no CUDA graph can hold the run. */
  agl_cuda_run_not_capturable();
  if (bytes < 1)
    bytes = 1;
  if ((size_t)bytes <= state->staging_bytes)
    return state->staging;
  size_t size = ((size_t)bytes + STAGING_ALIGNMENT - 1) / STAGING_ALIGNMENT *
                STAGING_ALIGNMENT;
  void *staging = aligned_alloc(STAGING_ALIGNMENT, size);
  if (!staging) {
    char message[160];
    snprintf(message, sizeof message,
             "out of host memory for the host sections (%lld bytes)",
             (long long)bytes);
    agl_cuda_run_failed(message);
    return NULL;
  }
  free(state->staging);
  state->staging = staging;
  state->staging_bytes = size;
  return staging;
}

/* Copies between the staging memory and the device on the run's stream and
 * waits for it; a failure fails the run with `what` and CUDA's text. */
static void copy_now(const char *caller, const char *what, int to_host,
                     void *host, CUdeviceptr device, int64_t bytes) {
  CUstream stream;
  const agl_cuda_api *api = agl_cuda_loaded();
  if (!agl_cuda_blas_of_run(caller, &stream) || !api || bytes <= 0)
    return;
  CUresult error =
      to_host ? api->cuMemcpyDtoHAsync(host, device, (size_t)bytes, stream)
              : api->cuMemcpyHtoDAsync(device, host, (size_t)bytes, stream);
  if (error == AGL_CUDA_SUCCESS)
    error = api->cuStreamSynchronize(stream);
  if (error != AGL_CUDA_SUCCESS) {
    char text[256], message[400];
    agl_cuda_describe(error, text, sizeof text);
    snprintf(message, sizeof message, "%s: %s", what, text);
    agl_cuda_run_failed(message);
  }
}

void agl_cuda_copy_to_host(void *host, const void *device, int64_t bytes) {
  copy_now("agl_cuda_copy_to_host", "copy of device memory to a host section",
           1, host, (CUdeviceptr)(uintptr_t)device, bytes);
}

void agl_cuda_copy_to_device(void *device, const void *host, int64_t bytes) {
  copy_now("agl_cuda_copy_to_device",
           "copy of a host section's result to device memory", 0,
           (void *)host, (CUdeviceptr)(uintptr_t)device, bytes);
}
