/* Matrix products of compiled CUDA models, run by cuBLAS (blas.c). */
#ifndef AUTOGLM_RUNTIME_CUDA_BLAS_H
#define AUTOGLM_RUNTIME_CUDA_BLAS_H

#include "../internal.h"
#include "driver.h"

#include <stdint.h>

/* An instance's state for the runtime calls of its host code, made at the
 * first one: its cuBLAS handle, its cuBLASLt state (blas_lt.c) and the host
 * memory of its host sections (host_section.c), each made at its first
 * use. */
struct agl_cuda_lt;
typedef struct agl_cuda_blas {
  struct cublasContext *handle;
  struct agl_cuda_lt *lt;
  void *staging;
  size_t staging_bytes;
} agl_cuda_blas;
AGL_HIDDEN void agl_cuda_blas_destroy(agl_cuda_blas *blas);
AGL_HIDDEN void agl_cuda_lt_destroy(struct agl_cuda_lt *lt);

/* For a product of the bound run (launch.h): the run's stream and the
 * instance's state, made if needed; null after failing the run. */
AGL_HIDDEN agl_cuda_blas *agl_cuda_blas_of_run(const char *caller,
                                               CUstream *stream);

/* dlopen of the library named by the environment variable `variable`, else
 * of the first of `candidates` found; null with why in `why`, which
 * `purpose` and `variable` end. */
AGL_HIDDEN void *agl_cuda_open_library(const char *variable,
                                       const char *const *candidates,
                                       size_t count, const char *purpose,
                                       char *why, size_t size);

/* How cuBLAS sees a row-major rows x cols operand with these strides
 * (elements): as it is (*transposed = 0: a column-major cols x rows matrix
 * of leading dimension *ld) or transposed (a column-major rows x cols
 * one); 0 when it can take neither. */
AGL_HIDDEN int agl_cuda_blas_layout(int64_t rows, int64_t cols,
                                    int64_t row_stride, int64_t col_stride,
                                    int *transposed, int64_t *ld);

/* A row-major product C = A B (m x k by k x n) as cuBLAS's column-major
 * C^T = B^T A^T: whether A and B are passed transposed, and the leading
 * dimensions of A, B and C; 0 when cuBLAS cannot take the strides (C's
 * rows must be contiguous). */
typedef struct agl_cuda_product {
  int a_transposed, b_transposed;
  int64_t lda, ldb, ldc;
} agl_cuda_product;
AGL_HIDDEN int agl_cuda_product_layout(int64_t m, int64_t n, int64_t k,
                                       int64_t a_row_stride,
                                       int64_t a_col_stride,
                                       int64_t b_row_stride,
                                       int64_t b_col_stride,
                                       int64_t c_row_stride,
                                       agl_cuda_product *out);

/* Fails the run: "CALLER: a MxNxK product whose operand strides (or
 * format) LIBRARY cannot take". */
AGL_HIDDEN void agl_cuda_blas_refuse(const char *caller, const char *library,
                                     int64_t m, int64_t n, int64_t k);

/* Fails the run with "what failed: TEXT (cuBLAS status N)". */
AGL_HIDDEN void agl_cuda_blas_failed(const char *what, int status,
                                     const char *text);

/* Called by compiled models' host code during a run, on device pointers:
 * for each of `batch` entries (pointers advanced by the batch strides),
 * C[i][j] = alpha * sum_p A[i][p] * B[p][j] (+ C[i][j] when `accumulate`),
 * A m x k, B k x n and C m x n given by their row and column strides in
 * floats (C's columns contiguous). Each operand needs a unit stride along
 * its rows or its columns; a failure fails the run. */
__attribute__((visibility("default"))) void
agl_cuda_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a,
               int64_t a_batch_stride, int64_t a_row_stride,
               int64_t a_col_stride, const float *b, int64_t b_batch_stride,
               int64_t b_row_stride, int64_t b_col_stride, float *c,
               int64_t c_batch_stride, int64_t c_row_stride, int32_t accumulate,
               float alpha);

/* The same with A and B in 16-bit floats (`format`: AGL_CUDA_HALF for
 * IEEE half, AGL_CUDA_BF16 for bfloat16; strides in elements), summed in
 * float32 into float32 C: cuBLAS's tensor-core products. */
enum { AGL_CUDA_HALF = 0, AGL_CUDA_BF16 = 1, AGL_CUDA_FLOAT = 2 };
__attribute__((visibility("default"))) void
agl_cuda_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k,
                   const void *a, int64_t a_batch_stride, int64_t a_row_stride,
                   int64_t a_col_stride, const void *b, int64_t b_batch_stride,
                   int64_t b_row_stride, int64_t b_col_stride, float *c,
                   int64_t c_batch_stride, int64_t c_row_stride,
                   int32_t accumulate, float alpha, int32_t format);

