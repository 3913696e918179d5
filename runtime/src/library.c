/* Shared-library artifacts, loaded with dlopen. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

struct agl_library {
  void *handle;
  agl_weights *weights; /* null when the model embeds its weights */
};

typedef const agl_model_desc *(*agl_loadable_model_fn)(void);

/* dlopen() searches the library path for names without a slash, but an
 * artifact path names a file, so "model.so" means "./model.so". */
static char *file_path(const char *path) {
  size_t length = strlen(path);
  int relative = strchr(path, '/') == NULL;
  char *result = malloc(length + (relative ? 3 : 1));
  if (!result)
    return NULL;
  strcpy(result, relative ? "./" : "");
  strcat(result, path);
  return result;
}

agl_status agl_library_open(const char *path, agl_library **out,
                            const agl_model_desc **model) {
  if (!out || !model)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_library_open: out and model must not be null");
  *out = NULL;
  *model = NULL;
  if (!path)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT, "agl_library_open: path is null");

  char *file = file_path(path);
  if (!file)
    return agl_fail(AGL_ERR_OUT_OF_MEMORY, "cannot open '%s': out of memory",
                    path);
  /* RTLD_LOCAL: several artifacts may define the same symbol names. */
  void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  free(file);
  if (!handle)
    return agl_fail(AGL_ERR_IO, "cannot open '%s': %s", path, dlerror());

  void *symbol = dlsym(handle, "autoglm_loadable_model");
  if (!symbol) {
    dlclose(handle);
    return agl_fail(AGL_ERR_NOT_FOUND,
                    "'%s' does not export autoglm_loadable_model; is it an "
                    "artifact built with --emit=so?",
                    path);
  }
  agl_loadable_model_fn loadable_model;
  /* ISO C has no object-to-function pointer cast; POSIX guarantees the bits. */
  memcpy(&loadable_model, &symbol, sizeof loadable_model);

  const agl_model_desc *desc = loadable_model();
  agl_status status = agl_model_check(desc);
  if (status != AGL_OK) {
    char reason[512];
    strncpy(reason, agl_last_error(), sizeof reason - 1);
    reason[sizeof reason - 1] = '\0';
    dlclose(handle);
    return agl_fail(status, "cannot load '%s': %s", path, reason);
  }

  agl_weights *weights = NULL;
  if (desc->weights_file) {
    /* The weights file lies next to the artifact. */
    const char *slash = strrchr(path, '/');
    size_t folder = slash ? (size_t)(slash - path + 1) : 0;
    char *weights_path = malloc(folder + strlen(desc->weights_file) + 1);
    if (!weights_path) {
      dlclose(handle);
      return agl_fail(AGL_ERR_OUT_OF_MEMORY, "cannot open '%s': out of memory",
                      path);
    }
    memcpy(weights_path, path, folder);
    strcpy(weights_path + folder, desc->weights_file);
    status = agl_weights_map(desc, weights_path, &weights);
    free(weights_path);
    if (status != AGL_OK) {
      dlclose(handle);
      return status;
    }
  }

  agl_library *library = malloc(sizeof *library);
  if (!library) {
    agl_weights_unmap(weights);
    dlclose(handle);
    return agl_fail(AGL_ERR_OUT_OF_MEMORY, "cannot open '%s': out of memory",
                    path);
  }
  library->handle = handle;
  library->weights = weights;
  *out = library;
  *model = desc;
  return AGL_OK;
}

const void *agl_library_weights(const agl_library *library) {
  return library ? agl_weights_data(library->weights) : NULL;
}

void agl_library_close(agl_library *library) {
  if (!library)
    return;
  agl_weights_unmap(library->weights);
  dlclose(library->handle);
  free(library);
}
