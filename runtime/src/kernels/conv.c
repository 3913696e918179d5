/* agl_kernel_conv2d: a convolution as an implicit GEMM on the packed-GEMM
 * driver (sgemm.c). Per image and group,
 *   out[position, f] = sum_depth window[position, depth] * W[depth, f]
 * with the windows as A and the weights as B, packed ahead of time in the
 * micro-kernel's 32-wide panels: the micro-kernel's wide dimension runs
 * over filters, whose counts are multiples of 32 in most networks, and its
 * 14 rows over output positions, where 14 divides the common map widths
 * (56, 28, 14, 7 pairs); positions x filters tiles are transposed into
 * NCHW as they are stored. Instead of an im2col copy, the driver asks for
 * each block of A's panels and pack_windows writes it straight from the
 * input, zeros where a window reaches into the padding. Bias and activation
 * are the micro-kernel's epilogue. choose_way may instead run one of the
 * direct kernels (conv_bcast_avx512.c, conv_direct_avx512.c with AVX-512,
 * conv_bcast_avx2.c with AVX2), which pack no windows. */
#include "kernels_internal.h"

#include <stdatomic.h>
#include <string.h>

typedef agl_conv_geometry conv_geometry;

static _Atomic int g_conv_which;
static _Atomic uint64_t g_conv_calls;

int agl_conv_select(int which) {
  return atomic_exchange(&g_conv_which, which);
}

/* ---- direct path ---------------------------------------------------------- */

#if defined(AGL_HAVE_AVX2_KERNELS)
enum { WAY_GEMM = 0, WAY_ROWS = 1, WAY_BCAST = 2 };

/* How agl_kernel_conv2d computes this convolution: WAY_GEMM (the implicit
 * GEMM below), WAY_ROWS (agl_conv_direct_rows_avx512: positions along the
 * vectors) or WAY_BCAST (agl_conv_bcast_rows_*: filters along the vectors,
 * as in the GEMM's tile, input elements broadcast in place). */
