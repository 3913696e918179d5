/* The matrix products of --target=cuda-emulated artifacts, on the host.
 *
 * Such an artifact is the CUDA target's code compiled for the CPU (each
 * block's threads run one after another): its host code calls the CUDA
 * library functions of the runtime under other names, agl_emulated_* for
 * agl_cuda_* (autoglm-emulate-gpu-libraries). These compute what cuBLAS
 * and cuBLASLt compute for the GPU calls: the same mapping of the
 * row-major operands to cuBLAS's column-major view (agl_cuda_product_layout,
 * as blas.c and blas_lt.c use it), then that product as cuBLAS defines it,
 * C^T = op(B^T) op(A^T), summed in float, with cuBLASLt's epilogue (beta C
 * or the residual, the bias, the activation). So a call whose strides the
 * GPU path would misread is misread here too. What the GPU calls refuse
 * leaves C as NaN and says why on stderr: the host code of a CPU model has
 * no way to fail its run. */
#include "blas.h"

#include "autoglm/kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { FLOAT_OPERANDS = -1 };

/* A 16-bit float as a float. */
static float widen(uint16_t bits, int format) {
  uint32_t out;
  if (format == AGL_CUDA_BF16) {
    out = (uint32_t)bits << 16;
  } else { /* IEEE half */
    const uint32_t sign = (uint32_t)(bits & 0x8000) << 16;
    const uint32_t exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
    if (exponent == 0x1F)
      out = sign | 0x7F800000u | (mantissa << 13);
    else if (exponent)
      out = sign | ((exponent + 112) << 23) | (mantissa << 13);
    else /* zero or subnormal: mantissa * 2^-24 */
      return (sign ? -1.0f : 1.0f) * ldexpf((float)mantissa, -24);
  }
  float value;
  memcpy(&value, &out, sizeof value);
  return value;
}

/* Element (i, j) of op(X) for a column-major X of leading dimension ld. */
static float at(const void *x, int format, int transposed, int64_t ld,
                int64_t i, int64_t j) {
  const int64_t index = transposed ? j + i * ld : i + j * ld;
  return format == FLOAT_OPERANDS || format == AGL_CUDA_FLOAT
             ? ((const float *)x)[index]
             : widen(((const uint16_t *)x)[index], format);
}

static void refuse(const char *caller, const char *why, int64_t batch,
                   int64_t m, int64_t n, float *c, int64_t c_batch_stride,
                   int64_t c_row_stride) {
  fprintf(stderr, "autoglm: %s (emulated): %s; its output is NaN\n", caller,
          why);
  for (int64_t e = 0; e < batch; ++e)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[e * c_batch_stride + i * c_row_stride + j] = NAN;
}

/* C = act(alpha A B + beta source + bias[j]) as the GPU calls compute it;
 * `source` is C itself (accumulating) or the residual, or null. */
static void product(int64_t batch, int64_t m, int64_t n, int64_t k,
                    const void *a, int64_t a_batch_stride, int64_t a_row_stride,
                    int64_t a_col_stride, const void *b, int64_t b_batch_stride,
                    int64_t b_row_stride, int64_t b_col_stride, float *c,
                    int64_t c_batch_stride, int64_t c_row_stride,
                    const float *source, int64_t source_batch_stride,
                    int64_t source_row_stride, float alpha, int format,
                    const float *bias, int32_t activation, const char *caller) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  agl_cuda_product p;
  int r_transposed = 0;
  int64_t ldr = 0;
  if (!agl_cuda_product_layout(m, n, k, a_row_stride, a_col_stride,
                               b_row_stride, b_col_stride, c_row_stride, &p) ||
      (source && source != c &&
       (!agl_cuda_blas_layout(m, n, source_row_stride, 1, &r_transposed,
                              &ldr) ||
        r_transposed))) {
    refuse(caller, "operand strides cuBLAS cannot take", batch, m, n, c,
           c_batch_stride, c_row_stride);
    return;
  }
  if (source == c)
    ldr = p.ldc;
  const size_t element = format == FLOAT_OPERANDS || format == AGL_CUDA_FLOAT
                             ? sizeof(float)
                             : sizeof(uint16_t);
  /* Column-major: C^T (n x m) = op(B^T) (n x k) op(A^T) (k x m). */
  for (int64_t e = 0; e < batch; ++e) {
    const char *a_e = (const char *)a + e * a_batch_stride * (int64_t)element;
    const char *b_e = (const char *)b + e * b_batch_stride * (int64_t)element;
    float *c_e = c + e * c_batch_stride;
    const float *s_e = source ? source + e * (source == c ? c_batch_stride
                                                          : source_batch_stride)
                              : NULL;
    for (int64_t j = 0; j < m; ++j)
      for (int64_t i = 0; i < n; ++i) {
        float sum = 0;
        for (int64_t q = 0; q < k; ++q)
          sum += at(b_e, format, p.b_transposed, p.ldb, i, q) *
                 at(a_e, format, p.a_transposed, p.lda, q, j);
        float v = alpha * sum;
        if (s_e)
          v += s_e[i + j * ldr];
        if (bias)
          v += bias[i];
        if (activation == AGL_ACT_RELU)
          v = v > 0 ? v : 0;
        else if (activation == AGL_ACT_GELU_TANH)
          v = 0.5f * v *
              (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        c_e[i + j * p.ldc] = v;
      }
  }
}

