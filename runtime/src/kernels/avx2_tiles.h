/* Storing a register tile of positions x filters into NCHW for the AVX2
 * kernels whose tiles run filters along the vectors (the packed GEMM with C
 * transposed, the broadcasting convolution): each 8 columns of the tile are
 * transposed in registers, so every filter's positions leave as one run.
 * Included only by files compiled with -mavx2 -mfma. */
#ifndef AUTOGLM_AVX2_TILES_H
#define AUTOGLM_AVX2_TILES_H

#include "avx2_math.h"

#include <immintrin.h>

/* The largest tile: 6 rows (positions) x 2 vectors. */
enum { AGL_AVX2_TILE_ROWS = 6 };

/* Transposes 8 rows of 8 floats in registers: r[j] becomes column j. */
static AGL_ALWAYS_INLINE void agl_transpose8(__m256 r[8]) {
  __m256 t[8], s[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  /* s[4h + c]: rows 4h..4h+3 of columns c (low half) and c + 4 (high). */
  for (int h = 0; h < 2; ++h) {
    s[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
    s[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
    s[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
    s[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x20);
    r[c + 4] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x31);
  }
}

/* Writes the R x nr accumulators of a tile (nr <= 16) through the epilogue
 * `e` with C transposed: column j of the tile (a filter) is R contiguous
 * floats at c + j * ldc, its bias e->bias[j * bias_cs], its residual run at
 * e->residual + j * res_cs (res_rs 1). Kept out of line: inlined into a
 * kernel, it crowds the product's loop into spilling an accumulator (the
 * kernels pass a copy of their accumulators, whose address is taken). */
static __attribute__((noinline, unused)) void
agl_store_transposed256(int R, const __m256 acc[AGL_AVX2_TILE_ROWS][2],
                        float *c, int64_t ldc, int nr, const agl_epilogue *e) {
  for (int h = 0; 8 * h < nr; ++h) {
    __m256 v[8];
    for (int i = 0; i < 8; ++i)
      v[i] = i < R ? acc[i][h] : _mm256_setzero_ps();
    agl_transpose8(v);
    int cols = nr - 8 * h < 8 ? nr - 8 * h : 8;
    for (int j = 0; j < cols; ++j)
      agl_store_epilogue256(v[j], c + (8 * h + j) * ldc, 1, R, e, 0, 8 * h + j,
                            1, 0);
  }
}

#endif /* AUTOGLM_AVX2_TILES_H */
