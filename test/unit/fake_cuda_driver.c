/* A stand-in for libcuda.so.1 on machines without a GPU: device memory is
 * host memory, a module is a fake_cuda_image, a launch calls its host
 * function. The runtime loads it through AUTOGLM_CUDA_DRIVER, so that its
 * CUDA layer (driver loading, device memory, copies, launches, error
 * reports) runs in the unit tests. FAKE_CUDA_FAIL=alloc|load|launch makes
 * that call fail as the real driver would. */
#include "fake_cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum {
  OK = 0,
  OUT_OF_MEMORY = 2,
  NO_BINARY_FOR_GPU = 209,
  NOT_FOUND = 500,
  ILLEGAL_ADDRESS = 700
};

static int failing(const char *call) {
  const char *fail = getenv("FAKE_CUDA_FAIL");
  return fail && strcmp(fail, call) == 0;
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  return OK;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return OK;
  case NO_BINARY_FOR_GPU: *name = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return OK;
  case NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; return OK;
  case ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return OK;
  }
  return 1;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == ILLEGAL_ADDRESS ? "an illegal memory access was encountered"
                                   : "fake driver error";
  return OK;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return OK;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return OK;
}

static int the_context, the_stream;

CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = &the_context;
  return OK;
}

CUresult cuCtxSetCurrent(void *context) { return context ? OK : 1; }

CUresult cuModuleLoadData(void **module, const void *image) {
  if (failing("load"))
    return NO_BINARY_FOR_GPU;
  *module = (void *)image;
  return OK;
}

CUresult cuModuleUnload(void *module) {
  (void)module;
  return OK;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  const fake_cuda_image *image = module;
  if (strcmp(image->kernel_name, name) != 0)
    return NOT_FOUND;
  memcpy(function, &image->kernel, sizeof(void *));
  return OK;
}

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)shared;
  (void)extra;
  if (failing("launch") || stream != &the_stream)
    return ILLEGAL_ADDRESS;
  void (*kernel)(unsigned, void **);
  memcpy(&kernel, &function, sizeof kernel);
  kernel(gx * gy * gz * bx * by * bz, params);
  return OK;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = &the_stream;
  return OK;
}

CUresult cuStreamDestroy_v2(void *stream) { return stream ? OK : 1; }
CUresult cuStreamSynchronize(void *stream) { return stream ? OK : 1; }

CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  if (failing("alloc"))
    return OUT_OF_MEMORY;
  void *memory = malloc(bytes);
  if (!memory)
    return OUT_OF_MEMORY;
  *pointer = (uintptr_t)memory;
  return OK;
}

CUresult cuMemFree_v2(unsigned long long pointer) {
  free((void *)(uintptr_t)pointer);
  return OK;
}

CUresult cuMemcpyHtoD_v2(unsigned long long to, const void *from,
                         size_t bytes) {
  memcpy((void *)(uintptr_t)to, from, bytes);
  return OK;
}

CUresult cuMemcpyHtoDAsync_v2(unsigned long long to, const void *from,
                              size_t bytes, void *stream) {
  (void)stream;
  return cuMemcpyHtoD_v2(to, from, bytes);
}

CUresult cuMemcpyDtoHAsync_v2(void *to, unsigned long long from, size_t bytes,
                              void *stream) {
  (void)stream;
  memcpy(to, (const void *)(uintptr_t)from, bytes);
  return OK;
}
