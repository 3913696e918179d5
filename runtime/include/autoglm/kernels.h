/* AutoGLM runtime kernels: the hand-written routines that compiled models call
 * for their heavy operations, and the thread pool they run on.
 *
 * The pool is the one of autoglm/runtime.h (agl_set_num_threads): created
 * once, with each thread's packing memory, so that these calls allocate
 * nothing once it exists. Concurrent top-level calls from different threads
 * take turns on the pool; calls made from inside a parallel region (from the
 * function that agl_parallel_for runs) run serially on the calling thread.
 */
#ifndef AUTOGLM_KERNELS_H
#define AUTOGLM_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C[b,i,j] = act((accumulate ? C[b,i,j] : 0)
                + alpha * sum_p A[b,i,p] * B[b,p,j]
                + (bias ? bias[j] : 0))
             + (residual ? residual[b * residual_batch_stride
                                    + i * residual_row_stride + j] : 0)
   for b < batch, i < m, j < n, p < k: the product and its epilogue, which
   the kernel applies to each tile of C while it is in registers. Strides
   are in elements and may be 0 (broadcast), except that C's and the
   residual's column strides are 1. A and B may have any row/column strides
   (transposed operands are common: B with row stride 1 and column stride
   k). m, n, k, batch may be 0 or 1. Strides are non-negative. C must not
   overlap A, B, the bias or the residual, and distinct (b,i,j) must
   address distinct elements of C. With k == 0 the sum is 0. The bias (n
   floats, every batch entry and row) and the residual may be null.
   The activation is one of AGL_ACT_*; an unknown value is treated as none.
   With AGL_ACT_GATED(g) or'ed into it, the residual is a gate instead: the
   epilogue ends in act(...) * g(residual[...]) rather than + residual[...]
   (see AGL_ACT_GATED).
   `blocking` sets the cache blocking of this call (see agl_gemm_blocking);
   null leaves it to the runtime's cost model. */
typedef struct agl_gemm_blocking agl_gemm_blocking;
void agl_kernel_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                      const float *a, int64_t a_batch_stride,
                      int64_t a_row_stride, int64_t a_col_stride,
                      const float *b, int64_t b_batch_stride,
                      int64_t b_row_stride, int64_t b_col_stride, float *c,
                      int64_t c_batch_stride, int64_t c_row_stride,
                      int32_t accumulate, float alpha, const float *bias,
                      int32_t activation, const float *residual,
                      int64_t residual_batch_stride,
                      int64_t residual_row_stride,
                      const agl_gemm_blocking *blocking);

/* agl_kernel_sgemm with B packed ahead of time (compiled models pack their
   weights when they are compiled): for each block of AGL_SGEMM_PACKED_NR
   columns of B, its k rows of AGL_SGEMM_PACKED_NR floats, one after the
   other; columns past n are zero. Every batch entry uses the same B. */
#define AGL_SGEMM_PACKED_NR 32
void agl_kernel_sgemm_packed(int64_t batch, int64_t m, int64_t n, int64_t k,
                             const float *a, int64_t a_batch_stride,
                             int64_t a_row_stride, int64_t a_col_stride,
                             const float *packed_b, float *c,
                             int64_t c_batch_stride, int64_t c_row_stride,
                             int32_t accumulate, float alpha,
                             const float *bias, int32_t activation,
                             const float *residual,
                             int64_t residual_batch_stride,
                             int64_t residual_row_stride,
                             const agl_gemm_blocking *blocking);

/* The cache blocking of the packed products (agl_kernel_sgemm*,
   agl_kernel_conv2d): per block, kc depths of mc rows of A and of nc
   columns of B are packed, A's block for the L2/L3 and B's micro-panels
   for the L1, and the micro-kernel sweeps them. 0 in a field takes the
   runtime's value, which a cost model derives from this CPU's cache sizes.
   Each thread packs into AGL_GEMM_SCRATCH_FLOATS floats allocated with the
   pool: kc * (mc + nc), with mc and nc rounded up to whole micro-panels,
   must fit, else the runtime reduces mc, then nc, then kc until it does.
   Results do not depend on mc and nc; kc changes the order in which
   partial sums are added, so results may differ in the last bits. */