static int choose_way(const agl_conv_direct *d) {
  int which = atomic_load_explicit(&g_conv_which, memory_order_relaxed);
  const agl_gemm_isa *isa = agl_gemm_current();
  const int bcast_fits =
      agl_conv_bcast_floats(d, 1) <= (int64_t)AGL_SCRATCH_FLOATS;
  if (which == 1)
    return WAY_GEMM;
  if (isa == &agl_gemm_avx2) {
    if (which == 3 || which == 2)
      return bcast_fits ? WAY_BCAST : WAY_GEMM;
    /* Measured with bench/conv_kernel_bench.c (Zen 2, 1 and 2 threads):
     * with a kernel larger than 1x1 the broadcasting kernel is 1.3-3x as
     * fast as the implicit GEMM, which packs the windows, except on the
     * smallest maps with the most filters (resnet224's 7x7 x 512 stage),
     * where the packing is shared by many filters and the GEMM reads the
     * weights once: the broadcasting kernel rereads all of them (9.4 MB)
     * for each tile of 6 positions. (The kernel benchmark, which keeps
     * them cached, has it ahead at 2 threads; in the whole resnet224 it
     * was 5-10% slower at 1.) 1x1 convolutions read each input
     * element once per filter panel anyway; the GEMM is 1.5x as fast. */
    if (bcast_fits && d->kernel_h * d->kernel_w > 1 &&
        (d->out_h * d->out_w > 64 || d->out_channels < 512))
      return WAY_BCAST;
    return WAY_GEMM;
  }
  if (isa != &agl_gemm_avx512 || !agl_conv_direct_supported_avx512(d))
    return WAY_GEMM;
  if (which == 2)
    return WAY_ROWS;
  if (which == 3)
    return WAY_BCAST;
  /* Measured with bench/conv_kernel_bench.c (Zen 4): the broadcasting
   * kernel is 5-25% faster than the implicit GEMM on every convolution
   * with a kernel larger than 1x1 (resnet224's 3x3 ones and its 7x7/2
   * stem included): the same 14 x 32 tile, without the packing of the
   * windows. But it reads all of a group's weights again for each tile of
   * positions: where they exceed the L2, the GEMM, which reads each weight
   * once per block of rows, wins. Measured in resnet224 on Zen 5 (1 MiB L2,
   * per-kernel profiles at 1 and 2 threads): the 7x7 stage (4.7 and 9.4 MB
   * of weights) 2x as fast on the GEMM, the 3x3/2 256-filter one (1.2 MB)
   * 10-35%, while with 0.3 MB the broadcasting kernel stays 10-20% ahead.
   * What matters is whether a panel's weights stay in the L2 while the
   * tiles of positions pass: with all of the input's rows copied beside
   * them in half the L2, they do, as measured in resnet224's 7x7 stage on
   * a Sapphire Rapids class Xeon (2 MiB L2, per-kernel profiles at 1 and 2
   * threads): 10-16% faster than the GEMM, which packs the 49 positions'
   * windows for 12- and 13-row tiles. (On Zen 5 the same stage's panel and
   * copy take over half its L2.) 1x1 convolutions read each input element
   * once per filter panel anyway; there copying the rows costs more than
   * it saves. */
  const int64_t depth_bytes =
      d->in_channels * d->kernel_h * d->kernel_w * (int64_t)sizeof(float);
  const int64_t group_weight_bytes = d->out_channels * depth_bytes;
  const int64_t panel_and_copy_bytes =
      AGL_CONV_PACKED_NR * depth_bytes +
      agl_conv_bcast_floats(d, d->out_h) * (int64_t)sizeof(float);
  if (d->kernel_h * d->kernel_w > 1 && bcast_fits &&
      (group_weight_bytes <= agl_l2_bytes() ||
       2 * panel_and_copy_bytes <= agl_l2_bytes()))
    return WAY_BCAST;
  /* Else the rows kernel where it is 5-30% faster than the GEMM: few
   * filters (the GEMM then uses each packed window for one 32-filter panel
   * only) on rows at least a vector wide. */
  if (d->out_w >= 16 && d->stride_w == 1 &&
      (d->out_channels <= AGL_CONV_PACKED_NR ||
       (d->out_channels <= 2 * AGL_CONV_PACKED_NR && d->out_w % 32 == 0)))
    return WAY_ROWS;
  return WAY_GEMM;
}

/* Tasks: (image, group, block of output rows, chunk of filters). */
typedef struct direct_grid {
  const agl_conv_direct *d;
  int64_t groups, row_blocks, rows, chunks, chunk;
  int bcast, avx2;
} direct_grid;

static void direct_tasks(void *raw, int64_t begin, int64_t end) {
  const direct_grid *grid = raw;
  const agl_conv_direct *d = grid->d;
  for (int64_t t = begin; t < end; ++t) {
    int64_t fc = t % grid->chunks, r = t / grid->chunks;
    int64_t rb = r % grid->row_blocks, ng = r / grid->row_blocks;
    int64_t f0 = fc * grid->chunk, f1 = f0 + grid->chunk;
    if (f1 > d->out_channels)
      f1 = d->out_channels;
    int64_t oy0 = rb * grid->rows, oy1 = oy0 + grid->rows;
    if (oy1 > d->out_h)
      oy1 = d->out_h;
    const int64_t n = ng / grid->groups, g = ng % grid->groups;
    /* run_direct sized the rows to fit the packing memory, which the AVX2
     * kernel needs: it has no other way. */
    if (grid->avx2) {
      agl_conv_bcast_rows_avx2(d, n, g, oy0, oy1, f0, f1);
      continue;
    }
    if (grid->bcast && agl_conv_bcast_rows_avx512(d, n, g, oy0, oy1, f0, f1))
      continue;
    agl_conv_direct_rows_avx512(d, n, g, oy0, oy1, f0, f1);
  }
}

/* Returns 0, computing nothing, where the packing memory is missing (no
 * thread pool) and the way needs it. */
