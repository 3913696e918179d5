/* Direct convolution in the GEMM's orientation (AVX-512, column strides 1
 * and 2): a tile is up to 14 output positions of one output row (or of two
 * rows, where rows have 7 positions or fewer) x one 32-filter panel, its
 * accumulators 14 x 2 vectors of filters. Per depth it loads the panel's
 * weights of that depth (two vectors, contiguous in the packed weights) and
 * broadcasts each position's input element straight from a copy of the
 * task's input rows (conv_rows.c), so nothing is packed per tile. The tile is
 * transposed in registers and stored into NCHW with its epilogue
 * (avx512_tiles.h). This file is compiled with AVX-512 enabled. */
#include "kernels_internal.h"

#include "avx512_tiles.h"

#include <immintrin.h>
#include <stdint.h>

enum { MR = AGL_TILE_ROWS };
/* How many depths ahead the tile prefetches the weights, as the GEMM's
 * micro-kernel does B (sgemm_avx512.c): the first tile of each panel reads
 * them from memory. Measured on Zen 5 (resnet224's stage2.conv1, 3x3/2,
 * 64 -> 128, 295 KB of weights, out of the cache after a larger kernel;
 * one thread): 590-605 us without, 525-545 with (32 to 256 ahead alike),
 * 495-500 with the weights in cache. */
enum { W_PREFETCH = 64 };

typedef struct bcast_args {
  const float *input;   /* channel 0, row of ki = 0, column of position 0 */
  const float *weights; /* the panel at the block's first depth */
  int64_t panel_w, channels, kernel_h, kernel_w, ki_lo, ki_hi;
  int64_t channel_stride, ki_step, kj_step;
  int64_t row_step; /* floats between two output rows' inputs (pair tiles) */
  float *out;       /* the tile's first filter and position */
  int64_t out_channel_stride;
  int nr;                /* the panel's filters */
  agl_epilogue epilogue; /* bias at the panel's first filter */
} bcast_args;

/* R positions; OW > 0: two output rows of OW positions each (R = 2 OW). */
static inline __attribute__((always_inline)) void
bcast_tile(const int R, const int OW, const int SW, const int VECS,
           const bcast_args *t) {
  __m512 acc[MR][2];
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  /* The output's lines start coming in while the tile computes. */
  for (int j = 0; j < t->nr; ++j) {
    __builtin_prefetch(t->out + j * t->out_channel_stride, 1, 3);
    __builtin_prefetch(t->out + j * t->out_channel_stride + R - 1, 1, 3);
  }
  const int64_t kw = t->kernel_w, W = t->panel_w;
  const __mmask16 m0 = W >= 16 ? 0xFFFF : (__mmask16)((1u << W) - 1u);
  const __mmask16 m1 = W >= 32   ? 0xFFFF
                       : W <= 16 ? 0
                                 : (__mmask16)((1u << (W - 16)) - 1u);
  for (int64_t c = 0; c < t->channels; ++c) {
    const float *w = t->weights + (c * t->kernel_h + t->ki_lo) * kw * W;
    const float *plane = t->input + c * t->channel_stride;
    for (int64_t ki = t->ki_lo; ki < t->ki_hi; ++ki) {
      const float *x = plane + ki * t->ki_step;
      for (int64_t kj = 0; kj < kw; ++kj) {
        _mm_prefetch((const char *)(w + W_PREFETCH * W), _MM_HINT_T0);
        if (VECS > 1)
          _mm_prefetch((const char *)(w + W_PREFETCH * W + 16), _MM_HINT_T0);
        /* With two vectors the first is whole: a plain load. */
        __m512 b0 =
            VECS > 1 ? _mm512_loadu_ps(w) : _mm512_maskz_loadu_ps(m0, w);
        __m512 b1 =
            VECS > 1 ? _mm512_maskz_loadu_ps(m1, w + 16) : _mm512_setzero_ps();
#pragma GCC unroll 14
        for (int i = 0; i < R; ++i) {
          __m512 a = _mm512_set1_ps(OW ? x[i / OW * t->row_step + i % OW * SW]
                                       : x[i * SW]);
          acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
          if (VECS > 1)
            acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
        }
        x += t->kj_step;
        w += W;
      }
    }
  }
  agl_store_transposed(R, VECS, acc, t->out, t->out_channel_stride, t->nr,
                       &t->epilogue);
}

typedef void (*bcast_fn)(const bcast_args *t);

#define BCAST(R)                                                               \
  static void b11_##R(const bcast_args *t) { bcast_tile(R, 0, 1, 1, t); }      \
  static void b12_##R(const bcast_args *t) { bcast_tile(R, 0, 1, 2, t); }      \
  static void b21_##R(const bcast_args *t) { bcast_tile(R, 0, 2, 1, t); }      \
  static void b22_##R(const bcast_args *t) { bcast_tile(R, 0, 2, 2, t); }
BCAST(1)
BCAST(2)
BCAST(3)
BCAST(4)
BCAST(5)
BCAST(6)
BCAST(7)
BCAST(8)
BCAST(9)
BCAST(10)
BCAST(11)
BCAST(12)
BCAST(13)
BCAST(14)

