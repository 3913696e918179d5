/* Loading the CUDA driver with dlopen (see driver.h). */
#define _GNU_SOURCE
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t driver_lock = PTHREAD_MUTEX_INITIALIZER;
static agl_cuda_api driver_api;
static void *driver_handle;
static CUcontext driver_context;
static int driver_ready; /* written under the lock, read after it */

const agl_cuda_api *agl_cuda_loaded(void) {
  pthread_mutex_lock(&driver_lock);
  const agl_cuda_api *api = driver_ready ? &driver_api : NULL;
  pthread_mutex_unlock(&driver_lock);
  return api;
}

/* What a driver that cannot name its errors (the toolkit's stub library)
 * may return before any device is seen. */
static const char *fallback_name(CUresult error, const char **description) {
  switch (error) {
  case 34:
    *description = "the CUDA driver is the toolkit's stub library, not a "
                   "real driver";
    return "CUDA_ERROR_STUB_LIBRARY";
  case 35:
    *description = "the CUDA driver is older than the CUDA runtime";
    return "CUDA_ERROR_INSUFFICIENT_DRIVER";
  case 100:
    *description = "no CUDA-capable device is detected";
    return "CUDA_ERROR_NO_DEVICE";
  }
  return NULL;
}

CUresult agl_cuda_make_current(void) {
  const agl_cuda_api *api = agl_cuda_loaded();
  return api ? api->cuCtxSetCurrent(driver_context) : -1;
}

void agl_cuda_describe(CUresult error, char *text, size_t size) {
  const char *name = NULL, *description = NULL;
  if (driver_api.cuGetErrorName &&
      driver_api.cuGetErrorName(error, &name) != AGL_CUDA_SUCCESS)
    name = NULL;
  if (driver_api.cuGetErrorString &&
      driver_api.cuGetErrorString(error, &description) != AGL_CUDA_SUCCESS)
    description = NULL;
  if (!name)
    name = fallback_name(error, &description);
  if (name)
    snprintf(text, size, "%s (%s)", name, description ? description : "");
  else
    snprintf(text, size, "CUDA error %d", (int)error);
}

agl_status agl_cuda_fail(CUresult error, const char *what) {
  char text[256];
  agl_cuda_describe(error, text, sizeof text);
  return agl_fail(AGL_ERR_DEVICE, "%s: %s", what, text);
}

/* dlsym's object pointer as a function pointer, the POSIX way. */
static int resolve(void *handle, const char *name, void *slot) {
  void *symbol = dlsym(handle, name);
  memcpy(slot, &symbol, sizeof symbol);
  return symbol != NULL;
}

static agl_status unavailable(const char *format, const char *detail) {
  char reason[512];
  snprintf(reason, sizeof reason, format, detail);
  return agl_fail(AGL_ERR_DEVICE, "no CUDA device: %s", reason);
}

static agl_status unavailable_cuda(const char *call, CUresult error) {
  char text[256];
  agl_cuda_describe(error, text, sizeof text);
  return agl_fail(AGL_ERR_DEVICE, "no CUDA device: %s failed: %s", call, text);
}

/* Where each call of the driver goes in agl_cuda_api. The _v2 names are
 * the current ABI of the calls that have them. */
typedef struct driver_symbol {
  const char *name;
  size_t offset;
} driver_symbol;
#define AGL_CUDA_SYMBOL(field, name)                                           \
  { name, offsetof(agl_cuda_api, field) }
