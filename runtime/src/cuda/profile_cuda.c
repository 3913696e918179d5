/* Kernel profiles of CUDA models. A model compiled with --profile brackets
 * each kernel launch, library call and host section of its host code with
 * agl_cuda_profile_begin/_end, which record a pair of CUDA events on the
 * run's stream. Once the run has finished, each pair's times, the GPU's,
 * become one event of the instance's profile, placed on the host clock
 * from the moment the run was queued. The events are made when the
 * profile's capacity is set: recording makes nothing. */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>

struct agl_cuda_profile {
  const agl_cuda_api *api;
  CUevent *events;  /* 2 per pair: its start, its end */
  int32_t *kernels; /* the kernel of each pair in use */
  size_t pairs, used;
  uint64_t dropped;      /* brackets of the run that found no free pair */
  uint64_t run_begin_ns; /* host clock when the run was queued */
};

void agl_cuda_profile_destroy(agl_cuda_profile *profile) {
  if (!profile)
    return;
  for (size_t i = 0; profile->events && i < 2 * profile->pairs; ++i)
    if (profile->events[i])
      profile->api->cuEventDestroy(profile->events[i]);
  free(profile->events);
  free(profile->kernels);
  free(profile);
}

agl_status agl_cuda_profile_create(const agl_cuda_api *api, size_t pairs,
                                   agl_cuda_profile **out) {
  *out = NULL;
  if (!api->cuEventCreate)
    return agl_fail(AGL_ERR_DEVICE, "the CUDA driver has no events "
                                    "(cuEventCreate): it cannot profile");
  agl_cuda_profile *profile = calloc(1, sizeof *profile);
  if (profile) {
    profile->api = api;
    profile->events = calloc(2 * pairs, sizeof *profile->events);
    profile->kernels = calloc(pairs, sizeof *profile->kernels);
  }
  if (!profile || !profile->events || !profile->kernels) {
    agl_cuda_profile_destroy(profile);
    return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                    "cannot allocate a profile of %zu events", pairs);
  }
  profile->pairs = pairs;
  for (size_t i = 0; i < 2 * pairs; ++i) {
    CUresult result = api->cuEventCreate(&profile->events[i], 0);
    if (result != AGL_CUDA_SUCCESS) {
      profile->events[i] = NULL;
      agl_cuda_profile_destroy(profile);
      return agl_cuda_fail(result, "cannot make the profile's CUDA events "
                                   "(cuEventCreate)");
    }
  }
  *out = profile;
  return AGL_OK;
}

void agl_cuda_profile_start_run(agl_cuda_profile *profile) {
  profile->used = 0;
  profile->dropped = 0;
  profile->run_begin_ns = agl_profile_now_ns();
}

/* Records event `index` on the stream; a failure fails the run. */
static int record(agl_cuda_profile *profile, size_t index, CUstream stream) {
  CUresult result = profile->api->cuEventRecord(profile->events[index], stream);
  if (result == AGL_CUDA_SUCCESS)
    return 1;
  char message[300];
  char text[256];
  agl_cuda_describe(result, text, sizeof text);
  snprintf(message, sizeof message, "cuEventRecord (profile): %s", text);
  agl_cuda_run_failed(message);
  return 0;
}

uint64_t agl_cuda_profile_begin(void) {
  CUstream stream;
  agl_cuda_profile *profile = agl_cuda_run_profile(&stream);
  if (!profile)
    return 0;
  if (profile->used == profile->pairs) {
    ++profile->dropped;
    return 0;
  }
  size_t pair = profile->used;
  if (!record(profile, 2 * pair, stream))
    return 0;
  profile->kernels[pair] = -1; /* until its end is recorded */
  ++profile->used;
  return pair + 1;
}

void agl_cuda_profile_end(int32_t kernel, uint64_t token) {
  CUstream stream;
  agl_cuda_profile *profile = agl_cuda_run_profile(&stream);
  if (!profile || token == 0 || token > profile->used)
    return;
  if (record(profile, 2 * (token - 1) + 1, stream))
    profile->kernels[token - 1] = kernel;
}

agl_status agl_cuda_profile_collect(agl_cuda_profile *profile,
                                    agl_profile *into) {
  const agl_cuda_api *api = profile->api;
  agl_status status = AGL_OK;
  for (size_t pair = 0; pair < profile->used && status == AGL_OK; ++pair) {
    if (profile->kernels[pair] < 0)
      continue; /* the run failed inside the bracket */
    float start_ms = 0, end_ms = 0;
    CUresult result = api->cuEventElapsedTime(&start_ms, profile->events[0],
                                              profile->events[2 * pair]);
    if (result == AGL_CUDA_SUCCESS)
      result = api->cuEventElapsedTime(&end_ms, profile->events[0],
                                       profile->events[2 * pair + 1]);
    if (result != AGL_CUDA_SUCCESS) {
      status = agl_cuda_fail(result, "cannot read the profile's CUDA events "
                                     "(cuEventElapsedTime)");
      break;
    }
    if (into)
      agl_profile_add(into, profile->kernels[pair],
                      profile->run_begin_ns + (uint64_t)(start_ms * 1e6),
                      profile->run_begin_ns + (uint64_t)(end_ms * 1e6));
  }
  if (into)
    agl_profile_drop(into, profile->dropped);
  profile->used = 0;
  profile->dropped = 0;
  return status;
}