/* Two rows of OW positions. */
#define PAIR(OW)                                                               \
  static void p11_##OW(const bcast_args *t) {                                  \
    bcast_tile(2 * OW, OW, 1, 1, t);                                           \
  }                                                                            \
  static void p12_##OW(const bcast_args *t) {                                  \
    bcast_tile(2 * OW, OW, 1, 2, t);                                           \
  }                                                                            \
  static void p21_##OW(const bcast_args *t) {                                  \
    bcast_tile(2 * OW, OW, 2, 1, t);                                           \
  }                                                                            \
  static void p22_##OW(const bcast_args *t) { bcast_tile(2 * OW, OW, 2, 2, t); }
PAIR(1)
PAIR(2)
PAIR(3)
PAIR(4)
PAIR(5)
PAIR(6)
PAIR(7)

#define BROW(p)                                                                \
  {                                                                            \
    NULL, p##_1, p##_2, p##_3, p##_4, p##_5, p##_6, p##_7, p##_8, p##_9,       \
        p##_10, p##_11, p##_12, p##_13, p##_14                                 \
  }
/* [stride 2][two vectors][R] */
static const bcast_fn bcasts[2][2][MR + 1] = {
    {BROW(b11), BROW(b12)},
    {BROW(b21), BROW(b22)},
};

#define PROW(p)                                                                \
  { NULL, p##_1, p##_2, p##_3, p##_4, p##_5, p##_6, p##_7 }
/* [stride 2][two vectors][OW] */
static const bcast_fn pairs[2][2][MR / 2 + 1] = {
    {PROW(p11), PROW(p12)},
    {PROW(p21), PROW(p22)},
};

int agl_conv_bcast_rows_avx512(const agl_conv_direct *d, int64_t n, int64_t g,
                               int64_t oy0, int64_t oy1, int64_t f0,
                               int64_t f1) {
  const int64_t taps = d->kernel_h * d->kernel_w;
  const int64_t depth = d->in_channels * taps;
  const int64_t sw = d->stride_w, ow = d->out_w;
  if (sw != 1 && sw != 2)
    return 0;
  int64_t width, plane;
  const float *rows = agl_conv_copy_rows(d, n, g, oy0, oy1, &width, &plane);
  if (!rows)
    return 0;
  const float *weights = d->weights + g * d->out_channels * depth;
  const float *bias = d->bias ? d->bias + g * d->out_channels : NULL;
  float *out = d->out + n * d->out_batch_stride +
               g * d->out_channels * d->out_channel_stride;
  bcast_args t = {
      .kernel_h = d->kernel_h,
      .kernel_w = d->kernel_w,
      .channels = d->in_channels,
      .channel_stride = plane,
      .ki_step = d->dilation_h * width,
      .kj_step = d->dilation_w,
      .row_step = d->stride_h * width,
      .out_channel_stride = d->out_channel_stride,
      .epilogue = {.load_c = d->accumulate,
                   .act = d->act,
                   .alpha = 1.0f,
                   .res_rs = 1,
                   .res_cs = d->out_channel_stride,
                   .residual_first = 1},
  };
  const int s2 = sw == 2;
  /* Rows of at most MR / 2 positions go two at a time. */
  const int64_t step = 2 * ow <= MR ? 2 : 1;
  for (int64_t f = f0; f < f1; f += AGL_CONV_PACKED_NR) {
    const int64_t nr = d->out_channels - f < AGL_CONV_PACKED_NR
                           ? d->out_channels - f
                           : AGL_CONV_PACKED_NR;
    t.panel_w = nr;
    t.nr = (int)nr;
    t.weights = weights + f * depth;
    t.epilogue.bias = bias ? bias + f : NULL;
    for (int64_t oy = oy0; oy < oy1; oy += step) {
      const int64_t y0 = oy * d->stride_h - d->pad_top;
      agl_conv_live_kernel_rows(d, oy, &t.ki_lo, &t.ki_hi);
      if (step == 2 && oy + 1 < oy1) {
        /* Both rows' kernel rows; the padding rows read zeros. */
        int64_t lo, hi;
        agl_conv_live_kernel_rows(d, oy + 1, &lo, &hi);
        if (lo < t.ki_lo)
          t.ki_lo = lo;
        if (hi > t.ki_hi)
          t.ki_hi = hi;
        t.input = rows + y0 * width;
        t.out = out + f * d->out_channel_stride + oy * ow;
        if (d->residual)
          t.epilogue.residual = d->residual + (t.out - d->out);
        pairs[s2][nr > 16][ow](&t);
        continue;
      }
      for (int64_t ox0 = 0; ox0 < ow; ox0 += MR) {
        const int R = ow - ox0 < MR ? (int)(ow - ox0) : MR;
        t.input = rows + y0 * width + ox0 * sw;
        t.out = out + f * d->out_channel_stride + oy * ow + ox0;
        if (d->residual)
          t.epilogue.residual = d->residual + (t.out - d->out);
        bcasts[s2][nr > 16][R](&t);
      }
    }
  }
  return 1;
}