struct agl_gemm_blocking {
  int32_t kc, nc, mc;
};
#define AGL_GEMM_SCRATCH_FLOATS 626688

/* The depth block the packed products take for depth k where the blocking
   leaves kc to the cost model (whose value is model_kc): all of k in one
   block where k is at most 4/3 of model_kc (A's micro-panel then takes up
   to 8/9 of the L1d rather than 2/3), since a second, thin block costs one
   more pass over C (the MLP's 128 x 3072 x 768 product with GELU: 576 + 192
   depths 12-17% slower than its 128 x 768 x 3072 partner on Zen 5, 768 in
   one block 3-6%); else model_kc. */
static inline int64_t agl_gemm_depth_block(int64_t model_kc, int64_t k) {
  return k > model_kc && 3 * k <= 4 * model_kc ? k : model_kc;
}

/* The columns of B per packed block where the blocking leaves nc to the
   cost model (whose value, model_nc, gives the B block, kc x nc floats,
   three quarters of the L2): where A's block (rows x kc floats, rows the
   task's, at most mc) takes at most half of the L2 (l2_bytes, 0 where
   unknown: no change), as the transformer products' 128 rows do, nc is cut
   so that A's block and b_blocks blocks of B share those three quarters,
   in whole nr-column micro-panels: A's micro-panels are then read from L2
   for every block of columns, not from L3 (the MLP's two products on
   Zen 5: nc 320 -> 128 and 192; the MLP 2% faster at one thread, 10% at
   two). b_blocks is 2 where B is packed ahead of time and A has more than
   one micro-panel: the next block of B is then fetched while this one is
   used (sgemm.c), else 1. */
static inline int64_t agl_gemm_column_block(int64_t model_nc, int64_t kc,
                                            int64_t rows, int64_t l2_bytes,
                                            int64_t nr, int64_t b_blocks) {
  const int64_t a_bytes = rows * kc * (int64_t)sizeof(float);
  if (l2_bytes <= 0 || 2 * a_bytes > l2_bytes)
    return model_nc;
  int64_t nc =
      (l2_bytes * 3 / 4 - a_bytes) / (b_blocks * kc * (int64_t)sizeof(float));
  nc = nc / nr * nr;
  if (nc < nr)
    nc = nr;
  return nc < model_nc ? nc : model_nc;
}

/* How agl_kernel_sgemm runs on this CPU, for reports (autoglm-compile
   --explain): the micro-kernel's instruction set and tile (mr x nr floats
   of accumulators), and the cache blocking the cost model picks (kc depths,
   nc columns of B, mc rows of A per packed block) from the cache sizes
   (bytes; 0 where the system does not tell). */
typedef struct agl_sgemm_plan {
  const char *isa; /* "avx512" or "portable" */
  int32_t mr, nr, kc, nc, mc;
  int64_t l1d_bytes, l2_bytes, l3_bytes;
} agl_sgemm_plan;
void agl_kernel_sgemm_describe(agl_sgemm_plan *out);