void agl_emulated_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                        const float *a, int64_t a_batch_stride,
                        int64_t a_row_stride, int64_t a_col_stride,
                        const float *b, int64_t b_batch_stride,
                        int64_t b_row_stride, int64_t b_col_stride, float *c,
                        int64_t c_batch_stride, int64_t c_row_stride,
                        int32_t accumulate, float alpha) {
  product(batch, m, n, k, a, a_batch_stride, a_row_stride, a_col_stride, b,
          b_batch_stride, b_row_stride, b_col_stride, c, c_batch_stride,
          c_row_stride, accumulate ? c : NULL, 0, 0, alpha, FLOAT_OPERANDS,
          NULL, AGL_ACT_NONE, "agl_cuda_sgemm");
}

void agl_emulated_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k,
                            const void *a, int64_t a_batch_stride,
                            int64_t a_row_stride, int64_t a_col_stride,
                            const void *b, int64_t b_batch_stride,
                            int64_t b_row_stride, int64_t b_col_stride,
                            float *c, int64_t c_batch_stride,
                            int64_t c_row_stride, int32_t accumulate,
                            float alpha, int32_t format) {
  if (format != AGL_CUDA_HALF && format != AGL_CUDA_BF16) {
    refuse("agl_cuda_gemm_half", "a format cuBLAS cannot take", batch, m, n, c,
           c_batch_stride, c_row_stride);
    return;
  }
  product(batch, m, n, k, a, a_batch_stride, a_row_stride, a_col_stride, b,
          b_batch_stride, b_row_stride, b_col_stride, c, c_batch_stride,
          c_row_stride, accumulate ? c : NULL, 0, 0, alpha, format, NULL,
          AGL_ACT_NONE, "agl_cuda_gemm_half");
}

void agl_emulated_gemm_epilogue(
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const void *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, float *c, int64_t c_batch_stride,
    int64_t c_row_stride, int32_t accumulate, float alpha, int32_t format,
    const float *bias, int32_t activation, const float *residual,
    int64_t residual_batch_stride, int64_t residual_row_stride) {
  static const char caller[] = "agl_cuda_gemm_epilogue";
  if (!agl_cuda_lt_takes(activation, residual != NULL, accumulate) ||
      format < AGL_CUDA_HALF || format > AGL_CUDA_FLOAT) {
    refuse(caller, "no cuBLASLt epilogue for it", batch, m, n, c,
           c_batch_stride, c_row_stride);
    return;
  }
  product(batch, m, n, k, a, a_batch_stride, a_row_stride, a_col_stride, b,
          b_batch_stride, b_row_stride, b_col_stride, c, c_batch_stride,
          c_row_stride,
          residual     ? residual
          : accumulate ? c
                       : NULL,
          residual_batch_stride, residual_row_stride, alpha, format, bias,
          activation, caller);
}

void agl_emulated_gemm_int8(int64_t batch, int64_t m, int64_t n, int64_t k,
                            const int8_t *a, int64_t a_batch_stride,
                            int64_t a_row_stride, int64_t a_col_stride,
                            const int8_t *b, int64_t b_batch_stride,
                            int64_t b_row_stride, int64_t b_col_stride,
                            int32_t *c, int64_t c_batch_stride,
                            int64_t c_row_stride, int32_t accumulate) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  agl_cuda_product p;
  if (!agl_cuda_int8_takes(m, n, k, a_row_stride, a_col_stride, b_row_stride,
                           b_col_stride, c_row_stride, &p)) {
    /* No NaN in int32: the most negative value marks what was refused. */
    fprintf(stderr, "autoglm: agl_cuda_gemm_int8 (emulated): operand strides "
                    "cuBLASLt's integer products cannot take; its output is "
                    "INT32_MIN\n");
    for (int64_t e = 0; e < batch; ++e)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c[e * c_batch_stride + i * c_row_stride + j] = INT32_MIN;
    return;
  }
  /* "TN": B^T's rows (the model's B's columns) and A^T's columns (A's rows)
   * are contiguous along k. */
  for (int64_t e = 0; e < batch; ++e)
    for (int64_t j = 0; j < m; ++j)
      for (int64_t i = 0; i < n; ++i) {
        const int8_t *row = a + e * a_batch_stride + j * p.lda;
        const int8_t *column = b + e * b_batch_stride + i * p.ldb;
        int32_t sum = 0;
        for (int64_t q = 0; q < k; ++q)
          sum += (int32_t)row[q] * (int32_t)column[q];
        int32_t *out = c + e * c_batch_stride + j * p.ldc + i;
        *out = accumulate ? *out + sum : sum;
      }
}
