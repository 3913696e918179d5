/* The AVX-512 VNNI micro-kernel of agl_kernel_gemm_u8s8. This file is
 * compiled with AVX-512 and VNNI enabled; nothing in it runs unless the CPU
 * has them (gemm_int8.c checks).
 *
 * 14 rows x 32 columns = 28 int32 accumulators. Per depth quad: the two
 * 64-byte B vectors (columns 0-15 and 16-31, 4 depths per column), and per
 * row 4 bytes of A broadcast to every lane and two vpdpbusd (u8 x s8
 * products of the 4 depths summed into int32, not saturating: 4 * 255 * 128
 * fits). That is 28 dot products for 2 vector and 14 broadcast loads, as in
 * the float kernel (sgemm_avx512.c), with 4 depths per instruction. For a C
 * stored transposed (a convolution's NCHW) the tile's int32 sums are
 * transposed in registers as the float kernel's are (avx512_tiles.h). */
#include "int8_internal.h"

#include "avx512_tiles.h"

#include <immintrin.h>
#include <string.h>

enum { MR = AGL_S8_MR };

/* How many depth quads ahead (2 KiB) the micro-kernel prefetches B: the
 * first row panel of a block reads each B panel from L3 or memory. On the
 * 128-row products of the GLM layer with 3072 columns (3 MiB of weights),
 * 790-815 GOP/s without, 820-850 with (32 or 64 ahead: no better). */
enum { B_PREFETCH = 16 };

/* agl_quantize_u8 of 16 floats, as int32 in 0..255 (vmaxps returns its
 * second operand for NaN: 0). */
static inline __attribute__((always_inline)) __m512i
quantize16(__m512 y, __m512 scale, __m512 zero_point) {
  __m512 q = _mm512_roundscale_ps(_mm512_div_ps(y, scale),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  q = _mm512_max_ps(_mm512_add_ps(q, zero_point), _mm512_setzero_ps());
  q = _mm512_min_ps(q, _mm512_set1_ps(255.0f));
  return _mm512_cvtps_epi32(q);
}

static inline __attribute__((always_inline)) void
kernel_rows(const int R, int64_t kq, const uint8_t *ap, int64_t lda,
            const int8_t *bp, int cols, void *c, int64_t ldc,
            const agl_s8_epilogue *e) {
  /* Row i's quad r at ap + i * a_row + r * a_quad. */
  const int64_t a_row = lda ? lda : 4, a_quad = lda ? 4 : AGL_S8_QUAD_BYTES;
  int32_t *c32 = c;
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    _mm_prefetch((const char *)(c32 + i * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c32 + i * ldc + 31), _MM_HINT_T0);
  }
  /* Named accumulators and the dot product in inline assembly (updating
   * its accumulator in place): with an array and the intrinsic, GCC 12
   * copied and spilled the accumulators every step, at less than half the
   * speed. */
#define DPBUSD(acc, x, b)                                                      \
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(b))
#define ACC_DECLARE(i)                                                         \
  __m512i acc##i##_0 = _mm512_setzero_si512(),                                 \
          acc##i##_1 = _mm512_setzero_si512();
#define ACC_STEP(i)                                                            \
  if (R > i) {                                                                 \
    int32_t quad;                                                              \
    memcpy(&quad, ap + i * a_row, 4);                                          \
    __m512i x = _mm512_set1_epi32(quad);                                       \
    DPBUSD(acc##i##_0, x, b0);                                                 \
    DPBUSD(acc##i##_1, x, b1);                                                 \
  }
#define ACC_SAVE(i)                                                            \
  if (R > i) {                                                                 \
    acc[i][0] = acc##i##_0;                                                    \
    acc[i][1] = acc##i##_1;                                                    \
  }
#define ROWS(op)                                                               \
  op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10) op(11)    \
      op(12) op(13)
  ROWS(ACC_DECLARE)
  for (int64_t r = 0; r < kq; ++r) {
    /* Unaligned loads: a packed B may sit anywhere. */
    __m512i b0 = _mm512_loadu_si512(bp);
    __m512i b1 = _mm512_loadu_si512(bp + 64);
    _mm_prefetch((const char *)(bp + B_PREFETCH * 128), _MM_HINT_T0);
    _mm_prefetch((const char *)(bp + B_PREFETCH * 128 + 64), _MM_HINT_T0);
    ROWS(ACC_STEP)
    ap += a_quad;
    bp += 128;
  }
  __m512i acc[MR][2];
  ROWS(ACC_SAVE)
#undef DPBUSD
#undef ACC_DECLARE
#undef ACC_STEP
#undef ACC_SAVE
#undef ROWS

  const __mmask16 m0 = agl_lanes16(cols), m1 = agl_lanes16(cols - 16);
  if (e->load) {
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      const int32_t *row = c32 + i * ldc;
      acc[i][0] =
          _mm512_add_epi32(acc[i][0], _mm512_maskz_loadu_epi32(m0, row));
      acc[i][1] =
          _mm512_add_epi32(acc[i][1], _mm512_maskz_loadu_epi32(m1, row + 16));
    }
  }
  /* The zero point's term, exact in int32, with the last block. */
  __m512i z0 = _mm512_setzero_si512(), z1 = _mm512_setzero_si512();
  if (e->last && e->zero_point) {
    __m512i zp = _mm512_set1_epi32(e->zero_point);
    z0 = _mm512_mullo_epi32(zp, _mm512_loadu_si512(e->colsum));
    z1 = _mm512_mullo_epi32(zp, _mm512_loadu_si512(e->colsum + 64));
  }
  if (e->transposed) {
    /* Each 16 columns transposed in registers (bit for bit: shuffles
     * only), every column's R sums in one masked store. */
    const __mmask16 live = agl_lanes(R);
    for (int h = 0; h < 2 && 16 * h < cols; ++h) {
      const __m512i z = h ? z1 : z0;
      __m512 r[16];
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i)
        r[i] = i < R ? _mm512_castsi512_ps(_mm512_sub_epi32(acc[i][h], z))
                     : _mm512_setzero_ps();
      agl_transpose16(r);
      const int n = cols - 16 * h < 16 ? cols - 16 * h : 16;
      for (int j = 0; j < n; ++j)
        _mm512_mask_storeu_epi32(c32 + (16 * h + j) * ldc, live,
                                 _mm512_castps_si512(r[j]));
    }
    return;
  }
  if (!e->last || !e->scale) {
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      int32_t *row = c32 + i * ldc;
      _mm512_mask_storeu_epi32(row, m0, _mm512_sub_epi32(acc[i][0], z0));
      _mm512_mask_storeu_epi32(row + 16, m1, _mm512_sub_epi32(acc[i][1], z1));
    }
    return;
  }

  /* The float epilogue, with alpha * scale[j] as one factor per column. */
  const __m512 alpha = _mm512_set1_ps(e->alpha);
  const __m512 s0 = _mm512_mul_ps(alpha, _mm512_maskz_loadu_ps(m0, e->scale));
  const __m512 s1 =
      _mm512_mul_ps(alpha, _mm512_maskz_loadu_ps(m1, e->scale + 16));
  __m512 bias0 = _mm512_setzero_ps(), bias1 = _mm512_setzero_ps();
  if (e->bias) {
    bias0 = _mm512_maskz_loadu_ps(m0, e->bias);
    bias1 = _mm512_maskz_loadu_ps(m1, e->bias + 16);
  }
  const int act = e->act;
  const float *residual = e->residual;
  float *cf = c;
  uint8_t *cq = c;
  const __m512 out_scale = _mm512_set1_ps(e->out_scale);
  const __m512 out_zero = _mm512_set1_ps((float)e->out_zero_point);
  /* Four rows at a time from dequantization to store, so that only their
   * eight vectors and the activation's temporaries are live besides the
   * accumulators still waiting. */