static int run_direct(const agl_conv_direct *d, int64_t batch, int64_t groups,
                      int way) {
  int threads = agl_pool_acquire();
  if (way == WAY_BCAST && !agl_pool_scratch()) {
    if (threads > 0)
      agl_pool_release();
    return 0;
  }
  int tasks_wanted = threads > 1 ? 4 * threads : 1;
  const int64_t planes = batch * groups;
  /* Splitting the output rows into r blocks makes each block read all of
   * the weights; splitting the filters into c chunks makes each chunk read
   * (copy) all of the input. The split that reads the fewest floats, r W +
   * c I, with at least the tasks wanted: the deep layers of a CNN (small
   * maps, many channels) split their filters, the early ones their rows. */
  const int64_t panels = agl_ceil_div(d->out_channels, AGL_CONV_PACKED_NR);
  const int64_t weights = d->out_channels * d->in_channels * d->kernel_h *
                          d->kernel_w,
                inputs = d->in_channels * d->in_h * d->in_w;
  int64_t chunks = 1, blocks = 1, best = -1;
  const int64_t per_plane = agl_ceil_div(tasks_wanted, planes);
  for (int64_t c = 1; c <= per_plane && c <= panels; ++c) {
    int64_t r = agl_ceil_div(per_plane, c);
    if (r > d->out_h)
      r = d->out_h;
    int64_t cost = r * weights + c * inputs;
    if (best < 0 || cost < best) {
      best = cost;
      chunks = c;
      blocks = r;
    }
  }
  const int64_t chunk = agl_ceil_div(panels, chunks) * AGL_CONV_PACKED_NR;
  chunks = agl_ceil_div(d->out_channels, chunk);
  /* At most about 512 output positions per task: its output stays in the
   * L2 while the blocks of depths pass. */
  int64_t rows = agl_ceil_div(d->out_h, blocks);
  if (rows > agl_ceil_div(512, d->out_w))
    rows = agl_ceil_div(512, d->out_w);
  /* The broadcasting kernel's copy of the input rows must fit the packing
   * memory. */
  while (way == WAY_BCAST && rows > 1 &&
         agl_conv_bcast_floats(d, rows) > (int64_t)AGL_SCRATCH_FLOATS)
    rows = (rows + 1) / 2;
  if (rows < 1)
    rows = 1;
  /* The tasks are claimed one by one; the run lasts as long as the thread
   * with the most rows. Of the block heights down to half the chosen one,
   * the one that spreads the rows most evenly (23 blocks of 5 rows on 2
   * threads leave one thread a block behind; 28 of 4 do not). */
  if (threads > 1) {
    const int64_t other = planes * chunks;
    double best_share = 0.0;
    int64_t best_rows = rows;
    for (int64_t r = rows; r >= 1 && 2 * r >= rows; --r) {
      int64_t tasks = other * agl_ceil_div(d->out_h, r);
      double share = (double)(other * d->out_h) /
                     (double)(threads * agl_ceil_div(tasks, threads) * r);
      if (share > best_share + 1e-9) {
        best_share = share;
        best_rows = r;
      }
    }
    rows = best_rows;
  }
  direct_grid grid = {d,
                      groups,
                      agl_ceil_div(d->out_h, rows),
                      rows,
                      chunks,
                      chunk,
                      way == WAY_BCAST,
                      agl_gemm_current() == &agl_gemm_avx2};
  /* Still few tasks: split the filters further. */
  int64_t row_tasks = planes * grid.row_blocks;
  if (row_tasks * grid.chunks < tasks_wanted && grid.chunks < panels) {
    int64_t want = agl_ceil_div(tasks_wanted, row_tasks);
    if (want > panels)
      want = panels;
    grid.chunk = agl_ceil_div(panels, want) * AGL_CONV_PACKED_NR;
    grid.chunks = agl_ceil_div(d->out_channels, grid.chunk);
  }
  int64_t tasks = row_tasks * grid.chunks;
  if (threads > 1 && tasks > 1)
    agl_pool_run(tasks, tasks, direct_tasks, &grid);
  else
    direct_tasks(&grid, 0, tasks);
  if (threads > 0)
    agl_pool_release();
  return 1;
}
#endif

/* ---- implicit GEMM -------------------------------------------------------- */

