/* A stand-in for libcuda.so.1 on machines without a GPU: device memory is
 * host memory, a module is a fake_cuda_image, a launch calls its host
 * function. The runtime loads it through AUTOGLM_CUDA_DRIVER, so that its
 * CUDA layer (driver loading, device memory, copies, launches, graphs,
 * error reports) runs in the unit tests. FAKE_CUDA_FAIL=alloc|load|launch|
 * sync|capture|graph_launch makes that call fail as the real driver would
 * (sync: as after a kernel fault). With FAKE_CUDA_DEFER=1 the stream is
 * asynchronous, as a GPU's is: its copies and launches wait in a queue
 * until cuStreamSynchronize. While the stream is captured, its work is
 * recorded into a graph instead; a graph launch submits it again. The fake
 * cuBLAS submits its products as host work (fake_cuda_submit). */
#include "fake_cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  case OUT_OF_MEMORY:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return OK;
  case NO_BINARY_FOR_GPU:
    *name = "CUDA_ERROR_NO_BINARY_FOR_GPU";
    return OK;
  case NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    return OK;
  case ILLEGAL_ADDRESS:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return OK;
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

/* Work on the stream: copies, launches and host work (the fake cuBLAS's
 * products), run at once, queued (deferring) or recorded (capturing). */
enum { MAX_QUEUED = 64, COPY = 0, LAUNCH = 1, HOST_WORK = 2, EVENT = 3 };

/* An event holds the host clock at the moment the stream reached it. */
typedef struct fake_event {
  uint64_t ns;
} fake_event;
enum { STREAM_CAPTURE_UNSUPPORTED = 900, STREAM_CAPTURE_INVALIDATED = 901 };
typedef struct queued_op {
  int kind;
  void *to;
  const void *from;
  size_t bytes;
  void (*kernel)(unsigned, void **);
  unsigned threads;
  void *values[FAKE_CUDA_KERNEL_PARAMS];
  void (*work)(const void *);
  unsigned char args[FAKE_CUDA_WORK_ARGS];
} queued_op;
static queued_op queue[MAX_QUEUED];
static int queued;

typedef struct fake_graph {
  int count;
  queued_op ops[MAX_QUEUED];
} fake_graph;
static fake_graph *capture; /* while the stream is captured */
static int capture_invalid; /* an unsafe call during the capture */
int fake_cuda_captures;     /* graphs made by cuStreamEndCapture */
int fake_cuda_graph_launches;
int fake_cuda_live_graphs; /* graphs and executable graphs not destroyed */

static int deferring(void) {
  const char *defer = getenv("FAKE_CUDA_DEFER");
  return defer && strcmp(defer, "1") == 0;
}

static void run(const queued_op *op) {
  switch (op->kind) {
  case LAUNCH: {
    /* As the driver does, the kernel gets the parameters' values. */
    void *values[FAKE_CUDA_KERNEL_PARAMS], *params[FAKE_CUDA_KERNEL_PARAMS];
    for (int i = 0; i < FAKE_CUDA_KERNEL_PARAMS; ++i) {
      values[i] = op->values[i];
      params[i] = &values[i];
    }
    op->kernel(op->threads, params);
    break;
  }
  case COPY:
    memcpy(op->to, op->from, op->bytes);
    break;
  case HOST_WORK:
    op->work(op->args);
    break;
  case EVENT: {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    ((fake_event *)op->to)->ns =
        (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    break;
  }
  }
}

static CUresult submit(const queued_op *op) {
  if (capture) {
    if (capture->count == MAX_QUEUED)
      return OUT_OF_MEMORY;
    capture->ops[capture->count++] = *op;
    return OK;
  }
  if (!deferring()) {
    run(op);
    return OK;
  }
  if (queued == MAX_QUEUED)
    return OUT_OF_MEMORY;
  queue[queued++] = *op;
  return OK;
}

/* An unsafe call while the stream is captured fails and invalidates the
 * capture, as in the driver's thread-local capture mode. */
static int unsafe_during_capture(void) {
  if (capture)
    capture_invalid = 1;
  return capture != NULL;
}

int fake_cuda_submit(void (*work)(const void *), const void *args,
                     size_t bytes) {
  if (bytes > FAKE_CUDA_WORK_ARGS)
    return OUT_OF_MEMORY;
  queued_op op;
  memset(&op, 0, sizeof op);
  op.kind = HOST_WORK;
  op.work = work;
  memcpy(op.args, args, bytes);
  return submit(&op);
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
  queued_op op;
  memset(&op, 0, sizeof op);
  op.kind = LAUNCH;
  op.kernel = kernel;
  op.threads = gx * gy * gz * bx * by * bz;
  for (int i = 0; i < FAKE_CUDA_KERNEL_PARAMS; ++i)
    memcpy(&op.values[i], params[i], sizeof(void *));
  return submit(&op);
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
  if (unsafe_during_capture())
    return STREAM_CAPTURE_UNSUPPORTED;
  for (int i = 0; i < queued; ++i)
    run(&queue[i]);
  queued = 0;
  return failing("sync") ? ILLEGAL_ADDRESS : OK;
}

CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  if (stream != &the_stream || mode != 1 || capture || failing("capture"))
    return STREAM_CAPTURE_UNSUPPORTED;
  capture = calloc(1, sizeof *capture);
  capture_invalid = 0;
  return capture ? OK : OUT_OF_MEMORY;
}

