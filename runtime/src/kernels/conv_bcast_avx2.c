/* Direct convolution in the GEMM's orientation with AVX2: a tile is up to 6
 * consecutive output positions x 16 filters (half of a 32-filter panel),
 * its accumulators 6 x 2 vectors of filters, as in the AVX2 GEMM's tile.
 * Per depth it loads the two vectors of weights of that depth (contiguous
 * in the packed weights) and broadcasts each position's input element from
 * the copy of the task's input rows (conv_rows.c), at an offset per
 * position worked out once per tile. So a tile may run over into the next
 * output rows (the 6-position tiles cover any row width without a partial
 * tile per row), and any column stride or dilation is as cheap as 1. The
 * tile is transposed in registers and stored into NCHW with its epilogue
 * (avx2_tiles.h). This file is compiled with -mavx2 -mfma. */
#include "kernels_internal.h"

#include "avx2_tiles.h"

#include <immintrin.h>

enum { MR = AGL_AVX2_TILE_ROWS, HALF = 16 };
#ifndef BLOCK_DEPTH
#define BLOCK_DEPTH 1024
#endif
_Static_assert(AGL_CONV_PACKED_NR % HALF == 0, "panels split into halves");

typedef struct bcast_args {
  const float *input;   /* the copy of the rows at the block's first channel */
  const float *weights; /* the half panel at the block's first depth */
  int64_t offset[MR];   /* each position's window origin in the input */
  int64_t panel_w, channels, kernel_h, kernel_w, ki_lo, ki_hi;
  int64_t plane_floats, ki_step, kj_step;
  float *out; /* the tile's first filter and position */
  int64_t out_channel_stride;
  int nr; /* the tile's filters (at most 16) */
  agl_epilogue epilogue;
} bcast_args;

/* R positions, VECS vectors of filters; PARTIAL: the last vector has fewer
 * than 8 filters (masked loads, which never read past the weights); KW: the
 * kernel's width where fixed at compile time (0: t->kernel_w), so that a
 * kernel row's taps run unrolled. */
static AGL_ALWAYS_INLINE void bcast_tile(const int R, const int VECS,
                                         const int PARTIAL, const int KW,
                                         const bcast_args *t) {
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  /* The output's lines start coming in while the tile computes: its
   * stores otherwise wait on them. */
  for (int j = 0; j < t->nr; ++j) {
    __builtin_prefetch(t->out + j * t->out_channel_stride, 1, 3);
    __builtin_prefetch(t->out + j * t->out_channel_stride + R - 1, 1, 3);
  }
  int64_t o[MR];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i)
    o[i] = t->offset[i];
  const __m256i last = agl_lanes8(t->nr - 8 * (VECS - 1));
  const int64_t kw = KW ? KW : t->kernel_w, W = t->panel_w;
  const int64_t kj_step = t->kj_step;
  for (int64_t c = 0; c < t->channels; ++c) {
    const float *w = t->weights + (c * t->kernel_h + t->ki_lo) * kw * W;
    const float *row = t->input + c * t->plane_floats + t->ki_lo * t->ki_step;
    for (int64_t ki = t->ki_lo; ki < t->ki_hi; ++ki, row += t->ki_step) {
      const float *x = row;
#pragma GCC unroll 3
      for (int64_t kj = 0; kj < kw; ++kj, x += kj_step, w += W) {
        __m256 b0, b1 = _mm256_setzero_ps();
        if (VECS == 1)
          b0 = PARTIAL ? _mm256_maskload_ps(w, last) : _mm256_loadu_ps(w);
        else {
          b0 = _mm256_loadu_ps(w);
          b1 = PARTIAL ? _mm256_maskload_ps(w + 8, last)
                       : _mm256_loadu_ps(w + 8);
        }
#pragma GCC unroll 6
        for (int i = 0; i < R; ++i) {
          __m256 a = _mm256_broadcast_ss(x + o[i]);
          acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
          if (VECS > 1)
            acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
        }
      }
    }
  }
  /* A copy for the store: were acc's address taken, the loop would keep it
   * in memory. */
  __m256 tile[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i) {
    tile[i][0] = acc[i][0];
    tile[i][1] = acc[i][1];
  }
  agl_store_transposed256(R, (const __m256(*)[2])tile, t->out,
                          t->out_channel_stride, t->nr, &t->epilogue);
}

typedef void (*bcast_fn)(const bcast_args *t);

#define BCAST(R)                                                               \
  static void b1_##R(const bcast_args *t) { bcast_tile(R, 1, 0, 0, t); }       \
  static void b1p_##R(const bcast_args *t) { bcast_tile(R, 1, 1, 0, t); }      \
  static void b2_##R(const bcast_args *t) {                                    \
    if (t->kernel_w == 3)                                                      \
      bcast_tile(R, 2, 0, 3, t);                                               \
    else                                                                       \
      bcast_tile(R, 2, 0, 0, t);                                               \
  }                                                                            \
  static void b2p_##R(const bcast_args *t) { bcast_tile(R, 2, 1, 0, t); }
