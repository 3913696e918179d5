/* Direct convolution with AVX-512 (column strides 1 and 2): no window is
 * packed. A tile is R filters (R <= 14, within one 32-filter panel of the
 * packed weights) x up to 32 output positions of one output row, two
 * vectors of 16 positions. For each depth (channel, ki, kj) the tile loads
 * the input row's 32 (stride 1) or 64 (stride 2, then the even elements)
 * columns under its positions straight from the input, lanes in the left or
 * right padding masked to zero, and does one FMA per filter and vector with
 * the filter's weight broadcast from the packed panel, where the depth's
 * weights of the panel's filters are contiguous. Kernel rows in the top or
 * bottom padding are skipped. The accumulators hold output rows, so the
 * epilogue (accumulate, bias, activation) stores them in NCHW as they are.
 * This file is compiled with AVX-512 enabled; conv.c calls it only when the
 * CPU has it. */
#include "kernels_internal.h"

#include "avx512_math.h"

#include <immintrin.h>
#include <stdint.h>

enum { MAX_R = 14, TILE_W = 32 };

/* Lanes [lo, hi) of a 32-lane mask (empty when hi <= lo). */
static inline uint32_t lane_range(int64_t lo, int64_t hi) {
  if (lo < 0)
    lo = 0;
  if (hi > 32)
    hi = 32;
  if (hi <= lo)
    return 0;
  return (uint32_t)(((uint64_t)1 << hi) - ((uint64_t)1 << lo));
}

/* The address of `row[column]`; `column` may lie outside the row when every
 * lane that reaches there is masked off. */
static inline const float *at_column(const float *row, int64_t column) {
  return (const float *)((uintptr_t)row + (uintptr_t)(column * 4));
}

/* One tile's work: everything but the filter count and the vector count. */
typedef struct tile_args {
  const float *input;   /* the group's channel 0, at the row of ki = 0 and
                           the column of lane 0 for kj = 0 */
  const float *weights; /* the tile's first filter in its panel, depth 0 */
  int64_t panel_w;      /* floats between two depths of the panel */
  int64_t channels, kernel_h, kernel_w, ki_lo, ki_hi;
  int64_t channel_stride, ki_step, kj_step; /* ki_step = dilation_h * rows */
  const int64_t *kj_at; /* per kj, the column offset (stride 1 tiles) */
  const __mmask16 *load; /* per kj: 2 masks (stride 1) or 4 (stride 2) */
  float *out;            /* the tile's first filter and position */
  int64_t out_channel_stride;
  __mmask16 store[2];
  const float *bias; /* the tile's first filter's, or null */
  const float *residual; /* at the tile's output, with the last channels */
  int load_c, act;
  /* Tiles over two output rows (stride 1 only): vector h's lanes come from
   * segments 2h and 2h + 1, each one output row's run. Segment k's lane t
   * reads seg_input[k] + c * channel_stride + ki * ki_step + kj * kj_step
   * + t, for ki in [seg_lo[k], seg_hi[k]) (the rows inside the image), its
   * lanes and columns inside the row under load[4 * kj + k]. */
  const float *seg_input[4];
  int64_t seg_lo[4], seg_hi[4];
} tile_args;

