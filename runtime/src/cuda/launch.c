/* The mgpu* functions that compiled CUDA models call (MLIR's gpu-to-llvm
 * lowering and gpu.binary translation emit the calls; the signatures are
 * theirs). Host code of a model runs inside agl_instance_run, which binds
 * the instance's stream to the thread (agl_cuda_bind_run): every kernel
 * goes to that stream, and the "stream" the model creates, synchronizes
 * and destroys around each launch is that one stream, so kernels are
 * queued back to back and the run waits once at its end. The functions
 * return nothing, so the first failure of a run is kept for the runtime
 * to report when the model returns.
 *
 * Modules: each gpu.binary of a model registers its image from a global
 * constructor (mgpuModuleLoad), when the program or library is loaded,
 * before any driver exists; the driver loads the registered images when
 * an instance is created (agl_cuda_load_modules), once per process. */
#include "launch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CACHED_FUNCTIONS = 4 };

struct agl_cuda_module {
  const void *image;
  size_t size;
  CUmodule module; /* null until loaded */
  /* Outlining gives each kernel its own module; a few slots suffice. */
  int num_cached;
  const char *names[CACHED_FUNCTIONS];
  CUfunction functions[CACHED_FUNCTIONS];
  struct agl_cuda_module *next;
};

static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static struct agl_cuda_module *modules;

typedef struct run_binding {
  CUstream stream;
  agl_cuda_blas **blas;
  agl_cuda_profile *profile;
  int bound;
  int capturable; /* nothing in the run stops a CUDA graph capture */
  agl_status status;
  char message[512];
} run_binding;

static _Thread_local run_binding current;

void agl_cuda_bind_run(CUstream stream, agl_cuda_blas **blas,
                       agl_cuda_profile *profile) {
  current.stream = stream;
  current.blas = blas;
  current.profile = profile;
  current.bound = 1;
  current.capturable = 1;
  current.status = AGL_OK;
  current.message[0] = '\0';
}

agl_status agl_cuda_unbind_run(int *capturable) {
  if (capturable)
    *capturable = current.capturable;
  current.bound = 0;
  current.stream = NULL;
  current.blas = NULL;
  current.profile = NULL;
  if (current.status != AGL_OK)
    return agl_fail(current.status, "%s", current.message);
  return AGL_OK;
}

/* Keeps the first failure of the run. */
static void run_failed(const char *what, CUresult error) {
  if (current.status != AGL_OK)
    return;
  current.status = AGL_ERR_DEVICE;
  if (error == AGL_CUDA_SUCCESS) {
    snprintf(current.message, sizeof current.message, "%s", what);
    return;
  }
  char text[256];
  agl_cuda_describe(error, text, sizeof text);
  snprintf(current.message, sizeof current.message, "%.250s: %.250s", what,
           text);
}

/* Whether launches may go ahead: inside a run that has not failed. */
static int run_ok(const char *caller) {
  if (!current.bound) {
    if (current.status == AGL_OK) {
      current.status = AGL_ERR_DEVICE;
      snprintf(current.message, sizeof current.message,
               "%s called outside agl_instance_run: a CUDA model runs "
               "through the runtime",
               caller);
    }
    return 0;
  }
  return current.status == AGL_OK;
}

int agl_cuda_run_binding(const char *caller, CUstream *stream,
                         agl_cuda_blas ***blas) {
  if (!run_ok(caller))
    return 0;
  *stream = current.stream;
  *blas = current.blas;
  return 1;
}

void agl_cuda_run_failed(const char *message) { run_failed(message, 0); }

agl_cuda_profile *agl_cuda_run_profile(CUstream *stream) {
  if (!current.bound || current.status != AGL_OK || !current.profile)
    return NULL;
  *stream = current.stream;
  return current.profile;
}

void agl_cuda_run_not_capturable(void) { current.capturable = 0; }

agl_status agl_cuda_outside_run_status(void) {
  agl_status status = current.status;
  if (status != AGL_OK)
    agl_fail(status, "%s", current.message);
  current.status = AGL_OK;
  current.message[0] = '\0';
  return status;
}

static agl_status load_module(const agl_cuda_api *api,
                              struct agl_cuda_module *entry) {
  if (entry->module)
    return AGL_OK;
  CUresult result = api->cuModuleLoadData(&entry->module, entry->image);
  if (result != AGL_CUDA_SUCCESS) {
    entry->module = NULL;
    return agl_cuda_fail(result, "cannot load the model's GPU code "
                                 "(cuModuleLoadData; was it compiled for "
                                 "this GPU's --gpu-arch?)");
  }
  return AGL_OK;
}

