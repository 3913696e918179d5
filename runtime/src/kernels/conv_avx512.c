/* Packing a convolution's windows into the AVX-512 micro-kernel's A panels
 * (14 output positions; any width up to 32) with vector loads. This file is
 * compiled with AVX-512 enabled; conv.c calls it only when the CPU has it.
 *
 * A panel's positions fall into a few runs along output rows (a run
 * ends where a row ends). For each depth (channel, ki, kj) every run is one
 * or two masked loads of an input row: lanes whose input column lies in the
 * left or right padding are masked off and stay zero, and so do runs whose
 * input row lies in the top or bottom padding. With a column stride of 2,
 * each 16 lanes are the even elements of two loads of 16. */
#include "kernels_internal.h"

#include <immintrin.h>
#include <stdint.h>

enum { NR = 32, MAX_RUNS = NR };

typedef struct run {
  int lane, count;     /* lanes [lane, lane + count) of the panel */
  int64_t oy, column0; /* output row; input column of the run's first lane
                          before the kernel offset kj * dilation_w */
} run;

/* Lanes [lo, hi) of a 32-lane mask (empty when hi <= lo). */
static inline uint32_t lane_range(int64_t lo, int64_t hi) {
  if (lo < 0)
    lo = 0;
  if (hi > NR)
    hi = NR;
  if (hi <= lo)
    return 0;
  uint64_t bits = ((uint64_t)1 << hi) - ((uint64_t)1 << lo);
  return (uint32_t)bits;
}

/* The address of `row[column]`; `column` may lie outside the row when every
 * lane that reaches there is masked off. */
static inline const float *at_column(const float *row, int64_t column) {
  return (const float *)((uintptr_t)row + (uintptr_t)(column * 4));
}

/* Stride 1: lane t reads column x0 + (t - lane). */
static inline void load_run_contiguous(__m512 v[2], int halves,
                                       const run *r, const float *row,
                                       int64_t x0, int64_t width) {
  int64_t shift = x0 - r->lane; /* column of lane 0 */
  uint32_t lanes = lane_range(r->lane, r->lane + r->count) &
                   lane_range(-shift, width - shift);
  for (int h = 0; h < halves; ++h) {
    /* Unconditional: an empty mask loads nothing, and a branch on it
     * would mispredict. */
    __mmask16 m = (__mmask16)(lanes >> (16 * h));
    v[h] = _mm512_mask_loadu_ps(v[h], m, at_column(row, shift + 16 * h));
  }
}

/* Stride 2: lane t reads column x0 + 2 (t - lane). */
static inline void load_run_even(__m512 v[2], int halves, const run *r,
                                 const float *row, int64_t x0,
                                 int64_t width) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  uint32_t lanes = lane_range(r->lane, r->lane + r->count);
  for (int h = 0; h < halves; ++h) {
    __mmask16 m = (__mmask16)(lanes >> (16 * h));
    /* Columns of the 32 elements under lanes 16h .. 16h + 15. */
    int64_t first = x0 + 2 * (16 * h - r->lane);
    uint32_t inside = lane_range(-first, width - first);
    __m512 lo = _mm512_maskz_loadu_ps((__mmask16)inside, at_column(row, first));
    __m512 hi = _mm512_maskz_loadu_ps((__mmask16)(inside >> 16),
                                      at_column(row, first + 16));
    v[h] = _mm512_mask_mov_ps(v[h], m, _mm512_permutex2var_ps(lo, even, hi));
  }
}

/* How one kernel column kj loads a panel that lies within one output row:
 * the same masks and input column for every channel and kernel row. */
typedef struct column_load {
  int64_t first;      /* input column of lane 0 (before dilation offsets) */
  __mmask16 load[4];  /* stride 1: halves 0, 1; stride 2: lo/hi loads of
                         halves 0 and 1 */
  __mmask16 keep[2];  /* stride 2: the panel's lanes of each half */
} column_load;

enum { MAX_FAST_KW = 16 };

/* The common case, a panel inside one output row (every panel when the
 * panel height divides the output width): per depth, one row pointer and
 * one or two masked loads, with the masks computed once per kj. */
