/* The runtime used from plain C and linked statically: the header compiles
 * as C11, and the static library alone runs a model. */
#include "autoglm/kernels.h"
#include "autoglm/runtime.h"
#include "check.h"

#include <stddef.h>
#include <stdio.h>

/* The layout compiled models build in LLVM IR (EntryPoints.cpp), on LP64. */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(agl_tensor_info) == 32, "agl_tensor_info layout");
_Static_assert(offsetof(agl_tensor_info, dim_symbols) == 24,
               "agl_tensor_info layout");
_Static_assert(sizeof(agl_symbol_info) == 24, "agl_symbol_info layout");
_Static_assert(offsetof(agl_model_desc, num_symbols) == 40,
               "agl_model_desc layout");
_Static_assert(offsetof(agl_model_desc, symbols) == 48,
               "agl_model_desc layout");
_Static_assert(offsetof(agl_model_desc, run) == 88, "agl_model_desc layout");
_Static_assert(offsetof(agl_model_desc, num_kernels) == 96,
               "agl_model_desc layout");
_Static_assert(offsetof(agl_model_desc, kernels) == 104,
               "agl_model_desc layout");
_Static_assert(offsetof(agl_model_desc, kv_cache) == 112,
               "agl_model_desc layout");
_Static_assert(offsetof(agl_model_desc, weights_data) == 120,
               "agl_model_desc layout");
_Static_assert(sizeof(agl_model_desc) == 128, "agl_model_desc layout");
_Static_assert(sizeof(agl_kv_cache_info) == 48, "agl_kv_cache_info layout");
_Static_assert(offsetof(agl_kv_cache_info, length_offset) == 24,
               "agl_kv_cache_info layout");
_Static_assert(sizeof(agl_kernel_info) == 24, "agl_kernel_info layout");
_Static_assert(sizeof(agl_profile_event) == 24, "agl_profile_event layout");
#endif

const agl_model_desc *fake_add_model(void);
const agl_model_desc *fake_shaped_model(void);

int main(void) {
  const agl_model_desc *model = fake_add_model();
  agl_instance *instance = NULL;
  CHECK(agl_instance_create(model, &instance) == AGL_OK);

  float a[6] = {1, 2, 3, 4, 5, 6};
  float b[6] = {6, 5, 4, 3, 2, -10};
  float y[6] = {0};
  unsigned char positive[6] = {0};
  const void *inputs[2] = {a, b};
  void *outputs[2] = {y, positive};
  CHECK(agl_instance_run(instance, inputs, outputs) == AGL_OK);
  for (int i = 0; i < 6; ++i) {
    CHECK(y[i] == a[i] + b[i]);
    CHECK(positive[i] == (a[i] + b[i] > 0));
  }
  agl_instance_destroy(instance);

  /* A model with symbolic dimensions, at batch 1 and seq 2. */
  CHECK(agl_instance_create(fake_shaped_model(), &instance) == AGL_OK);
  float x[64] = {1, 2, 3, 4}, bias[8] = {10, 20}, sum[64], flat[64];
  int64_t count[1];
  const int64_t x_shape[3] = {1, 2, 2}, bias_shape[1] = {2};
  int64_t sum_shape[3], flat_shape[1], count_shape[1];
  const void *shaped_inputs[2] = {x, bias};
  void *shaped_outputs[3] = {sum, flat, count};
  const int64_t *input_shapes[2] = {x_shape, bias_shape};
  int64_t *output_shapes[3] = {sum_shape, flat_shape, count_shape};
  CHECK(agl_instance_run_shaped(instance, shaped_inputs, input_shapes,
                                shaped_outputs, output_shapes) == AGL_OK);
  CHECK(sum[0] == 11 && sum[1] == 12 && sum[2] == 23 && sum[3] == 24);
  CHECK(sum_shape[0] == 1 && sum_shape[1] == 2 && sum_shape[2] == 2);
  CHECK(flat_shape[0] == 4 && count_shape[0] == 1 && count[0] == 2);
  agl_instance_destroy(instance);

  /* The kernels' header from C: [1 2; 3 4] x [5 6; 7 8], B given as B^T,
   * then ReLU of minus that. */
  const float ka[4] = {1, 2, 3, 4}, kbt[4] = {5, 7, 6, 8};
  float kc[4];
  agl_kernel_sgemm(1, 2, 2, 2, ka, 0, 2, 1, kbt, 0, 1, 2, kc, 0, 2, 0, 1.0f, NULL,
                   AGL_ACT_NONE, NULL, 0, 0, NULL);
  CHECK(kc[0] == 19 && kc[1] == 22 && kc[2] == 43 && kc[3] == 50);
  const float minus_a[4] = {-1, -2, -3, -4};
  agl_kernel_sgemm(1, 2, 2, 2, minus_a, 0, 2, 1, kbt, 0, 1, 2, kc, 0, 2, 0, 1.0f, NULL,
                   AGL_ACT_RELU, NULL, 0, 0, NULL);
  CHECK(kc[0] == 0 && kc[1] == 0 && kc[2] == 0 && kc[3] == 0);
  CHECK(agl_set_num_threads(2) == AGL_OK && agl_get_num_threads() == 2);
  return 0;
}
