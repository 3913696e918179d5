/* An output row of agl_kernel_maxpool2d (pool.c) with AVX-512, in two
 * passes. First the maximum down the window's rows, for every input column
 * the row needs, into a row buffer with -inf where the columns lie in the
 * padding; then the maximum across the window's columns, 16 outputs at a
 * time, from that buffer (the even elements of two loads for a column
 * stride of 2). A 3x3 window thus costs about 2 + 3 maxima per 16 outputs
 * rather than 9, and only the loads of the first pass need masks. This
 * file is compiled with AVX-512 enabled; pool.c calls it only when the CPU
 * has it. */
#include "kernels_internal.h"

#include <immintrin.h>
#include <math.h>

/* Lanes [lo, hi) of a 16-lane mask (empty when hi <= lo). */
static inline __mmask16 lane_range(int64_t lo, int64_t hi) {
  if (lo < 0)
    lo = 0;
  if (hi > 16)
    hi = 16;
  if (hi <= lo)
    return 0;
  return (__mmask16)((1u << hi) - (1u << lo));
}

/* The max as arith.maximumf computes it: NaN if either is NaN (vmaxps
 * returns its second operand when one is NaN, so NaN lanes of `x` are put
 * back). */
static inline __m512 max_or_nan(__m512 acc, __m512 x) {
  __m512 m = _mm512_max_ps(x, acc);
  return _mm512_mask_mov_ps(m, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

/* Floats of the column-maxima buffer, and room for whole-vector loads past
 * its end. */
enum { MAX_COLUMNS = 4096, SLACK = 32 };

void agl_maxpool_row_avx512(const agl_pool_geometry *g, const float *plane,
                            int64_t oy, float *out) {
  float buffer[MAX_COLUMNS + SLACK] __attribute__((aligned(64)));
  /* Down the rows, for the buffer columns [first, last) inside the input;
   * the others are padding. */
  int64_t first, last;
  if (!agl_pool_row_buffer(g, buffer, MAX_COLUMNS, SLACK, &first, &last)) {
    agl_maxpool_row_portable(g, plane, oy, out);
    return;
  }
  const __m512 lowest = _mm512_set1_ps(-INFINITY);
  for (int64_t b = first; b < last; b += 16) {
    __mmask16 m = lane_range(0, last - b);
    const float *column = plane + (b - g->pad_left);
    __m512 acc = lowest;
    for (int64_t ki = 0; ki < g->kernel_h; ++ki) {
      int64_t iy = oy * g->stride_h + ki * g->dilation_h - g->pad_top;
      if (iy >= 0 && iy < g->in_h)
        acc = max_or_nan(acc, _mm512_mask_loadu_ps(
                                  lowest, m, column + iy * g->in_row_stride));
    }
    _mm512_mask_storeu_ps(buffer + b, m, acc);
  }
  /* Across the columns. */
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  for (int64_t ox = 0; ox < g->out_w; ox += 16) {
    __m512 acc = lowest;
    for (int64_t kj = 0; kj < g->kernel_w; ++kj) {
      const float *at = buffer + ox * g->stride_w + kj * g->dilation_w;
      __m512 x = _mm512_loadu_ps(at);
      if (g->stride_w == 2)
        x = _mm512_permutex2var_ps(x, even, _mm512_loadu_ps(at + 16));
      acc = max_or_nan(acc, x);
    }
    _mm512_mask_storeu_ps(out + ox, lane_range(0, g->out_w - ox), acc);
  }
}
