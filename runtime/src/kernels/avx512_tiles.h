/* Storing a register tile of positions x filters into NCHW for the AVX-512
 * kernels whose tiles run filters along the vectors (the packed GEMM with
 * C transposed, the broadcasting convolution): each 16 columns of the tile
 * are transposed in registers, so every filter's positions leave in one
 * masked store. Included only by files compiled for AVX-512. */
#ifndef AUTOGLM_AVX512_TILES_H
#define AUTOGLM_AVX512_TILES_H

#include "avx512_math.h"

#include <immintrin.h>

/* The largest tile: 14 rows (positions) x 2 vectors. */
enum { AGL_TILE_ROWS = 14 };

static inline __mmask16 agl_lanes(int count) {
  return count >= 16 ? (__mmask16)0xFFFF
         : count <= 0 ? (__mmask16)0
                      : (__mmask16)((1u << count) - 1u);
}

/* Transposes 16 rows of 16 floats in registers: out[j] = column j. */
static inline __attribute__((always_inline)) void
agl_transpose16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  /* Group g (rows 4g..4g+3): u[4g + c] holds, in 128-bit lane L, the four
   * rows' column c + 4L. */
  for (int g = 0; g < 4; ++g) {
    __m512d t0 = _mm512_castps_pd(t[4 * g]), t1 = _mm512_castps_pd(t[4 * g + 1]);
    __m512d t2 = _mm512_castps_pd(t[4 * g + 2]),
            t3 = _mm512_castps_pd(t[4 * g + 3]);
    u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
    u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
    u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
    u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
  }
  for (int c = 0; c < 4; ++c) {
    __m512 x0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44);
    __m512 x1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xEE);
    __m512 y0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
    __m512 y1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xEE);
    r[c] = _mm512_shuffle_f32x4(x0, y0, 0x88);
    r[c + 4] = _mm512_shuffle_f32x4(x0, y0, 0xDD);
    r[c + 8] = _mm512_shuffle_f32x4(x1, y1, 0x88);
    r[c + 12] = _mm512_shuffle_f32x4(x1, y1, 0xDD);
  }
}

/* The common epilogues of one transposed half (at most 16 filters): a bias
 * or none, a residual added before the activation, none or ReLU.
 * The columns are unrolled, so the transposed vectors stay in registers and
 * each column costs its few instructions, not a pass through every option
 * of the general epilogue (a fifth of the 7x7 stem's time, depth 147). */
static inline __attribute__((always_inline)) void
agl_store_columns_plain(const __m512 v[16], int cols, __mmask16 m, float *c,
                        int64_t ldc, const float *bias, const float *residual,
                        int64_t res_cs, int relu) {
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) {
    if (j >= cols)
      return;
    __m512 x = v[j];
    if (bias)
      x = _mm512_add_ps(x, _mm512_set1_ps(bias[j]));
    if (residual)
      x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, residual + j * res_cs));
    if (relu)
      x = _mm512_max_ps(_mm512_setzero_ps(), x); /* NaN stays NaN */
    _mm512_mask_storeu_ps(c + j * ldc, m, x);
  }
}

/* Writes the accumulators of a tile of positions x filters into NCHW:
 * acc[i][h] holds filters 16h..16h+15 of position i (R <= 14 positions,
 * VECS vectors, nr <= 16 VECS filters), and with epilogue `e` applied,
 * column j of the tile (a filter) is R contiguous floats at c + j * ldc.
 * Each 16 columns are transposed in registers first. */
static inline __attribute__((always_inline)) void
agl_store_transposed(const int R, const int VECS,
                     __m512 acc[AGL_TILE_ROWS][2], float *c, int64_t ldc,
                     int nr, const agl_epilogue *e) {
  const __mmask16 m = agl_lanes(R);
  const int load_c = e->load_c, act = e->act, scaled = e->alpha != 1.0f;
  const float *bias = e->bias, *residual = e->residual;
  const int first = e->residual_first;
  const int plain = !load_c && !scaled && (!residual || first) &&
                    (act == AGL_ACT_NONE || act == AGL_ACT_RELU);
  const __m512 alpha = _mm512_set1_ps(e->alpha);
#pragma GCC unroll 2
  for (int h = 0; h < VECS; ++h) {
    __m512 v[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
      v[i] = i < R ? acc[i][h] : _mm512_setzero_ps();
    agl_transpose16(v);
    int cols = nr - 16 * h < 16 ? nr - 16 * h : 16;
    if (plain) {
      agl_store_columns_plain(v, cols, m, c + 16 * h * ldc, ldc,
                              bias ? bias + 16 * h : NULL,
                              residual ? residual + 16 * h * e->res_cs : NULL,
                              e->res_cs, act == AGL_ACT_RELU);
      continue;
    }
    for (int j = 0; j < cols; ++j) {
      float *column = c + (16 * h + j) * ldc;
      __m512 x = v[j];
      if (scaled)
        x = _mm512_mul_ps(x, alpha);
      if (load_c)
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, column));
      if (bias)
        x = _mm512_add_ps(x, _mm512_set1_ps(bias[16 * h + j]));
      __m512 r = residual ? _mm512_maskz_loadu_ps(
                                m, residual + (16 * h + j) * e->res_cs)
                          : _mm512_setzero_ps();
      if (residual && first)
        x = _mm512_add_ps(x, r);
      if (act != AGL_ACT_NONE)
        x = agl_activate512(x, act);
      if (residual && !first)
        x = _mm512_add_ps(x, r);
      _mm512_mask_storeu_ps(column, m, x);
    }
  }
}

#endif
