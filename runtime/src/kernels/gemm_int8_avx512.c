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
 * transposed in registers as the float kernel's are (avx512_tiles.h). The
 * depth loop is avx512_depth_loop.h's. */
#include "int8_internal.h"

#include "avx512_depth_loop.h"
#include "int8_store_avx512.h"

#include <immintrin.h>
#include <string.h>

enum { MR = AGL_S8_MR };

/* How many depth quads ahead (2 KiB) the micro-kernel prefetches B: the
 * first row panel of a block reads each B panel from L3 or memory. On the
 * 128-row products of the GLM layer with 3072 columns (3 MiB of weights),
 * 790-815 GOP/s without, 820-850 with (32 or 64 ahead: no better). */
enum { B_PREFETCH = 16 };

static inline __attribute__((always_inline)) void kernel_rows(
    const int R, int64_t kq, const uint8_t *ap, int64_t lda, const int8_t *bp,
    int cols, void *c, int64_t ldc, const agl_s8_epilogue *e,
    void (*depth_loop)(int64_t, const void *, int64_t, int64_t, const void *,
                       int64_t, int64_t, const void *, int64_t, void *)) {
  /* Row i's quad r at ap + i * a_row + r * a_quad. */
  const int64_t a_row = lda ? lda : 4, a_quad = lda ? 4 : AGL_S8_QUAD_BYTES;
  int32_t *c32 = c;
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    _mm_prefetch((const char *)(c32 + i * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c32 + i * ldc + 31), _MM_HINT_T0);
  }
  __m512i acc[MR][2];
  /* The tile's share of the next block of B: one prefetch per quad step,
   * spread evenly over the lines (each line several steps running). */
  const void *next = bp;
  int64_t next_step = 0;
  if (e->prefetch && kq > 0) {
    next = e->prefetch;
    next_step = agl_ceil_div(e->prefetch_lines * 64, kq);
  }
  depth_loop(kq, ap, a_row, a_quad, bp, 128, B_PREFETCH * 128, next, next_step,
             acc);
  agl_s8_store_avx512(R, acc, cols, c, ldc, e);
}

#define KERNEL_ROWS(R)                                                         \
  AGL_AVX512_DEPTH_LOOP(depth_loop_##R, R)                                     \
  static void kernel_##R(int64_t kq, const uint8_t *ap, int64_t lda,           \
                         const int8_t *bp, int cols, void *c, int64_t ldc,     \
                         const agl_s8_epilogue *e) {                           \
    kernel_rows(R, kq, ap, lda, bp, cols, c, ldc, e, depth_loop_##R);          \
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
