/* AutoGLM runtime kernels: the integer matrix product of quantized models,
 * uint8 activations times int8 weights, summed exactly in int32.
 *
 *   C[b,i,j] = sum_p (A[b,i,p] - a_zero_point) * B[p,j]
 *
 * optionally turned into floats while the tile is in registers:
 *
 *   C[b,i,j] = act(alpha * scale[j] * acc + (bias ? bias[j] : 0))
 *              + (residual ? residual[b, i, j] : 0)
 *
 * B (k x n, the weight) is packed ahead of time in the layout below, defined
 * here with the function that computes it so that the compiler (which packs
 * weights when it compiles a model), the runtime and tests share one
 * definition. Each panel of 32 columns starts with its column sums, so that
 * the kernel applies A's zero point once per tile (acc = sum_p A B -
 * a_zero_point * colsum[j]) and its inner loop is pure u8 x s8 dot products
 * (AVX-512 VNNI vpdpbusd on CPUs that have it).
 */
#ifndef AUTOGLM_KERNELS_INT8_H
#define AUTOGLM_KERNELS_INT8_H

#include "autoglm/kernels.h"

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AGL_S8_PACKED_NR 32

/* Packed B (k x n int8 weight) layout: panels of 32 columns, one after the
   other; each panel is 32 int32 column sums (sum over p of B[p][j], 0 for
   columns past n), then ceil(k/4) rows of 128 bytes: for depth quad r,
   columns 0..15 each as 4 consecutive bytes (depths 4r..4r+3), then columns
   16..31 likewise. Depths past k and columns past n are 0. A panel is
   128 + ceil(k/4) * 128 bytes, so every panel, and every row of one, starts
   64-byte aligned when the buffer does. */
static inline int64_t agl_s8_panel_bytes(int64_t k) {
  return 32 * (int64_t)sizeof(int32_t) + (k + 3) / 4 * 128;
}

/* Bytes of a packed k x n weight: whole panels (a multiple of 64). */
static inline int64_t agl_s8_packed_bytes(int64_t k, int64_t n) {
  return (n + AGL_S8_PACKED_NR - 1) / AGL_S8_PACKED_NR * agl_s8_panel_bytes(k);
}

/* Byte offset of weight (p, j) in the packed layout (past the sums). */
static inline int64_t agl_s8_packed_offset(int64_t k, int64_t p, int64_t j) {
  int64_t t = j % AGL_S8_PACKED_NR;
  return j / AGL_S8_PACKED_NR * agl_s8_panel_bytes(k) +
         32 * (int64_t)sizeof(int32_t) + p / 4 * 128 + t / 16 * 64 +
         t % 16 * 4 + p % 4;
}

/* Packs B (k x n, element (p, j) at b[p * b_row_stride + j * b_col_stride])
   into `out` (agl_s8_packed_bytes bytes). Deterministic: the compiler and
   the tests produce the same bytes. */
static inline void agl_pack_b_s8(const int8_t *b, int64_t k, int64_t n,
                                 int64_t b_row_stride, int64_t b_col_stride,
                                 void *out) {
  unsigned char *base = (unsigned char *)out;
  memset(out, 0, (size_t)agl_s8_packed_bytes(k, n));
  for (int64_t j = 0; j < n; ++j) {
    int32_t sum = 0;
    for (int64_t p = 0; p < k; ++p) {
      int8_t w = b[p * b_row_stride + j * b_col_stride];
      sum += w;
      base[agl_s8_packed_offset(k, p, j)] = (unsigned char)w;
    }
    /* Little-endian int32, as the kernels load it. */
    unsigned char *s = base + j / AGL_S8_PACKED_NR * agl_s8_panel_bytes(k) +
                       j % AGL_S8_PACKED_NR * 4;
    uint32_t u = (uint32_t)sum;
    for (int byte = 0; byte < 4; ++byte)
      s[byte] = (unsigned char)(u >> (8 * byte));
  }
}

