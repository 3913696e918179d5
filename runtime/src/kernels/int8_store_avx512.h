/* The end of the AVX-512 int8 micro-kernels (VNNI and AMX): a tile's int32
 * sums, two vectors of 16 columns per row, stored through the epilogue that
 * agl_s8_epilogue describes. Included only by files compiled with AVX-512
 * enabled. Not installed. */
#ifndef AUTOGLM_INT8_STORE_AVX512_H
#define AUTOGLM_INT8_STORE_AVX512_H

#include "int8_internal.h"

#include "avx512_tiles.h"

#include <immintrin.h>

/* agl_quantize_u8 of 16 floats, as int32 in 0..255 (vmaxps returns its
 * second operand for NaN: 0). */
static inline __attribute__((always_inline)) __m512i
agl_s8_quantize16(__m512 y, __m512 scale, __m512 zero_point) {
  __m512 q = _mm512_roundscale_ps(
      _mm512_div_ps(y, scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  q = _mm512_max_ps(_mm512_add_ps(q, zero_point), _mm512_setzero_ps());
  q = _mm512_min_ps(q, _mm512_set1_ps(255.0f));
  return _mm512_cvtps_epi32(q);
}

/* Rows 0..R-1 (R <= 16) of a tile of `cols` columns: acc[i][h] holds row i's
 * sums of columns 16h..16h+15. Pointers as for agl_s8_kernel_fn. */
static inline __attribute__((always_inline)) void
agl_s8_store_avx512(const int R, __m512i acc[][2], int cols, void *c,
                    int64_t ldc, const agl_s8_epilogue *e) {
  int32_t *c32 = c;
  const __mmask16 m0 = agl_lanes16(cols), m1 = agl_lanes16(cols - 16);
  if (e->load) {
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      const int32_t *row = c32 + i * ldc;
      acc[i][0] =
          _mm512_add_epi32(acc[i][0], _mm512_maskz_loadu_epi32(m0, row));
      acc[i][1] =
          _mm512_add_epi32(acc[i][1], _mm512_maskz_loadu_epi32(m1, row + 16));
    }
  }
  /* The zero point's term, exact in int32, with the last block. */
  __m512i z0 = _mm512_setzero_si512(), z1 = _mm512_setzero_si512();
  if (e->last && e->zero_point) {
    __m512i zp = _mm512_set1_epi32(e->zero_point);
    z0 = _mm512_mullo_epi32(zp, _mm512_loadu_si512(e->colsum));
    z1 = _mm512_mullo_epi32(zp, _mm512_loadu_si512(e->colsum + 64));
  }
  if (e->transposed) {
    /* Each 16 columns transposed in registers (bit for bit: shuffles
     * only), every column's R sums in one masked store. */
    const __mmask16 live = agl_lanes(R);
    for (int h = 0; h < 2 && 16 * h < cols; ++h) {
      const __m512i z = h ? z1 : z0;
      __m512 r[16];
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i)
        r[i] = i < R ? _mm512_castsi512_ps(_mm512_sub_epi32(acc[i][h], z))
                     : _mm512_setzero_ps();
      agl_transpose16(r);
      const int n = cols - 16 * h < 16 ? cols - 16 * h : 16;
      for (int j = 0; j < n; ++j)
        _mm512_mask_storeu_epi32(c32 + (16 * h + j) * ldc, live,
                                 _mm512_castps_si512(r[j]));
    }
    return;
  }
  if (!e->last || !e->scale) {
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      int32_t *row = c32 + i * ldc;
      _mm512_mask_storeu_epi32(row, m0, _mm512_sub_epi32(acc[i][0], z0));
      _mm512_mask_storeu_epi32(row + 16, m1, _mm512_sub_epi32(acc[i][1], z1));
    }
    return;
  }

  /* The float epilogue, with alpha * scale[j] as one factor per column. */
  const __m512 alpha = _mm512_set1_ps(e->alpha);
  const __m512 s0 = _mm512_mul_ps(alpha, _mm512_maskz_loadu_ps(m0, e->scale));
  const __m512 s1 =
      _mm512_mul_ps(alpha, _mm512_maskz_loadu_ps(m1, e->scale + 16));
  __m512 bias0 = _mm512_setzero_ps(), bias1 = _mm512_setzero_ps();
  if (e->bias) {
    bias0 = _mm512_maskz_loadu_ps(m0, e->bias);
    bias1 = _mm512_maskz_loadu_ps(m1, e->bias + 16);
  }
  const int act = e->act;
  const float *residual = e->residual;
  float *cf = c;
  uint8_t *cq = c;
  const __m512 out_scale = _mm512_set1_ps(e->out_scale);
  const __m512 out_zero = _mm512_set1_ps((float)e->out_zero_point);
  /* Four rows at a time from dequantization to store, so that only their
   * eight vectors and the activation's temporaries are live besides the
   * accumulators still waiting. */
#pragma GCC unroll 4
  for (int i0 = 0; i0 < R; i0 += 4) {
    const int rows = R - i0 < 4 ? R - i0 : 4;
    __m512 v[4][2];
#pragma GCC unroll 4
    for (int r = 0; r < rows; ++r) {
      v[r][0] = _mm512_fmadd_ps(
          _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[i0 + r][0], z0)), s0, bias0);
      v[r][1] = _mm512_fmadd_ps(
          _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[i0 + r][1], z1)), s1, bias1);
    }
    agl_activate512_n(v[0], 2 * rows, act);
    if (residual) {
      __m512 g[4][2];
#pragma GCC unroll 4
      for (int r = 0; r < rows; ++r) {
        const float *res = residual + (i0 + r) * e->res_rs;
        g[r][0] = _mm512_maskz_loadu_ps(m0, res);
        g[r][1] = _mm512_maskz_loadu_ps(m1, res + 16);
      }
      if (e->gated)
        agl_activate512_n(g[0], 2 * rows, e->gate_act);
#pragma GCC unroll 4
      for (int r = 0; r < rows; ++r)
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h)
          v[r][h] = e->gated ? _mm512_mul_ps(v[r][h], g[r][h])
                             : _mm512_add_ps(v[r][h], g[r][h]);
    }
#pragma GCC unroll 4
    for (int r = 0; r < rows; ++r) {
      const int i = i0 + r;
      __m512 v0 = v[r][0], v1 = v[r][1];
      if (e->quantize) {
        uint8_t *row = cq + i * ldc;
        _mm512_mask_cvtepi32_storeu_epi8(
            row, m0, agl_s8_quantize16(v0, out_scale, out_zero));
        _mm512_mask_cvtepi32_storeu_epi8(
            row + 16, m1, agl_s8_quantize16(v1, out_scale, out_zero));
        continue;
      }
      float *row = cf + i * ldc;
      _mm512_mask_storeu_ps(row, m0, v0);
      _mm512_mask_storeu_ps(row + 16, m1, v1);
    }
  }
}

#endif /* AUTOGLM_INT8_STORE_AVX512_H */
