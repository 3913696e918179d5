/* The CUDA driver API, loaded at run time.
 *
 * The runtime does not link libcuda: programs that never run a GPU model
 * must work on machines without a driver. The first CUDA instance loads
 * libcuda.so.1 (or the library named by AUTOGLM_CUDA_DRIVER) with dlopen,
 * initializes it and retains device 0's primary context (or the device
 * numbered by AUTOGLM_CUDA_DEVICE); a failed attempt is not remembered, so
 * a later one tries again. The types below are the driver's own ABI
 * (cuda.h), declared here so that building the runtime needs no CUDA
 * headers. */
#ifndef AUTOGLM_RUNTIME_CUDA_DRIVER_H
#define AUTOGLM_RUNTIME_CUDA_DRIVER_H

#include "../internal.h"

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUevent_st *CUevent;

enum {
  AGL_CUDA_SUCCESS = 0,
  /* cuStreamBeginCapture's mode: unsafe calls (an allocation, a
   * synchronization) made by this thread during the capture fail it. */
  AGL_CUDA_CAPTURE_THREAD_LOCAL = 1
};

typedef struct agl_cuda_api {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x,
                             unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y,
                             unsigned block_z, unsigned shared_bytes,
                             CUstream stream, void **params, void **extra);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr to, const void *from, size_t bytes);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr to, const void *from,
                                size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void *to, CUdeviceptr from, size_t bytes,
                                CUstream stream);
  /* CUDA graphs (graph.c); null when the driver lacks them. */
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);
  /* Events, for kernel profiles (profile_cuda.c); null when the driver
   * lacks them. */
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent event);
} agl_cuda_api;

/* The driver, initialized, with the device's primary context current on
 * the calling thread; or AGL_ERR_DEVICE with a message that starts with
 * "no CUDA device: " and says why (no driver, no device, the driver's
 * error). */
AGL_HIDDEN agl_status agl_cuda_open(const agl_cuda_api **api,
                                    CUcontext *context);

/* The loaded driver, or null when none has been opened (never opens one). */
AGL_HIDDEN const agl_cuda_api *agl_cuda_loaded(void);

/* Makes the loaded driver's context current on the calling thread (an
 * error when no driver is loaded). */
AGL_HIDDEN CUresult agl_cuda_make_current(void);

/* Writes "NAME (description)" of a driver error into `text`. */
AGL_HIDDEN void agl_cuda_describe(CUresult error, char *text, size_t size);

/* Records "what: NAME (description)" as the last error; returns
 * AGL_ERR_DEVICE. */
AGL_HIDDEN agl_status agl_cuda_fail(CUresult error, const char *what);

#endif /* AUTOGLM_RUNTIME_CUDA_DRIVER_H */