/* A 2-D convolution of NCHW images, computed as the product
     out[n, g, f, oy*out_w + ox] = W[g, f, :] x window(n, g, oy, ox)
   without materializing the windows (implicit GEMM): the kernel packs each
   block of windows straight from the input, zero where a window reaches into
   the padding:
     out[n, g*out_channels + f, oy, ox] = act((accumulate ? out : 0)
         + (bias ? bias[g*out_channels + f] : 0)
         + (residual ? residual[n, g*out_channels + f, oy, ox] : 0)
         + sum_{c, ki, kj} W[g, f, c, ki, kj]
             * in[n, g*in_channels + c, oy*stride_h + ki*dilation_h - pad_top,
                  ox*stride_w + kj*dilation_w - pad_left])
   with in_channels and out_channels counted per group. Strides of the
   tensors are in elements: the input's columns and the output's positions
   (oy*out_w + ox) are contiguous, and group g's channels follow group g-1's
   (channel g*in_channels + c is at channel stride times that). Convolution
   strides and dilations are at least 1, pads at least 0. Sizes may be 0:
   then nothing is written, except that with in_channels 0 the sum is 0.
   The residual (a ResNet block's shortcut, added before the activation)
   has the output's strides. The output must not overlap the input,
   weights, bias or residual.
   The weights are packed ahead of time (compiled models pack them when they
   are compiled), per group as agl_kernel_sgemm_packed's B with B[d, f] =
   W[g, f, d] for the depths d = (c*kernel_h + ki)*kernel_w + kj: for each
   panel of AGL_CONV_PACKED_NR filters, for every depth in order, the
   panel's weights; the last panel holds only the out_channels %
   AGL_CONV_PACKED_NR filters left, if any (no zero columns). The groups
   follow one another. That is as many floats as the weights.
   The activation is one of AGL_ACT_*; an unknown value is treated as none.
   `blocking` is as for agl_kernel_sgemm, with the windows as A (mc output
   positions per block) and the filters as B (nc filters per block); null:
   the cost model. On CPUs with AVX-512, shapes where that measures faster
   (kernels larger than 1x1 with column stride 1 or 2; 1x1 ones with few
   filters) run as a direct convolution that reads the input rows without
   packing windows and ignores `blocking`; results agree within
   rounding. */
#define AGL_CONV_PACKED_NR AGL_SGEMM_PACKED_NR
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
                       const agl_gemm_blocking *blocking);

/* The same convolution for 3x3 kernels with unit strides and dilations and
   one group, by Winograd's minimal filtering F(2x2, 3x3) (Lavin & Gray):
   each 2x2 block of outputs ("tile") of a filter is
     A^T [ (G g G^T) .* (B^T d B) ] A
   over the channels, with d the tile's 4x4 window of the input and g the
   filter's 3x3 weights, so that 16 products per tile and channel replace 36.
   The sums over the channels are 16 matrix products of [filters x
   channels] by [channels x tiles], run on the packed GEMM.
   `transformed_weights` are the G g G^T of agl_conv_winograd_filters;
   `workspace` holds agl_conv_winograd_workspace_floats floats (the transformed
   input and the products), which the call overwrites. Other arguments as for
   agl_kernel_conv2d; results agree with it within a few units of rounding
   of the sums' magnitudes. */
static inline int64_t agl_conv_winograd_tiles(int64_t out_h, int64_t out_w) {
  return ((out_h + 1) / 2) * ((out_w + 1) / 2);
}
/* Floats between two of the 16 matrices of `rows` x tiles in the workspace:
   whole cache lines plus one, so that the 16 rows that a tile's transform
   reads or writes at once do not all fall into the same cache sets. */
static inline int64_t agl_conv_winograd_matrix_floats(int64_t rows,
                                                      int64_t tiles) {
  return (rows * tiles + 15) / 16 * 16 + 16;
}
static inline int64_t agl_conv_winograd_workspace_floats(int64_t channels,
                                                         int64_t filters,
                                                         int64_t out_h,
                                                         int64_t out_w) {
  const int64_t tiles = agl_conv_winograd_tiles(out_h, out_w);
  return 16 * (agl_conv_winograd_matrix_floats(channels, tiles) +
               agl_conv_winograd_matrix_floats(filters, tiles));
}
/* Filters per panel of the transformed weights: the rows of the AVX-512
   micro-kernel, which then reads them where they lie. */
#define AGL_CONV_WINOGRAD_PANEL 14
/* Floats of agl_conv_winograd_filters' output. */
static inline int64_t agl_conv_winograd_filters_floats(int64_t filters,
                                                       int64_t channels) {
  const int64_t panel = AGL_CONV_WINOGRAD_PANEL;
  return 16 * ((filters + panel - 1) / panel * panel) * channels;
}
/* G g G^T (n x n, G n x 3) of each filter and channel into the n * n
   packed matrices of `matrix` floats each: what both transforms share. */
