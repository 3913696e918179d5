/* Counts heap calls around the runs of one model compiled to an object file,
 * to check that running an instance allocates nothing.
 *
 * The program defines malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc and memalign itself; the executable's definitions take
 * precedence over libc's for every caller in the process (the runtime, the
 * model, libc). Each one counts the call and forwards it to the next
 * definition, found with dlsym(RTLD_NEXT, ...). dlsym may allocate while it
 * resolves those names; such requests are served from a static bootstrap
 * buffer and never reach the real allocator.
 *
 * Build (test_memory.py does this):
 *   cc -std=c11 -DMODEL=glm_layer -DMODEL_UPPER=GLM_LAYER \
 *      -DMODEL_HEADER='"glm_layer.h"' -I runtime/include -I DIR \
 *      alloc_count.c DIR/glm_layer.o libautoglm_rt.a -lm -ldl -lpthread
 *
 * Usage: alloc_count MODE DIR [RUNS]
 * Reads DIR/input_<i>.bin (raw bytes) and, for a model with symbolic
 * dimensions, DIR/input_<i>.shape (the extents as text; without it the
 * descriptor's shape), creates one instance, runs it once through
 * agl_instance_run_shaped, then RUNS more times (default 100), and writes
 * the outputs of the last run, with their actual extents, to
 * DIR/output_<i>.bin. MODE is
 *   runtime  agl_instance_create: the runtime allocates the arena
 *   arena    agl_instance_create_with_arena on a static buffer of
 *            MODEL_UPPER_ARENA_SIZE bytes
 * Every run must give bit-identical outputs. It prints the heap calls made
 * while creating the instance, during the first run and during the RUNS
 * further runs, then a verdict line:
 *   verdict: PASS   no heap call during any run
 *   verdict: FAIL   ...
 * Exit status 0 on PASS, 1 otherwise.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "raw_io.h"

#include MODEL_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define H(suffix) CAT(MODEL_UPPER, suffix)
#define F(suffix) CAT(MODEL, suffix)

/* ---- counting allocator --------------------------------------------------- */

enum { CALL_MALLOC, CALL_CALLOC, CALL_REALLOC, CALL_FREE, CALL_POSIX_MEMALIGN,
       CALL_ALIGNED_ALLOC, CALL_MEMALIGN, NUM_CALLS };
static const char *const call_names[NUM_CALLS] = {
    "malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc",
    "memalign"};
static atomic_ulong call_counts[NUM_CALLS];

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_alloc_fn)(size_t, size_t);

static malloc_fn real_malloc;
static calloc_fn real_calloc;
static realloc_fn real_realloc;
static free_fn real_free;
static posix_memalign_fn real_posix_memalign;
static aligned_alloc_fn real_aligned_alloc;
static aligned_alloc_fn real_memalign;

/* Bootstrap memory for allocations made while the real functions are looked
 * up. Each block starts with a 16-byte header holding its size. */
static _Alignas(16) unsigned char bootstrap[16384];
static size_t bootstrap_used;
static int resolving;

static int from_bootstrap(const void *p) {
  return (const unsigned char *)p >= bootstrap &&
         (const unsigned char *)p < bootstrap + sizeof bootstrap;
}

static void *bootstrap_alloc(size_t bytes) {
  size_t need = 16 + (bytes + 15) / 16 * 16;
  if (need > sizeof bootstrap - bootstrap_used)
    return NULL;
  unsigned char *block = bootstrap + bootstrap_used;
  bootstrap_used += need;
  memcpy(block, &bytes, sizeof bytes);
  return block + 16;
}

static size_t bootstrap_size(const void *p) {
  size_t bytes;
  memcpy(&bytes, (const unsigned char *)p - 16, sizeof bytes);
  return bytes;
}

/* ISO C has no conversion from void * to a function pointer; copy the bits. */
static void lookup(void *fn_pointer, size_t fn_size, const char *name) {
  void *symbol = dlsym(RTLD_NEXT, name);
  if (!symbol) {
    static const char message[] = "alloc_count: cannot resolve an allocator\n";
    fwrite(message, 1, sizeof message - 1, stderr);
    abort();
  }
  memcpy(fn_pointer, &symbol, fn_size);
}

/* The first allocator call resolves all of them. Resolution happens before
 * any thread is started (main allocates first), so no lock is needed. */
static void resolve(void) {
  if (real_malloc || resolving)
    return;
  resolving = 1;
  lookup(&real_calloc, sizeof real_calloc, "calloc");
  lookup(&real_realloc, sizeof real_realloc, "realloc");
  lookup(&real_free, sizeof real_free, "free");
  lookup(&real_posix_memalign, sizeof real_posix_memalign, "posix_memalign");
  lookup(&real_aligned_alloc, sizeof real_aligned_alloc, "aligned_alloc");
  lookup(&real_memalign, sizeof real_memalign, "memalign");
  lookup(&real_malloc, sizeof real_malloc, "malloc");
  resolving = 0;
}

