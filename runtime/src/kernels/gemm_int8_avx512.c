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

#include "int8_store_avx512.h"

#include <immintrin.h>
#include <string.h>

enum { MR = AGL_S8_MR };

/* How many depth quads ahead (2 KiB) the micro-kernel prefetches B: the
 * first row panel of a block reads each B panel from L3 or memory. On the
 * 128-row products of the GLM layer with 3072 columns (3 MiB of weights),
 * 790-815 GOP/s without, 820-850 with (32 or 64 ahead: no better). */
enum { B_PREFETCH = 16 };

/* Row i's quad: bases a0 (rows 0-4), a5 (rows 5-9) and a10 (rows 10-13)
 * plus 0, 1, 2, 3 or 4 row strides (l, l3 = 3 l, and scales 1, 2, 4): a
 * panel's rows in place (l = lda) and packed (l = 4) alike, with seven
 * general registers however many rows. */
#define ROW_ADDR_0 "(%[a0])"
#define ROW_ADDR_1 "(%[a0],%[l],1)"
#define ROW_ADDR_2 "(%[a0],%[l],2)"
#define ROW_ADDR_3 "(%[a0],%[l3],1)"
#define ROW_ADDR_4 "(%[a0],%[l],4)"
#define ROW_ADDR_5 "(%[a5])"
#define ROW_ADDR_6 "(%[a5],%[l],1)"
#define ROW_ADDR_7 "(%[a5],%[l],2)"
#define ROW_ADDR_8 "(%[a5],%[l3],1)"
#define ROW_ADDR_9 "(%[a5],%[l],4)"
#define ROW_ADDR_10 "(%[a10])"
#define ROW_ADDR_11 "(%[a10],%[l],1)"
#define ROW_ADDR_12 "(%[a10],%[l],2)"
#define ROW_ADDR_13 "(%[a10],%[l3],1)"

/* Row i's accumulators are zmm(2i) and zmm(2i+1); B's two vectors zmm28
 * and zmm29; A's broadcast quads alternate between zmm30 and zmm31. */
#define ROW_STEP(addr, c0, c1, x)                                              \
  "vpbroadcastd " addr ", %%zmm" x "\n\t"                                      \
  "vpdpbusd %%zmm28, %%zmm" x ", %%zmm" c0 "\n\t"                              \
  "vpdpbusd %%zmm29, %%zmm" x ", %%zmm" c1 "\n\t"
#define ROW_ZERO(c0, c1)                                                       \
  "vpxord %%zmm" c0 ", %%zmm" c0 ", %%zmm" c0 "\n\t"                           \
  "vpxord %%zmm" c1 ", %%zmm" c1 ", %%zmm" c1 "\n\t"
#define ROW_SAVE(c0, c1, off0, off1)                                           \
  "vmovdqu64 %%zmm" c0 ", " off0 "(%[acc])\n\t"                                \
  "vmovdqu64 %%zmm" c1 ", " off1 "(%[acc])\n\t"

#define ROW(OP, i, c0, c1, x, off0, off1) OP(i, c0, c1, x, off0, off1)
#define STEP_OP(i, c0, c1, x, o0, o1) ROW_STEP(ROW_ADDR_##i, c0, c1, x)
#define ZERO_OP(i, c0, c1, x, o0, o1) ROW_ZERO(c0, c1)
#define SAVE_OP(i, c0, c1, x, o0, o1) ROW_SAVE(c0, c1, o0, o1)

/* Rows 0..R-1 of an operation, R = 1..14. */
#define ROWS_1(OP) ROW(OP, 0, "0", "1", "30", "0", "64")
#define ROWS_2(OP) ROWS_1(OP) ROW(OP, 1, "2", "3", "31", "128", "192")
#define ROWS_3(OP) ROWS_2(OP) ROW(OP, 2, "4", "5", "30", "256", "320")
#define ROWS_4(OP) ROWS_3(OP) ROW(OP, 3, "6", "7", "31", "384", "448")
#define ROWS_5(OP) ROWS_4(OP) ROW(OP, 4, "8", "9", "30", "512", "576")
#define ROWS_6(OP) ROWS_5(OP) ROW(OP, 5, "10", "11", "31", "640", "704")
#define ROWS_7(OP) ROWS_6(OP) ROW(OP, 6, "12", "13", "30", "768", "832")
#define ROWS_8(OP) ROWS_7(OP) ROW(OP, 7, "14", "15", "31", "896", "960")
#define ROWS_9(OP) ROWS_8(OP) ROW(OP, 8, "16", "17", "30", "1024", "1088")
#define ROWS_10(OP) ROWS_9(OP) ROW(OP, 9, "18", "19", "31", "1152", "1216")
#define ROWS_11(OP) ROWS_10(OP) ROW(OP, 10, "20", "21", "30", "1280", "1344")
#define ROWS_12(OP) ROWS_11(OP) ROW(OP, 11, "22", "23", "31", "1408", "1472")
#define ROWS_13(OP) ROWS_12(OP) ROW(OP, 12, "24", "25", "30", "1536", "1600")
#define ROWS_14(OP) ROWS_13(OP) ROW(OP, 13, "26", "27", "31", "1664", "1728")

