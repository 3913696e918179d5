/* Kernel launches of compiled CUDA models (launch.c) and the per-instance
 * device state (instance_cuda.c). */
#ifndef AUTOGLM_RUNTIME_CUDA_LAUNCH_H
#define AUTOGLM_RUNTIME_CUDA_LAUNCH_H

#include "blas.h"
#include "driver.h"

#include <stddef.h>
#include <stdint.h>

/* ---- called by compiled models (declared for the tests too) ------------ */
#define AGL_EXPORT __attribute__((visibility("default")))
AGL_EXPORT void *mgpuModuleLoad(void *data, size_t size);
AGL_EXPORT void mgpuModuleUnload(void *module);
AGL_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
AGL_EXPORT void *mgpuStreamCreate(void);
AGL_EXPORT void mgpuStreamSynchronize(void *stream);
AGL_EXPORT void mgpuStreamDestroy(void *stream);
AGL_EXPORT void mgpuLaunchKernel(void *function, intptr_t grid_x,
                                 intptr_t grid_y, intptr_t grid_z,
                                 intptr_t block_x, intptr_t block_y,
                                 intptr_t block_z, int32_t shared_bytes,
                                 void *stream, void **params, void **extra,
                                 size_t num_params);

/* Called by models compiled with --profile around each launch and library
 * call (profile_cuda.c): begin records an event on the run's stream and
 * returns its pair's token (0 when the instance is not profiling or its
 * events are used up); end records the pair's second event. */
AGL_EXPORT uint64_t agl_cuda_profile_begin(void);
AGL_EXPORT void agl_cuda_profile_end(int32_t kernel, uint64_t token);

/* ---- the runtime's side ------------------------------------------------- */
/* An instance's kernel profile: pairs of CUDA events, made when its
 * capacity is set (null: not profiling). */
typedef struct agl_cuda_profile agl_cuda_profile;
/* Makes the calling thread's launches go to `stream` until unbound, with
 * `blas` the instance's cuBLAS handle (made by its first product); unbind
 * returns the run's first failure (and records its message), and sets
 * `capturable` (if not null) to whether the run's work could be captured
 * into a CUDA graph. */
AGL_HIDDEN void agl_cuda_bind_run(CUstream stream, agl_cuda_blas **blas,
                                  agl_cuda_profile *profile);
AGL_HIDDEN agl_status agl_cuda_unbind_run(int *capturable);
/* Marks the bound run as one whose work a CUDA graph cannot hold (host
 * code that waits for the GPU: a host section). */
AGL_HIDDEN void agl_cuda_run_not_capturable(void);
/* For library calls of a run's host code (blas.c): the run's stream and
 * the instance's cuBLAS handle; 0 outside a run or after the run failed
 * (recording why, as launches do). */
AGL_HIDDEN int agl_cuda_run_binding(const char *caller, CUstream *stream,
                                    agl_cuda_blas ***blas);
/* The bound run's profile and stream; null outside a run, after it
 * failed or when the instance does not profile. */
AGL_HIDDEN agl_cuda_profile *agl_cuda_run_profile(CUstream *stream);
/* Fails the bound run with `message`, unless it failed already. */
AGL_HIDDEN void agl_cuda_run_failed(const char *message);
/* The failure recorded by mgpu* calls made outside a run on this thread
 * (and forgets it); AGL_OK if none. */
AGL_HIDDEN agl_status agl_cuda_outside_run_status(void);
/* Loads every registered image that is not loaded yet. */
AGL_HIDDEN agl_status agl_cuda_load_modules(const agl_cuda_api *api);
AGL_HIDDEN size_t agl_cuda_registered_modules(void);

/* An instance's device memory and stream. */
typedef struct agl_cuda_instance agl_cuda_instance;
AGL_HIDDEN agl_status agl_cuda_instance_create(const agl_model_desc *model,
                                               agl_cuda_instance **out);
AGL_HIDDEN void agl_cuda_instance_destroy(agl_cuda_instance *instance);
/* Uploads the weights (weights_size bytes of host memory) once. */
AGL_HIDDEN agl_status agl_cuda_instance_set_weights(
    agl_cuda_instance *instance, const void *weights);
/* The device address of input (output 0) or output (1) `index`'s buffer. */
AGL_HIDDEN void *agl_cuda_instance_buffer(const agl_cuda_instance *instance,
                                          int output, int32_t index);
/* Queues a run on the instance's stream: the copies of the inputs that are
 * not null, the model's kernels on the device buffers, the copies of the
 * outputs that are not null; returns without waiting. A failure to queue
 * (a launch, a copy, the entry function's code) is returned here, after
 * what was queued has finished. */
AGL_HIDDEN agl_status agl_cuda_instance_enqueue(agl_cuda_instance *instance,
                                                const void *const *inputs,
                                                void *const *outputs,
                                                const int64_t *symbols,
                                                int64_t *output_dims);
/* Waits until the stream is idle; a failure of the queued work. */
AGL_HIDDEN agl_status agl_cuda_instance_wait(agl_cuda_instance *instance);
/* Room for `max_events` kernel events per run (0: none; profiled runs are
 * never CUDA graphs). After a run has finished, moves its events into
 * `into` (their times the GPU's, on the host clock from the run's
 * start). */
AGL_HIDDEN agl_status agl_cuda_instance_set_profile(agl_cuda_instance *instance,
                                                    size_t max_events);
AGL_HIDDEN agl_status agl_cuda_instance_collect_profile(
    agl_cuda_instance *instance, agl_profile *into);

/* The profile's events, made on the current context (AGL_ERR_DEVICE when
 * the driver has no events); its pairs; a run's start; its pairs moved
 * into `into`, the profile emptied for the next run. */
AGL_HIDDEN agl_status agl_cuda_profile_create(const agl_cuda_api *api,
                                              size_t pairs,
                                              agl_cuda_profile **out);
AGL_HIDDEN void agl_cuda_profile_destroy(agl_cuda_profile *profile);
AGL_HIDDEN void agl_cuda_profile_start_run(agl_cuda_profile *profile);
AGL_HIDDEN agl_status agl_cuda_profile_collect(agl_cuda_profile *profile,
                                               agl_profile *into);

#endif /* AUTOGLM_RUNTIME_CUDA_LAUNCH_H */
