/* The portable packed-GEMM kernel table: plain C that compilers vectorize
 * for whatever the target offers; used on CPUs without AVX-512. Also the
 * scalar activations. */
#include "kernels_internal.h"

#include <math.h>

enum { MR = 4, NR = 16 };
_Static_assert((int)MR <= (int)AGL_GEMM_MAX_MR && (int)NR <= (int)AGL_GEMM_MAX_NR,
               "the largest micro-tile bounds this one");

float agl_activate_scalar(float x, int act) {
  switch (act) {
  case AGL_ACT_RELU:
    return x < 0.0f ? 0.0f : x; /* NaN stays NaN */
  case AGL_ACT_GELU_ERF:
    return 0.5f * x * erfcf(-x * 0.70710678118654752f);
  case AGL_ACT_GELU_TANH: {
    float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
  }
  case AGL_ACT_SILU:
    return x / (1.0f + expf(-x));
  default:
    return x;
  }
}

static void activate(float *x, int64_t n, int act) {
  if (act == AGL_ACT_RELU) {
    for (int64_t i = 0; i < n; ++i)
      x[i] = x[i] < 0.0f ? 0.0f : x[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    x[i] = agl_activate_scalar(x[i], act);
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
                          float acc[MR][NR]) {
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j)
      acc[i][j] = 0.0f;
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j)
        acc[i][j] += ap[i] * bp[j];
    ap += MR;
    bp += NR;
  }
}

static void kernel(int64_t kc, const float *ap, int64_t lda, const float *bp,
                   float *c, int64_t ldc, int mr, int nr, int load_c,
                   const float *bias, int act) {
  (void)lda; /* always packed: direct_a is 0 */
  float acc[MR][NR];
  multiply_tile(kc, ap, bp, acc);
  for (int i = 0; i < mr; ++i) {
    float *row = c + i * ldc;
    for (int j = 0; j < nr; ++j)
      row[j] = (load_c ? row[j] : 0.0f) + acc[i][j] + (bias ? bias[i] : 0.0f);
    if (act != AGL_ACT_NONE)
      activate(row, nr, act);
  }
}

static void kernel_t(int64_t kc, const float *ap, int64_t lda,
                     const float *bp, float *c, int64_t ldc, int mr, int nr,
                     int load_c, const float *bias, int act) {
  (void)lda;
  float acc[MR][NR];
  multiply_tile(kc, ap, bp, acc);
  for (int j = 0; j < nr; ++j) {
    float *column = c + j * ldc;
    for (int i = 0; i < mr; ++i)
      column[i] = (load_c ? column[i] : 0.0f) + acc[i][j] +
                  (bias ? bias[j] : 0.0f);
    if (act != AGL_ACT_NONE)
      activate(column, mr, act);
  }
}

const agl_gemm_isa agl_gemm_portable = {
    "portable", MR, NR, 0, kernel, kernel_t, agl_pack_strided,
    agl_pack_strided, NULL, activate,
};
