/* Small-m products for AVX-512 (decode steps: m = 1..4), without packing:
 * B is read once, straight from its own layout, so the speed is that of
 * streaming B from memory.
 *  - B with unit column stride (rows of B contiguous): 1024 columns at a
 *    time, four depths per pass over a local m x 1024 block of sums.
 *  - B with unit row stride (columns of B contiguous) and A's rows
 *    contiguous: dot products along k, 4 columns x m rows at a time, 16
 *    depths per step, reduced at the end.
 * This file is compiled with AVX-512 enabled. */
#include "kernels_internal.h"

#include "avx512_math.h"

#include <immintrin.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE __mmask16 lanes(int64_t count) {
  return count >= 16 ? (__mmask16)0xFFFF
         : count <= 0 ? (__mmask16)0
                      : (__mmask16)((1u << count) - 1u);
}

/* Rows of B (unit column stride): a block of W columns at a time, with the
 * m x W sums in a local buffer (L1), four rows of B per pass; every row
 * segment read is W contiguous floats, which the prefetchers stream. */
enum { W = 1024 };

static ALWAYS_INLINE void axpy_rows(const int M, int64_t j0, int64_t j1,
                                    int64_t k, agl_view a, agl_view b,
                                    float *c, int64_t crs, int64_t ccs,
                                    const agl_epilogue *e) {
  _Alignas(64) float acc[4][W];
  for (int64_t jb = j0; jb < j1; jb += W) {
    int64_t width = j1 - jb < W ? j1 - jb : W;
    int64_t vectors = (width + 15) / 16;
    __mmask16 tail = lanes(width - (vectors - 1) * 16);
    for (int i = 0; i < M; ++i)
      for (int64_t v = 0; v < vectors; ++v)
        _mm512_store_ps(acc[i] + 16 * v, _mm512_setzero_ps());
    const float *brow = b.data + jb;
    int64_t p = 0;
    for (; p + 4 <= k; p += 4) {
      __m512 av[4][4];
      for (int i = 0; i < M; ++i)
        for (int r = 0; r < 4; ++r)
          av[i][r] = _mm512_set1_ps(a.data[i * a.rs + (p + r) * a.cs]);
      const float *r0 = brow + p * b.rs;
      for (int64_t v = 0; v < vectors; ++v) {
        __mmask16 m = v + 1 < vectors ? (__mmask16)0xFFFF : tail;
        __m512 bv[4];
        for (int r = 0; r < 4; ++r) {
          bv[r] = _mm512_maskz_loadu_ps(m, r0 + r * b.rs + 16 * v);
        }
        for (int i = 0; i < M; ++i) {
          __m512 x = _mm512_load_ps(acc[i] + 16 * v);
          x = _mm512_fmadd_ps(av[i][0], bv[0], x);
          x = _mm512_fmadd_ps(av[i][1], bv[1], x);
          x = _mm512_fmadd_ps(av[i][2], bv[2], x);
          x = _mm512_fmadd_ps(av[i][3], bv[3], x);
          _mm512_store_ps(acc[i] + 16 * v, x);
        }
      }
    }
    for (; p < k; ++p) {
      __m512 av[4];
      for (int i = 0; i < M; ++i)
        av[i] = _mm512_set1_ps(a.data[i * a.rs + p * a.cs]);
      const float *r0 = brow + p * b.rs;
      for (int64_t v = 0; v < vectors; ++v) {
        __mmask16 m = v + 1 < vectors ? (__mmask16)0xFFFF : tail;
        __m512 bv = _mm512_maskz_loadu_ps(m, r0 + 16 * v);
        for (int i = 0; i < M; ++i)
          _mm512_store_ps(acc[i] + 16 * v,
                          _mm512_fmadd_ps(av[i], bv,
                                          _mm512_load_ps(acc[i] + 16 * v)));
      }
    }
    for (int i = 0; i < M; ++i)
      for (int64_t v = 0; v < vectors; ++v)
        agl_store_epilogue512(_mm512_load_ps(acc[i] + 16 * v),
                  c + i * crs + (jb + 16 * v) * ccs, ccs, width - 16 * v, e,
                  i, jb + 16 * v);
  }
}

/* Columns j..j+NJ-1, each a contiguous run of k floats (B's row stride 1). */
static ALWAYS_INLINE void dot_block(const int M, const int NJ, int64_t j,
                                    int64_t k, agl_view a, agl_view b,
                                    float *c, int64_t crs, int64_t ccs,
                                    const agl_epilogue *e) {
  __m512 acc[4][4];
  for (int i = 0; i < M; ++i)
    for (int q = 0; q < NJ; ++q)
      acc[i][q] = _mm512_setzero_ps();
  const float *bcol[4];
  for (int q = 0; q < NJ; ++q)
    bcol[q] = b.data + (j + q) * b.cs;
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    __m512 bv[4];
    for (int q = 0; q < NJ; ++q)
      bv[q] = _mm512_loadu_ps(bcol[q] + p);
    for (int i = 0; i < M; ++i) {
      __m512 av = _mm512_loadu_ps(a.data + i * a.rs + p);
      for (int q = 0; q < NJ; ++q)
        acc[i][q] = _mm512_fmadd_ps(av, bv[q], acc[i][q]);
    }
  }
  if (p < k) {
    __mmask16 m = lanes(k - p);
    __m512 bv[4];
    for (int q = 0; q < NJ; ++q)
      bv[q] = _mm512_maskz_loadu_ps(m, bcol[q] + p);
    for (int i = 0; i < M; ++i) {
      __m512 av = _mm512_maskz_loadu_ps(m, a.data + i * a.rs + p);
      for (int q = 0; q < NJ; ++q)
        acc[i][q] = _mm512_fmadd_ps(av, bv[q], acc[i][q]);
    }
  }
  for (int i = 0; i < M; ++i)
    for (int q = 0; q < NJ; ++q) {
      float *out = c + i * crs + (j + q) * ccs;
      *out = agl_epilogue_scalar(e, *out, _mm512_reduce_add_ps(acc[i][q]), i,
                                 j + q);
    }
}

static ALWAYS_INLINE void dot_rows(const int M, int64_t j0, int64_t j1,
                                   int64_t k, agl_view a, agl_view b, float *c,
                                   int64_t crs, int64_t ccs,
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
  static void NAME(int64_t j0, int64_t j1, int64_t k, agl_view a, agl_view b, \
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

void agl_small_avx512(int64_t m, int64_t j0, int64_t j1, int64_t k,
                      agl_view a, agl_view b, float *c, int64_t crs,
                      int64_t ccs, const agl_epilogue *e) {
  static const variant_fn axpy[4] = {axpy1, axpy2, axpy3, axpy4};
  static const variant_fn dot[4] = {dot1, dot2, dot3, dot4};
  /* Prefer streaming rows of B; columns when that is B's layout. */
  const variant_fn *table = b.cs == 1 ? axpy : dot;
  table[m - 1](j0, j1, k, a, b, c, crs, ccs, e);
}
