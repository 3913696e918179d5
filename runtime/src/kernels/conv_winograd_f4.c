/* agl_kernel_conv2d_winograd_f4: 3x3 convolutions by Winograd's F(4x4, 3x3)
 * (Lavin & Gray, interpolation points 0, +-1, +-2 and infinity), with
 *   B^T = [4  0 -5  0 1 0;  0 -4 -4  1 1 0;  0  4 -4 -1 1 0;
 *          0 -2 -1  2 1 0;  0  2 -1 -2 1 0;  0  4  0 -5 0 1],
 *   A^T = [1 1 1 1 1 0;  0 1 -1 2 -2 0;  0 1 1 4 4 0;  0 1 -1 8 -8 1]
 * and G as in agl_conv_winograd_f4_filters.
 *
 * Unlike F(2x2) (conv_winograd.c), which transforms the whole image, then
 * multiplies, then transforms back, the tiles go in blocks of up to 32
 * (agl_conv_winograd_f4_blocks): a block's transformed input (36 x channels
 * x 32 floats) and products (36 x filters x 32) stay in the L2 between the
 * three steps, where the whole image's would go out to the L3 and back
 * twice. Each block's 36 matrices [channels x 32] are a packed GEMM's B
 * panels as they lie; the products run on the packed GEMM with the filters
 * packed at compile time as its A. With enough blocks, threads take whole
 * blocks (each a transform, 36 products and a transform, without a barrier
 * between), and share the few left over by filter panels; with fewer, the
 * blocks go one after the other, each step split over the threads
 * (channels, then panels of 14 filters). */
#include "kernels_internal.h"

/* ---- transforms of one tile, shared by the portable path ---------------- */

/* v = B^T d for the 6 values d[0], d[step], .. d[5 * step]. */
static inline void input_1d(const float *d, int64_t step, float *v,
                            int64_t vstep) {
  const float d0 = d[0], d1 = d[step], d2 = d[2 * step], d3 = d[3 * step],
              d4 = d[4 * step], d5 = d[5 * step];
  const float a = d4 - 4.0f * d2, b = d3 - 4.0f * d1;
  const float c = d4 - d2, e = d3 - d1;
  v[0] = 4.0f * d0 - 5.0f * d2 + d4;
  v[vstep] = a + b;
  v[2 * vstep] = a - b;
  v[3 * vstep] = c + 2.0f * e;
  v[4 * vstep] = c - 2.0f * e;
  v[5 * vstep] = 4.0f * d1 - 5.0f * d3 + d5;
}

/* y = A^T m for the 6 values m[0], m[step], .. m[5 * step]. */
static inline void output_1d(const float *m, int64_t step, float *y,
                             int64_t ystep) {
  const float p = m[step] + m[2 * step], q = m[step] - m[2 * step];
  const float r = m[3 * step] + m[4 * step], s = m[3 * step] - m[4 * step];
  y[0] = m[0] + p + r;
  y[ystep] = q + 2.0f * s;
  y[2 * ystep] = p + 4.0f * r;
  y[3 * ystep] = q + 8.0f * s + m[5 * step];
}

void agl_winograd_f4_input_portable(const agl_winograd_f4 *w,
                                    const agl_winograd_f4_block *b, int64_t c0,
                                    int64_t c1) {
  const int64_t width = b->tx1 - b->tx0;
  const int64_t lanes = (b->ty1 - b->ty0) * width;
  for (int64_t c = c0; c < c1; ++c) {
    const float *plane = w->input + c * w->channel_stride;
    float *vc = b->v + c * AGL_CONV_WINOGRAD_F4_BLOCK;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      const int64_t ty = b->ty0 + lane / width, tx = b->tx0 + lane % width;
      const int64_t y0 = 4 * ty - w->pad_top, x0 = 4 * tx - w->pad_left;
      float d[6][6], u[6][6], v[6][6];
      for (int r = 0; r < 6; ++r)
        for (int s = 0; s < 6; ++s) {
          const int64_t y = y0 + r, x = x0 + s;
          d[r][s] = y >= 0 && y < w->in_h && x >= 0 && x < w->in_w
                        ? plane[y * w->row_stride + x]
                        : 0.0f;
        }
      for (int r = 0; r < 6; ++r) /* d B */
        input_1d(d[r], 1, u[r], 1);
      for (int s = 0; s < 6; ++s) /* B^T (d B) */
        input_1d(&u[0][s], 6, &v[0][s], 6);
      for (int i = 0; i < 36; ++i)
        vc[i * b->v_stride + lane] = v[i / 6][i % 6];
    }
    for (int i = 0; i < 36; ++i)
      for (int64_t lane = lanes; lane < AGL_CONV_WINOGRAD_F4_BLOCK; ++lane)
        vc[i * b->v_stride + lane] = 0.0f;
  }
}

