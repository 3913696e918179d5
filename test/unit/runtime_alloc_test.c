/* Shaped runs allocate nothing: every heap call made by the runtime (the
 * static library) and the fake models is counted, and runs at changing
 * sizes, refused runs included, must make none. Neither do the kernels that
 * compiled models call (GEMM, parallel loops) once an instance exists: the
 * thread pool and its packing memory are made with the instance.
 *
 * Linked with -Wl,--wrap for each allocator function, so that the calls of
 * every object in this executable, the runtime's included, go to the
 * __wrap_ functions below. Calls from inside libc are not seen; the
 * end-to-end test alloc_count.c interposes on those for compiled models. */
#include "autoglm/kernels.h"
#include "autoglm/kernels_quant.h"
#include "autoglm/runtime.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

const agl_model_desc *fake_shaped_model(void);
const agl_model_desc *fake_add_model(void);

static unsigned long heap_calls;

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);

void *__wrap_malloc(size_t bytes) {
  ++heap_calls;
  return __real_malloc(bytes);
}
void *__wrap_calloc(size_t count, size_t size) {
  ++heap_calls;
  return __real_calloc(count, size);
}
void *__wrap_realloc(void *p, size_t bytes) {
  ++heap_calls;
  return __real_realloc(p, bytes);
}
void __wrap_free(void *p) {
  ++heap_calls;
  __real_free(p);
}
void *__wrap_aligned_alloc(size_t alignment, size_t bytes) {
  ++heap_calls;
  return __real_aligned_alloc(alignment, bytes);
}
int __wrap_posix_memalign(void **out, size_t alignment, size_t bytes) {
  ++heap_calls;
  return __real_posix_memalign(out, alignment, bytes);
}

/* What a compiled model's run does: products on every path (packed, small
 * m, small n, transposed operands, batched, activations), convolutions, max
 * pooling, attention (prefill with a mask, grouped-query decode) and a
 * parallel loop. */
static float gemm_a[300 * 70], gemm_b[70 * 260], gemm_c[300 * 260];
/* gemm_b's first 256 columns quantized (k 70, groups of 32), by main. */
static _Alignas(64) unsigned char gemm_q8[8 * 2688], gemm_q4[8 * 1536];
/* gemm_b's 260 columns in bfloat16 (9 panels of 70 x 64 bytes), by main. */
static _Alignas(64) unsigned char gemm_bf16[9 * 70 * 64];
static _Alignas(64) unsigned char gemm_f16[9 * 70 * 64];

static void touch(void *ctx, int64_t begin, int64_t end) {
  float *x = ctx;
  for (int64_t i = begin; i < end; ++i)
    x[i] += 1.0f;
}

