/* Small-m products for AVX2 (decode steps: m = 1..4), without packing: the
 * AVX2 counterpart of gemv_avx512.c, B read once from its own layout.
 *  - B with unit column stride: 1024 columns at a time, four depths per
 *    pass over a local m x 1024 block of sums.
 *  - B with unit row stride and A's rows contiguous: dot products along k,
 *    4 columns x m rows at a time, 8 depths per step, reduced at the end.
 * This file is compiled with -mavx2 -mfma. */
#include "kernels_internal.h"

#include "avx2_math.h"

#include <immintrin.h>

enum { W = 1024 };

static AGL_ALWAYS_INLINE void axpy_rows(const int M, int64_t j0, int64_t j1,
                                        int64_t k, agl_view a, agl_view b,
                                        float *c, int64_t crs, int64_t ccs,
                                        const agl_epilogue *e) {
  _Alignas(32) float acc[4][W];
  for (int64_t jb = j0; jb < j1; jb += W) {
    int64_t width = j1 - jb < W ? j1 - jb : W;
    int64_t vectors = (width + 7) / 8;
    int64_t tail = width - (vectors - 1) * 8;
    for (int i = 0; i < M; ++i)
      for (int64_t v = 0; v < vectors; ++v)
        _mm256_store_ps(acc[i] + 8 * v, _mm256_setzero_ps());
    const float *brow = b.data + jb;
    int64_t p = 0;
    for (; p + 4 <= k; p += 4) {
      __m256 av[4][4];
      for (int i = 0; i < M; ++i)
        for (int r = 0; r < 4; ++r)
          av[i][r] = _mm256_set1_ps(a.data[i * a.rs + (p + r) * a.cs]);
      const float *r0 = brow + p * b.rs;
      for (int64_t v = 0; v < vectors; ++v) {
        int64_t n = v + 1 < vectors ? 8 : tail;
        __m256 bv[4];
        for (int r = 0; r < 4; ++r)
          bv[r] = agl_load_lanes256(r0 + r * b.rs + 8 * v, n);
        for (int i = 0; i < M; ++i) {
          __m256 x = _mm256_load_ps(acc[i] + 8 * v);
          x = _mm256_fmadd_ps(av[i][0], bv[0], x);
          x = _mm256_fmadd_ps(av[i][1], bv[1], x);
          x = _mm256_fmadd_ps(av[i][2], bv[2], x);
          x = _mm256_fmadd_ps(av[i][3], bv[3], x);
          _mm256_store_ps(acc[i] + 8 * v, x);
        }
      }
    }
    for (; p < k; ++p) {
      __m256 av[4];
      for (int i = 0; i < M; ++i)
        av[i] = _mm256_set1_ps(a.data[i * a.rs + p * a.cs]);
      const float *r0 = brow + p * b.rs;
      for (int64_t v = 0; v < vectors; ++v) {
        __m256 bv = agl_load_lanes256(r0 + 8 * v, v + 1 < vectors ? 8 : tail);
        for (int i = 0; i < M; ++i)
          _mm256_store_ps(
              acc[i] + 8 * v,
              _mm256_fmadd_ps(av[i], bv, _mm256_load_ps(acc[i] + 8 * v)));
      }
    }
    for (int i = 0; i < M; ++i)
      for (int64_t v = 0; v < vectors; ++v)
        agl_store_epilogue256(_mm256_load_ps(acc[i] + 8 * v),
                              c + i * crs + (jb + 8 * v) * ccs, ccs,
                              width - 8 * v, e, i, jb + 8 * v, 0, 1);
  }
}

/* Columns j..j+NJ-1, each a contiguous run of k floats (B's row stride 1). */
static AGL_ALWAYS_INLINE void dot_block(const int M, const int NJ, int64_t j,
                                        int64_t k, agl_view a, agl_view b,
                                        float *c, int64_t crs, int64_t ccs,
                                        const agl_epilogue *e) {
  __m256 acc[4][4];
  for (int i = 0; i < M; ++i)
    for (int q = 0; q < NJ; ++q)
      acc[i][q] = _mm256_setzero_ps();
  const float *bcol[4];
  for (int q = 0; q < NJ; ++q)
    bcol[q] = b.data + (j + q) * b.cs;
  for (int64_t p = 0; p < k; p += 8) {
    int64_t n = k - p;
    __m256 bv[4];
    for (int q = 0; q < NJ; ++q)
      bv[q] = agl_load_lanes256(bcol[q] + p, n);
    for (int i = 0; i < M; ++i) {
      __m256 av = agl_load_lanes256(a.data + i * a.rs + p, n);
      for (int q = 0; q < NJ; ++q)
        acc[i][q] = _mm256_fmadd_ps(av, bv[q], acc[i][q]);
    }
  }
  for (int i = 0; i < M; ++i)
    for (int q = 0; q < NJ; ++q) {
      float *out = c + i * crs + (j + q) * ccs;
      *out = agl_epilogue_scalar(e, *out, agl_sum256(acc[i][q]), i, j + q);
    }
}

static AGL_ALWAYS_INLINE void dot_rows(const int M, int64_t j0, int64_t j1,
                                       int64_t k, agl_view a, agl_view b,
                                       float *c, int64_t crs, int64_t ccs,
                                       const agl_epilogue *e) {
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4)
    dot_block(M, 4, j, k, a, b, c, crs, ccs, e);
  switch (j1 - j) {
  case 3:
    dot_block(M, 3, j, k, a, b, c, crs, ccs, e);
    break;
  case 2:
    dot_block(M, 2, j, k, a, b, c, crs, ccs, e);
    break;
  case 1:
    dot_block(M, 1, j, k, a, b, c, crs, ccs, e);
    break;
  }
}

#define SMALL_VARIANT(NAME, BODY, M)                                           \
  static void NAME(int64_t j0, int64_t j1, int64_t k, agl_view a, agl_view b,  \
                   float *c, int64_t crs, int64_t ccs,                         \
                   const agl_epilogue *e) {                                    \
    BODY(M, j0, j1, k, a, b, c, crs, ccs, e);                                  \
  }
SMALL_VARIANT(axpy1, axpy_rows, 1)
SMALL_VARIANT(axpy2, axpy_rows, 2)
SMALL_VARIANT(axpy3, axpy_rows, 3)
SMALL_VARIANT(axpy4, axpy_rows, 4)
SMALL_VARIANT(dot1, dot_rows, 1)
SMALL_VARIANT(dot2, dot_rows, 2)
SMALL_VARIANT(dot3, dot_rows, 3)
SMALL_VARIANT(dot4, dot_rows, 4)

typedef void (*variant_fn)(int64_t, int64_t, int64_t, agl_view, agl_view,
                           float *, int64_t, int64_t, const agl_epilogue *);

void agl_small_avx2(int64_t m, int64_t j0, int64_t j1, int64_t k, agl_view a,
                    agl_view b, float *c, int64_t crs, int64_t ccs,
                    const agl_epilogue *e) {
  static const variant_fn axpy[4] = {axpy1, axpy2, axpy3, axpy4};
  static const variant_fn dot[4] = {dot1, dot2, dot3, dot4};
  /* Prefer streaming rows of B; columns when that is B's layout. */
  const variant_fn *table = b.cs == 1 ? axpy : dot;
  table[m - 1](j0, j1, k, a, b, c, crs, ccs, e);
}