agl_status agl_cuda_load_modules(const agl_cuda_api *api) {
  agl_status status = AGL_OK;
  pthread_mutex_lock(&modules_lock);
  for (struct agl_cuda_module *m = modules; m && status == AGL_OK;
       m = m->next)
    status = load_module(api, m);
  pthread_mutex_unlock(&modules_lock);
  return status;
}

size_t agl_cuda_registered_modules(void) {
  size_t count = 0;
  pthread_mutex_lock(&modules_lock);
  for (struct agl_cuda_module *m = modules; m; m = m->next)
    ++count;
  pthread_mutex_unlock(&modules_lock);
  return count;
}

void *mgpuModuleLoad(void *data, size_t size) {
  struct agl_cuda_module *entry = calloc(1, sizeof *entry);
  if (!entry)
    return NULL; /* launches from it then fail with a message */
  entry->image = data;
  entry->size = size;
  pthread_mutex_lock(&modules_lock);
  entry->next = modules;
  modules = entry;
  pthread_mutex_unlock(&modules_lock);
  return entry;
}

void mgpuModuleUnload(void *module) {
  struct agl_cuda_module *entry = module;
  if (!entry)
    return;
  pthread_mutex_lock(&modules_lock);
  for (struct agl_cuda_module **link = &modules; *link;
       link = &(*link)->next) {
    if (*link == entry) {
      *link = entry->next;
      break;
    }
  }
  pthread_mutex_unlock(&modules_lock);
  /* A library unloaded while the process goes on: its code leaves the
   * device too. At exit the driver may be gone already; errors are moot. */
  const agl_cuda_api *api = agl_cuda_loaded();
  if (entry->module && api && agl_cuda_make_current() == AGL_CUDA_SUCCESS)
    api->cuModuleUnload(entry->module);
  free(entry);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  struct agl_cuda_module *entry = module;
  if (!run_ok("mgpuModuleGetFunction"))
    return NULL;
  if (!entry) {
    run_failed("a GPU module of the model could not be registered", 0);
    return NULL;
  }
  /* Under the lock: another instance's run may be caching a kernel. */
  pthread_mutex_lock(&modules_lock);
  CUfunction function = NULL;
  for (int i = 0; i < entry->num_cached && !function; ++i)
    if (entry->names[i] == name || strcmp(entry->names[i], name) == 0)
      function = entry->functions[i];
  const agl_cuda_api *api = agl_cuda_loaded();
  CUresult result = AGL_CUDA_SUCCESS;
  if (!function && api && entry->module) {
    result = api->cuModuleGetFunction(&function, entry->module, name);
    if (result != AGL_CUDA_SUCCESS)
      function = NULL;
    else if (entry->num_cached < CACHED_FUNCTIONS) {
      entry->names[entry->num_cached] = name;
      entry->functions[entry->num_cached] = function;
      ++entry->num_cached;
    }
  }
  int loaded = entry->module != NULL;
  pthread_mutex_unlock(&modules_lock);
  if (function)
    return function;
  if (!api || !loaded) {
    run_failed("a GPU module of the model was not loaded", 0);
  } else {
    char what[256];
    snprintf(what, sizeof what, "cannot find kernel '%.200s'", name);
    run_failed(what, result);
  }
  return NULL;
}

void *mgpuStreamCreate(void) {
  return current.bound ? current.stream : NULL;
}

void mgpuStreamSynchronize(void *stream) {
  (void)stream; /* the run waits for its stream once, at its end */
}

void mgpuStreamDestroy(void *stream) {
  (void)stream; /* the instance owns its stream */
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t shared_bytes, void *stream,
                      void **params, void **extra, size_t num_params) {
  (void)num_params;
  if (!run_ok("mgpuLaunchKernel") || !function)
    return;
  const agl_cuda_api *api = agl_cuda_loaded();
  if (!api) {
    run_failed("no CUDA driver is loaded", 0);
    return;
  }
  /* An empty tensor gives an empty grid: nothing to run. */
  if (grid_x <= 0 || grid_y <= 0 || grid_z <= 0 || block_x <= 0 ||
      block_y <= 0 || block_z <= 0)
    return;
  CUresult result = api->cuLaunchKernel(
      (CUfunction)function, (unsigned)grid_x, (unsigned)grid_y,
      (unsigned)grid_z, (unsigned)block_x, (unsigned)block_y,
      (unsigned)block_z, (unsigned)shared_bytes, (CUstream)stream, params,
      extra);
  if (result != AGL_CUDA_SUCCESS) {
    char what[160];
    snprintf(what, sizeof what,
             "kernel launch (grid %lldx%lldx%lld, block %lldx%lldx%lld) "
             "failed",
             (long long)grid_x, (long long)grid_y, (long long)grid_z,
             (long long)block_x, (long long)block_y, (long long)block_z);
    run_failed(what, result);
  }
}
