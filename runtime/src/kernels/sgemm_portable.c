/* The portable packed-GEMM kernel table: plain C that compilers vectorize
 * for whatever the target offers; used on CPUs without AVX-512. Also the
 * scalar activations. */
#include "kernels_internal.h"

#include <math.h>

enum { MR = 4, NR = 16 };
_Static_assert((int)MR <= (int)AGL_GEMM_MAX_MR && (int)NR <= (int)AGL_GEMM_MAX_NR,
               "the largest micro-tile bounds this one");
_Static_assert(AGL_SGEMM_PACKED_NR % NR == 0,
               "the ahead-of-time panels split into this kernel's");

/* GELU (erf form) as avx512_math.h computes it: erfc by the Numerical
 * Recipes fit, its exponent from x^2 / 2 exactly (a sum hi + lo). */
static float gelu_erf(float x) {
  float z = fabsf(x) * 0.70710678118654752f;
  float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = fmaf(p, t, -0.82215223f);
  p = fmaf(p, t, 1.48851587f);
  p = fmaf(p, t, -1.13520398f);
  p = fmaf(p, t, 0.27886807f);
  p = fmaf(p, t, -0.18628806f);
  p = fmaf(p, t, 0.09678418f);
  p = fmaf(p, t, 0.37409196f);
  p = fmaf(p, t, 1.00002368f);
  p = fmaf(p, t, -1.26551223f);
  float x2 = x * x, x2_lo = fmaf(x, x, -x2);
  float u = -0.5f * x2, hi = p + u, bb = hi - p;
  float lo = (p - (hi - bb)) + (u - bb) - 0.5f * x2_lo;
  float e = expf(hi);
  float half = 0.5f * t * fmaf(e, lo, e);
  return x * (x < 0.0f ? half : 1.0f - half);
}

float agl_activate_scalar(float x, int act) {
  switch (act) {
  case AGL_ACT_RELU:
    return x < 0.0f ? 0.0f : x; /* NaN stays NaN */
  case AGL_ACT_GELU_ERF:
    return gelu_erf(x);
  case AGL_ACT_GELU_TANH: {
    /* 0.5 (1 + tanh(u)) = 1 / (1 + e^(-2u)): no cancellation for x < 0. */
    float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    return x / (1.0f + expf(-2.0f * u));
  }
  case AGL_ACT_SILU:
    return x / (1.0f + expf(-x));
  default:
    return x;
  }
}

void agl_pack_strided(agl_view src, int64_t rows, int64_t kc, int r,
                      float *dst) {
  for (int64_t q = 0; q < rows; q += r) {
    int live = rows - q < r ? (int)(rows - q) : r;
    const float *base = src.data + q * src.rs;
    for (int64_t p = 0; p < kc; ++p) {
      int i = 0;
      for (; i < live; ++i)
        dst[i] = base[i * src.rs + p * src.cs];
      for (; i < r; ++i)
        dst[i] = 0.0f;
      dst += r;
    }
  }
}

/* acc = the MR x NR product of a packed A micro-panel and a packed B
 * micro-panel over kc depths. */
static void multiply_tile(int64_t kc, const float *ap, const float *bp,
                          int64_t ldb, float acc[MR][NR]) {
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j)
      acc[i][j] = 0.0f;
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j)
        acc[i][j] += ap[i] * bp[j];
    ap += MR;
    bp += ldb;
  }
}

static void kernel(int64_t kc, const float *ap, int64_t lda, const float *bp,
                   int64_t ldb, float *c, int64_t ldc, int mr, int nr,
                   const agl_epilogue *e) {
  (void)lda; /* always packed: direct_a is 0 */
  float acc[MR][NR];
  multiply_tile(kc, ap, bp, ldb, acc);
  for (int i = 0; i < mr; ++i) {
    float *row = c + i * ldc;
    for (int j = 0; j < nr; ++j)
      row[j] = agl_epilogue_scalar(e, row[j], acc[i][j], i, j);
  }
}

static void kernel_t(int64_t kc, const float *ap, int64_t lda, const float *bp,
                     int64_t ldb, float *c, int64_t ldc, int mr, int nr,
                     const agl_epilogue *e) {
  (void)lda;
  float acc[MR][NR];
  multiply_tile(kc, ap, bp, ldb, acc);
  for (int j = 0; j < nr; ++j) {
    float *column = c + j * ldc;
    for (int i = 0; i < mr; ++i)
      column[i] = agl_epilogue_scalar(e, column[i], acc[i][j], i, j);
  }
}

const agl_gemm_isa agl_gemm_portable = {
    "portable", MR, NR, 0, kernel, kernel_t, agl_pack_strided,
    agl_pack_strided, NULL, NULL,
};
