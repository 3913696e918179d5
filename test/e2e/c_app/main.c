/* Runs one model compiled to an object file, from plain C.
 *
 * Build (test_linking.py does this) with the model's header and object, the
 * static runtime and libm:
 *   cc -std=c11 -DMODEL=mlp -DMODEL_UPPER=MLP -DMODEL_HEADER='"mlp.h"' \
 *      -I runtime/include -I DIR main.c DIR/mlp.o libautoglm_rt.a -lm
 *
 * Usage: app MODE DIR
 * Reads the inputs from DIR/input_<i>.bin (raw bytes, the header's sizes) and
 * writes the outputs to DIR/output_<i>.bin. MODE is
 *   direct   the model's entry point MODEL_run on an arena of
 *            MODEL_UPPER_ARENA_SIZE bytes from aligned_alloc(64, ...)
 *   runtime  agl_instance_create(MODEL_model()) and agl_instance_run
 *   arena    agl_instance_create_with_arena on caller memory
 * Every mode runs the model twice and requires identical outputs; the arena
 * starts filled with garbage, so results may not depend on its contents.
 * Exit status 0 on success, 1 on any failure (with a message on stderr).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "raw_io.h"

#include MODEL_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
/* H(_ARENA_SIZE) is e.g. MLP_ARENA_SIZE; F(_run) is mlp_run. */
#define H(suffix) CAT(MODEL_UPPER, suffix)
#define F(suffix) CAT(MODEL, suffix)

#define MAX_TENSORS 4
_Static_assert(H(_INPUTS) >= 1 && H(_INPUTS) <= MAX_TENSORS,
               "this program handles 1 to 4 inputs");
_Static_assert(H(_OUTPUTS) >= 1 && H(_OUTPUTS) <= MAX_TENSORS,
               "this program handles 1 to 4 outputs");

/* Per-tensor facts from the header, indexed at run time. */
typedef struct {
  const char *name;
  int32_t dtype;
  int32_t rank;
  size_t num_elements;
  size_t num_bytes;
  const int64_t *shape;
} header_tensor;

