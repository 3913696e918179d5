/* What the fake CUDA driver (fake_cuda_driver.c) and the fake CUDA model
 * (fake_cuda_model.c) share: a "GPU image" is this struct, and a kernel a
 * host function run once per launch with the launch's thread count. */
#ifndef AUTOGLM_TEST_FAKE_CUDA_H
#define AUTOGLM_TEST_FAKE_CUDA_H

/* Every fake kernel takes three pointers. */
#define FAKE_CUDA_KERNEL_PARAMS 3
/* The most bytes of arguments host work submitted to the stream takes. */
#define FAKE_CUDA_WORK_ARGS 512

typedef struct fake_cuda_image {
  const char *kernel_name;
  void (*kernel)(unsigned threads, void **params);
} fake_cuda_image;

/* The matrix product fake_cuda_model_gemm's entry function asks of
 * agl_cuda_sgemm (or agl_cuda_gemm_half, reading its input and weights as
 * 16-bit floats), on its input (A), weights (B) and output (C), 16 floats
 * each: set by the test before a run. fake_cuda_model_gemm_epilogue's
 * calls agl_cuda_gemm_epilogue instead, its weights 48 floats: B, then
 * the bias, then the residual. fake_cuda_model_gemm_int8's calls
 * agl_cuda_gemm_int8 on int8 A (64 bytes in), int8 B (64 bytes of weights)
 * and int32 C (16 out), `format` and the epilogue's fields unused. */
#include <stdint.h>
typedef struct fake_cuda_gemm {
  int64_t batch, m, n, k;
  int64_t a_batch, a_row, a_col, b_batch, b_row, b_col, c_batch, c_row;
  int32_t accumulate;
  float alpha;
  int32_t format; /* -1: agl_cuda_sgemm; else agl_cuda_gemm_half's */
  /* agl_cuda_gemm_epilogue's (format -1 is AGL_CUDA_FLOAT there) */
  int32_t bias, activation, residual;
  int64_t r_batch, r_row;
} fake_cuda_gemm;
extern fake_cuda_gemm fake_gemm;

#endif