BCAST(1)
BCAST(2)
BCAST(3)
BCAST(4)
BCAST(5)
BCAST(6)
_Static_assert(MR == 6, "one kernel per position count");

#define BROW(p)                                                                \
  { NULL, p##_1, p##_2, p##_3, p##_4, p##_5, p##_6 }
/* [vectors - 1][partial][R] */
static const bcast_fn bcasts[2][2][MR + 1] = {
    {BROW(b1), BROW(b1p)},
    {BROW(b2), BROW(b2p)},
};

int agl_conv_bcast_rows_avx2(const agl_conv_direct *d, int64_t n, int64_t g,
                             int64_t oy0, int64_t oy1, int64_t f0, int64_t f1) {
  int64_t width, plane;
  const float *rows = agl_conv_copy_rows(d, n, g, oy0, oy1, &width, &plane);
  if (!rows)
    return 0;
  const int64_t depth = d->in_channels * d->kernel_h * d->kernel_w;
  const int64_t ow = d->out_w;
  const float *weights = d->weights + g * d->out_channels * depth;
  const float *bias = d->bias ? d->bias + g * d->out_channels : NULL;
  float *out = d->out + n * d->out_batch_stride +
               g * d->out_channels * d->out_channel_stride;
  bcast_args t = {
      .kernel_h = d->kernel_h,
      .kernel_w = d->kernel_w,
      .plane_floats = plane,
      .ki_step = d->dilation_h * width,
      .kj_step = d->dilation_w,
      .out_channel_stride = d->out_channel_stride,
  };
  /* Blocks of input channels, about BLOCK_DEPTH depths: a tile reads its
   * half panel's weights of the whole block, which the task's other tiles
   * read again, so they should stay in the L2 cache (deep layers have
   * megabytes of weights per half panel). On resnet224's layers blocks of
   * 128 to 4096 depths measured the same. */
  const int64_t taps = d->kernel_h * d->kernel_w;
  int64_t block = BLOCK_DEPTH / taps;
  if (block < 1)
    block = 1;
  block = agl_ceil_div(d->in_channels, agl_ceil_div(d->in_channels, block));
  const int64_t first = oy0 * ow, end = oy1 * ow; /* positions of the task */
  for (int64_t f = f0; f < f1; f += AGL_CONV_PACKED_NR) {
    const int64_t panel_w = d->out_channels - f < AGL_CONV_PACKED_NR
                                ? d->out_channels - f
                                : AGL_CONV_PACKED_NR;
    t.panel_w = panel_w;
    for (int64_t c0 = 0; c0 < d->in_channels; c0 += block) {
      const int64_t c1 =
          d->in_channels - c0 < block ? d->in_channels : c0 + block;
      t.channels = c1 - c0;
      t.input = rows + c0 * plane;
      /* Both halves of the panel while its block of weights is cached. */
      for (int64_t h = 0; h < panel_w; h += HALF) {
        const int nr = panel_w - h < HALF ? (int)(panel_w - h) : HALF;
        const int vecs = nr > 8 ? 2 : 1;
        const bcast_fn *by_rows = bcasts[vecs - 1][nr % 8 != 0];
        t.nr = nr;
        float *filters = out + (f + h) * d->out_channel_stride;
        t.weights = weights + f * depth + c0 * taps * panel_w + h;
        int64_t oy = oy0, ox = 0; /* of the tile's first position */
        for (int64_t p = first; p < end; p += MR) {
          const int R = end - p < MR ? (int)(end - p) : MR;
          /* The kernel rows that any of the tile's output rows reaches
           * inside the image; rows in the padding read the copy's zeros. */
          int64_t y = oy, x = ox, lo, hi, unused;
          for (int i = 0; i < R; ++i) {
            t.offset[i] =
                (y * d->stride_h - d->pad_top) * width + x * d->stride_w;
            if (++x == ow) {
              x = 0;
              ++y;
            }
          }
          agl_conv_live_kernel_rows(d, (p + R - 1) / ow, &lo, &unused);
          agl_conv_live_kernel_rows(d, oy, &unused, &hi);
          t.ki_lo = lo;
          t.ki_hi = hi;
          t.out = filters + p;
          agl_epilogue e = {
              .load_c = d->accumulate,
              .act = d->act,
              .alpha = 1.0f,
              .bias = bias ? bias + f + h : NULL,
              .bias_cs = 1,
              .residual = d->residual ? d->residual + (t.out - d->out) : NULL,
              .res_rs = 1,
              .res_cs = d->out_channel_stride,
              .residual_first = 1};
          t.epilogue =
              agl_epilogue_tile(&e, 0, 0, c0 == 0, c1 == d->in_channels);
          by_rows[R](&t);
          oy = y;
          ox = x;
        }
      }
    }
  }
  return 1;
}
