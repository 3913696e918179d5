/* Matrix products of compiled CUDA models, run by cuBLAS (blas.c). */
#ifndef AUTOGLM_RUNTIME_CUDA_BLAS_H
#define AUTOGLM_RUNTIME_CUDA_BLAS_H

#include "../internal.h"

#include <stdint.h>

/* An instance's cuBLAS handle, made at its first product. */
typedef struct agl_cuda_blas agl_cuda_blas;
AGL_HIDDEN void agl_cuda_blas_destroy(agl_cuda_blas *blas);

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
enum { AGL_CUDA_HALF = 0, AGL_CUDA_BF16 = 1 };
__attribute__((visibility("default"))) void
agl_cuda_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k,
                   const void *a, int64_t a_batch_stride, int64_t a_row_stride,
                   int64_t a_col_stride, const void *b, int64_t b_batch_stride,
                   int64_t b_row_stride, int64_t b_col_stride, float *c,
                   int64_t c_batch_stride, int64_t c_row_stride,
                   int32_t accumulate, float alpha, int32_t format);

#endif /* AUTOGLM_RUNTIME_CUDA_BLAS_H */