static void count(int call) {
  atomic_fetch_add_explicit(&call_counts[call], 1, memory_order_relaxed);
}

void *malloc(size_t bytes) {
  resolve();
  if (!real_malloc)
    return bootstrap_alloc(bytes);
  count(CALL_MALLOC);
  return real_malloc(bytes);
}

void *calloc(size_t count_, size_t size) {
  resolve();
  if (!real_malloc) {
    /* The bootstrap buffer is zero-initialized static storage. */
    if (size && count_ > SIZE_MAX / size)
      return NULL;
    return bootstrap_alloc(count_ * size);
  }
  count(CALL_CALLOC);
  return real_calloc(count_, size);
}

void *realloc(void *p, size_t bytes) {
  resolve();
  if (!real_malloc || (p && from_bootstrap(p))) {
    void *q = real_malloc ? real_malloc(bytes) : bootstrap_alloc(bytes);
    if (q && p) {
      size_t old = bootstrap_size(p);
      memcpy(q, p, old < bytes ? old : bytes);
    }
    if (real_malloc)
      count(CALL_REALLOC);
    return q;
  }
  count(CALL_REALLOC);
  return real_realloc(p, bytes);
}

void free(void *p) {
  if (!p || from_bootstrap(p))
    return;
  resolve();
  count(CALL_FREE);
  real_free(p);
}

int posix_memalign(void **out, size_t alignment, size_t bytes) {
  resolve();
  count(CALL_POSIX_MEMALIGN);
  return real_posix_memalign(out, alignment, bytes);
}

void *aligned_alloc(size_t alignment, size_t bytes) {
  resolve();
  count(CALL_ALIGNED_ALLOC);
  return real_aligned_alloc(alignment, bytes);
}

void *memalign(size_t alignment, size_t bytes);
void *memalign(size_t alignment, size_t bytes) {
  resolve();
  count(CALL_MEMALIGN);
  return real_memalign(alignment, bytes);
}

typedef struct {
  unsigned long calls[NUM_CALLS];
} snapshot;

static snapshot take_snapshot(void) {
  snapshot s;
  for (int i = 0; i < NUM_CALLS; ++i)
    s.calls[i] = atomic_load(&call_counts[i]);
  return s;
}

static unsigned long total(const snapshot *s) {
  unsigned long sum = 0;
  for (int i = 0; i < NUM_CALLS; ++i)
    sum += s->calls[i];
  return sum;
}

/* Calls between two snapshots, e.g. "0" or "3 (malloc 2, free 1)". */
static void print_delta(const char *what, const snapshot *from,
                        const snapshot *to) {
  printf("%s: %lu", what, total(to) - total(from));
  const char *separator = " (";
  for (int i = 0; i < NUM_CALLS; ++i)
    if (to->calls[i] != from->calls[i]) {
      printf("%s%s %lu", separator, call_names[i],
             to->calls[i] - from->calls[i]);
      separator = ", ";
    }
  printf("%s\n", separator[0] == ',' ? ")" : "");
}

/* ---- the program ------------------------------------------------------------ */

#define MAX_TENSORS 8
#define MAX_RANK 8

/* Extents of input `i`: DIR/input_<i>.shape if present, else the
 * descriptor's. Returns the element count, or 0 on a malformed file. */
static size_t read_shape(const char *dir, int32_t i, const agl_tensor_info *info,
                         int64_t *shape) {
  char path[4096];
  snprintf(path, sizeof path, "%s/input_%d.shape", dir, (int)i);
  FILE *f = fopen(path, "r");
  size_t count = 1;
  for (int32_t d = 0; d < info->rank; ++d) {
    long long extent = info->shape[d];
    if (f && fscanf(f, "%lld", &extent) != 1)
      extent = -1;
    if (extent < 0) {
      fclose(f);
      return 0;
    }
    shape[d] = extent;
    count *= (size_t)extent;
  }
  if (f)
    fclose(f);
  return count;
}

static size_t shape_bytes(const agl_tensor_info *info, const int64_t *shape) {
  size_t count = 1;
  for (int32_t d = 0; d < info->rank; ++d)
    count *= (size_t)shape[d];
  return count * agl_dtype_size(info->dtype);
}

/* A static arena for the caller-provided path; never zero-sized. */
static _Alignas(64) unsigned char static_arena[H(_ARENA_SIZE) + 64];