void agl_winograd_f4_output_portable(const agl_winograd_f4 *w,
                                     const agl_winograd_f4_block *b, int64_t f0,
                                     int64_t f1) {
  const int64_t width = b->tx1 - b->tx0;
  const int64_t lanes = (b->ty1 - b->ty0) * width;
  for (int64_t f = f0; f < f1; ++f) {
    float *plane = w->out + f * w->out_channel_stride;
    const float *res =
        w->residual ? w->residual + f * w->out_channel_stride : NULL;
    const float *mf = b->m + f * AGL_CONV_WINOGRAD_F4_BLOCK;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      float m[36], s[6][4], y[4][4];
      for (int i = 0; i < 36; ++i)
        m[i] = mf[i * b->m_stride + lane];
      for (int r = 0; r < 6; ++r) /* m A */
        output_1d(&m[6 * r], 1, s[r], 1);
      for (int q = 0; q < 4; ++q) /* A^T (m A) */
        output_1d(&s[0][q], 4, &y[0][q], 4);
      const int64_t oy = 4 * (b->ty0 + lane / width),
                    ox = 4 * (b->tx0 + lane % width);
      for (int r = 0; r < 4 && oy + r < w->out_h; ++r)
        for (int q = 0; q < 4 && ox + q < w->out_w; ++q) {
          agl_winograd_store(plane, res, (oy + r) * w->out_w + ox + q, y[r][q],
                             w->accumulate, w->bias ? w->bias + f : NULL,
                             w->act);
        }
    }
  }
}

/* ---- driver ---------------------------------------------------------------*/

typedef struct f4_call {
  const agl_winograd_f4 *w;
  agl_winograd_f4_input_fn input;
  agl_winograd_f4_output_fn output;
  const float *filters; /* the transformed weights */
  int64_t filters_bs;   /* between their 36 matrices */
  const agl_gemm_blocking *blocking;
  float *workspace;
  int64_t first_block;         /* of the blocks on the workspace's slots */
  int64_t shares;              /* threads sharing a block (shared_block) */
  agl_winograd_f4_block block; /* the block the split steps run on */
} f4_call;

/* Block `index` of the image, on workspace slot `slot`. */
static agl_winograd_f4_block block_at(const f4_call *call, int64_t index,
                                      int64_t slot) {
  const agl_winograd_f4 *w = call->w;
  const agl_winograd_f4_blocks *g = &w->blocks;
  const int64_t per_row = agl_ceil_div(g->tiles_w, g->columns);
  agl_winograd_f4_block b;
  b.ty0 = index / per_row * g->rows;
  b.tx0 = index % per_row * g->columns;
  b.ty1 = b.ty0 + g->rows < g->tiles_h ? b.ty0 + g->rows : g->tiles_h;
  b.tx1 = b.tx0 + g->columns < g->tiles_w ? b.tx0 + g->columns : g->tiles_w;
  b.v_stride = agl_conv_winograd_f4_matrix_floats(w->channels);
  b.m_stride = agl_conv_winograd_f4_matrix_floats(w->filters);
  b.v = call->workspace + slot * 36 * (b.v_stride + b.m_stride);
  b.m = b.v + 36 * b.v_stride;
  return b;
}

/* The 36 products of filters [f0, f1) (f0 a multiple of the panel) for
 * block b, then their output transform. */
static void products(const f4_call *call, const agl_winograd_f4_block *b,
                     int64_t f0, int64_t f1) {
  const agl_winograd_f4 *w = call->w;
  agl_gemm_args g = {
      .batch = 36,
      .m = f1 - f0,
      .n = (b->ty1 - b->ty0) * (b->tx1 - b->tx0),
      .k = w->channels,
      .packed_a = call->filters + f0 / AGL_CONV_WINOGRAD_PANEL * w->channels *
                                      AGL_CONV_WINOGRAD_PANEL,
      .a_bs = call->filters_bs,
      .packed_b = b->v, /* one panel of 32 columns per matrix */
      .b_bs = b->v_stride,
      .c = b->m + f0 * AGL_CONV_WINOGRAD_F4_BLOCK,
      .c_bs = b->m_stride,
      .c_rs = AGL_CONV_WINOGRAD_F4_BLOCK,
      .alpha = 1.0f,
      .blocking = call->blocking,
  };
  agl_gemm(&g);
  call->output(w, b, f0, f1);
}

/* Whole blocks [begin, end) of the current wave. A thread runs one such
 * chunk, on one slot, which then stays in its L2 from block to block. */
static void whole_blocks(void *raw, int64_t begin, int64_t end) {
  const f4_call *call = raw;
  for (int64_t i = begin; i < end; ++i) {
    agl_winograd_f4_block b = block_at(call, call->first_block + i, begin);
    call->input(call->w, &b, 0, call->w->channels);
    products(call, &b, 0, call->w->filters);
  }
}

/* Block call->first_block shared by call->shares threads: each transforms
 * the block's whole input on a slot of its own (so that nothing one thread
 * writes is read by another), then computes its share of the filter
 * panels. */