static inline void agl_conv_winograd_transform_(const double *G, int n,
                                                const float *w,
                                                int64_t filters,
                                                int64_t channels,
                                                int64_t matrix, float *out) {
  const int64_t panel = AGL_CONV_WINOGRAD_PANEL;
  for (int64_t i = 0; i < n * n * matrix; ++i)
    out[i] = 0.0f;
  for (int64_t f = 0; f < filters; ++f)
    for (int64_t c = 0; c < channels; ++c) {
      const float *g = w + (f * channels + c) * 9;
      double gt[6][3]; /* G g */
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < 3; ++j)
          gt[i][j] = G[3 * i] * g[j] + G[3 * i + 1] * g[3 + j] +
                     G[3 * i + 2] * g[6 + j];
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double u = gt[i][0] * G[3 * j] + gt[i][1] * G[3 * j + 1] +
                     gt[i][2] * G[3 * j + 2]; /* (G g G^T)[i][j] */
          out[(n * i + j) * matrix + (f / panel * channels + c) * panel +
              f % panel] = (float)u;
        }
    }
}
/* The weights w[f, c, 3, 3] (filters x channels) transformed for
   agl_kernel_conv2d_winograd: for each of the 16 elements of G g G^T a
   [filters x channels] matrix, packed as the GEMM packs its A: panels of
   AGL_CONV_WINOGRAD_PANEL filters (zero past the last filter), each the
   panel's filters for channel 0, then channel 1, and so on
   (agl_conv_winograd_filters_floats in all). The sums are formed in
   double. */
static inline void agl_conv_winograd_filters(const float *w, int64_t filters,
                                             int64_t channels, float *out) {
  /* G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]. */
  static const double G[4 * 3] = {1,   0,    0,   0.5, 0.5, 0.5,
                                  0.5, -0.5, 0.5, 0,   0,   1};
  agl_conv_winograd_transform_(
      G, 4, w, filters, channels,
      agl_conv_winograd_filters_floats(filters, channels) / 16, out);
}
void agl_kernel_conv2d_winograd(
    int64_t batch, int64_t in_channels, int64_t in_h, int64_t in_w,
    const float *input, int64_t in_batch_stride, int64_t in_channel_stride,
    int64_t in_row_stride, int64_t out_channels, int64_t pad_top,
    int64_t pad_left, const float *transformed_weights, const float *bias,
    float *out, int64_t out_h, int64_t out_w, int64_t out_batch_stride,
    int64_t out_channel_stride, int32_t accumulate, int32_t activation,
    const float *residual, float *workspace, const agl_gemm_blocking *blocking);

/* The same by F(4x4, 3x3): 4x4 tiles, each read from a 6x6 window, so that
   36 products per tile and channel replace 144 (a quarter; F(2x2)'s 16
   replace 36). The transforms take multiplications by small integers
   (B^T's 4 and 5, A^T's 2, 4 and 8), and rounding grows with them: results
   agree with agl_kernel_conv2d within a few tens of units of rounding of
   the sums' magnitudes. The tiles are processed in blocks of up to
   AGL_CONV_WINOGRAD_F4_BLOCK (whole rows of tiles where a row is no wider),
   each block transformed, multiplied and transformed back while it is in
   the cache; `workspace` (agl_conv_winograd_f4_workspace_floats) holds
   the transformed input and the products of up to
   AGL_CONV_WINOGRAD_F4_SLOTS blocks at once. `transformed_weights` are
   agl_conv_winograd_f4_filters'. Other arguments as for
   agl_kernel_conv2d_winograd. */
#define AGL_CONV_WINOGRAD_F4_BLOCK 32 /* the packed GEMM's panel width */
#define AGL_CONV_WINOGRAD_F4_SLOTS 16
/* How the tiles (ceil(out_h / 4) x ceil(out_w / 4)) fall into blocks: each
   block is `rows` rows of tiles by `columns` tiles of a row. */