static int fail(const char *message, const char *detail) {
  fprintf(stderr, "alloc_count: %s%s%s\n", message, detail ? ": " : "",
          detail ? detail : "");
  printf("verdict: FAIL (%s)\n", message);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4)
    return fail("usage: alloc_count runtime|arena DIR [RUNS]", NULL);
  const char *mode = argv[1], *dir = argv[2];
  long runs = argc == 4 ? strtol(argv[3], NULL, 10) : 100;
  if (runs < 1)
    return fail("RUNS must be at least 1", argv[3]);
  if (strcmp(mode, "runtime") != 0 && strcmp(mode, "arena") != 0)
    return fail("unknown mode", mode);

  const agl_model_desc *model = F(_model)();
  if (model->num_inputs > MAX_TENSORS || model->num_outputs > MAX_TENSORS)
    return fail("too many inputs or outputs for this program", NULL);

  /* Everything that may allocate (files, stdio buffers) happens before the
   * first snapshot; output lines are printed only after the last one. */
  char path[4096];
  const void *inputs[MAX_TENSORS];
  void *outputs[MAX_TENSORS], *first[MAX_TENSORS];
  int64_t in_shapes[MAX_TENSORS][MAX_RANK], out_shapes[MAX_TENSORS][MAX_RANK];
  const int64_t *in_shape_ptrs[MAX_TENSORS];
  int64_t *out_shape_ptrs[MAX_TENSORS];
  for (int32_t i = 0; i < model->num_inputs; ++i) {
    if (model->inputs[i].rank > MAX_RANK)
      return fail("an input's rank is too high for this program", NULL);
    size_t count = read_shape(dir, i, &model->inputs[i], in_shapes[i]);
    in_shape_ptrs[i] = in_shapes[i];
    snprintf(path, sizeof path, "%s/input_%d.bin", dir, (int)i);
    if (!count ||
        !(inputs[i] = read_file(path, count * agl_dtype_size(model->inputs[i].dtype))))
      return fail("cannot read (or wrong size)", path);
  }
  for (int32_t i = 0; i < model->num_outputs; ++i) {
    if (model->outputs[i].rank > MAX_RANK)
      return fail("an output's rank is too high for this program", NULL);
    out_shape_ptrs[i] = out_shapes[i];
  }
  for (int32_t i = 0; i < model->num_outputs; ++i) {
    size_t bytes = agl_tensor_num_bytes(&model->outputs[i]);
    outputs[i] = malloc(bytes + 1);
    first[i] = malloc(bytes + 1);
    if (!outputs[i] || !first[i])
      return fail("out of memory", NULL);
    memset(outputs[i], 0x5A, bytes);
  }
  memset(static_arena, 0xA5, sizeof static_arena);
  printf("model %s: arena %llu bytes, mode %s\n", model->name,
         (unsigned long long)model->arena_size, mode);
  fflush(stdout);

  snapshot before_create = take_snapshot();
  agl_instance *instance = NULL;
  agl_status status =
      strcmp(mode, "runtime") == 0
          ? agl_instance_create(model, &instance)
          : agl_instance_create_with_arena(model, static_arena,
                                           H(_ARENA_SIZE), &instance);
  snapshot after_create = take_snapshot();
  if (status != AGL_OK)
    return fail("cannot create an instance", agl_last_error());

  status = agl_instance_run_shaped(instance, inputs, in_shape_ptrs, outputs,
                                   out_shape_ptrs);
  snapshot after_first = take_snapshot();
  if (status != AGL_OK)
    return fail("agl_instance_run_shaped failed", agl_last_error());
  for (int32_t i = 0; i < model->num_outputs; ++i)
    memcpy(first[i], outputs[i], shape_bytes(&model->outputs[i], out_shapes[i]));

  long differing = 0;
  for (long run = 0; run < runs && status == AGL_OK; ++run) {
    status = agl_instance_run_shaped(instance, inputs, in_shape_ptrs, outputs,
                                     out_shape_ptrs);
    for (int32_t i = 0; i < model->num_outputs; ++i)
      if (memcmp(first[i], outputs[i],
                 shape_bytes(&model->outputs[i], out_shapes[i])) != 0)
        ++differing;
  }
  snapshot after_all = take_snapshot();
  if (status != AGL_OK)
    return fail("agl_instance_run_shaped failed", agl_last_error());

  print_delta("heap calls while creating the instance", &before_create,
              &after_create);
  print_delta("heap calls during the first run", &after_create, &after_first);
  printf("heap calls in total after the first run: %lu\n", total(&after_first));
  printf("heap calls in total after %ld more runs: %lu\n", runs,
         total(&after_all));
  print_delta("heap calls during those runs", &after_first, &after_all);
  fflush(stdout);

  for (int32_t i = 0; i < model->num_outputs; ++i) {
    snprintf(path, sizeof path, "%s/output_%d.bin", dir, (int)i);
    if (write_file(path, outputs[i], shape_bytes(&model->outputs[i], out_shapes[i])))
      return fail("cannot write", path);
  }
  agl_instance_destroy(instance);
  for (int32_t i = 0; i < model->num_inputs; ++i)
    free((void *)inputs[i]);
  for (int32_t i = 0; i < model->num_outputs; ++i) {
    free(outputs[i]);
    free(first[i]);
  }

  if (differing)
    return fail("a later run gave other results than the first", NULL);
  if (total(&after_first) != total(&after_create))
    return fail("the first run called the allocator", NULL);
  if (total(&after_all) != total(&after_first))
    return fail("the allocation count changed while running", NULL);
  printf("verdict: PASS\n");
  return 0;
}
