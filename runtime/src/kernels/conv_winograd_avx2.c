/* The transforms of agl_kernel_conv2d_winograd (conv_winograd.c) with
 * AVX2, 8 tiles of a tile row at a time: the lanes of every vector are 8
 * neighbouring tiles. The input transform reads each of a tile row's 4
 * input rows from a zero-bordered copy (so tiles at the edges need no
 * checks) and splits its even and odd columns with two shuffles; the
 * output transform interleaves the tiles' two columns back into output
 * rows. This file is compiled with -mavx2 -mfma. */
#include "kernels_internal.h"

#include "avx2_math.h"

#include <immintrin.h>
#include <string.h>

/* Floats of a copied input row: tile rows up to this wide take the vector
 * input transform (2 per tile, and slack for the last loads). */
enum { MAX_ROW = 2048, SLACK = 24 };

/* The even and odd elements of the 16 floats at p. */
static AGL_ALWAYS_INLINE void deinterleave(const float *p, __m256 *even,
                                           __m256 *odd) {
  __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
  /* [a0 a2 b0 b2 | a4 a6 b4 b6], then its 64-bit pairs reordered. */
  *even = _mm256_castpd_ps(_mm256_permute4x64_pd(
      _mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
  *odd = _mm256_castpd_ps(_mm256_permute4x64_pd(
      _mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
}

void agl_winograd_input_avx2(const agl_winograd *w, int64_t c0, int64_t c1) {
  const int64_t width = 2 * w->tiles_w + 2; /* columns the tiles read */
  if (width > MAX_ROW) {
    agl_winograd_input_portable(w, c0, c1);
    return;
  }
  float rows[4][MAX_ROW + SLACK] __attribute__((aligned(32)));
  /* Copy column x holds input column x - pad_left. */
  const int64_t first = w->pad_left < width ? w->pad_left : width;
  int64_t last = w->pad_left + w->in_w < width ? w->pad_left + w->in_w : width;
  if (last < first)
    last = first;
  for (int r = 0; r < 4; ++r) {
    memset(rows[r], 0, (size_t)first * sizeof(float));
    memset(rows[r] + last, 0, (size_t)(width + SLACK - last) * sizeof(float));
  }
  const int64_t tile_rows = w->tiles / w->tiles_w;
  for (int64_t c = c0; c < c1; ++c) {
    const float *plane = w->input + c * w->channel_stride;
    float *v = w->v + c * w->tiles;
    const int64_t xi_stride = w->v_stride; /* between V's */
    for (int64_t ty = 0; ty < tile_rows; ++ty) {
      for (int r = 0; r < 4; ++r) {
        const int64_t y = 2 * ty - w->pad_top + r;
        if (y >= 0 && y < w->in_h)
          memcpy(rows[r] + first,
                 plane + y * w->row_stride + (first - w->pad_left),
                 (size_t)(last - first) * sizeof(float));
        else
          memset(rows[r] + first, 0, (size_t)(last - first) * sizeof(float));
      }
      for (int64_t tx = 0; tx < w->tiles_w; tx += 8) {
        const int64_t count = w->tiles_w - tx < 8 ? w->tiles_w - tx : 8;
        __m256 u[4][4];
        for (int r = 0; r < 4; ++r) {
          __m256 d0, d1, d2, d3;
          deinterleave(rows[r] + 2 * tx, &d0, &d1);
          deinterleave(rows[r] + 2 * tx + 2, &d2, &d3);
          u[r][0] = _mm256_sub_ps(d0, d2); /* d B */
          u[r][1] = _mm256_add_ps(d1, d2);
          u[r][2] = _mm256_sub_ps(d2, d1);
          u[r][3] = _mm256_sub_ps(d1, d3);
        }
        float *at = v + ty * w->tiles_w + tx;
        for (int s = 0; s < 4; ++s) { /* B^T (d B) */
          agl_store_lanes256(at + s * xi_stride,
                             _mm256_sub_ps(u[0][s], u[2][s]), count);
          agl_store_lanes256(at + (4 + s) * xi_stride,
                             _mm256_add_ps(u[1][s], u[2][s]), count);
          agl_store_lanes256(at + (8 + s) * xi_stride,
                             _mm256_sub_ps(u[2][s], u[1][s]), count);
          agl_store_lanes256(at + (12 + s) * xi_stride,
                             _mm256_sub_ps(u[1][s], u[3][s]), count);
        }
      }
    }
  }
}

/* The epilogue of `count` outputs at p: accumulate, bias, residual (at
 * res, or null), activation. */
static AGL_ALWAYS_INLINE void store_outputs(const agl_winograd *w, float *p,
                                            const float *res, __m256 x,
                                            __m256 bias, int64_t count) {
  if (w->accumulate)
    x = _mm256_add_ps(x, agl_load_lanes256(p, count));
  x = _mm256_add_ps(x, bias);
  if (res)
    x = _mm256_add_ps(x, agl_load_lanes256(res, count));
  if (w->act != AGL_ACT_NONE)
    x = agl_activate256(x, w->act);
  agl_store_lanes256(p, x, count);
}

void agl_winograd_output_avx2(const agl_winograd *w, int64_t f0, int64_t f1) {
  const int64_t tile_rows = w->tiles / w->tiles_w;
  const int64_t xi_stride = w->m_stride;
  for (int64_t f = f0; f < f1; ++f) {
    float *plane = w->out + f * w->out_channel_stride;
    const float *res =
        w->residual ? w->residual + f * w->out_channel_stride : NULL;
    const __m256 bias = _mm256_set1_ps(w->bias ? w->bias[f] : 0.0f);
    const float *mf = w->m + f * w->tiles;
    for (int64_t ty = 0; ty < tile_rows; ++ty)
      for (int64_t tx = 0; tx < w->tiles_w; tx += 8) {
        const int64_t count = w->tiles_w - tx < 8 ? w->tiles_w - tx : 8;
        const float *at = mf + ty * w->tiles_w + tx;
        __m256 s[4][2];
        for (int r = 0; r < 4; ++r) { /* m A */
          __m256 m0 = agl_load_lanes256(at + (4 * r) * xi_stride, count);
          __m256 m1 = agl_load_lanes256(at + (4 * r + 1) * xi_stride, count);
          __m256 m2 = agl_load_lanes256(at + (4 * r + 2) * xi_stride, count);
          __m256 m3 = agl_load_lanes256(at + (4 * r + 3) * xi_stride, count);
          s[r][0] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
          s[r][1] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
        }
        /* A^T (m A): y[r][q] for the 8 tiles. */
        __m256 y[2][2];
        for (int q = 0; q < 2; ++q) {
          y[0][q] = _mm256_add_ps(_mm256_add_ps(s[0][q], s[1][q]), s[2][q]);
          y[1][q] = _mm256_sub_ps(_mm256_sub_ps(s[1][q], s[2][q]), s[3][q]);
        }
        const int64_t ox = 2 * tx,
                      columns = w->out_w - ox < 16 ? w->out_w - ox : 16;
        for (int r = 0; r < 2; ++r) {
          const int64_t oy = 2 * ty + r;
          if (oy >= w->out_h)
            break;
          /* Tile t's two columns side by side: [y0(t) y1(t) ..]. */
          __m256 lo = _mm256_unpacklo_ps(y[r][0], y[r][1]);
          __m256 hi = _mm256_unpackhi_ps(y[r][0], y[r][1]);
          __m256 first = _mm256_permute2f128_ps(lo, hi, 0x20);
          __m256 second = _mm256_permute2f128_ps(lo, hi, 0x31);
          float *p = plane + oy * w->out_w + ox;
          const float *q = res ? res + oy * w->out_w + ox : NULL;
          store_outputs(w, p, q, first, bias, columns);
          if (columns > 8)
            store_outputs(w, p + 8, q ? q + 8 : NULL, second, bias,
                          columns - 8);
        }
      }
  }
}