typedef struct agl_winograd_f4_blocks {
  int64_t tiles_h, tiles_w, rows, columns, count;
} agl_winograd_f4_blocks;
static inline agl_winograd_f4_blocks
agl_conv_winograd_f4_blocks(int64_t out_h, int64_t out_w) {
  const int64_t width = AGL_CONV_WINOGRAD_F4_BLOCK;
  agl_winograd_f4_blocks b = {(out_h + 3) / 4, (out_w + 3) / 4, 1, 1, 0};
  if (b.tiles_h <= 0 || b.tiles_w <= 0)
    return b;
  if (b.tiles_w <= width) {
    /* Whole rows, as evenly as that many blocks allow. */
    const int64_t per = width / b.tiles_w;
    const int64_t blocks = (b.tiles_h + per - 1) / per;
    b.rows = (b.tiles_h + blocks - 1) / blocks;
    b.columns = b.tiles_w;
    b.count = (b.tiles_h + b.rows - 1) / b.rows;
  } else {
    const int64_t pieces = (b.tiles_w + width - 1) / width;
    b.columns = (b.tiles_w + pieces - 1) / pieces;
    b.count = b.tiles_h * ((b.tiles_w + b.columns - 1) / b.columns);
  }
  return b;
}
static inline int64_t agl_conv_winograd_f4_tiles(int64_t out_h, int64_t out_w) {
  return ((out_h + 3) / 4) * ((out_w + 3) / 4);
}
/* Floats between two of a block's 36 matrices of `rows` x
   AGL_CONV_WINOGRAD_F4_BLOCK: a cache line more than their size, as for
   F(2x2). */
static inline int64_t agl_conv_winograd_f4_matrix_floats(int64_t rows) {
  return rows * AGL_CONV_WINOGRAD_F4_BLOCK + 16;
}
static inline int64_t agl_conv_winograd_f4_workspace_floats(int64_t channels,
                                                            int64_t filters,
                                                            int64_t out_h,
                                                            int64_t out_w) {
  int64_t slots = agl_conv_winograd_f4_blocks(out_h, out_w).count;
  if (slots > AGL_CONV_WINOGRAD_F4_SLOTS)
    slots = AGL_CONV_WINOGRAD_F4_SLOTS;
  return slots * 36 *
         (agl_conv_winograd_f4_matrix_floats(channels) +
          agl_conv_winograd_f4_matrix_floats(filters));
}
static inline int64_t agl_conv_winograd_f4_filters_floats(int64_t filters,
                                                          int64_t channels) {
  const int64_t panel = AGL_CONV_WINOGRAD_PANEL;
  return 36 * ((filters + panel - 1) / panel * panel) * channels;
}
/* The weights w[f, c, 3, 3] transformed for agl_kernel_conv2d_winograd_f4:
   the 36 elements of G g G^T, each a [filters x channels] matrix packed as
   for agl_conv_winograd_filters. */
static inline void agl_conv_winograd_f4_filters(const float *w,
                                                int64_t filters,
                                                int64_t channels, float *out) {
  static const double G[6 * 3] = {
      1.0 / 4,  0,        0,        -1.0 / 6, -1.0 / 6,  -1.0 / 6,
      -1.0 / 6, 1.0 / 6,  -1.0 / 6, 1.0 / 24, 1.0 / 12,  1.0 / 6,
      1.0 / 24, -1.0 / 12, 1.0 / 6, 0,        0,         1};
  agl_conv_winograd_transform_(
      G, 6, w, filters, channels,
      agl_conv_winograd_f4_filters_floats(filters, channels) / 36, out);
}
void agl_kernel_conv2d_winograd_f4(
    int64_t batch, int64_t in_channels, int64_t in_h, int64_t in_w,
    const float *input, int64_t in_batch_stride, int64_t in_channel_stride,
    int64_t in_row_stride, int64_t out_channels, int64_t pad_top,
    int64_t pad_left, const float *transformed_weights, const float *bias,
    float *out, int64_t out_h, int64_t out_w, int64_t out_batch_stride,
    int64_t out_channel_stride, int32_t accumulate, int32_t activation,
    const float *residual, float *workspace, const agl_gemm_blocking *blocking);

