/* The depth loop of the AVX-512 VNNI micro-kernel (gemm_int8_avx512.c),
 * which broadcasts A and loads B, in assembly with its accumulators in fixed
 * registers. Written with intrinsics, GCC 12 kept neither the 28
 * accumulators nor the row addresses in registers: it copied accumulators
 * through a spare register and reloaded row offsets from the stack every
 * depth step, extra uops on the ports the dot products run on.
 * Included only by files compiled with AVX-512 enabled. Not installed.
 *
 * AGL_AVX512_DEPTH_LOOP(NAME, R) defines
 *
 *   static void NAME(int64_t steps, const void *a, int64_t a_row,
 *                    int64_t a_step, const void *b, int64_t b_step,
 *                    int64_t b_ahead, const void *next,
 *                    int64_t next_step, void *acc);
 *
 * which zeroes R (1..14) rows x 2 vectors of 16 int32 lanes, then for each
 * of `steps` depth steps loads B's two vectors (64 bytes each, at b and
 * b + 64), prefetches the lines b_ahead bytes further into the L1 and the
 * line at `next` into the L2 (next += next_step: the tile's share of the
 * next block of B, a line several steps running where next_step is under
 * 64; 0 and any address in cache where it has none), and for each row i
 * broadcasts the 4 bytes at a + i * a_row into every lane and adds their
 * products with each B vector (vpdpbusd: uint8 x int8, 4 depths per
 * lane); then a += a_step, b += b_step. At the end row i's vector h is
 * stored at acc + 128 i + 64 h (unaligned).
 *
 * Registers: row i's accumulators are zmm(2i) and zmm(2i+1), B's vectors
 * zmm28 and zmm29, the broadcasts alternate between zmm30 and zmm31. Row
 * addresses are three bases (rows 0-4, 5-9 and 10-13) plus 0 to 4 row
 * strides (a_row and 3 a_row, scaled by 1, 2 or 4): rows in place
 * (a_row = their stride) and packed panels (a_row = 4) alike. */
#ifndef AUTOGLM_AVX512_DEPTH_LOOP_H
#define AUTOGLM_AVX512_DEPTH_LOOP_H

#include <stdint.h>

#define AGL_DL_ADDR_0 "(%[a0])"
#define AGL_DL_ADDR_1 "(%[a0],%[l],1)"
#define AGL_DL_ADDR_2 "(%[a0],%[l],2)"
#define AGL_DL_ADDR_3 "(%[a0],%[l3],1)"
#define AGL_DL_ADDR_4 "(%[a0],%[l],4)"
#define AGL_DL_ADDR_5 "(%[a5])"
#define AGL_DL_ADDR_6 "(%[a5],%[l],1)"
#define AGL_DL_ADDR_7 "(%[a5],%[l],2)"
#define AGL_DL_ADDR_8 "(%[a5],%[l3],1)"
#define AGL_DL_ADDR_9 "(%[a5],%[l],4)"
#define AGL_DL_ADDR_10 "(%[a10])"
#define AGL_DL_ADDR_11 "(%[a10],%[l],1)"
#define AGL_DL_ADDR_12 "(%[a10],%[l],2)"
#define AGL_DL_ADDR_13 "(%[a10],%[l3],1)"

// clang-format off
#define AGL_DL_STEP(i, c0, c1, x, o0, o1)                                      \
  "vpbroadcastd " AGL_DL_ADDR_##i ", %%zmm" x "\n\t"                          \
  "vpdpbusd %%zmm28, %%zmm" x ", %%zmm" c0 "\n\t"                              \
  "vpdpbusd %%zmm29, %%zmm" x ", %%zmm" c1 "\n\t"
#define AGL_DL_ZERO(i, c0, c1, x, o0, o1)                                      \
  "vpxord %%zmm" c0 ", %%zmm" c0 ", %%zmm" c0 "\n\t"                           \
  "vpxord %%zmm" c1 ", %%zmm" c1 ", %%zmm" c1 "\n\t"
#define AGL_DL_SAVE(i, c0, c1, x, o0, o1)                                      \
  "vmovdqu64 %%zmm" c0 ", " o0 "(%[acc])\n\t"                                  \
  "vmovdqu64 %%zmm" c1 ", " o1 "(%[acc])\n\t"

/* Rows 0..R-1 of OP: row, accumulators, broadcast register, save
 * offsets. */