static void kernel_run(void) {
  agl_kernel_sgemm(1, 300, 260, 70, gemm_a, 0, 70, 1, gemm_b, 0, 260, 1,
                   gemm_c, 0, 260, 0, 1.0f, NULL, AGL_ACT_GELU_ERF, NULL, 0, 0, NULL);
  agl_kernel_sgemm(1, 260, 300, 70, gemm_b, 0, 1, 260, gemm_a, 0, 1, 70,
                   gemm_c, 0, 300, 1, 1.0f, NULL, AGL_ACT_NONE, NULL, 0, 0, NULL);
  agl_kernel_sgemm(4, 1, 260, 70, gemm_a, 70, 70, 1, gemm_b, 0, 260, 1,
                   gemm_c, 260, 260, 0, 1.0f, NULL, AGL_ACT_SILU, NULL, 0, 0, NULL);
  agl_kernel_sgemm(1, 300, 2, 70, gemm_a, 0, 70, 1, gemm_b, 0, 1, 70, gemm_c,
                   0, 2, 0, 1.0f, NULL, AGL_ACT_RELU, NULL, 0, 0, NULL);
  agl_kernel_sgemm(3, 20, 30, 0, gemm_a, 0, 0, 0, gemm_b, 0, 0, 0, gemm_c,
                   600, 30, 1, 1.0f, NULL, AGL_ACT_GELU_TANH, NULL, 0, 0, NULL);
  /* Convolutions: 7 x 50 x 60 images, 20 filters of 3 x 3, padded, at
   * strides 1 and 2 (the weights are any floats here). */
  agl_kernel_conv2d(1, 1, 7, 50, 60, gemm_a, 21000, 3000, 60, 20, 3, 3, 1, 1,
                    1, 1, 1, 1, gemm_b, gemm_b, gemm_c, 50, 60, 60000, 3000,
                    0, AGL_ACT_RELU, NULL, NULL);
  agl_kernel_conv2d(1, 1, 7, 50, 60, gemm_a, 21000, 3000, 60, 20, 3, 3, 2, 2,
                    1, 1, 1, 1, gemm_b, NULL, gemm_c, 25, 30, 15000, 750, 1,
                    AGL_ACT_NONE, gemm_b, NULL);
  /* Max pooling 3 x 3 / 2 of 7 x 50 x 60 images, padded. */
  agl_kernel_maxpool2d(1, 7, 50, 60, gemm_a, 21000, 3000, 60, 3, 3, 2, 2, 1,
                       1, 1, 1, gemm_c, 25, 30, 5250, 750, 30);
  /* Attention: 4 heads of size 20 over 60 positions, causal, masked; then
   * one query of 4 heads against 2 K/V heads of 300 positions. */
  agl_kernel_attention(1, 4, 4, 60, 60, 20, 20, gemm_a, 0, 1200, 20, gemm_a,
                       0, 1200, 20, gemm_b, 0, 1200, 20, gemm_b, 0, 0, 60, 1,
                       gemm_c, 0, 1200, 20, 0.25f, 1);
  agl_kernel_attention(1, 4, 2, 1, 300, 20, 20, gemm_a, 0, 20, 20, gemm_b, 0,
                       6000, 20, gemm_a, 0, 6000, 20, NULL, 0, 0, 0, 0, gemm_c,
                       0, 20, 20, 0.25f, 0);
  /* A decode step that copies 299 past positions of 2 heads into K and V
   * first. */
  agl_kernel_attention_with_past(
      1, 2, 2, 1, 300, 20, 20, gemm_a, 0, 20, 20, gemm_c, 0, 6000, 20,
      gemm_c + 12000, 0, 6000, 20, NULL, 0, 0, 0, 0, gemm_c + 24000, 0, 20,
      20, 0.25f, 1, 299, gemm_a, 0, 5980, 20, gemm_b, 0, 5980, 20);
  agl_parallel_for(1000, 10, touch, gemm_c);
  /* Weight-only quantized products: decode rows and a packed block. */
  agl_kernel_sgemm_q8(1, 1, 256, 70, gemm_a, 0, 70, 1, gemm_q8, 32, gemm_c,
                      0, 256, 0, 1.0f, NULL, AGL_ACT_NONE, NULL, 0, 0,
                      NULL);
  agl_kernel_sgemm_q4(2, 3, 256, 70, gemm_a, 210, 70, 1, gemm_q4, 32, gemm_c,
                      768, 256, 1, 1.0f, NULL, AGL_ACT_SILU, NULL, 0, 0,
                      NULL);
  agl_kernel_sgemm_q4(1, 1, 256, 70, gemm_a, 0, 70, 1, gemm_q4, 32, gemm_c,
                      0, 256, 0, 1.0f, NULL, AGL_ACT_NONE, NULL, 0, 0,
                      NULL);
  agl_kernel_sgemm_q8(1, 300, 256, 70, gemm_a, 0, 70, 1, gemm_q8, 32, gemm_c,
                      0, 256, 0, 1.0f, NULL, AGL_ACT_RELU, NULL, 0, 0,
                      NULL);
  agl_kernel_sgemm_q4(1, 20, 256, 70, gemm_a, 0, 70, 1, gemm_q4, 32, gemm_c,
                      0, 256, 1, 1.0f, NULL, AGL_ACT_NONE, NULL, 0, 0,
                      NULL);
  /* bfloat16 weights: decode rows and a packed block. */
  agl_kernel_sgemm_bf16(1, 1, 260, 70, gemm_a, 0, 70, 1, gemm_bf16, gemm_c,
                        0, 260, 0, 1.0f, NULL, AGL_ACT_NONE, NULL, 0, 0,
                        NULL);
  agl_kernel_sgemm_bf16(1, 300, 260, 70, gemm_a, 0, 70, 1, gemm_bf16, gemm_c,
                        0, 260, 0, 1.0f, NULL, AGL_ACT_GELU_ERF, NULL, 0, 0,
                        NULL);
  /* IEEE half weights, the same two regimes. */
  agl_kernel_sgemm_f16(1, 1, 260, 70, gemm_a, 0, 70, 1, gemm_f16, gemm_c, 0,
                       260, 0, 1.0f, NULL, AGL_ACT_NONE, NULL, 0, 0, NULL);
  agl_kernel_sgemm_f16(1, 300, 260, 70, gemm_a, 0, 70, 1, gemm_f16, gemm_c,
                       0, 260, 0, 1.0f, NULL, AGL_ACT_GELU_ERF, NULL, 0, 0,
                       NULL);
}