/* Max pooling of NCHW images:
     out[n, c, oy, ox] = max_{ki, kj} in[n, c, oy*stride_h + ki*dilation_h
                                            - pad_top,
                                         ox*stride_w + kj*dilation_w
                                            - pad_left]
   over the window positions inside the image (positions in the padding
   count as -inf; a window wholly in the padding gives -inf). NaN
   propagates. Strides of the tensors are in elements; the input's and the
   output's columns are contiguous. Convolution strides and dilations are
   at least 1, pads at least 0. The output must not overlap the input.
   Planes (image, channel) are split over the pool's threads. */
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
                          int64_t out_row_stride);

/* A transpose of 4-byte elements (any 4-byte type: the bits are moved):
     out[a * out_s0 + b * out_s1 + i * out_row_stride + j]
       = in[a * in_s0 + b * in_s1 + i + j * in_col_stride]
   for a < outer0, b < outer1, i < rows, j < cols: in each of the outer0 x
   outer1 planes, the output's rows are the input's columns. Rows of the
   output and columns of the input are contiguous, as in a permutation
   whose innermost output dimension is not the input's innermost one
   (NHWC -> NCHW: rows the channels, columns the pixels of an image row,
   planes the images and their rows). Strides are in elements and
   non-negative; the output must not overlap the input. Tiles of 8 x 8
   are transposed in registers where the CPU has AVX2; planes (or, when
   they are few, bands of columns) are split over the pool's threads. */
void agl_kernel_transpose32(int64_t outer0, int64_t outer1, int64_t rows,
                            int64_t cols, const void *in, int64_t in_s0,
                            int64_t in_s1, int64_t in_col_stride, void *out,
                            int64_t out_s0, int64_t out_s1,
                            int64_t out_row_stride);

/* Scaled dot-product attention, flash-attention style: for each query row
   the scores against blocks of keys are computed, kept as a running maximum
   and sum (online softmax) and folded into the output at once, so the
   q_len x kv_len score matrix is never stored.
     out[b,h,i,:] = sum_j p[b,h,i,j] * V[b,h',j,:],
     p[b,h,i,:] = softmax_j(scale * dot(Q[b,h,i,:], K[b,h',j,:])
                            + (mask ? mask[b,h,i,j] : 0))
   for b < batch, h < heads, i < q_len, j < kv_len, where h' = h / (heads /
   kv_heads) (grouped-query attention: heads is a multiple of kv_heads, each
   K/V head serving that many consecutive query heads). With `causal`
   nonzero, key j is left out of row i when j > i + kv_len - q_len (the
   queries are the last q_len positions, as in a decode step against a KV
   cache). A row with no key left (every score -inf) is all zeros.
   Strides are in elements, non-negative; the last dimension of Q, K, V and
   out is contiguous (stride 1). The mask has a stride for each of its four
   dimensions, 0 where it broadcasts. head_dim and value_dim are at most
   AGL_ATTENTION_MAX_HEAD_DIM; any size may be 0. out must not overlap the
   inputs. Runs on the pool, parallel over (batch, head, block of queries);
   allocates nothing. */
#define AGL_ATTENTION_MAX_HEAD_DIM 4096
void agl_kernel_attention(int64_t batch, int64_t heads, int64_t kv_heads,
                          int64_t q_len, int64_t kv_len, int64_t head_dim,
                          int64_t value_dim, const float *q,
                          int64_t q_batch_stride, int64_t q_head_stride,
                          int64_t q_row_stride, const float *k,
                          int64_t k_batch_stride, int64_t k_head_stride,
                          int64_t k_row_stride, const float *v,
                          int64_t v_batch_stride, int64_t v_head_stride,
                          int64_t v_row_stride, const float *mask,
                          int64_t mask_batch_stride, int64_t mask_head_stride,
                          int64_t mask_row_stride, int64_t mask_col_stride,
                          float *out, int64_t out_batch_stride,
                          int64_t out_head_stride, int64_t out_row_stride,
                          float scale, int32_t causal);