#define TENSOR(KIND, I)                                                        \
  {H(_##KIND##_##I##_NAME), H(_##KIND##_##I##_DTYPE), H(_##KIND##_##I##_RANK), \
   H(_##KIND##_##I##_NUM_ELEMENTS), H(_##KIND##_##I##_NUM_BYTES),             \
   (const int64_t[])H(_##KIND##_##I##_SHAPE)}

static const header_tensor header_inputs[] = {
    TENSOR(INPUT, 0),
#if H(_INPUTS) > 1
    TENSOR(INPUT, 1),
#endif
#if H(_INPUTS) > 2
    TENSOR(INPUT, 2),
#endif
#if H(_INPUTS) > 3
    TENSOR(INPUT, 3),
#endif
};

static const header_tensor header_outputs[] = {
    TENSOR(OUTPUT, 0),
#if H(_OUTPUTS) > 1
    TENSOR(OUTPUT, 1),
#endif
#if H(_OUTPUTS) > 2
    TENSOR(OUTPUT, 2),
#endif
#if H(_OUTPUTS) > 3
    TENSOR(OUTPUT, 3),
#endif
};

static int fail(const char *message, const char *detail) {
  fprintf(stderr, "c_app: %s%s%s\n", message, detail ? ": " : "",
          detail ? detail : "");
  return 1;
}

/* The header must agree with itself and with the descriptor the object
 * exports. */
static int check_tensor(const header_tensor *h, const agl_tensor_info *d) {
  size_t elements = 1;
  for (int32_t i = 0; i < h->rank; ++i)
    elements *= (size_t)h->shape[i];
  if (elements != h->num_elements ||
      h->num_bytes != elements * agl_dtype_size(h->dtype))
    return fail("header sizes disagree for", h->name);
  if (strcmp(h->name, d->name) != 0 || h->dtype != d->dtype ||
      h->rank != d->rank ||
      memcmp(h->shape, d->shape, sizeof(int64_t) * (size_t)h->rank) != 0 ||
      agl_tensor_num_bytes(d) != h->num_bytes)
    return fail("header and descriptor disagree for", h->name);
  return 0;
}

static int check_header(const agl_model_desc *model) {
  if (model->abi_version != AGL_ABI_VERSION)
    return fail("unexpected ABI version", NULL);
  if (model->num_inputs != H(_INPUTS) || model->num_outputs != H(_OUTPUTS))
    return fail("tensor counts differ from the header", NULL);
  if (model->arena_size != H(_ARENA_SIZE) ||
      F(_arena_size)() != H(_ARENA_SIZE))
    return fail("arena size differs from the header", NULL);
  if (model->weights_size != H(_WEIGHTS_SIZE))
    return fail("weights size differs from the header", NULL);
  if (model->arena_alignment == 0 || 64 % model->arena_alignment != 0)
    return fail("arena alignment is not a divisor of 64", NULL);
  for (int i = 0; i < H(_INPUTS); ++i)
    if (check_tensor(&header_inputs[i], &model->inputs[i]))
      return 1;
  for (int i = 0; i < H(_OUTPUTS); ++i)
    if (check_tensor(&header_outputs[i], &model->outputs[i]))
      return 1;
  return 0;
}

/* aligned_alloc needs a size that is a multiple of the alignment. */
static void *alloc_arena(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  void *arena = aligned_alloc(64, rounded ? rounded : 64);
  if (arena)
    memset(arena, 0xA5, rounded ? rounded : 64);
  return arena;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return fail("usage: app direct|runtime|arena DIR", NULL);
  const char *mode = argv[1], *dir = argv[2];
  char path[4096];

  const agl_model_desc *model = F(_model)();
  if (check_header(model))
    return 1;

  const void *inputs[MAX_TENSORS];
  void *outputs[2][MAX_TENSORS];
  for (int i = 0; i < H(_INPUTS); ++i) {
    snprintf(path, sizeof path, "%s/input_%d.bin", dir, i);
    if (!(inputs[i] = read_file(path, header_inputs[i].num_bytes)))
      return fail("cannot read (or wrong size)", path);
  }
  for (int run = 0; run < 2; ++run)
    for (int i = 0; i < H(_OUTPUTS); ++i) {
      outputs[run][i] = malloc(header_outputs[i].num_bytes);
      memset(outputs[run][i], 0x5A, header_outputs[i].num_bytes);
    }

  void *arena = NULL;
  agl_instance *instance = NULL;
  for (int run = 0; run < 2; ++run) {
    if (strcmp(mode, "direct") == 0) {
      if (!arena && !(arena = alloc_arena(H(_ARENA_SIZE))))
        return fail("cannot allocate the arena", NULL);
      if (F(_run)(arena, inputs, outputs[run]) != 0)
        return fail("the model's run function failed", NULL);
    } else if (strcmp(mode, "runtime") == 0 || strcmp(mode, "arena") == 0) {
      if (!instance) {
        agl_status status;
        if (strcmp(mode, "runtime") == 0) {
          status = agl_instance_create(model, &instance);
        } else {
          if (!(arena = alloc_arena(model->arena_size)))
            return fail("cannot allocate the arena", NULL);
          status = agl_instance_create_with_arena(model, arena,
                                                  model->arena_size, &instance);
        }
        if (status != AGL_OK)
          return fail("cannot create an instance", agl_last_error());
      }
      if (agl_instance_run(instance, inputs, outputs[run]) != AGL_OK)
        return fail("agl_instance_run failed", agl_last_error());
    } else {
      return fail("unknown mode", mode);
    }
  }

  for (int i = 0; i < H(_OUTPUTS); ++i) {
    if (memcmp(outputs[0][i], outputs[1][i], header_outputs[i].num_bytes) != 0)
      return fail("a second run gave other results for", header_outputs[i].name);
    snprintf(path, sizeof path, "%s/output_%d.bin", dir, i);
    if (write_file(path, outputs[0][i], header_outputs[i].num_bytes))
      return fail("cannot write", path);
  }

  agl_instance_destroy(instance);
  free(arena);
  for (int i = 0; i < H(_INPUTS); ++i)
    free((void *)inputs[i]);
  for (int run = 0; run < 2; ++run)
    for (int i = 0; i < H(_OUTPUTS); ++i)
      free(outputs[run][i]);
  return 0;
}