/* dst[t] = row[x0 + t * step] for t < count, zero where that column is
 * outside [0, width) or the row is null (outside the image). */
/* memcpy for the short runs of a panel (a micro-tile's rows, 4 to 14
 * floats): fixed-size pieces the compiler inlines, where a call to the
 * library's memcpy would cost more than the copy. */
static inline void copy_floats(float *out, const float *src, int64_t n) {
  for (; n >= 4; n -= 4, out += 4, src += 4)
    memcpy(out, src, 4 * sizeof(float));
  if (n >= 2) {
    memcpy(out, src, 2 * sizeof(float));
    out += 2;
    src += 2;
    n -= 2;
  }
  if (n)
    *out = *src;
}

static void window_run(float *dst, int64_t count, const float *row,
                       int64_t x0, int64_t step, int64_t width) {
  if (!row) {
    memset(dst, 0, (size_t)count * sizeof(float));
    return;
  }
  /* The columns inside the row: t in [lo, hi). */
  int64_t lo, hi;
  if (step == 1) { /* most convolutions: no division */
    lo = x0 >= 0 ? 0 : -x0;
    hi = x0 >= width ? 0 : width - x0;
  } else {
    lo = x0 >= 0 ? 0 : (-x0 + step - 1) / step;
    hi = x0 >= width ? 0 : (width - x0 + step - 1) / step;
  }
  if (lo > count)
    lo = count;
  if (hi > count)
    hi = count;
  if (hi < lo)
    hi = lo;
  int64_t t = 0;
  for (; t < lo; ++t)
    dst[t] = 0.0f;
  const float *src = row + x0 + lo * step; /* column of t = lo */
  float *out = dst + lo;
  int64_t live = hi - lo;
  if (step == 1) {
    copy_floats(out, src, live);
  } else if (step == 2) {
    for (int64_t u = 0; u < live; ++u)
      out[u] = src[2 * u];
  } else {
    for (int64_t u = 0; u < live; ++u)
      out[u] = src[u * step];
  }
  for (t = hi; t < count; ++t)
    dst[t] = 0.0f;
}

/* agl_pack_a_block_fn for the windows of one image: A's row is an output
 * position (oy, ox), its column `depth` (channel, ki, kj). One depth at a
 * time, output row by output row, so the input is read along its rows. */
static void pack_windows(const void *ctx, int64_t group, int64_t ic,
                         int64_t mc, int64_t pc, int64_t kc, int mr,
                         float *dst) {
  const conv_geometry *cg = ctx;
#if defined(AGL_HAVE_AVX512_KERNELS)
  if (cg->vector_pack && mr <= 32) {
    agl_pack_windows_avx512(cg, group, ic, mc, pc, kc, mr, dst);
    return;
  }
#endif
  const float *input = cg->input + group * cg->group_stride;
  const int64_t taps = cg->kernel_h * cg->kernel_w;
  int64_t channel = pc / taps, ki = pc % taps / cg->kernel_w,
          kj = pc % cg->kernel_w;
  const int64_t panel_floats = kc * mr;
  const int64_t ic0_y = ic / cg->out_w, ic0_x = ic % cg->out_w;
  for (int64_t p = 0; p < kc; ++p) {
    const float *plane = input + channel * cg->channel_stride;
    const int64_t dy = ki * cg->dilation_h - cg->pad_top;
    const int64_t x_off = kj * cg->dilation_w - cg->pad_left;
    int64_t oy = ic0_y, ox = ic0_x;
    /* Position t of the block is lane t % mr of panel t / mr. */
    float *panel = dst + p * mr;
    int64_t lane = 0;
    for (int64_t t = 0; t < mc;) {
      /* One output row's run, split where it crosses a panel. */
      int64_t run = cg->out_w - ox;
      if (run > mc - t)
        run = mc - t;
      if (run > mr - lane)
        run = mr - lane;
      int64_t iy = oy * cg->stride_h + dy;
      const float *row =
          iy >= 0 && iy < cg->in_h ? plane + iy * cg->row_stride : NULL;
      window_run(panel + lane, run, row, ox * cg->stride_w + x_off,
                 cg->stride_w, cg->in_w);
      t += run;
      ox += run;
      if (ox == cg->out_w) {
        ox = 0;
        ++oy;
      }
      lane += run;
      if (lane == mr) {
        lane = 0;
        panel += panel_floats;
      }
    }
    /* Rows past mc in the last panel. */
    if (mc % mr)
      memset(dst + mc / mr * panel_floats + p * mr + mc % mr, 0,
             (size_t)(mr - mc % mr) * sizeof(float));
    if (++kj == cg->kernel_w) {
      kj = 0;
      if (++ki == cg->kernel_h) {
        ki = 0;
        ++channel;
      }
    }
  }
}

