/* AutoGLM runtime kernels: matrix products with B stored in fewer bits than
 * float32: weight-only quantized to 8 or 4 bits (agl_kernel_sgemm_q8/_q4),
 * or rounded to a 16-bit float, bfloat16 or IEEE half (agl_kernel_sgemm_bf16,
 * agl_kernel_sgemm_f16, at the end of this file).
 *
 * For decoding with large language models, the time of a matrix product with
 * a weight is the time to read the weight. These kernels take B (k x n, the
 * weight) quantized to 8 or 4 bits with one float scale per group of
 * `group_size` depths and per column (symmetric, no zero point), and A and C
 * in float32. They dequantize B inside their inner loops and accumulate in
 * float32:
 *   C[b,i,j] = act((accumulate ? C[b,i,j] : 0)
 *                  + alpha * sum_p A[b,i,p] * scale[p / group_size][j] * q[p][j]
 *                  + (bias ? bias[j] : 0))
 *              + (residual ? residual[b * residual_batch_stride
 *                                     + i * residual_row_stride + j] : 0)
 * with the epilogue (alpha, bias, activation, residual or gate) of
 * agl_kernel_sgemm_packed, applied while the tile is in registers.
 *
 * The layout is defined here, with the functions that compute it, so that
 * the compiler (which quantizes weights when it compiles a model), the
 * runtime and tests share one definition. B has n columns, n a multiple of
 * AGL_QUANT_NR (32), in panels of 32 columns, one after the other, each
 * agl_quant_panel_bytes(k, bits, group_size) bytes (a multiple of 64). A
 * panel holds its groups of depths in order; group g (depths g*group_size ..
 * min(k, (g+1)*group_size) - 1) is
 *   - 32 float scales, one per column of the panel (128 bytes), then
 *   - bits 8: one row of 32 int8 values per depth (byte t: column t);
 *   - bits 4: per block of 8 depths, 128 bytes: for each half of the panel
 *     (columns 0-15, then 16-31) 16 little-endian 32-bit words, word t
 *     holding column t of the half at the block's 8 depths, depth r in bits
 *     4r..4r+3, as the offset-binary value q + 8 (0..15, for q in -8..7).
 *     (The kernels turn a nibble into a float with one bitwise operation,
 *     see sgemm_quant_avx512.c.)
 * The last group's depths are padded to a multiple of 4 (8 bits) or 8
 * (4 bits) with zero weights. group_size is a positive multiple of 32, so
 * every group starts 64-byte aligned when the panel does; a depth takes 32
 * bytes (8 bits) or 16 (4 bits) either way.
 */
#ifndef AUTOGLM_KERNELS_QUANT_H
#define AUTOGLM_KERNELS_QUANT_H

#include "autoglm/kernels.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AGL_QUANT_NR 32

/* Bytes of one quantized row of a panel (32 columns). */
static inline int64_t agl_quant_row_bytes(int bits) {
  return bits == 4 ? 16 : 32;
}

/* Bytes of group g's block (scales and rows) of a panel, for every group
 * but the last. */
static inline int64_t agl_quant_group_bytes(int bits, int64_t group_size) {
  return 32 * (int64_t)sizeof(float) + group_size * agl_quant_row_bytes(bits);
}

/* Bytes of one panel of 32 columns, k depths deep. */
static inline int64_t agl_quant_panel_bytes(int64_t k, int bits,
                                            int64_t group_size) {
  int64_t groups = (k + group_size - 1) / group_size;
  int64_t rows = bits == 4 ? (k + 7) / 8 * 8 : (k + 3) / 4 * 4;
  return groups * 32 * (int64_t)sizeof(float) +
         rows * agl_quant_row_bytes(bits);
}

/* Bytes of a quantized k x n weight (n a multiple of 32). */
static inline int64_t agl_quant_weight_bytes(int64_t k, int64_t n, int bits,
                                             int64_t group_size) {
  return n / AGL_QUANT_NR * agl_quant_panel_bytes(k, bits, group_size);
}

/* Byte offset, from the first depth of its group, of the 4-bit value of
 * depth p (counted in the group) and column t of a panel: the low nibble
 * for even p, the high one for odd p. */
static inline int64_t agl_quant_nibble_offset(int64_t p, int t) {
  return p / 8 * 128 + t / 16 * 64 + (t % 16) * 4 + (p % 8) / 2;
}