#pragma GCC unroll 4
  for (int i0 = 0; i0 < R; i0 += 4) {
    const int rows = R - i0 < 4 ? R - i0 : 4;
    __m512 v[4][2];
#pragma GCC unroll 4
    for (int r = 0; r < rows; ++r) {
      v[r][0] = _mm512_fmadd_ps(
          _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[i0 + r][0], z0)), s0, bias0);
      v[r][1] = _mm512_fmadd_ps(
          _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[i0 + r][1], z1)), s1, bias1);
    }
    agl_activate512_n(v[0], 2 * rows, act);
#pragma GCC unroll 4
    for (int r = 0; r < rows; ++r) {
      const int i = i0 + r;
      __m512 v0 = v[r][0], v1 = v[r][1];
      if (residual) {
        const float *res = residual + i * e->res_rs;
        v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, res));
        v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, res + 16));
      }
      if (e->quantize) {
        uint8_t *row = cq + i * ldc;
        _mm512_mask_cvtepi32_storeu_epi8(row, m0,
                                         quantize16(v0, out_scale, out_zero));
        _mm512_mask_cvtepi32_storeu_epi8(row + 16, m1,
                                         quantize16(v1, out_scale, out_zero));
        continue;
      }
      float *row = cf + i * ldc;
      _mm512_mask_storeu_ps(row, m0, v0);
      _mm512_mask_storeu_ps(row + 16, m1, v1);
    }
  }
}

#define KERNEL_ROWS(R)                                                         \
  static void kernel_##R(int64_t kq, const uint8_t *ap, int64_t lda,           \
                         const int8_t *bp, int cols, void *c, int64_t ldc,     \
                         const agl_s8_epilogue *e) {                           \
    kernel_rows(R, kq, ap, lda, bp, cols, c, ldc, e);                          \
  }
KERNEL_ROWS(1)
KERNEL_ROWS(2)
KERNEL_ROWS(3)
KERNEL_ROWS(4)
KERNEL_ROWS(5)
KERNEL_ROWS(6)
KERNEL_ROWS(7)
KERNEL_ROWS(8)
KERNEL_ROWS(9)
KERNEL_ROWS(10)
KERNEL_ROWS(11)
KERNEL_ROWS(12)
KERNEL_ROWS(13)
KERNEL_ROWS(14)

typedef void (*rows_fn)(int64_t, const uint8_t *, int64_t, const int8_t *, int,
                        void *, int64_t, const agl_s8_epilogue *);
/* The kernel for each row count: the last panel of a block computes only
 * its live rows. */
static const rows_fn kernels[MR + 1] = {
    NULL,      kernel_1,  kernel_2,  kernel_3,  kernel_4,
    kernel_5,  kernel_6,  kernel_7,  kernel_8,  kernel_9,
    kernel_10, kernel_11, kernel_12, kernel_13, kernel_14};

void agl_s8_kernel_avx512(int64_t kq, const uint8_t *ap, int64_t lda,
                          const int8_t *bp, int rows, int cols, void *c,
                          int64_t ldc, const agl_s8_epilogue *e) {
  kernels[rows](kq, ap, lda, bp, cols, c, ldc, e);
}
