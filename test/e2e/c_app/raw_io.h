/* Whole-file reads and writes of raw tensor bytes, shared by the test
 * programs (Python writes and reads the other side). */
#ifndef AUTOGLM_E2E_RAW_IO_H
#define AUTOGLM_E2E_RAW_IO_H

#include <stdio.h>
#include <stdlib.h>

/* The file's bytes, or NULL unless it holds exactly `expected_bytes`. */
static void *read_file(const char *path, size_t expected_bytes) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  /* One byte more than expected, to notice files that are too long. */
  unsigned char *data = malloc(expected_bytes + 1);
  size_t got = data ? fread(data, 1, expected_bytes + 1, f) : 0;
  fclose(f);
  if (got != expected_bytes) {
    free(data);
    return NULL;
  }
  return data;
}

/* 0 on success. */
static int write_file(const char *path, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return 1;
  size_t put = fwrite(data, 1, bytes, f);
  return (fclose(f) != 0 || put != bytes) ? 1 : 0;
}

#endif /* AUTOGLM_E2E_RAW_IO_H */
