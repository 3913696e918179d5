/* Packing a convolution's windows into the AVX-512 micro-kernel's B panels
 * (32 output positions wide) with vector loads. This file is compiled with
 * AVX-512 enabled; conv.c calls it only when the CPU has it.
 *
 * A panel's 32 positions fall into a few runs along output rows (a run
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
static inline void load_run_contiguous(__m512 v[2], const run *r,
                                       const float *row, int64_t x0,
                                       int64_t width) {
  int64_t shift = x0 - r->lane; /* column of lane 0 */
  uint32_t lanes = lane_range(r->lane, r->lane + r->count) &
                   lane_range(-shift, width - shift);
  for (int h = 0; h < 2; ++h) {
    /* Unconditional: an empty mask loads nothing, and a branch on it
     * would mispredict. */
    __mmask16 m = (__mmask16)(lanes >> (16 * h));
    v[h] = _mm512_mask_loadu_ps(v[h], m, at_column(row, shift + 16 * h));
  }
}

/* Stride 2: lane t reads column x0 + 2 (t - lane). */
static inline void load_run_even(__m512 v[2], const run *r, const float *row,
                                 int64_t x0, int64_t width) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14,
                                        12, 10, 8, 6, 4, 2, 0);
  uint32_t lanes = lane_range(r->lane, r->lane + r->count);
  for (int h = 0; h < 2; ++h) {
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

void agl_pack_windows_avx512(const agl_conv_geometry *g, int64_t group,
                             int64_t pc, int64_t kc, int64_t jc, int64_t nc,
                             float *dst) {
  const float *input = g->input + group * g->group_stride;
  const int64_t taps = g->kernel_h * g->kernel_w;
  const int contiguous = g->stride_w == 1;
  run runs[MAX_RUNS];
  for (int64_t q = 0; q * NR < nc; ++q) {
    /* The panel's runs along output rows. */
    int live = nc - q * NR < NR ? (int)(nc - q * NR) : NR;
    int nruns = 0;
    int64_t position = jc + q * NR;
    for (int lane = 0; lane < live;) {
      int64_t oy = position / g->out_w, ox = position % g->out_w;
      int count = live - lane;
      if (count > g->out_w - ox)
        count = (int)(g->out_w - ox);
      runs[nruns++] = (run){lane, count, oy, ox * g->stride_w - g->pad_left};
      lane += count;
      position += count;
    }
    float *panel = dst + q * kc * NR;
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
          load_run_contiguous(v, &runs[r], row, runs[r].column0 + dx,
                              g->in_w);
        else
          load_run_even(v, &runs[r], row, runs[r].column0 + dx, g->in_w);
      }
      _mm512_storeu_ps(panel + p * NR, v[0]);
      _mm512_storeu_ps(panel + p * NR + 16, v[1]);
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