/* The scale of one column's group of `rows` weights w[p * stride], as
 * agl_quantize_b chooses it: 8 bits, max|w| / 127; 4 bits, among
 * max|w| / 7 * (1, 0.97, ..., 0.76) and max|w| / 8, the one that gives the
 * least squared error with q = clamp(round(w / scale), -8, 7). 0 for an
 * all-zero group. */
static inline float agl_quant_scale(const float *w, int64_t rows,
                                    int64_t stride, int bits) {
  float amax = 0.0f;
  for (int64_t p = 0; p < rows; ++p) {
    float x = fabsf(w[p * stride]);
    amax = x > amax ? x : amax;
  }
  if (amax == 0.0f)
    return 0.0f;
  if (bits == 8)
    return amax / 127.0f;
  float scale = 0.0f;
  double best = -1.0;
  for (int c = 0; c <= 8; ++c) {
    float s = c == 8 ? amax / 8.0f : amax / 7.0f * (1.0f - 0.03f * c);
    double err = 0.0;
    for (int64_t p = 0; p < rows; ++p) {
      float v = roundf(w[p * stride] / s);
      v = v < -8.0f ? -8.0f : v > 7.0f ? 7.0f : v;
      double d = (double)w[p * stride] - (double)(v * s);
      err += d * d;
    }
    if (best < 0.0 || err < best) {
      best = err;
      scale = s;
    }
  }
  return scale;
}

/* Weight w quantized with a nonzero `scale`: -127..127 (8 bits) or -8..7. */
static inline int agl_quant_value(float w, float scale, int bits) {
  float v = roundf(w / scale);
  int lo = bits == 8 ? -127 : -8, hi = bits == 8 ? 127 : 7;
  return v < (float)lo ? lo : v > (float)hi ? hi : (int)v;
}

/* Quantizes B (k x n, element (p, j) at b[p * b_rs + j * b_cs], n a
 * multiple of 32) into `out` (agl_quant_weight_bytes bytes), per column and
 * group with agl_quant_scale and agl_quant_value. Deterministic: the
 * compiler and the tests produce the same bytes. */
static inline void agl_quantize_b(const float *b, int64_t k, int64_t n,
                                  int64_t b_rs, int64_t b_cs, int bits,
                                  int64_t group_size, void *out) {
  const int64_t panel_bytes = agl_quant_panel_bytes(k, bits, group_size);
  const int64_t group_bytes = agl_quant_group_bytes(bits, group_size);
  const int64_t row_bytes = agl_quant_row_bytes(bits);
  unsigned char *base = (unsigned char *)out;
  memset(out, 0, (size_t)agl_quant_weight_bytes(k, n, bits, group_size));
  for (int64_t panel = 0; panel < n / AGL_QUANT_NR; ++panel) {
    unsigned char *pb = base + panel * panel_bytes;
    for (int64_t g0 = 0, g = 0; g0 < k; g0 += group_size, ++g) {
      int64_t rows = k - g0 < group_size ? k - g0 : group_size;
      unsigned char *block = pb + g * group_bytes;
      unsigned char *q = block + 32 * sizeof(float);
      if (bits == 4) /* q = 0 (nibble 8) everywhere, the padding included */
        memset(q, 0x88, (size_t)((rows + 7) / 8 * 8 * row_bytes));
      for (int t = 0; t < AGL_QUANT_NR; ++t) {
        const float *w = b + (panel * AGL_QUANT_NR + t) * b_cs + g0 * b_rs;
        float scale = agl_quant_scale(w, rows, b_rs, bits);
        memcpy(block + t * sizeof(float), &scale, sizeof(float));
        if (scale == 0.0f)
          continue;
        for (int64_t p = 0; p < rows; ++p) {
          int iv = agl_quant_value(w[p * b_rs], scale, bits);
          if (bits == 8) {
            q[p * row_bytes + t] = (unsigned char)(signed char)iv;
          } else {
            unsigned char *byte = q + agl_quant_nibble_offset(p, t);
            int shift = (int)(p % 2) * 4;
            *byte = (unsigned char)((*byte & ~(0x0F << shift)) |
                                    ((iv + 8) << shift));
          }
        }
      }
    }
  }
}

/* The GPU's layout of a quantized B (--target=cuda): column j of B is row
 * j of `q`, its k depths in order, k a multiple of 2: bits 8, k bytes per
 * row (int8 q); bits 4, k / 2 bytes, depth 2i in the low nibble of byte i
 * and depth 2i + 1 in the high one, as the offset-binary q + 8. `scales`
 * is n x ceil(k / group_size) floats, row j holding column j's scales.
 * The values are agl_quantize_b's, for any n. */
