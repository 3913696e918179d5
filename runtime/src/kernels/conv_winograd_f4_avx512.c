/* The transforms of agl_kernel_conv2d_winograd_f4 (conv_winograd_f4.c) with
 * AVX-512, 16 tiles of a row at a time: the lanes of every vector are 16
 * neighbouring tiles. The input transform loads each of the 6 input rows
 * the tiles read as 4 vectors (masked to the image, so that the padding
 * reads as zeros) and splits them into the columns 4j + s by permutes;
 * the output transform interleaves the tiles' 4 columns back into output
 * rows by the inverse shuffles. This file is compiled with AVX-512
 * enabled; conv_winograd_f4.c calls it only when the CPU has it. */
#include "kernels_internal.h"

#include "avx512_math.h"

#include <immintrin.h>

/* v = B^T d over six vectors. */
static inline __attribute__((always_inline)) void input_1d(const __m512 d[6],
                                                           __m512 v[6]) {
  const __m512 four = _mm512_set1_ps(4.0f), five = _mm512_set1_ps(5.0f),
               two = _mm512_set1_ps(2.0f);
  const __m512 a = _mm512_fnmadd_ps(four, d[2], d[4]);
  const __m512 b = _mm512_fnmadd_ps(four, d[1], d[3]);
  const __m512 c = _mm512_sub_ps(d[4], d[2]);
  const __m512 e = _mm512_sub_ps(d[3], d[1]);
  v[0] = _mm512_fmadd_ps(four, d[0], _mm512_fnmadd_ps(five, d[2], d[4]));
  v[1] = _mm512_add_ps(a, b);
  v[2] = _mm512_sub_ps(a, b);
  v[3] = _mm512_fmadd_ps(two, e, c);
  v[4] = _mm512_fnmadd_ps(two, e, c);
  v[5] = _mm512_fmadd_ps(four, d[1], _mm512_fnmadd_ps(five, d[3], d[5]));
}

/* y = A^T m over six vectors. */
static inline __attribute__((always_inline)) void output_1d(const __m512 m[6],
                                                            __m512 y[4]) {
  const __m512 p = _mm512_add_ps(m[1], m[2]), q = _mm512_sub_ps(m[1], m[2]);
  const __m512 r = _mm512_add_ps(m[3], m[4]), s = _mm512_sub_ps(m[3], m[4]);
  y[0] = _mm512_add_ps(_mm512_add_ps(m[0], p), r);
  y[1] = _mm512_fmadd_ps(_mm512_set1_ps(2.0f), s, q);
  y[2] = _mm512_fmadd_ps(_mm512_set1_ps(4.0f), r, p);
  y[3] = _mm512_add_ps(_mm512_fmadd_ps(_mm512_set1_ps(8.0f), s, q), m[5]);
}

/* Columns 4j + s (j < 16, s < 6) of the 66 input columns from x: the four
 * vectors x[0..3] hold columns 0..63, e64 and e65 columns 64 and 65. */
static inline __attribute__((always_inline)) void
split_columns(const __m512 x[4], float e64, float e65, __m512 d[6]) {
  for (int s = 0; s < 4; ++s) {
    const __m512i idx =
        _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 28 + s, 24 + s, 20 + s, 16 + s,
                         12 + s, 8 + s, 4 + s, s);
    const __m512 lo = _mm512_permutex2var_ps(x[0], idx, x[1]);
    const __m512 hi = _mm512_permutex2var_ps(x[2], idx, x[3]);
    d[s] = _mm512_shuffle_f32x4(lo, hi, 0x44);
  }
  /* Column 4j + 4 is column 4(j + 1) + 0. */
  d[4] = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(_mm512_set1_ps(e64)), _mm512_castps_si512(d[0]), 1));
  d[5] = _mm512_castsi512_ps(_mm512_alignr_epi32(
      _mm512_castps_si512(_mm512_set1_ps(e65)), _mm512_castps_si512(d[1]), 1));
}

void agl_winograd_f4_input_avx512(const agl_winograd_f4 *w,
                                  const agl_winograd_f4_block *b, int64_t c0,
                                  int64_t c1) {
  const int64_t width = b->tx1 - b->tx0;
  const int64_t lanes = (b->ty1 - b->ty0) * width;
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t c = c0; c < c1; ++c) {
    const float *plane = w->input + c * w->channel_stride;
    float *vc = b->v + c * AGL_CONV_WINOGRAD_F4_BLOCK;
    for (int64_t ty = b->ty0; ty < b->ty1; ++ty)
      for (int64_t tx = b->tx0; tx < b->tx1; tx += 16) {
        const int64_t count = b->tx1 - tx < 16 ? b->tx1 - tx : 16;
        const int64_t x0 = 4 * tx - w->pad_left;
        __mmask16 masks[4];
        for (int k = 0; k < 4; ++k)
          masks[k] = agl_lane_range16(-x0 - 16 * k, w->in_w - x0 - 16 * k);
        const int in64 = x0 + 64 >= 0 && x0 + 64 < w->in_w;
        const int in65 = x0 + 65 >= 0 && x0 + 65 < w->in_w;
        __m512 u[6][6]; /* d B, row by row */
        for (int r = 0; r < 6; ++r) {
          const int64_t y = 4 * ty - w->pad_top + r;
          __m512 d[6];
          if (y < 0 || y >= w->in_h) {
            for (int s = 0; s < 6; ++s)
              d[s] = zero;
          } else {
            const float *row = plane + y * w->row_stride + x0;
            __m512 x[4];
            for (int k = 0; k < 4; ++k)
              x[k] = _mm512_maskz_loadu_ps(masks[k], row + 16 * k);
            split_columns(x, in64 ? row[64] : 0.0f, in65 ? row[65] : 0.0f, d);
          }
          input_1d(d, u[r]);
        }
        const __mmask16 store = agl_lanes16(count);
        float *at = vc + (ty - b->ty0) * width + (tx - b->tx0);
        for (int s = 0; s < 6; ++s) { /* B^T (d B), column by column */
          __m512 col[6], v[6];
          for (int r = 0; r < 6; ++r)
            col[r] = u[r][s];
          input_1d(col, v);
          for (int i = 0; i < 6; ++i)
            _mm512_mask_storeu_ps(at + (6 * i + s) * b->v_stride, store, v[i]);
        }
      }
    /* The products read all 32 columns of the panel. */
    for (int i = 0; i < 36; ++i) {
      float *row = vc + i * b->v_stride;
      _mm512_mask_storeu_ps(row, agl_lane_range16(lanes, 16), zero);
      _mm512_mask_storeu_ps(row + 16, agl_lane_range16(lanes - 16, 16), zero);
    }
  }
}