/* A product with its epilogue, through cuBLASLt (blas_lt.c):
 *   C = act(alpha * A B + bias[j] (+ C when `accumulate`)) + residual
 * A and B in `format` (AGL_CUDA_HALF, AGL_CUDA_BF16 or AGL_CUDA_FLOAT),
 * float32 sums, C, bias and residual float32. `bias` (n floats, the same
 * for every batch entry) and `residual` (C's shape, its own batch and row
 * strides) may be null. `activation` is AGL_ACT_NONE, AGL_ACT_RELU or
 * AGL_ACT_GELU_TANH (cuBLASLt's epilogues); a residual goes with neither
 * an activation nor `accumulate`. What it cannot take fails the run. */
__attribute__((visibility("default"))) void agl_cuda_gemm_epilogue(
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const void *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, float *c, int64_t c_batch_stride,
    int64_t c_row_stride, int32_t accumulate, float alpha, int32_t format,
    const float *bias, int32_t activation, const float *residual,
    int64_t residual_batch_stride, int64_t residual_row_stride);

/* A product of int8 operands summed in int32 into int32 C, through
 * cuBLASLt (blas_lt.c): C = A B (+ C when `accumulate`), strides in
 * elements. cuBLASLt's integer products need A's rows and B's columns
 * contiguous along k ("TN"), n, k and the leading dimensions multiples of
 * 4, the operands 4-byte aligned (batch strides too): the compiler only
 * makes calls that satisfy agl_cuda_int8_takes, and anything else fails
 * the run. */
__attribute__((visibility("default"))) void
agl_cuda_gemm_int8(int64_t batch, int64_t m, int64_t n, int64_t k,
                   const int8_t *a, int64_t a_batch_stride,
                   int64_t a_row_stride, int64_t a_col_stride, const int8_t *b,
                   int64_t b_batch_stride, int64_t b_row_stride,
                   int64_t b_col_stride, int32_t *c, int64_t c_batch_stride,
                   int64_t c_row_stride, int32_t accumulate);
AGL_HIDDEN int agl_cuda_int8_takes(int64_t m, int64_t n, int64_t k,
                                   int64_t a_row_stride, int64_t a_col_stride,
                                   int64_t b_row_stride, int64_t b_col_stride,
                                   int64_t c_row_stride,
                                   agl_cuda_product *layout);

/* Whether cuBLASLt has an epilogue for `activation` (none, ReLU or tanh
 * GELU, after the bias if any), with a residual (only without an
 * activation, and not while accumulating) when `residual` (blas_lt.c). */
AGL_HIDDEN int agl_cuda_lt_takes(int32_t activation, int residual,
                                 int32_t accumulate);

/* ---- --target=cuda-emulated (emulated_blas.c) ----------------------------
 * The calls above, computed on host memory, for the CUDA target's
 * code compiled for the CPU: same arguments, same results. */
__attribute__((visibility("default"))) void
agl_emulated_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                   const float *a, int64_t a_batch_stride, int64_t a_row_stride,
                   int64_t a_col_stride, const float *b, int64_t b_batch_stride,
                   int64_t b_row_stride, int64_t b_col_stride, float *c,
                   int64_t c_batch_stride, int64_t c_row_stride,
                   int32_t accumulate, float alpha);
__attribute__((visibility("default"))) void agl_emulated_gemm_half(
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const void *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, float *c, int64_t c_batch_stride,
    int64_t c_row_stride, int32_t accumulate, float alpha, int32_t format);
__attribute__((visibility("default"))) void agl_emulated_gemm_epilogue(
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const void *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, float *c, int64_t c_batch_stride,
    int64_t c_row_stride, int32_t accumulate, float alpha, int32_t format,
    const float *bias, int32_t activation, const float *residual,
    int64_t residual_batch_stride, int64_t residual_row_stride);
__attribute__((visibility("default"))) void agl_emulated_gemm_int8(
    int64_t batch, int64_t m, int64_t n, int64_t k, const int8_t *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const int8_t *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, int32_t *c, int64_t c_batch_stride,
    int64_t c_row_stride, int32_t accumulate);

/* ---- host sections (host_section.c) -------------------------------------
 * The ops a model places on the host (autoglm-compile --device-hint
 * FAMILY=host) run on host copies of the device bytes they touch, in the
 * instance's staging memory: */
/* The instance's staging memory, at least `bytes` (made at its first run,
 * 64-byte aligned); null when it cannot be had (the run fails). */
__attribute__((visibility("default"))) void *
agl_cuda_host_staging(int64_t bytes);
/* Copies device bytes to host memory once the run's queued work is done. */
__attribute__((visibility("default"))) void
agl_cuda_copy_to_host(void *host, const void *device, int64_t bytes);
/* Copies host bytes to the device, done when it returns. */
__attribute__((visibility("default"))) void
agl_cuda_copy_to_device(void *device, const void *host, int64_t bytes);

#endif /* AUTOGLM_RUNTIME_CUDA_BLAS_H */