static inline void agl_quantize_rows(const float *b, int64_t k, int64_t n,
                                     int64_t b_rs, int64_t b_cs, int bits,
                                     int64_t group_size, void *q,
                                     float *scales) {
  const int64_t groups = (k + group_size - 1) / group_size;
  const int64_t row_bytes = bits == 8 ? k : k / 2;
  for (int64_t j = 0; j < n; ++j) {
    unsigned char *row = (unsigned char *)q + j * row_bytes;
    if (bits == 4) /* q = 0 (nibble 8) where a group's scale is 0 */
      memset(row, 0x88, (size_t)row_bytes);
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t g0 = g * group_size;
      const int64_t rows = k - g0 < group_size ? k - g0 : group_size;
      const float *w = b + j * b_cs + g0 * b_rs;
      float scale = agl_quant_scale(w, rows, b_rs, bits);
      scales[j * groups + g] = scale;
      for (int64_t p = 0; p < rows; ++p) {
        int iv = scale == 0.0f ? 0 : agl_quant_value(w[p * b_rs], scale, bits);
        int64_t depth = g0 + p;
        if (bits == 8) {
          row[depth] = (unsigned char)(signed char)iv;
        } else {
          int shift = (int)(depth % 2) * 4;
          unsigned char *byte = row + depth / 2;
          *byte =
              (unsigned char)((*byte & ~(0x0F << shift)) | ((iv + 8) << shift));
        }
      }
    }
  }
}

/* Weight (p, j) of a quantized B, as the kernels compute it. */
static inline float agl_quant_weight_at(const void *quantized_b, int64_t k,
                                        int bits, int64_t group_size,
                                        int64_t p, int64_t j) {
  const unsigned char *block =
      (const unsigned char *)quantized_b +
      j / AGL_QUANT_NR * agl_quant_panel_bytes(k, bits, group_size) +
      p / group_size * agl_quant_group_bytes(bits, group_size);
  int t = (int)(j % AGL_QUANT_NR);
  float scale;
  memcpy(&scale, block + t * sizeof(float), sizeof(float));
  const unsigned char *row = block + 32 * sizeof(float) +
                             p % group_size * agl_quant_row_bytes(bits);
  int q;
  if (bits == 8) {
    q = (signed char)row[t];
  } else {
    const unsigned char *byte = block + 32 * sizeof(float) +
                                agl_quant_nibble_offset(p % group_size, t);
    q = ((*byte >> (p % 2 * 4)) & 0x0F) - 8;
  }
  return scale * (float)q;
}

/* The product with B quantized to 8 (q8) or 4 (q4) bits in the layout
 * above (n a multiple of 32; group_size a positive multiple of 32; shared by
 * every batch entry). A, C, the strides and the epilogue (accumulate,
 * alpha, bias, activation, residual and its strides) are as for
 * agl_kernel_sgemm_packed, in the same order. Decode steps (m <= 4) stream the quantized
 * panels once and dequantize them in registers; larger m dequantizes each
 * block of B into the packing memory once and runs the packed GEMM's
 * micro-kernel on it (`blocking` as for agl_kernel_sgemm, null: the cost
 * model). Threads split the columns (and, for few columns, the rows). */
void agl_kernel_sgemm_q8(int64_t batch, int64_t m, int64_t n, int64_t k,
                         const float *a, int64_t a_batch_stride,
                         int64_t a_row_stride, int64_t a_col_stride,
                         const void *quantized_b, int64_t group_size,
                         float *c, int64_t c_batch_stride,
                         int64_t c_row_stride, int32_t accumulate,
                         float alpha, const float *bias, int32_t activation,
                         const float *residual,
                         int64_t residual_batch_stride,
                         int64_t residual_row_stride,
                         const agl_gemm_blocking *blocking);
void agl_kernel_sgemm_q4(int64_t batch, int64_t m, int64_t n, int64_t k,
                         const float *a, int64_t a_batch_stride,
                         int64_t a_row_stride, int64_t a_col_stride,
                         const void *quantized_b, int64_t group_size,
                         float *c, int64_t c_batch_stride,
                         int64_t c_row_stride, int32_t accumulate,
                         float alpha, const float *bias, int32_t activation,
                         const float *residual,
                         int64_t residual_batch_stride,
                         int64_t residual_row_stride,
                         const agl_gemm_blocking *blocking);