static const driver_symbol required_symbols[] = {
    AGL_CUDA_SYMBOL(cuInit, "cuInit"),
    AGL_CUDA_SYMBOL(cuGetErrorName, "cuGetErrorName"),
    AGL_CUDA_SYMBOL(cuGetErrorString, "cuGetErrorString"),
    AGL_CUDA_SYMBOL(cuDeviceGetCount, "cuDeviceGetCount"),
    AGL_CUDA_SYMBOL(cuDeviceGet, "cuDeviceGet"),
    AGL_CUDA_SYMBOL(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    AGL_CUDA_SYMBOL(cuCtxSetCurrent, "cuCtxSetCurrent"),
    AGL_CUDA_SYMBOL(cuModuleLoadData, "cuModuleLoadData"),
    AGL_CUDA_SYMBOL(cuModuleUnload, "cuModuleUnload"),
    AGL_CUDA_SYMBOL(cuModuleGetFunction, "cuModuleGetFunction"),
    AGL_CUDA_SYMBOL(cuLaunchKernel, "cuLaunchKernel"),
    AGL_CUDA_SYMBOL(cuStreamCreate, "cuStreamCreate"),
    AGL_CUDA_SYMBOL(cuStreamDestroy, "cuStreamDestroy_v2"),
    AGL_CUDA_SYMBOL(cuStreamSynchronize, "cuStreamSynchronize"),
    AGL_CUDA_SYMBOL(cuMemAlloc, "cuMemAlloc_v2"),
    AGL_CUDA_SYMBOL(cuMemFree, "cuMemFree_v2"),
    AGL_CUDA_SYMBOL(cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
    AGL_CUDA_SYMBOL(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
    AGL_CUDA_SYMBOL(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
};
static const driver_symbol graph_symbols[] = {
    AGL_CUDA_SYMBOL(cuStreamBeginCapture, "cuStreamBeginCapture_v2"),
    AGL_CUDA_SYMBOL(cuStreamEndCapture, "cuStreamEndCapture"),
    AGL_CUDA_SYMBOL(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags"),
    AGL_CUDA_SYMBOL(cuGraphLaunch, "cuGraphLaunch"),
    AGL_CUDA_SYMBOL(cuGraphExecDestroy, "cuGraphExecDestroy"),
    AGL_CUDA_SYMBOL(cuGraphDestroy, "cuGraphDestroy"),
};
static const driver_symbol event_symbols[] = {
    AGL_CUDA_SYMBOL(cuEventCreate, "cuEventCreate"),
    AGL_CUDA_SYMBOL(cuEventRecord, "cuEventRecord"),
    AGL_CUDA_SYMBOL(cuEventElapsedTime, "cuEventElapsedTime"),
    AGL_CUDA_SYMBOL(cuEventDestroy, "cuEventDestroy_v2"),
};
#undef AGL_CUDA_SYMBOL

/* Resolves a group of optional calls into `api`: all of them, or none. */
static void resolve_optional(void *handle, const driver_symbol *symbols,
                             size_t count, agl_cuda_api *api) {
  agl_cuda_api with = *api;
  int all = 1;
  for (size_t i = 0; i < count; ++i)
    all &= resolve(handle, symbols[i].name, (char *)&with + symbols[i].offset);
  if (all)
    *api = with;
}

/* Called with the lock held and the driver not loaded. */
static agl_status load_driver(void) {
  const char *path = getenv("AUTOGLM_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return unavailable("cannot load the CUDA driver (%s)", dlerror());

  agl_cuda_api api;
  memset(&api, 0, sizeof api);
  for (size_t i = 0; i < sizeof required_symbols / sizeof *required_symbols;
       ++i) {
    if (!resolve(handle, required_symbols[i].name,
                 (char *)&api + required_symbols[i].offset)) {
      dlclose(handle);
      return unavailable("the CUDA driver lacks %s", required_symbols[i].name);
    }
  }
  /* Graphs are an optimization: without all of their calls, runs launch
   * kernel by kernel. Without events, instances cannot profile. */
  resolve_optional(handle, graph_symbols,
                   sizeof graph_symbols / sizeof *graph_symbols, &api);
  resolve_optional(handle, event_symbols,
                   sizeof event_symbols / sizeof *event_symbols, &api);
  /* Error names for the messages below, even if initialization fails. */
  driver_api = api;

  agl_status status = AGL_OK;
  CUresult result = api.cuInit(0);
  int count = 0;
  CUdevice device = 0;
  const char *ordinal_text = getenv("AUTOGLM_CUDA_DEVICE");
  int ordinal = ordinal_text && *ordinal_text ? atoi(ordinal_text) : 0;
  if (result != AGL_CUDA_SUCCESS)
    status = unavailable_cuda("cuInit", result);
  else if ((result = api.cuDeviceGetCount(&count)) != AGL_CUDA_SUCCESS)
    status = unavailable_cuda("cuDeviceGetCount", result);
  else if (count == 0)
    status = unavailable("%s", "the driver reports no device");
  else if (ordinal < 0 || ordinal >= count) {
    char detail[128];
    snprintf(detail, sizeof detail,
             "AUTOGLM_CUDA_DEVICE=%d, but there are %d devices", ordinal,
             count);
    status = unavailable("%s", detail);
  } else if ((result = api.cuDeviceGet(&device, ordinal)) != AGL_CUDA_SUCCESS)
    status = unavailable_cuda("cuDeviceGet", result);
  else if ((result = api.cuDevicePrimaryCtxRetain(&driver_context, device)) !=
           AGL_CUDA_SUCCESS)
    status = unavailable_cuda("cuDevicePrimaryCtxRetain", result);
  if (status != AGL_OK) {
    memset(&driver_api, 0, sizeof driver_api);
    dlclose(handle);
    return status;
  }
  /* The context stays retained, and the library loaded, for the life of
   * the process: modules and instances share them. */
  driver_handle = handle;
  driver_ready = 1;
  return AGL_OK;
}

agl_status agl_cuda_open(const agl_cuda_api **api, CUcontext *context) {
  pthread_mutex_lock(&driver_lock);
  agl_status status = driver_ready ? AGL_OK : load_driver();
  pthread_mutex_unlock(&driver_lock);
  if (status != AGL_OK)
    return status;
  CUresult result = driver_api.cuCtxSetCurrent(driver_context);
  if (result != AGL_CUDA_SUCCESS)
    return agl_cuda_fail(result, "cuCtxSetCurrent");
  *api = &driver_api;
  *context = driver_context;
  return AGL_OK;
}
