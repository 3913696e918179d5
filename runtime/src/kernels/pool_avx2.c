/* An output row of agl_kernel_maxpool2d (pool.c) with AVX2, in the two
 * passes of pool_avx512.c: the maximum down the window's rows for every
 * input column the row needs, into a row buffer with -inf where the columns
 * lie in the padding; then the maximum across the window's columns, 8
 * outputs at a time (the even elements of two loads for a column stride of
 * 2). This file is compiled with -mavx2 -mfma; pool.c calls it only when the
 * CPU has them. */
#include "kernels_internal.h"

#include "avx2_math.h"

#include <immintrin.h>
#include <math.h>

/* The max as arith.maximumf computes it: NaN if either is NaN (vmaxps
 * returns its second operand when one is NaN, so NaN lanes of `x` are put
 * back). */
static AGL_ALWAYS_INLINE __m256 max_or_nan(__m256 acc, __m256 x) {
  __m256 m = _mm256_max_ps(x, acc);
  return _mm256_blendv_ps(m, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* Floats of the column-maxima buffer, and room for whole-vector loads past
 * its end. */
enum { MAX_COLUMNS = 4096, SLACK = 16 };

void agl_maxpool_row_avx2(const agl_pool_geometry *g, const float *plane,
                          int64_t oy, float *out) {
  float buffer[MAX_COLUMNS + SLACK] __attribute__((aligned(32)));
  /* Down the rows, for the buffer columns [first, last) inside the input;
   * the others are padding. */
  int64_t first, last;
  if (!agl_pool_row_buffer(g, buffer, MAX_COLUMNS, SLACK, &first, &last)) {
    agl_maxpool_row_portable(g, plane, oy, out);
    return;
  }
  const __m256 lowest = _mm256_set1_ps(-INFINITY);
  for (int64_t b = first; b < last; b += 8) {
    const int64_t live = last - b < 8 ? last - b : 8;
    const float *column = plane + (b - g->pad_left);
    __m256 acc = lowest;
    for (int64_t ki = 0; ki < g->kernel_h; ++ki) {
      int64_t iy = oy * g->stride_h + ki * g->dilation_h - g->pad_top;
      if (iy >= 0 && iy < g->in_h)
        acc = max_or_nan(
            acc, agl_load_lanes256(column + iy * g->in_row_stride, live));
    }
    agl_store_lanes256(buffer + b, acc, live);
  }
  /* Across the columns. */
  for (int64_t ox = 0; ox < g->out_w; ox += 8) {
    __m256 acc = lowest;
    for (int64_t kj = 0; kj < g->kernel_w; ++kj) {
      const float *at = buffer + ox * g->stride_w + kj * g->dilation_w;
      __m256 x = _mm256_loadu_ps(at);
      if (g->stride_w == 2) {
        /* [x0 x2 y0 y2 | x4 x6 y4 y6], then its 64-bit pairs reordered. */
        __m256 pairs = _mm256_shuffle_ps(x, _mm256_loadu_ps(at + 8), 0x88);
        x = _mm256_castpd_ps(
            _mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xD8));
      }
      acc = max_or_nan(acc, x);
    }
    agl_store_lanes256(out + ox, acc, g->out_w - ox);
  }
}