int main(void) {
  static float x[64], bias[8], sum[64], flat[64];
  static int64_t count[1];
  CHECK(agl_quant_weight_bytes(70, 256, 8, 32) == (int64_t)sizeof gemm_q8 &&
        agl_quant_weight_bytes(70, 256, 4, 32) == (int64_t)sizeof gemm_q4);
  agl_quantize_b(gemm_b, 70, 256, 260, 1, 8, 32, gemm_q8);
  agl_quantize_b(gemm_b, 70, 256, 260, 1, 4, 32, gemm_q4);
  CHECK(agl_w16_weight_bytes(70, 260) == (int64_t)sizeof gemm_bf16);
  agl_pack_b_w16(AGL_W16_BF16, gemm_b, 70, 260, 260, 1, gemm_bf16);
  agl_pack_b_w16(AGL_W16_F16, gemm_b, 70, 260, 260, 1, gemm_f16);
  const void *inputs[2] = {x, bias};
  void *outputs[3] = {sum, flat, count};
  int64_t x_shape[3], bias_shape[1], sum_shape[3], flat_shape[1],
      count_shape[1];
  const int64_t *input_shapes[2] = {x_shape, bias_shape};
  int64_t *output_shapes[3] = {sum_shape, flat_shape, count_shape};

  agl_instance *instance = NULL;
  unsigned long before_create = heap_calls;
  CHECK(agl_instance_create(fake_shaped_model(), &instance) == AGL_OK);
  CHECK(heap_calls > before_create); /* the counting works */

  unsigned long before_runs = heap_calls;
  for (int64_t batch = 1; batch <= 4; ++batch)
    for (int64_t seq = 1; seq <= 8; ++seq) {
      x_shape[0] = batch;
      x_shape[1] = seq;
      x_shape[2] = 2;
      bias_shape[0] = seq;
      CHECK(agl_instance_run_shaped(instance, inputs, input_shapes, outputs,
                                    output_shapes) == AGL_OK);
      CHECK(flat_shape[0] == batch * seq * 2 && count[0] == batch * seq);
    }
  /* Refused runs format their message into a fixed buffer. */
  bias_shape[0] = 1;
  CHECK(agl_instance_run_shaped(instance, inputs, input_shapes, outputs,
                                output_shapes) == AGL_ERR_INVALID_ARGUMENT);
  x_shape[0] = 9;
  CHECK(agl_instance_run_shaped(instance, inputs, input_shapes, outputs,
                                output_shapes) == AGL_ERR_INVALID_ARGUMENT);
  CHECK(agl_instance_run(instance, inputs, outputs) ==
        AGL_ERR_INVALID_ARGUMENT);
  unsigned long during_runs = heap_calls - before_runs;
  agl_instance_destroy(instance);

  /* A static model through both entry points, recording its kernels'
   * profile (the buffer is made before, outside the counted section). */
  static float a[6], b[6], y[6];
  static unsigned char positive[6];
  const void *add_inputs[2] = {a, b};
  void *add_outputs[2] = {y, positive};
  CHECK(agl_instance_create(fake_add_model(), &instance) == AGL_OK);
  CHECK(agl_instance_set_profile_capacity(instance, 3) == AGL_OK);
  before_runs = heap_calls;
  CHECK(agl_instance_run(instance, add_inputs, add_outputs) == AGL_OK);
  CHECK(agl_instance_run_shaped(instance, add_inputs, NULL, add_outputs,
                                NULL) == AGL_OK);
  during_runs += heap_calls - before_runs;
  uint64_t dropped = 0;
  CHECK(agl_instance_profile_events(instance, NULL, &dropped) == 3 &&
        dropped == 1);

  /* Kernels, with the pool the instance made and with 2 and 1 threads
   * (set outside the counted sections: that replaces the pool). */
  before_runs = heap_calls;
  kernel_run();
  during_runs += heap_calls - before_runs;
  for (int32_t threads = 2; threads >= 1; --threads) {
    CHECK(agl_set_num_threads(threads) == AGL_OK);
    before_runs = heap_calls;
    kernel_run();
    CHECK(agl_instance_run(instance, add_inputs, add_outputs) == AGL_OK);
    during_runs += heap_calls - before_runs;
  }
  agl_instance_destroy(instance);

  if (during_runs != 0) {
    fprintf(stderr, "runs made %lu heap calls\n", during_runs);
    return 1;
  }
  printf("no heap calls during runs\n");
  return 0;
}
