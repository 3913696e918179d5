/* agl_kernel_conv2d_winograd: 3x3 convolutions by Winograd's F(2x2, 3x3).
 * Per image, three steps, each split over the pool's threads:
 *  1. the input transform V = B^T d B of every tile's 4x4 window, per
 *     channel, into the workspace as 16 matrices [channels x tiles], a
 *     cache line more than their size apart (agl_conv_winograd_matrix_floats:
 *     at multiples of 4 KiB apart, the 16 rows each transform writes fell
 *     into the same L1 sets; resnet224's 56 x 56 x 64 layer took 1.43 ms
 *     instead of 0.73 on Zen 5, two thirds of it in the transforms);
 *  2. 16 products M = U V on the packed GEMM (batch 16), U the filters
 *     transformed at compile time (agl_conv_winograd_filters, [filters x
 *     channels]) and packed there as the GEMM packs A, in panels of 14
 *     filters: the AVX-512 micro-kernel reads them in place (packing them
 *     per call took a third of the 14 x 14 x 256 layer's time), the
 *     others repack them. The filters are the micro-kernel's rows and the
 *     tiles its columns, so that M comes out [filters x tiles] in plain
 *     rows for the output transform (tiles along the micro-kernel's rows
 *     would store every tile transposed, which costs a third of the
 *     products' time with a hundred channels);
 *  3. the output transform A^T M A of every tile, per filter, into NCHW
 *     with the epilogue (accumulate, bias, residual, activation).
 * With
 *   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
 *   A^T = [1 1 1 0; 0 1 -1 -1]
 * the transforms take additions only, and the products 16 multiplications
 * per tile, channel and filter where the direct convolution takes 36. The
 * transforms run 8 tiles at a time with AVX2 (conv_winograd_avx2.c), else
 * one at a time here. */
#include "kernels_internal.h"

#include <string.h>

/* ---- portable transforms
 * ---------------------------------------------------*/

void agl_winograd_input_portable(const agl_winograd *w, int64_t c0,
                                 int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) {
    const float *plane = w->input + c * w->channel_stride;
    for (int64_t t = 0; t < w->tiles; ++t) {
      const int64_t y0 = t / w->tiles_w * 2 - w->pad_top;
      const int64_t x0 = t % w->tiles_w * 2 - w->pad_left;
      float d[4][4], u[4][4];
      for (int r = 0; r < 4; ++r)
        for (int s = 0; s < 4; ++s) {
          const int64_t y = y0 + r, x = x0 + s;
          d[r][s] = y >= 0 && y < w->in_h && x >= 0 && x < w->in_w
                        ? plane[y * w->row_stride + x]
                        : 0.0f;
        }
      for (int r = 0; r < 4; ++r) { /* d B */
        u[r][0] = d[r][0] - d[r][2];
        u[r][1] = d[r][1] + d[r][2];
        u[r][2] = d[r][2] - d[r][1];
        u[r][3] = d[r][1] - d[r][3];
      }
      for (int s = 0; s < 4; ++s) { /* B^T (d B) */
        const float v[4] = {u[0][s] - u[2][s], u[1][s] + u[2][s],
                            u[2][s] - u[1][s], u[1][s] - u[3][s]};
        for (int r = 0; r < 4; ++r)
          w->v[(4 * r + s) * w->v_stride + c * w->tiles + t] = v[r];
      }
    }
  }
}