/* The depth loop of R rows in assembly, its accumulators in fixed
 * registers: written with intrinsics, GCC 12 kept neither the accumulators
 * nor the 14 row addresses in registers (it copied accumulators through a
 * spare register and reloaded row offsets from the stack every quad, extra
 * uops on the ports vpdpbusd runs on), at about 70% of the VNNI peak. */
#define DEPTH_LOOP(R)                                                          \
  static void depth_loop_##R(int64_t kq, const uint8_t *a0, int64_t l,         \
                             int64_t step, const int8_t *bp,                   \
                             __m512i acc[][2]) {                               \
    const uint8_t *a5 = a0 + 5 * l, *a10 = a0 + 10 * l;                        \
    const int64_t l3 = 3 * l;                                                  \
    __asm__ volatile(                                                          \
        ROWS_##R(ZERO_OP)                                                      \
        "test %[kq], %[kq]\n\t"                                                \
        "jle 2f\n\t"                                                           \
        ".p2align 5\n"                                                         \
        "1:\n\t"                                                               \
        "vmovdqu64 (%[b]), %%zmm28\n\t"                                        \
        "vmovdqu64 64(%[b]), %%zmm29\n\t"                                      \
        "prefetcht0 %c[ahead](%[b])\n\t"                                       \
        "prefetcht0 %c[ahead]+64(%[b])\n\t"                                    \
        ROWS_##R(STEP_OP)                                                      \
        "add %[step], %[a0]\n\t"                                               \
        "add %[step], %[a5]\n\t"                                               \
        "add %[step], %[a10]\n\t"                                              \
        "sub $-128, %[b]\n\t"                                                  \
        "dec %[kq]\n\t"                                                        \
        "jnz 1b\n"                                                             \
        "2:\n\t"                                                               \
        ROWS_##R(SAVE_OP)                                                      \
        : [kq] "+r"(kq), [a0] "+r"(a0), [a5] "+r"(a5), [a10] "+r"(a10),        \
          [b] "+r"(bp)                                                         \
        : [l] "r"(l), [l3] "r"(l3), [step] "r"(step), [acc] "r"(acc),          \
          [ahead] "i"(B_PREFETCH * 128)                                        \
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",      \
          "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",  \
          "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",       \
          "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",       \
          "xmm28", "xmm29", "xmm30", "xmm31");                                 \
  }
DEPTH_LOOP(1)
DEPTH_LOOP(2)
DEPTH_LOOP(3)
DEPTH_LOOP(4)
DEPTH_LOOP(5)
DEPTH_LOOP(6)
DEPTH_LOOP(7)
DEPTH_LOOP(8)
DEPTH_LOOP(9)
DEPTH_LOOP(10)
DEPTH_LOOP(11)
DEPTH_LOOP(12)
DEPTH_LOOP(13)
DEPTH_LOOP(14)

static inline __attribute__((always_inline)) void
kernel_rows(const int R, int64_t kq, const uint8_t *ap, int64_t lda,
            const int8_t *bp, int cols, void *c, int64_t ldc,
            const agl_s8_epilogue *e,
            void (*depth_loop)(int64_t, const uint8_t *, int64_t, int64_t,
                               const int8_t *, __m512i[][2])) {
  /* Row i's quad r at ap + i * a_row + r * a_quad. */
  const int64_t a_row = lda ? lda : 4, a_quad = lda ? 4 : AGL_S8_QUAD_BYTES;
  int32_t *c32 = c;
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    _mm_prefetch((const char *)(c32 + i * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c32 + i * ldc + 31), _MM_HINT_T0);
  }
  __m512i acc[MR][2];
  depth_loop(kq, ap, a_row, a_quad, bp, acc);
  agl_s8_store_avx512(R, acc, cols, c, ldc, e);
}

#define KERNEL_ROWS(R)                                                         \
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
