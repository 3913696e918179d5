/* A hand-written stand-in for a model compiled with symbolic dimensions
 * (--dim batch=1..4 --dim seq=1..8), following the ABI in autoglm/runtime.h:
 *   sum   = x + bias (bias broadcast over batch and the last axis)
 *                        x float32[batch,seq,2], bias float32[seq]
 *                        -> float32[batch,seq,2]
 *   flat  = sum flattened -> float32[batch*seq*2]   (a computed extent)
 *   count = batch*seq     -> int64[1]               (static)
 * The sum is staged in the arena, planned for the upper bounds.
 *
 * Build switches:
 *   FAKE_SHAPED_MODEL_LOADABLE  export autoglm_loadable_model (the shared
 *                               library; executables link fake_model.c,
 *                               which exports it already) */
#include "autoglm/runtime.h"

enum {
  MAX_BATCH = 4,
  MAX_SEQ = 8,
  PAIR = 2,
  MAX_COUNT = MAX_BATCH * MAX_SEQ * PAIR,
  ARENA_ALIGNMENT = 64
};

static const agl_symbol_info symbols[2] = {
    {"batch", 1, MAX_BATCH},
    {"seq", 1, MAX_SEQ},
};

static const int64_t x_shape[3] = {MAX_BATCH, MAX_SEQ, PAIR};
static const int32_t x_dims[3] = {0, 1, AGL_DIM_STATIC};
static const int64_t bias_shape[1] = {MAX_SEQ};
static const int32_t bias_dims[1] = {1};
static const int64_t flat_shape[1] = {MAX_COUNT};
static const int32_t flat_dims[1] = {AGL_DIM_COMPUTED};
static const int64_t count_shape[1] = {1};

static const agl_tensor_info inputs[2] = {
    {"x", AGL_DTYPE_F32, 3, x_shape, x_dims},
    {"bias", AGL_DTYPE_F32, 1, bias_shape, bias_dims},
};

static const agl_tensor_info outputs[3] = {
    {"sum", AGL_DTYPE_F32, 3, x_shape, x_dims},
    {"flat", AGL_DTYPE_F32, 1, flat_shape, flat_dims},
    {"count", AGL_DTYPE_I64, 1, count_shape, NULL},
};

int32_t fake_shaped_run_shaped(void *arena, const void *weights,
                               const void *const *in, void *const *out,
                               const int64_t *values, int64_t *output_dims) {
  (void)weights;
  if (!arena || (uintptr_t)arena % ARENA_ALIGNMENT != 0)
    return 1;
  /* Compiled entry points check the range too, for direct callers. */
  if (!values || values[0] < 1 || values[0] > MAX_BATCH || values[1] < 1 ||
      values[1] > MAX_SEQ)
    return 2;
  const int64_t batch = values[0], seq = values[1];
  const int64_t count = batch * seq * PAIR;

  float *sum = arena;
  const float *x = in[0];
  const float *bias = in[1];
  for (int64_t i = 0; i < count; ++i)
    sum[i] = x[i] + bias[(i / PAIR) % seq];

  float *y = out[0];
  float *flat = out[1];
  int64_t *pairs = out[2];
  for (int64_t i = 0; i < count; ++i)
    y[i] = flat[i] = sum[i];
  pairs[0] = batch * seq;

  if (output_dims) {
    const int64_t dims[5] = {batch, seq, PAIR, count, 1};
    for (int i = 0; i < 5; ++i)
      output_dims[i] = dims[i];
  }
  return 0;
}

static const agl_model_desc model = {
    .abi_version = AGL_ABI_VERSION,
    .name = "fake_shaped",
    .num_inputs = 2,
    .num_outputs = 3,
    .inputs = inputs,
    .outputs = outputs,
    .num_symbols = 2,
    .symbols = symbols,
    .arena_size = MAX_COUNT * sizeof(float),
    .arena_alignment = ARENA_ALIGNMENT,
    .weights_size = 0,
    .run = fake_shaped_run_shaped,
};

const agl_model_desc *fake_shaped_model(void) { return &model; }

uint64_t fake_shaped_arena_size(void) { return model.arena_size; }

#ifdef FAKE_SHAPED_MODEL_LOADABLE
const agl_model_desc *autoglm_loadable_model(void) { return &model; }
#endif