/* ---- 16-bit float weights: bfloat16 and IEEE half --------------------------
 *
 * B (k x n, the weight) rounded to a 16-bit float, A and C in float32. The
 * kernels widen B to float32 in registers and accumulate in float32, so only
 * the weights' rounding separates their results from the float GEMM's.
 * Decode steps read half the bytes of the float weights. Two formats:
 *  - bfloat16 (AGL_W16_BF16, agl_kernel_sgemm_bf16): the upper 16 bits of a
 *    float32 (its sign, exponent and 7 of its 23 mantissa bits); the float
 *    range, a relative rounding error of at most 2^-8;
 *  - IEEE binary16 (AGL_W16_F16, agl_kernel_sgemm_f16): 5 exponent bits and
 *    10 mantissa bits; a relative rounding error of at most 2^-11 for
 *    magnitudes from 2^-14 (6.1e-5) to 65504, an absolute one of at most
 *    2^-25 below (subnormals). Finite values beyond 65504 saturate to
 *    +-65504 (so a weight never becomes an infinity); infinities and NaN
 *    stay. Widened with vcvtph2ps (F16C, on every AVX-512 CPU): no half
 *    arithmetic is needed.
 *
 * Both share one layout, agl_kernel_sgemm_packed's in 16 bits: panels of
 * AGL_W16_NR (32) columns, one after the other, each k rows of 64 bytes
 * (a multiple of 64 per panel); columns past n, in the last panel, are zero.
 * Row p of a panel is 16 little-endian 32-bit words, word t holding column t
 * of the panel in its low half and column t + 16 in its high half, so that
 * one 64-byte load gives both halves of a bfloat16 row as floats with one
 * shift (x << 16) and one mask (x & 0xFFFF0000), no shuffle (a half row
 * converts each 32-byte half with vcvtph2ps and the kernels put the columns
 * back in order once per tile, see sgemm_quant_avx512.c). */
#define AGL_W16_NR 32

/* The 16-bit float formats. */
typedef enum agl_w16_format {
  AGL_W16_BF16 = 0,
  AGL_W16_F16 = 1
} agl_w16_format;

/* float32 to bfloat16, rounded to nearest, ties to even; NaN stays a
 * (quiet) NaN, finite values beyond the largest bfloat16 become infinities. */
static inline uint16_t agl_bf16_from_float(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return (uint16_t)((bits >> 16) | 0x0040u);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

static inline float agl_float_from_bf16(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* float32 to IEEE binary16, rounded to nearest, ties to even (subnormal
 * results too); finite values that would round beyond 65504 saturate to
 * +-65504; infinities stay, NaN stays a (quiet) NaN. */
static inline uint16_t agl_f16_from_float(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  const uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  const uint32_t mag = bits & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) /* NaN: quiet, the payload's top bits kept */
    return (uint16_t)(sign | 0x7E00u | ((mag >> 13) & 0x03FFu));
  if (mag == 0x7F800000u)
    return (uint16_t)(sign | 0x7C00u);
  if (mag >= 0x477FF000u) /* rounds to 65520 or more: saturate */
    return (uint16_t)(sign | 0x7BFFu);
  if (mag < 0x38800000u) {
    /* Below 2^-14: a subnormal half (or zero), m * 2^-24 with m rounded to
     * nearest, ties to even, in integers: m = mantissa (with its implicit
     * bit) >> shift. */
    if (mag < 0x33000000u) /* at most 2^-25 (half of 2^-24): to zero */
      return sign;
    const uint32_t e = mag >> 23; /* 102..112 */
    const uint32_t mant = (mag & 0x007FFFFFu) | 0x00800000u;
    const uint32_t shift = 126 - e; /* 14..24 */
    uint32_t m = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (m & 1u)))
      ++m; /* may carry into the smallest normal, 0x0400: still right */
    return (uint16_t)(sign | m);
  }
  /* Normal: rebias the exponent (127 - 15) and round the 13 dropped bits
   * to nearest, ties to even; a carry into the exponent is right too. */
  const uint32_t rounded = mag - (112u << 23) + 0x0FFFu + ((mag >> 13) & 1u);
  return (uint16_t)(sign | (rounded >> 13));
}