static void shared_block(void *raw, int64_t begin, int64_t end) {
  const f4_call *call = raw;
  const int64_t panel = AGL_CONV_WINOGRAD_PANEL;
  const int64_t panels = agl_ceil_div(call->w->filters, panel);
  for (int64_t t = begin; t < end; ++t) {
    const int64_t p0 = t * panels / call->shares,
                  p1 = (t + 1) * panels / call->shares;
    agl_winograd_f4_block b = block_at(call, call->first_block, t);
    call->input(call->w, &b, 0, call->w->channels);
    products(call, &b, p0 * panel,
             p1 * panel < call->w->filters ? p1 * panel : call->w->filters);
  }
}

static void split_input(void *raw, int64_t c0, int64_t c1) {
  const f4_call *call = raw;
  call->input(call->w, &call->block, c0, c1);
}

static void split_products(void *raw, int64_t p0, int64_t p1) {
  const f4_call *call = raw;
  const int64_t panel = AGL_CONV_WINOGRAD_PANEL;
  const int64_t f1 =
      p1 * panel < call->w->filters ? p1 * panel : call->w->filters;
  products(call, &call->block, p0 * panel, f1);
}

void agl_kernel_conv2d_winograd_f4(
    int64_t batch, int64_t in_channels, int64_t in_h, int64_t in_w,
    const float *input, int64_t in_batch_stride, int64_t in_channel_stride,
    int64_t in_row_stride, int64_t out_channels, int64_t pad_top,
    int64_t pad_left, const float *transformed_weights, const float *bias,
    float *out, int64_t out_h, int64_t out_w, int64_t out_batch_stride,
    int64_t out_channel_stride, int32_t accumulate, int32_t activation,
    const float *residual, float *workspace,
    const agl_gemm_blocking *blocking) {
  if (batch <= 0 || out_channels <= 0 || out_h <= 0 || out_w <= 0)
    return;
  agl_winograd_f4 w = {
      .channel_stride = in_channel_stride,
      .row_stride = in_row_stride,
      .in_h = in_h,
      .in_w = in_w,
      .pad_top = pad_top,
      .pad_left = pad_left,
      .channels = in_channels,
      .filters = out_channels,
      .out_h = out_h,
      .out_w = out_w,
      .blocks = agl_conv_winograd_f4_blocks(out_h, out_w),
      .bias = bias,
      .out_channel_stride = out_channel_stride,
      .accumulate = accumulate != 0,
      .act = agl_known_activation(activation),
  };
  f4_call call = {
      .w = &w,
      .input = agl_winograd_f4_input_portable,
      .output = agl_winograd_f4_output_portable,
      .filters = transformed_weights,
      .filters_bs =
          agl_conv_winograd_f4_filters_floats(out_channels, in_channels) / 36,
      .blocking = blocking,
      .workspace = workspace,
  };
#if defined(AGL_HAVE_AVX512_KERNELS)
  if (agl_gemm_current() == &agl_gemm_avx512) {
    call.input = agl_winograd_f4_input_avx512;
    call.output = agl_winograd_f4_output_avx512;
  }
#endif
  const int64_t blocks = w.blocks.count;
  const int64_t threads = agl_get_num_threads();
  /* Whole blocks per thread when they share out evenly enough: as many
   * per thread, or two or more each. */
  const int whole =
      threads <= 1 || blocks % threads == 0 || blocks >= 2 * threads;
  const int64_t panels = agl_ceil_div(out_channels, AGL_CONV_WINOGRAD_PANEL);
  /* Then the blocks an even share leaves over (fewer than the threads) go
   * each to all threads, by filter panels, every thread transforming the
   * block's input itself: 56 x 56 maps have 7 blocks, which 2 threads ran
   * 4 : 3 (in resnet224 at 2 threads its two 56 x 56 layers 5-20% faster
   * in one set of alternating runs, within the noise in another). Waves
   * hold a multiple of the threads. */
  const int shares_blocks = whole && threads > 1 &&
                            threads <= AGL_CONV_WINOGRAD_F4_SLOTS &&
                            threads <= panels;
  const int64_t left = shares_blocks ? blocks % threads : 0;
  const int64_t wave_max = shares_blocks
                               ? AGL_CONV_WINOGRAD_F4_SLOTS / threads * threads
                               : AGL_CONV_WINOGRAD_F4_SLOTS;
  call.shares = threads;
  for (int64_t n = 0; n < batch; ++n) {
    w.input = input + n * in_batch_stride;
    w.out = out + n * out_batch_stride;
    w.residual = residual ? residual + n * out_batch_stride : NULL;
    if (whole) {
      for (call.first_block = 0; call.first_block < blocks - left;
           call.first_block += wave_max) {
        int64_t wave = blocks - left - call.first_block;
        agl_parallel_for(wave < wave_max ? wave : wave_max, 1, whole_blocks,
                         &call);
      }
      for (call.first_block = blocks - left; call.first_block < blocks;
           ++call.first_block)
        agl_parallel_for(threads, 1, shared_block, &call);
      continue;
    }
    for (int64_t i = 0; i < blocks; ++i) {
      call.block = block_at(&call, i, 0);
      agl_parallel_for(in_channels, 16, split_input, &call);
      agl_parallel_for(panels, 1, split_products, &call);
    }
  }
}
