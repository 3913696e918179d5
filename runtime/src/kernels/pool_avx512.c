/* An output row of agl_kernel_maxpool2d (pool.c) with AVX-512, in
 * registers. Each vector of column maxima (16 consecutive input columns, the
 * maximum down the window's rows, -inf where the columns lie in the padding)
 * is loaded once; the window's taps across the columns are then lane shifts
 * of those vectors (valignd), and for a column stride of 2 their even lanes
 * (vpermt2ps). A 3x3 window with stride 2 thus costs 3 loads and 2 + 3
 * maxima per 16 outputs rather than 9 of each. Loads and stores are masked
 * only at the row's ends. Measured on Zen 5 (resnet224's pooling, 64 planes
 * of 112 x 112, 3x3 with stride 2, one thread): 185 us with the column
 * maxima in a buffer in memory, as before, 250 us in registers with every
 * store masked, 135 us as here with the taps' shifts chosen per tap, 125-130
 * with them as immediates for 3x3 windows (130-140 in the whole model, where
 * pool.c prefetches the input); onnxruntime 129 us. Skipping the NaN care
 * (vmaxps alone, a sum of the loads to detect NaNs, the row again with the
 * care where one was seen) was slower. Windows that span more
 * than 17 columns or 16 rows, and column strides other than 1 and 2, take
 * the portable row. This file is compiled with AVX-512 enabled; pool.c
 * calls it only when the CPU has it. */
#include "kernels_internal.h"

#include "avx512_math.h"

#include <immintrin.h>
#include <math.h>

/* The max as arith.maximumf computes it: NaN if either is NaN (vmaxps
 * returns its second operand when one is NaN, so NaN lanes of `x` are put
 * back). */
static inline __m512 max_or_nan(__m512 acc, __m512 x) {
  __m512 m = _mm512_max_ps(x, acc);
  return _mm512_mask_mov_ps(m, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

/* The input rows of output row oy that lie inside the image. */
typedef struct window_rows {
  const float *row[16];
  int count;
} window_rows;

/* The column maxima of padded columns [b, b + 16): padded column b is input
 * column b - pad_left. */
static inline __m512 column_maxima(const agl_pool_geometry *g,
                                   const window_rows *w, int64_t b) {
  const __m512 lowest = _mm512_set1_ps(-INFINITY);
  __mmask16 m = agl_lane_range16(g->pad_left - b, g->pad_left + g->in_w - b);
  if (!m)
    return lowest;
  __m512 acc = lowest;
  const int64_t offset = b - g->pad_left;
  if (m == 0xFFFF) {
    for (int r = 0; r < w->count; ++r)
      acc = max_or_nan(acc, _mm512_loadu_ps(w->row[r] + offset));
    return acc;
  }
  for (int r = 0; r < w->count; ++r)
    acc = max_or_nan(acc, _mm512_mask_loadu_ps(lowest, m, w->row[r] + offset));
  return acc;
}

/* Lanes t .. t + 15 of the 32 lanes lo:hi, 0 <= t <= 16. */
static inline __m512 lanes_from(__m512 lo, __m512 hi, int t) {
  switch (t) {
#define SHIFT(T)                                                               \
  case T:                                                                      \
    return _mm512_castsi512_ps(_mm512_alignr_epi32(                            \
        _mm512_castps_si512(hi), _mm512_castps_si512(lo), T));
    SHIFT(1) SHIFT(2) SHIFT(3) SHIFT(4) SHIFT(5) SHIFT(6) SHIFT(7) SHIFT(8)
    SHIFT(9) SHIFT(10) SHIFT(11) SHIFT(12) SHIFT(13) SHIFT(14) SHIFT(15)
#undef SHIFT
  case 16:
    return hi;
  default:
    return lo;
  }
}

/* One output row from its window rows `w`, the taps' offsets kj * dil:
 * inlined with constant kernel widths and dilations, so that the lane
 * shifts take immediates rather than a jump per tap. */
static inline __attribute__((always_inline)) void
row_taps(const agl_pool_geometry *g, const window_rows *w, int64_t kw,
         int64_t dil, float *out) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  const int64_t s = g->stride_w;
  /* Output ox reads padded columns s * ox + t for the taps t = kj * d. */
  __m512 a = column_maxima(g, w, 0);
  for (int64_t ox = 0; ox < g->out_w; ox += 16) {
    const int64_t b = s * ox;
    __m512 bv = column_maxima(g, w, b + 16);
    __m512 c = s == 2 ? column_maxima(g, w, b + 32) : bv;
    __m512 acc = _mm512_set1_ps(-INFINITY);
    for (int64_t kj = 0; kj < kw; ++kj) {
      const int t = (int)(kj * dil);
      __m512 x = lanes_from(a, bv, t);
      if (s == 2)
        x = _mm512_permutex2var_ps(x, even, lanes_from(bv, c, t));
      acc = max_or_nan(acc, x);
    }
    if (g->out_w - ox >= 16)
      _mm512_storeu_ps(out + ox, acc);
    else
      _mm512_mask_storeu_ps(out + ox, agl_lane_range16(0, g->out_w - ox), acc);
    a = c;
  }
}

void agl_maxpool_row_avx512(const agl_pool_geometry *g, const float *plane,
                            int64_t oy, float *out) {
  const int64_t span = (g->kernel_w - 1) * g->dilation_w;
  window_rows w = {.count = 0};
  for (int64_t ki = 0; ki < g->kernel_h; ++ki) {
    int64_t iy = oy * g->stride_h + ki * g->dilation_h - g->pad_top;
    if (iy < 0 || iy >= g->in_h)
      continue;
    if (w.count == 16) {
      w.count = -1;
      break;
    }
    w.row[w.count++] = plane + iy * g->in_row_stride;
  }
  if ((g->stride_w != 1 && g->stride_w != 2) || span > 16 || w.count < 0) {
    agl_maxpool_row_portable(g, plane, oy, out);
    return;
  }
  /* The common windows (3x3 and 2x2, undilated), then any. */
  if (g->dilation_w == 1 && g->kernel_w == 3)
    row_taps(g, &w, 3, 1, out);
  else if (g->dilation_w == 1 && g->kernel_w == 2)
    row_taps(g, &w, 2, 1, out);
  else
    row_taps(g, &w, g->kernel_w, g->dilation_w, out);
}