/* agl_kernel_attention against a key/value cache that the call also
   extends: the first past_len of the kv_len keys and values are past_k's
   and past_v's rows (same batch and head extents, strides in elements,
   contiguous rows), the others K's and V's rows from past_len on (the new
   positions, which the caller has filled); the call also copies the past
   rows into K's and V's rows [0, past_len), so that K and V then hold the
   whole cache. This is the decode step of an exported decoder, present =
   Concat(past, new), fused: the past is read once and written with stores
   that bypass the caches (a one-query step's AVX-512 rows store each
   vector they load, where K's and V's rows are 64-byte aligned; otherwise
   each head is copied right before it is read, from the caches), instead
   of being copied, evicted and read back. Afterwards K, V and out hold
   exactly what the two steps leave. past_k and past_v must not overlap K,
   V or out. */
void agl_kernel_attention_with_past(
    int64_t batch, int64_t heads, int64_t kv_heads, int64_t q_len,
    int64_t kv_len, int64_t head_dim, int64_t value_dim, const float *q,
    int64_t q_batch_stride, int64_t q_head_stride, int64_t q_row_stride,
    float *k, int64_t k_batch_stride, int64_t k_head_stride,
    int64_t k_row_stride, float *v, int64_t v_batch_stride,
    int64_t v_head_stride, int64_t v_row_stride, const float *mask,
    int64_t mask_batch_stride, int64_t mask_head_stride,
    int64_t mask_row_stride, int64_t mask_col_stride, float *out,
    int64_t out_batch_stride, int64_t out_head_stride, int64_t out_row_stride,
    float scale, int32_t causal, int64_t past_len, const float *past_k,
    int64_t past_k_batch_stride, int64_t past_k_head_stride,
    int64_t past_k_row_stride, const float *past_v,
    int64_t past_v_batch_stride, int64_t past_v_head_stride,
    int64_t past_v_row_stride);

/* Activations of the GEMM and convolution epilogues (agl_kernel_sgemm,
   agl_kernel_conv2d), computed in float with errors of a few ulp. */
enum {
  AGL_ACT_NONE = 0,
  AGL_ACT_RELU = 1,      /* max(x, 0); NaN stays NaN */
  AGL_ACT_GELU_ERF = 2,  /* 0.5 x (1 + erf(x / sqrt(2))) */
  AGL_ACT_GELU_TANH = 3, /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  AGL_ACT_SILU = 4       /* x sigmoid(x) */
};

/* Or'ed into the activation argument of a GEMM (agl_kernel_sgemm*, the
   weight-only and int8 products): the residual operand is a gate, and the
   epilogue multiplies by gate_act(residual[b,i,j]) where it would add
   residual[b,i,j]. A gated linear unit is one product's epilogue this way:
   SwiGLU, silu(x W_gate) * (x W_up), is the up projection's product with
   AGL_ACT_GATED(AGL_ACT_SILU) and the gate projection's result as residual
   (GeGLU: AGL_ACT_GELU_*). The product's own activation stays in the low
   four bits. Convolutions take no gate. */
#define AGL_ACT_GATE_FLAG 0x100
#define AGL_ACT_GATED(gate_act) (AGL_ACT_GATE_FLAG | ((gate_act) << 4))

/* Runs fn(ctx, begin, end) over [0, n) split into contiguous chunks across the
   pool's threads (the caller's thread takes part); returns when all are done.
   Nested calls from inside fn run serially on the calling thread.
   Chunks hold at least `grain` indices (except when n is smaller); at most
   one chunk per thread. n <= 0 calls nothing. */
typedef void (*agl_parallel_fn)(void *ctx, int64_t begin, int64_t end);
void agl_parallel_for(int64_t n, int64_t grain, agl_parallel_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* AUTOGLM_KERNELS_H */