static inline __attribute__((always_inline)) void
tile(const int R, const int VECS, const int S2, const tile_args *t) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  __m512 acc[MAX_R][2];
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  const int64_t kw = t->kernel_w, W = t->panel_w;
  const int64_t kstep = S2 ? 4 : 2;
  for (int64_t c = 0; c < t->channels; ++c) {
    const float *plane = t->input + c * t->channel_stride;
    const float *w = t->weights + (c * t->kernel_h + t->ki_lo) * kw * W;
    for (int64_t ki = t->ki_lo; ki < t->ki_hi; ++ki) {
      const float *row = plane + ki * t->ki_step;
      const __mmask16 *m = t->load;
#ifdef DIRECT_PREFETCH
      /* The next channel's row. */
      const char *next = (const char *)(row + t->channel_stride);
      _mm_prefetch(next, _MM_HINT_T0);
      _mm_prefetch(next + 64, _MM_HINT_T0);
      _mm_prefetch(next + (S2 ? 128 : 127), _MM_HINT_T0);
      if (S2) {
        _mm_prefetch(next + 192, _MM_HINT_T0);
        _mm_prefetch(next + 255, _MM_HINT_T0);
      }
#endif
      for (int64_t kj = 0; kj < kw; ++kj) {
        const float *x = at_column(row, S2 ? kj * t->kj_step : t->kj_at[kj]);
        __m512 v0, v1 = _mm512_setzero_ps();
        if (!S2) {
          v0 = _mm512_maskz_loadu_ps(m[0], x);
          if (VECS > 1)
            v1 = _mm512_maskz_loadu_ps(m[1], x + 16);
        } else {
          __m512 lo = _mm512_maskz_loadu_ps(m[0], x);
          __m512 hi = _mm512_maskz_loadu_ps(m[1], x + 16);
          v0 = _mm512_permutex2var_ps(lo, even, hi);
          if (VECS > 1) {
            lo = _mm512_maskz_loadu_ps(m[2], x + 32);
            hi = _mm512_maskz_loadu_ps(m[3], x + 48);
            v1 = _mm512_permutex2var_ps(lo, even, hi);
          }
        }
#pragma GCC unroll 14
        for (int i = 0; i < R; ++i) {
          __m512 a = _mm512_set1_ps(w[i]);
          acc[i][0] = _mm512_fmadd_ps(a, v0, acc[i][0]);
          if (VECS > 1)
            acc[i][1] = _mm512_fmadd_ps(a, v1, acc[i][1]);
        }
        w += W;
        m += kstep;
      }
    }
  }
  const int load_c = t->load_c, act = t->act;
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    float *o = t->out + i * t->out_channel_stride;
    __m512 b = t->bias ? _mm512_set1_ps(t->bias[i]) : _mm512_setzero_ps();
    for (int h = 0; h < VECS; ++h) {
      __m512 v = _mm512_add_ps(acc[i][h], b);
      if (load_c)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(t->store[h], o + 16 * h));
      if (t->residual)
        v = _mm512_add_ps(
            v, _mm512_maskz_loadu_ps(t->store[h], t->residual +
                                                      i * t->out_channel_stride +
                                                      16 * h));
      if (act != AGL_ACT_NONE)
        v = agl_activate512(v, act);
      _mm512_mask_storeu_ps(o + 16 * h, t->store[h], v);
    }
  }
}

/* A tile of 32 consecutive output positions (oy * out_w + ox) that run
 * over into the next output row: per vector two masked loads, one per
 * row, merged. Stride 1. */
static inline __attribute__((always_inline)) void
tile_rows(const int R, const tile_args *t) {
  __m512 acc[MAX_R][2];
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  const int64_t kw = t->kernel_w, W = t->panel_w;
  for (int64_t c = 0; c < t->channels; ++c) {
    const float *w = t->weights + (c * t->kernel_h + t->ki_lo) * kw * W;
    for (int64_t ki = t->ki_lo; ki < t->ki_hi; ++ki) {
      const float *x[4];
      __mmask16 live[4];
      for (int k = 0; k < 4; ++k) {
        x[k] = at_column(t->seg_input[k],
                         c * t->channel_stride + ki * t->ki_step);
        live[k] = ki >= t->seg_lo[k] && ki < t->seg_hi[k] ? 0xFFFF : 0;
      }
      const __mmask16 *m = t->load;
      for (int64_t kj = 0; kj < kw; ++kj) {
        const int64_t dx = kj * t->kj_step;
        __m512 v0 = _mm512_maskz_loadu_ps(m[0] & live[0], at_column(x[0], dx));
        v0 = _mm512_mask_loadu_ps(v0, m[1] & live[1], at_column(x[1], dx));
        __m512 v1 = _mm512_maskz_loadu_ps(m[2] & live[2], at_column(x[2], dx));
        v1 = _mm512_mask_loadu_ps(v1, m[3] & live[3], at_column(x[3], dx));
#pragma GCC unroll 14
        for (int i = 0; i < R; ++i) {
          __m512 a = _mm512_set1_ps(w[i]);
          acc[i][0] = _mm512_fmadd_ps(a, v0, acc[i][0]);
          acc[i][1] = _mm512_fmadd_ps(a, v1, acc[i][1]);
        }
        w += W;
        m += 4;
      }
    }
  }
  const int load_c = t->load_c, act = t->act;
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    float *o = t->out + i * t->out_channel_stride;
    __m512 b = t->bias ? _mm512_set1_ps(t->bias[i]) : _mm512_setzero_ps();
    for (int h = 0; h < 2; ++h) {
      __m512 v = _mm512_add_ps(acc[i][h], b);
      if (load_c)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(t->store[h], o + 16 * h));
      if (t->residual)
        v = _mm512_add_ps(
            v, _mm512_maskz_loadu_ps(t->store[h], t->residual +
                                                      i * t->out_channel_stride +
                                                      16 * h));
      if (act != AGL_ACT_NONE)
        v = agl_activate512(v, act);
      _mm512_mask_storeu_ps(o + 16 * h, t->store[h], v);
    }
  }
}

