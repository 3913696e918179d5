/* agl_kernel_maxpool2d: max pooling of NCHW images, the planes (image,
 * channel) split over the pool. Each window is clipped to the image rather
 * than read from a padded copy: positions in the padding would be -inf,
 * which never wins a max, so skipping them gives the same result without
 * the copy. An output row is computed at a time, its maxima kept in
 * registers across the window's taps (vectors of 16 outputs where the CPU
 * has AVX-512, of 8 where it has AVX2). */
#include "kernels_internal.h"

#include <math.h>

typedef agl_pool_geometry pool_geometry;

/* The max as arith.maximumf computes it: NaN if either is NaN. */
static inline float max_or_nan(float a, float b) {
  if (a != a || b != b)
    return a + b;
  return a > b ? a : b;
}

void agl_maxpool_row_portable(const agl_pool_geometry *g, const float *plane,
                              int64_t oy, float *out) {
  for (int64_t ox = 0; ox < g->out_w; ++ox) {
    float acc = -INFINITY;
    for (int64_t ki = 0; ki < g->kernel_h; ++ki) {
      int64_t iy = oy * g->stride_h + ki * g->dilation_h - g->pad_top;
      if (iy < 0 || iy >= g->in_h)
        continue;
      const float *row = plane + iy * g->in_row_stride;
      for (int64_t kj = 0; kj < g->kernel_w; ++kj) {
        int64_t ix = ox * g->stride_w + kj * g->dilation_w - g->pad_left;
        if (ix >= 0 && ix < g->in_w)
          acc = max_or_nan(acc, row[ix]);
      }
    }
    out[ox] = acc;
  }
}

int64_t agl_pool_row_buffer(const agl_pool_geometry *g, float *buffer,
                            int64_t capacity, int64_t slack, int64_t *first,
                            int64_t *last) {
  const int64_t columns =
      (g->out_w - 1) * g->stride_w + (g->kernel_w - 1) * g->dilation_w + 1;
  if ((g->stride_w != 1 && g->stride_w != 2) || columns > capacity)
    return 0;
  *first = g->pad_left < columns ? g->pad_left : columns;
  *last = g->pad_left + g->in_w < columns ? g->pad_left + g->in_w : columns;
  if (*last < *first)
    *last = *first;
  for (int64_t b = 0; b < *first; ++b)
    buffer[b] = -INFINITY;
  for (int64_t b = *last; b < columns + slack; ++b)
    buffer[b] = -INFINITY;
  return columns;
}

static const float *input_plane(const pool_geometry *g, int64_t plane) {
  return g->input + plane / g->channels * g->in_batch_stride +
         plane % g->channels * g->in_channel_stride;
}

/* Output rows ahead of the one being computed whose input rows are
 * prefetched. The input is usually the previous kernel's output, evicted to
 * the L3 or still in another core's L2, and the hardware prefetchers did
 * not fetch it in time: measured on Zen 5 (resnet224's pooling in the
 * whole model, one thread), 230-270 us without, 155 us with, about as fast
 * as with the input in cache (145-150); 2 rows ahead 175 us, 8 no better
 * than 4. */
enum { PREFETCH_ROWS_AHEAD = 4 };

/* Prefetches the input rows of output row oy of a plane. Inlined: GCC
 * takes a function of nothing but prefetches for a pure one and drops its
 * calls. */
static inline __attribute__((always_inline)) void
prefetch_window_rows(const pool_geometry *g, const float *plane, int64_t oy) {
  for (int64_t ki = 0; ki < g->kernel_h; ++ki) {
    int64_t iy = oy * g->stride_h + ki * g->dilation_h - g->pad_top;
    if (iy < 0 || iy >= g->in_h)
      continue;
    const char *row = (const char *)(plane + iy * g->in_row_stride);
    for (int64_t byte = 0; byte < g->in_w * (int64_t)sizeof(float); byte += 64)
      __builtin_prefetch(row + byte, 0, 3);
  }
}

static void pool_planes(void *ctx, int64_t begin, int64_t end) {
  const pool_geometry *g = ctx;
  for (int64_t plane = begin; plane < end; ++plane) {
    const float *in = input_plane(g, plane);
    float *out = g->out + plane / g->channels * g->out_batch_stride +
                 plane % g->channels * g->out_channel_stride;
    for (int64_t oy = 0; oy < g->out_h; ++oy) {
      /* The row that far ahead, in the next plane near the end of this
       * one. */
      int64_t ahead = oy + PREFETCH_ROWS_AHEAD;
      if (ahead < g->out_h)
        prefetch_window_rows(g, in, ahead);
      else if (plane + 1 < end && ahead - g->out_h < g->out_h)
        prefetch_window_rows(g, input_plane(g, plane + 1), ahead - g->out_h);
      g->pool_row(g, in, oy, out + oy * g->out_row_stride);
    }
  }
}

void agl_kernel_maxpool2d(int64_t batch, int64_t channels, int64_t in_h,
                          int64_t in_w, const float *input,
                          int64_t in_batch_stride, int64_t in_channel_stride,
                          int64_t in_row_stride, int64_t kernel_h,
                          int64_t kernel_w, int64_t stride_h,
                          int64_t stride_w, int64_t dilation_h,
                          int64_t dilation_w, int64_t pad_top,
                          int64_t pad_left, float *out, int64_t out_h,
                          int64_t out_w, int64_t out_batch_stride,
                          int64_t out_channel_stride,
                          int64_t out_row_stride) {
  pool_geometry g = {
      .input = input,
      .in_batch_stride = in_batch_stride,
      .in_channel_stride = in_channel_stride,
      .in_row_stride = in_row_stride,
      .channels = channels,
      .in_h = in_h,
      .in_w = in_w,
      .kernel_h = kernel_h,
      .kernel_w = kernel_w,
      .stride_h = stride_h,
      .stride_w = stride_w,
      .dilation_h = dilation_h,
      .dilation_w = dilation_w,
      .pad_top = pad_top,
      .pad_left = pad_left,
      .out = out,
      .out_h = out_h,
      .out_w = out_w,
      .out_batch_stride = out_batch_stride,
      .out_channel_stride = out_channel_stride,
      .out_row_stride = out_row_stride,
      .pool_row = agl_maxpool_row_portable,
  };
#if defined(AGL_HAVE_AVX512_KERNELS)
  if (agl_gemm_current() == &agl_gemm_avx512)
    g.pool_row = agl_maxpool_row_avx512;
#endif
#if defined(AGL_HAVE_AVX2_KERNELS)
  if (agl_gemm_current() == &agl_gemm_avx2)
    g.pool_row = agl_maxpool_row_avx2;
#endif
  int64_t planes = batch * channels;
  if (planes <= 0 || out_h <= 0 || out_w <= 0)
    return;
  /* Chunks of at least about 32768 window taps, as the generated loops. */
  int64_t taps = out_h * out_w * kernel_h * kernel_w;
  int64_t grain = taps >= 32768 ? 1 : (32768 + taps - 1) / (taps > 0 ? taps : 1);
  agl_parallel_for(planes, grain, pool_planes, &g);
}