void agl_kernel_conv2d(int64_t batch, int64_t groups, int64_t in_channels,
                       int64_t in_h, int64_t in_w, const float *input,
                       int64_t in_batch_stride, int64_t in_channel_stride,
                       int64_t in_row_stride, int64_t out_channels,
                       int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                       int64_t stride_w, int64_t dilation_h,
                       int64_t dilation_w, int64_t pad_top, int64_t pad_left,
                       const float *packed_weights, const float *bias,
                       float *out, int64_t out_h, int64_t out_w,
                       int64_t out_batch_stride, int64_t out_channel_stride,
                       int32_t accumulate, int32_t activation,
                       const float *residual,
                       const agl_gemm_blocking *blocking) {
  const int64_t depth = in_channels * kernel_h * kernel_w;
#if defined(AGL_HAVE_AVX2_KERNELS)
  if (batch > 0 && groups > 0 && out_channels > 0 && out_h > 0 &&
      out_w > 0 && in_channels > 0) {
    const agl_conv_direct direct = {
        .input = input,
        .in_batch_stride = in_batch_stride,
        .group_stride = in_channels * in_channel_stride,
        .channel_stride = in_channel_stride,
        .row_stride = in_row_stride,
        .in_channels = in_channels,
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
        .weights = packed_weights,
        .bias = bias,
        .out_channels = out_channels,
        .out = out,
        .out_h = out_h,
        .out_w = out_w,
        .out_batch_stride = out_batch_stride,
        .out_channel_stride = out_channel_stride,
        .accumulate = accumulate != 0,
        .act = agl_known_activation(activation),
        .residual = residual,
        .call = atomic_fetch_add_explicit(&g_conv_calls, 1,
                                          memory_order_relaxed) +
                1,
    };
    const int way = choose_way(&direct);
    if (way != WAY_GEMM && run_direct(&direct, batch, groups, way))
      return;
  }
#endif
  conv_geometry geometry = {
      .group_stride = in_channels * in_channel_stride,
      .channel_stride = in_channel_stride,
      .row_stride = in_row_stride,
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
      .out_w = out_w,
  };
#if defined(AGL_HAVE_AVX512_KERNELS)
  geometry.vector_pack = agl_gemm_current() == &agl_gemm_avx512 &&
                         (stride_w == 1 || stride_w == 2);
#endif
  /* One product per image, its batch being the groups. */
  for (int64_t n = 0; n < batch; ++n) {
    geometry.input = input + n * in_batch_stride;
    agl_gemm_args g = {
        .batch = groups,
        .m = out_h * out_w,
        .n = out_channels,
        .k = depth,
        .pack_a_block = pack_windows,
        .pack_a_ctx = &geometry,
        .packed_b = packed_weights,
        .packed_b_exact = 1,
        .b_bs = out_channels * depth,
        .c = out + n * out_batch_stride,
        .c_bs = out_channels * out_channel_stride,
        .c_rs = out_channel_stride,
        .c_transposed = 1,
        .alpha = 1.0f,
        .bias = bias,
        .bias_bs = out_channels,
        .accumulate = accumulate != 0,
        .act = activation,
        .residual = residual ? residual + n * out_batch_stride : NULL,
        .res_bs = out_channels * out_channel_stride,
        .res_rs = out_channel_stride,
        .residual_first = 1,
        .blocking = blocking,
    };
    agl_gemm(&g);
  }
}
