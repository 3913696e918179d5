/* Weights files: mapped read-only, so weights are never copied and several
 * instances (or processes) share the same physical pages. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct agl_weights {
  void *data;
  size_t size;
};

agl_status agl_weights_map(const agl_model_desc *model, const char *path,
                           agl_weights **out) {
  if (!out || !model || !path)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_weights_map: model, path and out must not be null");
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return agl_fail(AGL_ERR_IO, "cannot open weights file '%s': %s", path,
                    strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    close(fd);
    return agl_fail(AGL_ERR_IO, "cannot read weights file '%s': %s", path,
                    strerror(error));
  }
  if ((uint64_t)info.st_size != model->weights_size) {
    close(fd);
    return agl_fail(AGL_ERR_IO,
                    "weights file '%s' has %lld bytes, but model '%s' needs "
                    "%llu",
                    path, (long long)info.st_size, agl_model_label(model),
                    (unsigned long long)model->weights_size);
  }
  void *data = NULL;
  if (info.st_size > 0) {
    data = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      int error = errno;
      close(fd);
      return agl_fail(AGL_ERR_IO, "cannot map weights file '%s': %s", path,
                      strerror(error));
    }
  }
  close(fd); /* the mapping keeps the file alive */
  agl_weights *weights = malloc(sizeof *weights);
  if (!weights) {
    if (data)
      munmap(data, (size_t)info.st_size);
    return agl_fail(AGL_ERR_OUT_OF_MEMORY, "cannot map '%s': out of memory",
                    path);
  }
  weights->data = data;
  weights->size = (size_t)info.st_size;
  *out = weights;
  return AGL_OK;
}

const void *agl_weights_data(const agl_weights *weights) {
  return weights ? weights->data : NULL;
}

void agl_weights_unmap(agl_weights *weights) {
  if (!weights)
    return;
  if (weights->data)
    munmap(weights->data, weights->size);
  free(weights);
}
