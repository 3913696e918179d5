/* agl_kernel_transpose32: the permutations whose innermost output dimension
 * is not the input's, as planes of 2-D transposes. A loop over such a
 * permutation reads or writes one element per vector lane at a stride; here
 * each plane goes in blocks of 64 x 64 elements (AGL_TRANSPOSE_BLOCK), each
 * block in tiles that the AVX2 kernel transposes in registers. */
#include "kernels_internal.h"

enum { BLOCK = AGL_TRANSPOSE_BLOCK };

void agl_transpose_plane_portable(const uint32_t *in, int64_t in_cs,
                                  uint32_t *out, int64_t out_rs, int64_t rows,
                                  int64_t cols) {
  for (int64_t j0 = 0; j0 < cols; j0 += BLOCK)
    for (int64_t i0 = 0; i0 < rows; i0 += BLOCK) {
      const int64_t j1 = cols - j0 < BLOCK ? cols : j0 + BLOCK;
      const int64_t i1 = rows - i0 < BLOCK ? rows : i0 + BLOCK;
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j)
          out[i * out_rs + j] = in[i + j * in_cs];
    }
}

typedef struct transpose_args {
  const uint32_t *in;
  uint32_t *out;
  int64_t outer1, rows, cols, bands, band;
  int64_t in_s0, in_s1, in_cs, out_s0, out_s1, out_rs;
  agl_transpose_plane_fn plane;
} transpose_args;

/* Items [begin, end): item t is band t % bands of plane t / bands. */
static void transpose_items(void *raw, int64_t begin, int64_t end) {
  const transpose_args *t = raw;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t plane = item / t->bands, j0 = item % t->bands * t->band;
    const int64_t a = plane / t->outer1, b = plane % t->outer1;
    const int64_t width = t->cols - j0 < t->band ? t->cols - j0 : t->band;
    t->plane(t->in + a * t->in_s0 + b * t->in_s1 + j0 * t->in_cs, t->in_cs,
             t->out + a * t->out_s0 + b * t->out_s1 + j0, t->out_rs, t->rows,
             width);
  }
}

void agl_kernel_transpose32(int64_t outer0, int64_t outer1, int64_t rows,
                            int64_t cols, const void *in, int64_t in_s0,
                            int64_t in_s1, int64_t in_col_stride, void *out,
                            int64_t out_s0, int64_t out_s1,
                            int64_t out_row_stride) {
  if (outer0 <= 0 || outer1 <= 0 || rows <= 0 || cols <= 0)
    return;
  transpose_args t = {
      .in = in,
      .out = out,
      .outer1 = outer1,
      .rows = rows,
      .cols = cols,
      .in_s0 = in_s0,
      .in_s1 = in_s1,
      .in_cs = in_col_stride,
      .out_s0 = out_s0,
      .out_s1 = out_s1,
      .out_rs = out_row_stride,
      .plane = agl_transpose_plane_portable,
  };
#if defined(AGL_HAVE_AVX2_KERNELS)
  /* Every CPU with the AVX-512 tables has AVX2; tests force the portable
   * loops through agl_gemm_select. */
  if (agl_gemm_current() != &agl_gemm_portable)
    t.plane = agl_transpose_plane_avx2;
#endif
  /* Planes are the work items; where there are fewer than 8, their
   * columns go in bands of whole blocks too, so that the threads share a
   * single large plane. */
  const int64_t planes = outer0 * outer1;
  t.bands = 1;
  t.band = cols;
  if (planes < 8 && cols > BLOCK) {
    const int64_t blocks = agl_ceil_div(cols, BLOCK);
    t.bands = blocks < 8 ? blocks : 8;
    t.band = agl_ceil_div(blocks, t.bands) * BLOCK;
    t.bands = agl_ceil_div(cols, t.band);
  }
  /* Items of at least about 64 Ki elements each, as the generated loops'
   * chunks: below that, waking a thread costs more than it saves. */
  const int64_t per_item = rows * t.band;
  const int64_t grain = per_item >= 65536 ? 1 : agl_ceil_div(65536, per_item);
  agl_parallel_for(planes * t.bands, grain, transpose_items, &t);
}