static void pack_one_run(const agl_conv_geometry *g, const float *input,
                         const run *r, int64_t pc, int64_t kc, int mr,
                         int halves, __mmask16 store0, __mmask16 store1,
                         float *panel) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  const int contiguous = g->stride_w == 1;
  column_load cols[MAX_FAST_KW];
  for (int64_t kj = 0; kj < g->kernel_w; ++kj) {
    column_load *c = &cols[kj];
    c->first = r->column0 + kj * g->dilation_w;
    uint32_t used = lane_range(0, r->count);
    if (contiguous) {
      uint32_t lanes = used & lane_range(-c->first, g->in_w - c->first);
      c->load[0] = (__mmask16)lanes;
      c->load[1] = (__mmask16)(lanes >> 16);
    } else {
      for (int h = 0; h < 2; ++h) {
        int64_t at = c->first + 32 * h;
        uint32_t inside = lane_range(-at, g->in_w - at);
        c->load[2 * h] = (__mmask16)inside;
        c->load[2 * h + 1] = (__mmask16)(inside >> 16);
        c->keep[h] = (__mmask16)(used >> (16 * h));
      }
    }
  }
  const int64_t taps = g->kernel_h * g->kernel_w;
  int64_t channel = pc / taps, ki = pc % taps / g->kernel_w,
          kj = pc % g->kernel_w;
  const float *row = NULL;
  for (int64_t p = 0; p < kc; ++p) {
    if (p == 0 || kj == 0) {
      int64_t iy = r->oy * g->stride_h + ki * g->dilation_h - g->pad_top;
      row = iy >= 0 && iy < g->in_h
                ? input + channel * g->channel_stride + iy * g->row_stride
                : NULL;
    }
    __m512 v0 = _mm512_setzero_ps(), v1 = _mm512_setzero_ps();
    if (row) {
      const column_load *c = &cols[kj];
      if (contiguous) {
        v0 = _mm512_maskz_loadu_ps(c->load[0], at_column(row, c->first));
        if (halves > 1)
          v1 = _mm512_maskz_loadu_ps(c->load[1],
                                     at_column(row, c->first + 16));
      } else {
        __m512 lo = _mm512_maskz_loadu_ps(c->load[0], at_column(row, c->first));
        __m512 hi =
            _mm512_maskz_loadu_ps(c->load[1], at_column(row, c->first + 16));
        v0 = _mm512_maskz_permutex2var_ps(c->keep[0], lo, even, hi);
        if (halves > 1) {
          lo = _mm512_maskz_loadu_ps(c->load[2], at_column(row, c->first + 32));
          hi = _mm512_maskz_loadu_ps(c->load[3], at_column(row, c->first + 48));
          v1 = _mm512_maskz_permutex2var_ps(c->keep[1], lo, even, hi);
        }
      }
    }
    _mm512_mask_storeu_ps(panel + p * mr, store0, v0);
    if (halves > 1)
      _mm512_mask_storeu_ps(panel + p * mr + 16, store1, v1);
    if (++kj == g->kernel_w) {
      kj = 0;
      if (++ki == g->kernel_h) {
        ki = 0;
        ++channel;
      }
    }
  }
}

void agl_pack_windows_avx512(const agl_conv_geometry *g, int64_t group,
                             int64_t ic, int64_t mc, int64_t pc, int64_t kc,
                             int mr, float *dst) {
  const float *input = g->input + group * g->group_stride;
  const int64_t taps = g->kernel_h * g->kernel_w;
  const int contiguous = g->stride_w == 1;
  const int halves = mr > 16 ? 2 : 1;
  const __mmask16 store0 = (__mmask16)lane_range(0, mr),
                  store1 = (__mmask16)(lane_range(0, mr) >> 16);
  run runs[MAX_RUNS];
  for (int64_t q = 0; q * mr < mc; ++q) {
    /* The panel's runs along output rows. */
    int live = mc - q * mr < mr ? (int)(mc - q * mr) : mr;
    int nruns = 0;
    int64_t position = ic + q * mr;
    for (int lane = 0; lane < live;) {
      int64_t oy = position / g->out_w, ox = position % g->out_w;
      int count = live - lane;
      if (count > g->out_w - ox)
        count = (int)(g->out_w - ox);
      runs[nruns++] = (run){lane, count, oy, ox * g->stride_w - g->pad_left};
      lane += count;
      position += count;
    }
    float *panel = dst + q * kc * mr;
    if (nruns == 1 && g->kernel_w <= MAX_FAST_KW) {
      pack_one_run(g, input, &runs[0], pc, kc, mr, halves, store0, store1,
                   panel);
      continue;
    }
    int64_t channel = pc / taps, ki = pc % taps / g->kernel_w,
            kj = pc % g->kernel_w;
    for (int64_t p = 0; p < kc; ++p) {
      const float *plane = input + channel * g->channel_stride;
      const int64_t dy = ki * g->dilation_h - g->pad_top;
      const int64_t dx = kj * g->dilation_w;
      __m512 v[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
      for (int r = 0; r < nruns; ++r) {
        int64_t iy = runs[r].oy * g->stride_h + dy;
        if (iy < 0 || iy >= g->in_h)
          continue;
        const float *row = plane + iy * g->row_stride;
        if (contiguous)
          load_run_contiguous(v, halves, &runs[r], row, runs[r].column0 + dx,
                              g->in_w);
        else
          load_run_even(v, halves, &runs[r], row, runs[r].column0 + dx,
                        g->in_w);
      }
      _mm512_mask_storeu_ps(panel + p * mr, store0, v[0]);
      if (halves > 1)
        _mm512_mask_storeu_ps(panel + p * mr + 16, store1, v[1]);
      if (++kj == g->kernel_w) {
        kj = 0;
        if (++ki == g->kernel_h) {
          ki = 0;
          ++channel;
        }
      }
    }
  }
}
