/* Small-m products for AVX-512 (decode steps: m = 1..4), without packing:
 * B is read once, straight from its own layout, so the speed is that of
 * streaming B from memory.
 *  - B with unit column stride (rows of B contiguous): 1024 columns at a
 *    time, four depths per pass over a local m x 1024 block of sums.
 *  - B with unit row stride (columns of B contiguous) and A's rows
 *    contiguous: dot products along k, 4 columns x m rows at a time, 16
 *    depths per step, reduced at the end.
 *  - B packed ahead of time (panels of k x 32, row-major): several panels
 *    at a time, the sums in registers.
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

/* Packed panels q .. q+P-1 (each k rows of 32 floats), M rows of A, every
 * depth; U depths per step, each into its own set of accumulators
 * (M * 2P * U vectors), to hide the FMA latency. Columns past n are not
 * stored. The sums stay in registers: the axpy kernel's sums in memory made
 * every four depths a chain through a store and a load, which on Zen 5 held
 * the 1 x 3072 x 1024 product of a decode step to 15 GB/s of weights. */
static ALWAYS_INLINE void packed_panels(const int M, const int P, const int U,
                                        int64_t q, int64_t n, int64_t k,
                                        agl_view a, const float *packed_b,
                                        float *c, int64_t crs,
                                        const agl_epilogue *e) {
  enum { M_MAX = 4, P_MAX = 4, U_MAX = 4, PNR = AGL_SGEMM_PACKED_NR };
  const int64_t panel = k * PNR;
  const float *pb = packed_b + q * panel;
  __m512 acc[U_MAX][M_MAX][2 * P_MAX];
  for (int u = 0; u < U; ++u)
    for (int i = 0; i < M; ++i)
      for (int v = 0; v < 2 * P; ++v)
        acc[u][i][v] = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p + U <= k; p += U)
    for (int u = 0; u < U; ++u)
      for (int h = 0; h < P; ++h) {
        const float *row = pb + h * panel + (p + u) * PNR;
        __m512 w0 = _mm512_loadu_ps(row), w1 = _mm512_loadu_ps(row + 16);
        for (int i = 0; i < M; ++i) {
          __m512 x = _mm512_set1_ps(a.data[i * a.rs + (p + u) * a.cs]);
          acc[u][i][2 * h] = _mm512_fmadd_ps(x, w0, acc[u][i][2 * h]);
          acc[u][i][2 * h + 1] = _mm512_fmadd_ps(x, w1, acc[u][i][2 * h + 1]);
        }
      }
  for (; p < k; ++p)
    for (int h = 0; h < P; ++h) {
      const float *row = pb + h * panel + p * PNR;
      __m512 w0 = _mm512_loadu_ps(row), w1 = _mm512_loadu_ps(row + 16);
      for (int i = 0; i < M; ++i) {
        __m512 x = _mm512_set1_ps(a.data[i * a.rs + p * a.cs]);
        acc[0][i][2 * h] = _mm512_fmadd_ps(x, w0, acc[0][i][2 * h]);
        acc[0][i][2 * h + 1] = _mm512_fmadd_ps(x, w1, acc[0][i][2 * h + 1]);
      }
    }
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < 2 * P; ++v) {
      __m512 sum = acc[0][i][v];
      for (int u = 1; u < U; ++u)
        sum = _mm512_add_ps(sum, acc[u][i][v]);
      int64_t j = q * PNR + 16 * v;
      if (j < n)
        agl_store_epilogue512(sum, c + i * crs + j, 1, n - j, e, i, j);
    }
}

#define PACKED_VARIANT(M, P, U)                                                \
  static void packed_##M##_##P(int64_t q, int64_t n, int64_t k, agl_view a,   \
                               const float *packed_b, float *c, int64_t crs,  \
                               const agl_epilogue *e) {                       \
    packed_panels(M, P, U, q, n, k, a, packed_b, c, crs, e);                   \
  }
/* Eight or more independent accumulators at each row count, and as many
 * panels as the registers allow: each broadcast of A serves more vectors
 * and more streams of weights are in flight. */
PACKED_VARIANT(1, 4, 2)
PACKED_VARIANT(1, 2, 2)
PACKED_VARIANT(1, 1, 4)
PACKED_VARIANT(2, 4, 1)
PACKED_VARIANT(2, 1, 2)
PACKED_VARIANT(3, 2, 1)
PACKED_VARIANT(3, 1, 2)
PACKED_VARIANT(4, 2, 1)
PACKED_VARIANT(4, 1, 2)

typedef void (*packed_fn)(int64_t, int64_t, int64_t, agl_view, const float *,
                          float *, int64_t, const agl_epilogue *);

void agl_small_packed_avx512(int64_t m, int64_t q0, int64_t q1, int64_t n,
                             int64_t k, agl_view a, const float *packed_b,
                             float *c, int64_t crs, const agl_epilogue *e) {
  /* Per row count: the widest step and the one-panel step. */
  static const packed_fn wide[4] = {packed_1_4, packed_2_4, packed_3_2,
                                    packed_4_2};
  static const int wide_panels[4] = {4, 4, 2, 2};
  static const packed_fn single[4] = {packed_1_1, packed_2_1, packed_3_1,
                                      packed_4_1};
  const int r = (int)m - 1;
  int64_t q = q0;
  for (; q + wide_panels[r] <= q1; q += wide_panels[r])
    wide[r](q, n, k, a, packed_b, c, crs, e);
  if (m == 1)
    for (; q + 2 <= q1; q += 2)
      packed_1_2(q, n, k, a, packed_b, c, crs, e);
  for (; q < q1; ++q)
    single[r](q, n, k, a, packed_b, c, crs, e);
}

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