#define AGL_DL_ROWS_1(OP) OP(0, "0", "1", "30", "0", "64")
#define AGL_DL_ROWS_2(OP) AGL_DL_ROWS_1(OP) OP(1, "2", "3", "31", "128", "192")
#define AGL_DL_ROWS_3(OP) AGL_DL_ROWS_2(OP) OP(2, "4", "5", "30", "256", "320")
#define AGL_DL_ROWS_4(OP) AGL_DL_ROWS_3(OP) OP(3, "6", "7", "31", "384", "448")
#define AGL_DL_ROWS_5(OP) AGL_DL_ROWS_4(OP) OP(4, "8", "9", "30", "512", "576")
#define AGL_DL_ROWS_6(OP) AGL_DL_ROWS_5(OP) OP(5, "10", "11", "31", "640", "704")
#define AGL_DL_ROWS_7(OP) AGL_DL_ROWS_6(OP) OP(6, "12", "13", "30", "768", "832")
#define AGL_DL_ROWS_8(OP) AGL_DL_ROWS_7(OP) OP(7, "14", "15", "31", "896", "960")
#define AGL_DL_ROWS_9(OP) AGL_DL_ROWS_8(OP) OP(8, "16", "17", "30", "1024", "1088")
#define AGL_DL_ROWS_10(OP) AGL_DL_ROWS_9(OP) OP(9, "18", "19", "31", "1152", "1216")
#define AGL_DL_ROWS_11(OP) AGL_DL_ROWS_10(OP) OP(10, "20", "21", "30", "1280", "1344")
#define AGL_DL_ROWS_12(OP) AGL_DL_ROWS_11(OP) OP(11, "22", "23", "31", "1408", "1472")
#define AGL_DL_ROWS_13(OP) AGL_DL_ROWS_12(OP) OP(12, "24", "25", "30", "1536", "1600")
#define AGL_DL_ROWS_14(OP) AGL_DL_ROWS_13(OP) OP(13, "26", "27", "31", "1664", "1728")

#define AGL_AVX512_DEPTH_LOOP(NAME, R)                                         \
  static void NAME(int64_t steps, const void *a, int64_t a_row,                \
                   int64_t a_step, const void *b, int64_t b_step,              \
                   int64_t b_ahead, const void *next, int64_t next_step,       \
                   void *acc) {                                                \
    /* Addresses as integers: a5 and a10 lie past A when R is small. */        \
    uintptr_t a0 = (uintptr_t)a, a5 = a0 + 5 * a_row, a10 = a0 + 10 * a_row,   \
              bp = (uintptr_t)b, np = (uintptr_t)next;                         \
    const int64_t a_row3 = 3 * a_row;                                          \
    __asm__ volatile(                                                          \
        AGL_DL_ROWS_##R(AGL_DL_ZERO)                                           \
        "test %[steps], %[steps]\n\t"                                          \
        "jle 2f\n\t"                                                           \
        ".p2align 5\n"                                                         \
        "1:\n\t"                                                               \
        "vmovups (%[b]), %%zmm28\n\t"                                          \
        "vmovups 64(%[b]), %%zmm29\n\t"                                        \
        "prefetcht0 (%[b],%[ahead],1)\n\t"                                     \
        "prefetcht0 64(%[b],%[ahead],1)\n\t"                                   \
        "prefetcht1 (%[next])\n\t"                                             \
        "add %[next_step], %[next]\n\t"                                        \
        AGL_DL_ROWS_##R(AGL_DL_STEP)                                           \
        "add %[a_step], %[a0]\n\t"                                             \
        "add %[a_step], %[a5]\n\t"                                             \
        "add %[a_step], %[a10]\n\t"                                            \
        "add %[b_step], %[b]\n\t"                                              \
        "dec %[steps]\n\t"                                                     \
        "jnz 1b\n"                                                             \
        "2:\n\t"                                                               \
        AGL_DL_ROWS_##R(AGL_DL_SAVE)                                           \
        : [steps] "+r"(steps), [a0] "+r"(a0), [a5] "+r"(a5),                   \
          [a10] "+r"(a10), [b] "+r"(bp), [next] "+r"(np)                       \
        : [l] "r"(a_row), [l3] "r"(a_row3), [a_step] "r"(a_step),              \
          [b_step] "r"(b_step), [ahead] "r"(b_ahead),                          \
          [next_step] "r"(next_step), [acc] "r"(acc)                           \
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",      \
          "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",  \
          "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",       \
          "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",       \
          "xmm28", "xmm29", "xmm30", "xmm31");                                 \
  }
// clang-format on

#endif /* AUTOGLM_AVX512_DEPTH_LOOP_H */