/* IEEE binary16 to float32, exactly (subnormals, infinities, NaN too). */
static inline float agl_float_from_f16(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu;
  uint32_t m = h & 0x03FFu;
  uint32_t bits;
  if (e == 0x1Fu) /* infinity, NaN */
    bits = sign | 0x7F800000u | (m << 13);
  else if (e != 0)
    bits = sign | ((e + 112u) << 23) | (m << 13);
  else if (m == 0)
    bits = sign;
  else { /* subnormal m * 2^-24: normalize the mantissa */
    uint32_t shift = 0;
    while (!(m & 0x0400u)) {
      m <<= 1;
      ++shift;
    }
    bits = sign | ((113u - shift) << 23) | ((m & 0x03FFu) << 13);
  }
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* float32 to the 16-bit format, and back. */
static inline uint16_t agl_w16_from_float(agl_w16_format format, float x) {
  return format == AGL_W16_F16 ? agl_f16_from_float(x)
                               : agl_bf16_from_float(x);
}

static inline float agl_float_from_w16(agl_w16_format format, uint16_t h) {
  return format == AGL_W16_F16 ? agl_float_from_f16(h)
                               : agl_float_from_bf16(h);
}

/* Bytes of a k x n 16-bit weight: whole panels of 32 columns. */
static inline int64_t agl_w16_weight_bytes(int64_t k, int64_t n) {
  return (n + AGL_W16_NR - 1) / AGL_W16_NR * k * AGL_W16_NR * 2;
}

/* Index, in 16-bit units, of weight (p, j) in the layout. */
static inline int64_t agl_w16_index(int64_t k, int64_t p, int64_t j) {
  int64_t t = j % AGL_W16_NR;
  return j / AGL_W16_NR * k * AGL_W16_NR + p * AGL_W16_NR + t % 16 * 2 +
         t / 16;
}

/* Rounds B (k x n, element (p, j) at b[p * b_rs + j * b_cs]) to `format`
 * into `out` (agl_w16_weight_bytes bytes) in the layout above.
 * Deterministic: the compiler and the tests produce the same bytes. */
static inline void agl_pack_b_w16(agl_w16_format format, const float *b,
                                  int64_t k, int64_t n, int64_t b_rs,
                                  int64_t b_cs, void *out) {
  uint16_t *h = (uint16_t *)out;
  memset(out, 0, (size_t)agl_w16_weight_bytes(k, n));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      h[agl_w16_index(k, p, j)] =
          agl_w16_from_float(format, b[p * b_rs + j * b_cs]);
}

/* Weight (p, j) of a 16-bit B, as the kernels compute with it. */
static inline float agl_w16_weight_at(agl_w16_format format,
                                      const void *packed_b, int64_t k,
                                      int64_t p, int64_t j) {
  uint16_t h;
  memcpy(&h, (const unsigned char *)packed_b + 2 * agl_w16_index(k, p, j),
         sizeof h);
  return agl_float_from_w16(format, h);
}

/* The products with B in bfloat16 / IEEE half, in the layout above (any
 * n; shared by every batch entry). The arguments are
 * agl_kernel_sgemm_packed's, in the same order, with the 16-bit B in place
 * of the packed float one. Decode steps (m <= 4) stream the panels once and
 * widen them in registers; larger m widens each block of B into the packing
 * memory once and runs the packed GEMM's micro-kernel on it (`blocking` as
 * for agl_kernel_sgemm, null: the cost model). Threads split the columns
 * (and, for few columns, the rows); each element of C is summed in the same
 * order at any thread count. */
void agl_kernel_sgemm_bf16(int64_t batch, int64_t m, int64_t n, int64_t k,
                           const float *a, int64_t a_batch_stride,
                           int64_t a_row_stride, int64_t a_col_stride,
                           const void *packed_b, float *c,
                           int64_t c_batch_stride, int64_t c_row_stride,
                           int32_t accumulate, float alpha,
                           const float *bias, int32_t activation,
                           const float *residual,
                           int64_t residual_batch_stride,
                           int64_t residual_row_stride,
                           const agl_gemm_blocking *blocking);
void agl_kernel_sgemm_f16(int64_t batch, int64_t m, int64_t n, int64_t k,
                          const float *a, int64_t a_batch_stride,
                          int64_t a_row_stride, int64_t a_col_stride,
                          const void *packed_b, float *c,
                          int64_t c_batch_stride, int64_t c_row_stride,
                          int32_t accumulate, float alpha,
                          const float *bias, int32_t activation,
                          const float *residual,
                          int64_t residual_batch_stride,
                          int64_t residual_row_stride,
                          const agl_gemm_blocking *blocking);

#ifdef __cplusplus
}
#endif

#endif /* AUTOGLM_KERNELS_QUANT_H */
