/* A stand-in for libcuda.so.1 on machines without a GPU: device memory is
 * host memory, a module is a fake_cuda_image, a launch calls its host
 * function. The runtime loads it through AUTOGLM_CUDA_DRIVER, so that its
 * CUDA layer (driver loading, device memory, copies, launches, error
 * reports) runs in the unit tests. FAKE_CUDA_FAIL=alloc|load|launch|sync
 * makes that call fail as the real driver would (sync: as after a kernel
 * fault). With FAKE_CUDA_DEFER=1 the stream is asynchronous, as a GPU's is:
 * its copies and launches wait in a queue until cuStreamSynchronize. */
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

/* The stream's queue when deferring: copies and launches in order. */
enum { MAX_QUEUED = 64, COPY = 0, LAUNCH = 1 };
typedef struct queued_op {
  int kind;
  void *to;
  const void *from;
  size_t bytes;
  void (*kernel)(unsigned, void **);
  unsigned threads;
  void *params[FAKE_CUDA_KERNEL_PARAMS];
  void *values[FAKE_CUDA_KERNEL_PARAMS];
} queued_op;
static queued_op queue[MAX_QUEUED];
static int queued;

static int deferring(void) {
  const char *defer = getenv("FAKE_CUDA_DEFER");
  return defer && strcmp(defer, "1") == 0;
}

static queued_op *enqueue(void) {
  if (queued == MAX_QUEUED)
    return NULL;
  memset(&queue[queued], 0, sizeof queue[queued]);
  return &queue[queued++];
}

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
  unsigned threads = gx * gy * gz * bx * by * bz;
  if (!deferring()) {
    kernel(threads, params);
    return OK;
  }
  /* As the driver does, keep the parameters' values, not their addresses. */
  queued_op *op = enqueue();
  if (!op)
    return OUT_OF_MEMORY;
  op->kind = LAUNCH;
  op->kernel = kernel;
  op->threads = threads;
  for (int i = 0; i < FAKE_CUDA_KERNEL_PARAMS; ++i) {
    memcpy(&op->values[i], params[i], sizeof(void *));
    op->params[i] = &op->values[i];
  }
  return OK;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = &the_stream;
  return OK;
}

CUresult cuStreamDestroy_v2(void *stream) { return stream ? OK : 1; }
CUresult cuStreamSynchronize(void *stream) {
  if (!stream)
    return 1;
  for (int i = 0; i < queued; ++i) {
    queued_op *op = &queue[i];
    if (op->kind == LAUNCH)
      op->kernel(op->threads, op->params);
    else
      memcpy(op->to, op->from, op->bytes);
  }
  queued = 0;
  return failing("sync") ? ILLEGAL_ADDRESS : OK;
}

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

static CUresult copy_async(void *to, const void *from, size_t bytes) {
  if (!deferring()) {
    memcpy(to, from, bytes);
    return OK;
  }
  queued_op *op = enqueue();
  if (!op)
    return OUT_OF_MEMORY;
  op->kind = COPY;
  op->to = to;
  op->from = from;
  op->bytes = bytes;
  return OK;
}

CUresult cuMemcpyHtoDAsync_v2(unsigned long long to, const void *from,
                              size_t bytes, void *stream) {
  (void)stream;
  return copy_async((void *)(uintptr_t)to, from, bytes);
}

CUresult cuMemcpyDtoHAsync_v2(void *to, unsigned long long from, size_t bytes,
                              void *stream) {
  (void)stream;
  return copy_async(to, (const void *)(uintptr_t)from, bytes);
}