typedef void (*tile_fn)(const tile_args *t);

#define TILE(R)                                                                \
  static void tile1_##R(const tile_args *t) { tile(R, 1, 0, t); }             \
  static void tile2_##R(const tile_args *t) { tile(R, 2, 0, t); }             \
  static void tile1s_##R(const tile_args *t) { tile(R, 1, 1, t); }            \
  static void tile2s_##R(const tile_args *t) { tile(R, 2, 1, t); }            \
  static void tile_rows_##R(const tile_args *t) { tile_rows(R, t); }
TILE(1)
TILE(2)
TILE(3)
TILE(4)
TILE(5)
TILE(6)
TILE(7)
TILE(8)
TILE(9)
TILE(10)
TILE(11)
TILE(12)
TILE(13)
TILE(14)

#define ROW(v, s)                                                              \
  {NULL,         tile##v##s##_1,  tile##v##s##_2,  tile##v##s##_3,             \
   tile##v##s##_4,  tile##v##s##_5,  tile##v##s##_6,  tile##v##s##_7,          \
   tile##v##s##_8,  tile##v##s##_9,  tile##v##s##_10, tile##v##s##_11,         \
   tile##v##s##_12, tile##v##s##_13, tile##v##s##_14}
/* [stride 2][two vectors][R] */
static const tile_fn tiles[2][2][MAX_R + 1] = {
    {ROW(1, ), ROW(2, )},
    {ROW(1, s), ROW(2, s)},
};

static const tile_fn row_tiles[MAX_R + 1] = {
    NULL,          tile_rows_1,  tile_rows_2,  tile_rows_3,  tile_rows_4,
    tile_rows_5,   tile_rows_6,  tile_rows_7,  tile_rows_8,  tile_rows_9,
    tile_rows_10,  tile_rows_11, tile_rows_12, tile_rows_13, tile_rows_14};

int agl_conv_direct_supported_avx512(const agl_conv_direct *d) {
  return (d->stride_w == 1 || d->stride_w == 2) &&
         d->kernel_w <= AGL_CONV_DIRECT_MAX_KW;
}

/* Depths per block: the output of a task is read back once per block, the
 * block's weights of a panel (depths x 128-byte lines) are read from the L1
 * or L2 by every tile. Larger blocks measured faster. */
#ifndef DIRECT_BLOCK_DEPTH
#define DIRECT_BLOCK_DEPTH 1024
#endif

/* Kernel rows [*lo, *hi) whose input row y0 + ki * dilation_h lies inside
 * the image. */
static void inside_rows(const agl_conv_direct *d, int64_t y0, int64_t *lo,
                        int64_t *hi) {
  const int64_t dh = d->dilation_h;
  int64_t a = y0 >= 0 ? 0 : (-y0 + dh - 1) / dh;
  int64_t b = d->in_h - y0 <= 0 ? 0 : (d->in_h - y0 + dh - 1) / dh;
  if (b > d->kernel_h)
    b = d->kernel_h;
  if (b < a)
    b = a;
  *lo = a;
  *hi = b;
}

/* The load masks of a tile within one output row: `count` positions whose
 * first reads input column col0 (for kj = 0). */
static void row_masks(const agl_conv_direct *d, int64_t count, int64_t col0,
                      __mmask16 *m) {
  for (int64_t kj = 0; kj < d->kernel_w; ++kj) {
    int64_t at0 = col0 + kj * d->dilation_w;
    if (d->stride_w == 1) {
      uint32_t lanes = lane_range(0, count) & lane_range(-at0, d->in_w - at0);
      m[2 * kj] = (__mmask16)lanes;
      m[2 * kj + 1] = (__mmask16)(lanes >> 16);
    } else {
      for (int h = 0; h < 2; ++h) {
        int64_t at = at0 + 32 * h;
        /* Elements 2u of the 32 from `at`, for positions u < count. */
        uint32_t inside = lane_range(-at, d->in_w - at) &
                          lane_range(0, 2 * (count - 16 * h) - 1);
        m[4 * kj + 2 * h] = (__mmask16)inside;
        m[4 * kj + 2 * h + 1] = (__mmask16)(inside >> 16);
      }
    }
  }
}

/* The load masks of a row tile reading the split columns: lane u of kernel
 * column kj reads index ox0 + u + half of its phase, which holds column
 * 2 * index + phase. */
static void phase_masks(const agl_conv_direct *d, int64_t count, int64_t ox0,
                        const int64_t *phase_of, const int64_t *kj_at,
                        int64_t half_w, __mmask16 *m) {
  for (int64_t kj = 0; kj < d->kernel_w; ++kj) {
    const int64_t phase = phase_of[kj];
    const int64_t at = ox0 + kj_at[kj] - phase * half_w; /* index of lane 0 */
    const int64_t columns = (d->in_w - phase + 1) / 2;  /* of this phase */
    uint32_t lanes = lane_range(0, count) & lane_range(-at, columns - at);
    m[2 * kj] = (__mmask16)lanes;
    m[2 * kj + 1] = (__mmask16)(lanes >> 16);
  }
}

void agl_conv_direct_rows_avx512(const agl_conv_direct *d, int64_t n,
                                 int64_t g, int64_t oy0, int64_t oy1,
                                 int64_t f0, int64_t f1) {
  const int64_t taps = d->kernel_h * d->kernel_w;
  const int64_t depth = d->in_channels * taps;
  const int s2 = d->stride_w == 2;
  const int64_t ow = d->out_w;
  int64_t block = DIRECT_BLOCK_DEPTH / taps;
  if (block < 1)
    block = 1;
  tile_args t = {
      .kernel_h = d->kernel_h,
      .kernel_w = d->kernel_w,
      .channel_stride = d->channel_stride,
      .ki_step = d->dilation_h * d->row_stride,
      .kj_step = d->dilation_w,
      .out_channel_stride = d->out_channel_stride,
  };
  const float *image = d->input + n * d->in_batch_stride + g * d->group_stride;
  /* Column stride 2: the rows of the task's input are split into their even
   * and odd columns once, in the packing memory, so that the tiles load
   * them as with stride 1 (kernel column kj reads phase (kj * dilation_w -
   * pad_left) mod 2 from half that offset on). */
  int phases = 0;
  int64_t channel_stride = d->channel_stride, row_stride = d->row_stride;
  int64_t kj_at[AGL_CONV_DIRECT_MAX_KW], phase_of[AGL_CONV_DIRECT_MAX_KW];
  int64_t half_w = (d->in_w + 1) / 2;
  int64_t iy_first = 0;
  for (int64_t kj = 0; kj < d->kernel_w; ++kj)
    kj_at[kj] = kj * d->dilation_w;
  t.kj_at = kj_at;
  if (s2) {
    float *scratch = agl_pool_scratch();
    /* The input rows the task's output rows reach, inside the image. */
    iy_first = oy0 * d->stride_h - d->pad_top;
    int64_t iy_last = (oy1 - 1) * d->stride_h - d->pad_top +
                      (d->kernel_h - 1) * d->dilation_h;
    if (iy_first < 0)
      iy_first = 0;
    if (iy_last > d->in_h - 1)
      iy_last = d->in_h - 1;
    int64_t nrows = iy_last >= iy_first ? iy_last - iy_first + 1 : 0;
    half_w = (half_w + 15) / 16 * 16; /* whole vectors per phase */
    if (scratch && nrows > 0 &&
        d->in_channels * nrows * 2 * half_w <= (int64_t)AGL_SCRATCH_FLOATS) {
      const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16,
                                            14, 12, 10, 8, 6, 4, 2, 0);
      const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
      for (int64_t c = 0; c < d->in_channels; ++c)
        for (int64_t r = 0; r < nrows; ++r) {
          const float *src = image + c * d->channel_stride +
                             (iy_first + r) * d->row_stride;
          float *dst = scratch + (c * nrows + r) * 2 * half_w;
          for (int64_t v = 0; v < half_w; v += 16) {
            uint32_t inside = lane_range(-2 * v, d->in_w - 2 * v);
            __m512 a = _mm512_maskz_loadu_ps((__mmask16)inside, src + 2 * v);
            __m512 b = _mm512_maskz_loadu_ps((__mmask16)(inside >> 16),
                                             src + 2 * v + 16);
            _mm512_storeu_ps(dst + v, _mm512_permutex2var_ps(a, even, b));
            _mm512_storeu_ps(dst + half_w + v,
                             _mm512_permutex2var_ps(a, odd, b));
          }
        }
      phases = 1;
      image = at_column(scratch, -iy_first * 2 * half_w);
      channel_stride = nrows * 2 * half_w;
      row_stride = 2 * half_w;
      for (int64_t kj = 0; kj < d->kernel_w; ++kj) {
        int64_t j = kj * d->dilation_w - d->pad_left;
        int64_t phase = j & 1, half = (j - phase) / 2;
        phase_of[kj] = phase;
        kj_at[kj] = phase * half_w + half;
      }
      t.channel_stride = channel_stride;
      t.ki_step = d->dilation_h * row_stride;
      t.kj_at = kj_at;
    }
  }
  const float *weights = d->weights + g * d->out_channels * depth;
  const float *bias = d->bias ? d->bias + g * d->out_channels : NULL;
  float *out = d->out + n * d->out_batch_stride +
               g * d->out_channels * d->out_channel_stride;
  /* Tiles: 32 positions of one output row each, or, when the rows are not
   * a multiple of 32 wide (and at least 16), 32 consecutive positions
   * oy * out_w + ox that may run over into the next row, so that no lanes
   * are lost at the rows' ends. */
  const int flat = !s2 && ow >= 16 && ow % TILE_W != 0;
  const int64_t xtiles = (ow + TILE_W - 1) / TILE_W;
  const int64_t first_pos = oy0 * ow, end_pos = oy1 * ow;
  const int64_t ntiles = flat ? (end_pos - first_pos + TILE_W - 1) / TILE_W
                              : (oy1 - oy0) * xtiles;
  /* Masks per kj: kept per x tile for up to 4 of them (row tiles); else
   * computed for each tile. */
  __mmask16 kept[4 * AGL_CONV_DIRECT_MAX_KW * 4];
  __mmask16 fresh[AGL_CONV_DIRECT_MAX_KW * 4];
  const int keep = !flat && xtiles <= 4;
  for (int64_t c0 = 0; c0 < d->in_channels; c0 += block) {
    const int64_t c1 =
        c0 + block < d->in_channels ? c0 + block : d->in_channels;
    const int first = c0 == 0, last = c1 == d->in_channels;
    const float *channels = at_column(image, c0 * channel_stride);
    t.channels = c1 - c0;
    t.load_c = d->accumulate || !first;
    t.act = last ? d->act : AGL_ACT_NONE;
    for (int64_t f = f0; f < f1;) {
      const int64_t pfirst = f / AGL_CONV_PACKED_NR * AGL_CONV_PACKED_NR;
      int64_t pend = pfirst + AGL_CONV_PACKED_NR;
      t.panel_w = pend <= d->out_channels ? AGL_CONV_PACKED_NR
                                          : d->out_channels - pfirst;
      if (pend > f1)
        pend = f1;
      const float *pweights = weights + pfirst * depth + c0 * taps * t.panel_w;
      const int64_t left = pend - f;
      const int64_t rtiles = (left + MAX_R - 1) / MAX_R;
      for (int64_t k = 0; k < ntiles; ++k) {
        /* The tile's first position and its count. */
        int64_t oy, ox0, count;
        if (flat) {
          int64_t p0 = first_pos + k * TILE_W;
          oy = p0 / ow;
          ox0 = p0 % ow;
          count = end_pos - p0 < TILE_W ? end_pos - p0 : TILE_W;
        } else {
          oy = oy0 + k / xtiles;
          ox0 = k % xtiles * TILE_W;
          count = ow - ox0 < TILE_W ? ow - ox0 : TILE_W;
        }
        uint32_t stored = lane_range(0, count);
        t.store[0] = (__mmask16)stored;
        t.store[1] = (__mmask16)(stored >> 16);
        t.out = out + oy * ow + ox0;
        tile_fn const *fns;
        if (ox0 + count <= ow) {
          /* Within one output row. */
          const int64_t y0 = oy * d->stride_h - d->pad_top;
          const int64_t col0 = ox0 * d->stride_w - d->pad_left;
          inside_rows(d, y0, &t.ki_lo, &t.ki_hi);
          __mmask16 *m = keep ? kept + k % xtiles * AGL_CONV_DIRECT_MAX_KW * 4
                              : fresh;
          if (!keep || (c0 == 0 && f == f0 && k < xtiles)) {
            if (phases)
              phase_masks(d, count, ox0, phase_of, kj_at, half_w, m);
            else
              row_masks(d, count, col0, m);
          }
          t.load = m;
          t.input = phases ? at_column(channels, y0 * row_stride + ox0)
                           : at_column(channels, y0 * d->row_stride + col0);
          fns = tiles[s2 && !phases][count > 16];
        } else {
          /* Vector h: its lanes in output row oy_h, then in the next. */
          int64_t ki_lo = d->kernel_h, ki_hi = 0;
          for (int h = 0; h < 2; ++h) {
            const int64_t p = oy * ow + ox0 + 16 * h;
            const int64_t live = count - 16 * h < 0    ? 0
                                 : count - 16 * h > 16 ? 16
                                                       : count - 16 * h;
            const int64_t yh = p / ow, xh = p % ow;
            const int64_t in_first = ow - xh < live ? ow - xh : live;
            for (int part = 0; part < 2; ++part) {
              const int k4 = 2 * h + part;
              /* Lanes [a, b) in output row y, lane u at column base + u. */
              const int64_t a = part ? in_first : 0, b = part ? live : in_first;
              const int64_t y = yh + part;
              const int64_t base =
                  (part ? -in_first : xh) * d->stride_w - d->pad_left;
              const int64_t y0 = y * d->stride_h - d->pad_top;
              if (a < b) {
                inside_rows(d, y0, &t.seg_lo[k4], &t.seg_hi[k4]);
                if (t.seg_lo[k4] < ki_lo)
                  ki_lo = t.seg_lo[k4];
                if (t.seg_hi[k4] > ki_hi)
                  ki_hi = t.seg_hi[k4];
              } else {
                t.seg_lo[k4] = t.seg_hi[k4] = 0;
              }
              t.seg_input[k4] =
                  at_column(channels, y0 * d->row_stride + base);
              for (int64_t kj = 0; kj < d->kernel_w; ++kj) {
                int64_t at = base + kj * d->dilation_w;
                fresh[4 * kj + k4] = (__mmask16)(
                    lane_range(a, b) & lane_range(-at, d->in_w - at));
              }
            }
          }
          t.ki_lo = ki_lo;
          t.ki_hi = ki_hi < ki_lo ? ki_lo : ki_hi;
          t.load = fresh;
          fns = row_tiles;
        }
        /* Equal tiles of at most MAX_R filters over [f, pend). */
        for (int64_t q = 0; q < rtiles; ++q) {
          const int64_t a = f + left * q / rtiles,
                        b = f + left * (q + 1) / rtiles;
          tile_args u = t;
          u.weights = pweights + (a - pfirst);
          u.out = t.out + a * d->out_channel_stride;
          u.bias = bias && first ? bias + a : NULL;
          u.residual = d->residual && last ? d->residual + (u.out - d->out)
                                           : NULL;
          fns[b - a](&u);
        }
      }
      f = pend;
    }
  }
}
