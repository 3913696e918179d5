/* The AVX2 plane of agl_kernel_transpose32: 8 x 8 tiles, each 8 loads of 8
 * consecutive elements of the input (one per output column), a transpose
 * in registers (avx2_tiles.h) and 8 stores of 8 consecutive elements of
 * the output (one per output row), in blocks of 64 x 64 as the portable
 * plane; the portable loops take the edges. This file is compiled with
 * -mavx2 -mfma. */
#include "kernels_internal.h"

#include "avx2_tiles.h"

#include <immintrin.h>

enum { TILE = 8, BLOCK = AGL_TRANSPOSE_BLOCK };

static AGL_ALWAYS_INLINE void tile(const uint32_t *in, int64_t in_cs,
                                   uint32_t *out, int64_t out_rs) {
  __m256 r[TILE];
#pragma GCC unroll 8
  for (int j = 0; j < TILE; ++j)
    r[j] = _mm256_loadu_ps((const float *)(in + j * in_cs));
  agl_transpose8(r);
#pragma GCC unroll 8
  for (int i = 0; i < TILE; ++i)
    _mm256_storeu_ps((float *)(out + i * out_rs), r[i]);
}

void agl_transpose_plane_avx2(const uint32_t *in, int64_t in_cs, uint32_t *out,
                              int64_t out_rs, int64_t rows, int64_t cols) {
  const int64_t whole_rows = rows / TILE * TILE,
                whole_cols = cols / TILE * TILE;
  for (int64_t j0 = 0; j0 < whole_cols; j0 += BLOCK)
    for (int64_t i0 = 0; i0 < whole_rows; i0 += BLOCK) {
      const int64_t j1 = whole_cols - j0 < BLOCK ? whole_cols : j0 + BLOCK;
      const int64_t i1 = whole_rows - i0 < BLOCK ? whole_rows : i0 + BLOCK;
      for (int64_t j = j0; j < j1; j += TILE)
        for (int64_t i = i0; i < i1; i += TILE)
          tile(in + i + j * in_cs, in_cs, out + i * out_rs + j, out_rs);
    }
  /* The rows past the last whole tile (all columns), then the columns
   * past it (the whole tiles' rows). */
  if (whole_rows < rows)
    agl_transpose_plane_portable(in + whole_rows, in_cs,
                                 out + whole_rows * out_rs, out_rs,
                                 rows - whole_rows, cols);
  if (whole_cols < cols)
    agl_transpose_plane_portable(in + whole_cols * in_cs, in_cs,
                                 out + whole_cols, out_rs, whole_rows,
                                 cols - whole_cols);
}