/* C[b,i,j] = sum_p (A[b,i,p] - a_zero_point) * B[p,j] computed exactly in
   int32 (A uint8, row contiguous: element (b,i,p) at a[b*a_batch_stride +
   i*a_row_stride + p]). Every batch entry uses the same B.
   scale == NULL: c is int32_t*, C stored as int32 (bias/activation/residual
   must be NULL/none).
   scale != NULL: c is float*, C[b,i,j] = act(alpha * scale[j] * acc +
   (bias ? bias[j] : 0)) + (residual ? residual[b*rbs + i*rrs + j] : 0),
   applied while the tile is in registers. Strides in elements, non-negative;
   C's and the residual's column stride is 1. C must not overlap A, B, the
   scales, the bias or the residual. The activation is one of AGL_ACT_*; an
   unknown value is treated as none; with AGL_ACT_GATED(g) (kernels.h) the
   residual is a gate, multiplied in as g(residual) instead of added.
   Sizes may be 0 (k == 0: the sum is 0).
   The sum is exact when k * 255 * 128 fits in int32 (k up to 65793); the
   float epilogue rounds it to float first.
   No allocation; threads on the pool (columns first, rows when there are
   few columns). A's rows are read in place where k % 4 == 0 and
   a_row_stride is not a multiple of 4096 (its rows would share L1 sets),
   else packed into the packing memory; either way no byte past a row's k
   is read. `blocking` as for agl_kernel_sgemm, in the float GEMM's units
   with one depth quad (4 bytes of a row of A) in place of a float: kc depth
   quads per block, nc columns of B per block, mc rows of A per block; null:
   the cost model. */
void agl_kernel_gemm_u8s8(int64_t batch, int64_t m, int64_t n, int64_t k,
                          const uint8_t *a, int64_t a_batch_stride,
                          int64_t a_row_stride, int32_t a_zero_point,
                          const void *packed_b, void *c, int64_t c_batch_stride,
                          int64_t c_row_stride, float alpha, const float *scale,
                          const float *bias, int32_t activation,
                          const float *residual, int64_t residual_batch_stride,
                          int64_t residual_row_stride,
                          const agl_gemm_blocking *blocking);

/* The same product quantized for the next one while the tile is in
   registers: with y the float epilogue above (scale must not be NULL),
     C[b,i,j] = saturate_uint8(round_half_even(y / out_scale) +
                               out_zero_point)
   as ONNX QuantizeLinear computes it (out_scale > 0), C uint8 (strides in
   elements). GELU (erf form) is computed to about one ulp of
   max(|x|, |GELU(x)|) here, with AVX-512 by a table 2.4x cheaper than the
   float epilogue's (which is relative in the far negative tail too): below
   a uint8 step either way. The whole depth is summed in one block (k up to
   about 180000; beyond, or without the pool's packing memory where A's rows
   cannot be read in place, plain loops compute it). */
void agl_kernel_gemm_u8s8_requantize(
    int64_t batch, int64_t m, int64_t n, int64_t k, const uint8_t *a,
    int64_t a_batch_stride, int64_t a_row_stride, int32_t a_zero_point,
    const void *packed_b, uint8_t *c, int64_t c_batch_stride,
    int64_t c_row_stride, float alpha, const float *scale, const float *bias,
    int32_t activation, const float *residual, int64_t residual_batch_stride,
    int64_t residual_row_stride, float out_scale, int32_t out_zero_point,
    const agl_gemm_blocking *blocking);

/* The int32 sums of the same product stored transposed: C[b,i,j] at
     c[b*c_batch_stride + j*c_col_stride + i],
   each column of C a run of m contiguous int32 (strides in elements). A
   convolution's product (rows its output positions, columns its filters)
   so lands in NCHW. No epilogue; the whole depth is summed in one block, as
   for agl_kernel_gemm_u8s8_requantize (plain loops where that cannot
   be). */
void agl_kernel_gemm_u8s8_transposed(
    int64_t batch, int64_t m, int64_t n, int64_t k, const uint8_t *a,
    int64_t a_batch_stride, int64_t a_row_stride, int32_t a_zero_point,
    const void *packed_b, int32_t *c, int64_t c_batch_stride,
    int64_t c_col_stride, const agl_gemm_blocking *blocking);

#ifdef __cplusplus
}
#endif

#endif /* AUTOGLM_KERNELS_INT8_H */