CUresult cuStreamEndCapture(void *stream, fake_graph **graph) {
  if (stream != &the_stream || !capture)
    return STREAM_CAPTURE_INVALIDATED;
  fake_graph *made = capture;
  capture = NULL;
  if (capture_invalid) {
    free(made);
    *graph = NULL;
    return STREAM_CAPTURE_INVALIDATED;
  }
  ++fake_cuda_captures;
  ++fake_cuda_live_graphs;
  *graph = made;
  return OK;
}

CUresult cuGraphInstantiateWithFlags(fake_graph **exec, const fake_graph *graph,
                                     unsigned long long flags) {
  if (!graph || flags != 0)
    return 1;
  *exec = malloc(sizeof **exec);
  if (!*exec)
    return OUT_OF_MEMORY;
  **exec = *graph;
  ++fake_cuda_live_graphs;
  return OK;
}

CUresult cuGraphLaunch(const fake_graph *exec, void *stream) {
  if (!exec || stream != &the_stream || failing("graph_launch"))
    return ILLEGAL_ADDRESS;
  ++fake_cuda_graph_launches;
  for (int i = 0; i < exec->count; ++i) {
    CUresult result = submit(&exec->ops[i]);
    if (result != OK)
      return result;
  }
  return OK;
}

static CUresult destroy_graph(fake_graph *graph) {
  if (!graph)
    return 1;
  free(graph);
  --fake_cuda_live_graphs;
  return OK;
}

CUresult cuGraphExecDestroy(fake_graph *exec) { return destroy_graph(exec); }
CUresult cuGraphDestroy(fake_graph *graph) { return destroy_graph(graph); }

/* Bytes that cuMemAlloc gave out. */
size_t fake_cuda_bytes_allocated;

CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  if (unsafe_during_capture())
    return STREAM_CAPTURE_UNSUPPORTED;
  if (failing("alloc"))
    return OUT_OF_MEMORY;
  void *memory = malloc(bytes);
  if (!memory)
    return OUT_OF_MEMORY;
  *pointer = (uintptr_t)memory;
  fake_cuda_bytes_allocated += bytes;
  return OK;
}

CUresult cuMemFree_v2(unsigned long long pointer) {
  free((void *)(uintptr_t)pointer);
  return OK;
}

CUresult cuMemcpyHtoD_v2(unsigned long long to, const void *from,
                         size_t bytes) {
  if (unsafe_during_capture())
    return STREAM_CAPTURE_UNSUPPORTED;
  memcpy((void *)(uintptr_t)to, from, bytes);
  return OK;
}

/* Bytes that asynchronous copies moved each way. */
size_t fake_cuda_bytes_to_device, fake_cuda_bytes_to_host;

static CUresult copy_async(void *to, const void *from, size_t bytes) {
  queued_op op;
  memset(&op, 0, sizeof op);
  op.kind = COPY;
  op.to = to;
  op.from = from;
  op.bytes = bytes;
  return submit(&op);
}

CUresult cuMemcpyHtoDAsync_v2(unsigned long long to, const void *from,
                              size_t bytes, void *stream) {
  (void)stream;
  fake_cuda_bytes_to_device += bytes;
  return copy_async((void *)(uintptr_t)to, from, bytes);
}

CUresult cuMemcpyDtoHAsync_v2(void *to, unsigned long long from, size_t bytes,
                              void *stream) {
  (void)stream;
  fake_cuda_bytes_to_host += bytes;
  return copy_async(to, (const void *)(uintptr_t)from, bytes);
}

/* Events made and not destroyed. */
int fake_cuda_live_events;

CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  if (failing("event"))
    return OUT_OF_MEMORY;
  *event = calloc(1, sizeof(fake_event));
  if (!*event)
    return OUT_OF_MEMORY;
  ++fake_cuda_live_events;
  return OK;
}

CUresult cuEventRecord(void *event, void *stream) {
  (void)stream;
  queued_op op;
  memset(&op, 0, sizeof op);
  op.kind = EVENT;
  op.to = event;
  return submit(&op);
}

CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  *ms = (float)((double)((fake_event *)end)->ns -
                (double)((fake_event *)start)->ns) /
        1e6f;
  return OK;
}

CUresult cuEventDestroy_v2(void *event) {
  free(event);
  --fake_cuda_live_events;
  return OK;
}