void agl_winograd_output_portable(const agl_winograd *w, int64_t f0,
                                  int64_t f1) {
  for (int64_t f = f0; f < f1; ++f) {
    float *plane = w->out + f * w->out_channel_stride;
    const float *res =
        w->residual ? w->residual + f * w->out_channel_stride : NULL;
    for (int64_t t = 0; t < w->tiles; ++t) {
      float m[4][4], s[4][2];
      for (int i = 0; i < 16; ++i)
        m[i / 4][i % 4] = w->m[i * w->m_stride + f * w->tiles + t];
      for (int r = 0; r < 4; ++r) { /* m A */
        s[r][0] = m[r][0] + m[r][1] + m[r][2];
        s[r][1] = m[r][1] - m[r][2] - m[r][3];
      }
      const float y[2][2] = {
          /* A^T (m A) */
          {s[0][0] + s[1][0] + s[2][0], s[0][1] + s[1][1] + s[2][1]},
          {s[1][0] - s[2][0] - s[3][0], s[1][1] - s[2][1] - s[3][1]}};
      const int64_t oy = t / w->tiles_w * 2, ox = t % w->tiles_w * 2;
      for (int r = 0; r < 2 && oy + r < w->out_h; ++r)
        for (int q = 0; q < 2 && ox + q < w->out_w; ++q) {
          agl_winograd_store(plane, res, (oy + r) * w->out_w + ox + q, y[r][q],
                             w->accumulate, w->bias ? w->bias + f : NULL,
                             w->act);
        }
    }
  }
}

/* ---- driver
 * ----------------------------------------------------------------*/

typedef void (*transform_fn)(const agl_winograd *w, int64_t begin, int64_t end);

typedef struct transform_task {
  const agl_winograd *w;
  transform_fn fn;
} transform_task;

static void run_transform(void *raw, int64_t begin, int64_t end) {
  const transform_task *task = raw;
  task->fn(task->w, begin, end);
}

void agl_kernel_conv2d_winograd(
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
  const int64_t tiles = agl_conv_winograd_tiles(out_h, out_w);
  const int64_t v_stride = agl_conv_winograd_matrix_floats(in_channels, tiles);
  agl_winograd w = {
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
      .tiles_w = (out_w + 1) / 2,
      .tiles = tiles,
      .v = workspace,
      .m = workspace + 16 * v_stride,
      .v_stride = v_stride,
      .m_stride = agl_conv_winograd_matrix_floats(out_channels, tiles),
      .bias = bias,
      .out_channel_stride = out_channel_stride,
      .accumulate = accumulate != 0,
      .act = agl_known_activation(activation),
  };
  transform_fn input_fn = agl_winograd_input_portable,
               output_fn = agl_winograd_output_portable;
#if defined(AGL_HAVE_AVX2_KERNELS)
  if (agl_gemm_current() != &agl_gemm_portable) { /* AVX2 or AVX-512 */
    input_fn = agl_winograd_input_avx2;
    output_fn = agl_winograd_output_avx2;
  }
#endif
  /* About 32768 transformed values per task, as the generated loops. */
  const int64_t grain = agl_ceil_div(32768, 16 * tiles);
  for (int64_t n = 0; n < batch; ++n) {
    w.input = input + n * in_batch_stride;
    w.out = out + n * out_batch_stride;
    w.residual = residual ? residual + n * out_batch_stride : NULL;
    transform_task in_task = {&w, input_fn}, out_task = {&w, output_fn};
    agl_parallel_for(in_channels, grain, run_transform, &in_task);
    if (in_channels == 0) {
      for (int i = 0; i < 16; ++i)
        memset(w.m + i * w.m_stride, 0,
               (size_t)(tiles * out_channels) * sizeof(float));
    } else {
      agl_gemm_args g = {
          .batch = 16,
          .m = out_channels,
          .n = tiles,
          .k = in_channels,
          .packed_a = transformed_weights,
          .a_bs = agl_conv_winograd_filters_floats(out_channels, in_channels) /
                  16,
          .b = w.v,
          .b_bs = w.v_stride,
          .b_rs = tiles,
          .b_cs = 1,
          .c = w.m,
          .c_bs = w.m_stride,
          .c_rs = tiles,
          .alpha = 1.0f,
          .blocking = blocking,
      };
      agl_gemm(&g);
    }
    agl_parallel_for(out_channels, grain, run_transform, &out_task);
  }
}