/* Outputs [p, p + 64) of tiles whose four columns are y[0..3] (tile j's
 * column q in lane j of y[q]), in order: tile 0's four, tile 1's, ... */
static inline __attribute__((always_inline)) void
interleave_columns(const __m512 y[4], __m512 o[4]) {
  const __m512 t0 = _mm512_unpacklo_ps(y[0], y[1]);
  const __m512 t1 = _mm512_unpackhi_ps(y[0], y[1]);
  const __m512 t2 = _mm512_unpacklo_ps(y[2], y[3]);
  const __m512 t3 = _mm512_unpackhi_ps(y[2], y[3]);
  /* u_k's 128-bit lane l: tile 4l + k's four columns. */
  const __m512 u0 = _mm512_castpd_ps(
      _mm512_unpacklo_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
  const __m512 u1 = _mm512_castpd_ps(
      _mm512_unpackhi_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
  const __m512 u2 = _mm512_castpd_ps(
      _mm512_unpacklo_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
  const __m512 u3 = _mm512_castpd_ps(
      _mm512_unpackhi_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
  const __m512 v0 = _mm512_shuffle_f32x4(u0, u1, 0x44);
  const __m512 v1 = _mm512_shuffle_f32x4(u0, u1, 0xEE);
  const __m512 v2 = _mm512_shuffle_f32x4(u2, u3, 0x44);
  const __m512 v3 = _mm512_shuffle_f32x4(u2, u3, 0xEE);
  o[0] = _mm512_shuffle_f32x4(v0, v2, 0x88);
  o[1] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
  o[2] = _mm512_shuffle_f32x4(v1, v3, 0x88);
  o[3] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
}

void agl_winograd_f4_output_avx512(const agl_winograd_f4 *w,
                                   const agl_winograd_f4_block *b, int64_t f0,
                                   int64_t f1) {
  const int64_t width = b->tx1 - b->tx0;
  for (int64_t f = f0; f < f1; ++f) {
    float *plane = w->out + f * w->out_channel_stride;
    const float *res =
        w->residual ? w->residual + f * w->out_channel_stride : NULL;
    const __m512 bias = _mm512_set1_ps(w->bias ? w->bias[f] : 0.0f);
    const float *mf = b->m + f * AGL_CONV_WINOGRAD_F4_BLOCK;
    for (int64_t ty = b->ty0; ty < b->ty1; ++ty)
      for (int64_t tx = b->tx0; tx < b->tx1; tx += 16) {
        const int64_t count = b->tx1 - tx < 16 ? b->tx1 - tx : 16;
        const __mmask16 live = agl_lanes16(count);
        const float *at = mf + (ty - b->ty0) * width + (tx - b->tx0);
        __m512 s[6][4]; /* m A, row by row */
        for (int i = 0; i < 6; ++i) {
          __m512 m[6];
          for (int j = 0; j < 6; ++j)
            m[j] = _mm512_maskz_loadu_ps(live, at + (6 * i + j) * b->m_stride);
          output_1d(m, s[i]);
        }
        __m512 y[4][4]; /* A^T (m A): y[p][q] */
        for (int q = 0; q < 4; ++q) {
          __m512 col[6], out[4];
          for (int i = 0; i < 6; ++i)
            col[i] = s[i][q];
          output_1d(col, out);
          for (int p = 0; p < 4; ++p)
            y[p][q] = out[p];
        }
        const int64_t ox = 4 * tx;
        int64_t columns = w->out_w - ox < 4 * count ? w->out_w - ox : 4 * count;
        for (int p = 0; p < 4; ++p) {
          const int64_t oy = 4 * ty + p;
          if (oy >= w->out_h)
            break;
          __m512 o[4];
          interleave_columns(y[p], o);
          float *dst = plane + oy * w->out_w + ox;
          const float *r = res ? res + oy * w->out_w + ox : NULL;
          __mmask16 m[4];
          for (int k = 0; k < 4; ++k) {
            m[k] = agl_lane_range16(0, columns - 16 * k);
            if (w->accumulate)
              o[k] = _mm512_add_ps(o[k],
                                   _mm512_maskz_loadu_ps(m[k], dst + 16 * k));
            o[k] = _mm512_add_ps(o[k], bias);
            if (r)
              o[k] =
                  _mm512_add_ps(o[k], _mm512_maskz_loadu_ps(m[k], r + 16 * k));
          }
          agl_activate512_n(o, 4, w->act);
          for (int k = 0; k < 4; ++k)
            _mm512_mask_storeu_ps(dst + 16 * k, m[k], o[k]);
        }
      }
  }
}
