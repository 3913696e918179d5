/* A hand-written stand-in for a compiled model, following the ABI in
 * autoglm/runtime.h:
 *   y          = a + b      float32[2,3]
 *   y/positive = a + b > 0  bool[2,3]
 * The sum is staged in the arena, so a run only succeeds when the arena it
 * receives is real and aligned as the descriptor asks. Like a model compiled
 * with --profile, it times its two kernels (the sum, the outputs).
 *
 * Build switches, to produce the broken artifacts the loader must reject:
 *   FAKE_MODEL_ABI_VERSION   descriptor ABI version (default: the current one)
 *   FAKE_MODEL_NOT_LOADABLE  leave out autoglm_loadable_model
 *   FAKE_MODEL_RUN_FAILS     make every run report failure code 3 */
#include "autoglm/runtime.h"

#ifndef FAKE_MODEL_ABI_VERSION
#define FAKE_MODEL_ABI_VERSION AGL_ABI_VERSION
#endif

enum { ROWS = 2, COLS = 3, COUNT = ROWS * COLS, ARENA_ALIGNMENT = 64 };

static const int64_t shape[2] = {ROWS, COLS};

static const agl_tensor_info inputs[2] = {
    {"a", AGL_DTYPE_F32, 2, shape},
    {"b", AGL_DTYPE_F32, 2, shape},
};

static const agl_tensor_info outputs[2] = {
    {"y", AGL_DTYPE_F32, 2, shape},
    {"y/positive", AGL_DTYPE_BOOL, 2, shape},
};

int32_t fake_add_run(void *arena, const void *weights, const void *const *in,
                     void *const *out, const int64_t *symbols,
                     int64_t *output_dims) {
  (void)weights;
  (void)symbols;
  if (!arena || (uintptr_t)arena % ARENA_ALIGNMENT != 0)
    return 1;
#ifdef FAKE_MODEL_RUN_FAILS
  return 3;
#endif
  float *sum = arena;
  const float *a = in[0];
  const float *b = in[1];
  uint64_t begin = agl_profile_begin();
  for (int i = 0; i < COUNT; ++i)
    sum[i] = a[i] + b[i];
  agl_profile_end(0, begin);

  float *y = out[0];
  uint8_t *positive = out[1];
  begin = agl_profile_begin();
  for (int i = 0; i < COUNT; ++i) {
    y[i] = sum[i];
    positive[i] = sum[i] > 0.0f;
  }
  agl_profile_end(1, begin);
  if (output_dims)
    for (int i = 0; i < 4; ++i)
      output_dims[i] = shape[i % 2];
  return 0;
}

static const agl_kernel_info kernels[2] = {
    {"loop a+b", COUNT, 3 * COUNT * sizeof(float)},
    {"loop y+y/positive", COUNT, COUNT * (2 * sizeof(float) + 1)},
};

static const agl_model_desc model = {
    .abi_version = FAKE_MODEL_ABI_VERSION,
    .name = "fake_add",
    .num_inputs = 2,
    .num_outputs = 2,
    .inputs = inputs,
    .outputs = outputs,
    .arena_size = COUNT * sizeof(float),
    .arena_alignment = ARENA_ALIGNMENT,
    .weights_size = 0,
    .run = fake_add_run,
    .num_kernels = 2,
    .kernels = kernels,
};

const agl_model_desc *fake_add_model(void) { return &model; }

uint64_t fake_add_arena_size(void) { return model.arena_size; }

#ifndef FAKE_MODEL_NOT_LOADABLE
const agl_model_desc *autoglm_loadable_model(void) { return &model; }
#endif
