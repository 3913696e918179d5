/* The AVX2 packed-GEMM kernel table, for x86 CPUs with AVX2 and FMA but no
 * AVX-512 (AMD Zen 1-3, most Intel client parts): a 6 x 16 micro-kernel
 * and packing routines. This file is compiled with -mavx2 -mfma; nothing in
 * it runs unless the CPU has both (agl_gemm_select checks).
 *
 * Micro-kernel: 6 rows x 2 ymm columns = 12 accumulators, plus the two B
 * vectors of the current depth and one broadcast of A: 15 of the 16 ymm
 * registers. Per depth step: 2 vector loads and 6 broadcasts for 12 FMAs.
 * Its panels are 16 columns wide, half of the ahead-of-time packing's 32:
 * the driver repacks those panels per block (sgemm.c). */
#include "kernels_internal.h"

#include "avx2_tiles.h"

#include <immintrin.h>

enum { MR = 6, NR = 16 };
_Static_assert((int)MR <= (int)AGL_GEMM_MAX_MR &&
                   (int)NR <= (int)AGL_GEMM_MAX_NR,
               "the largest micro-tile bounds this one");
_Static_assert((int)MR == (int)AGL_AVX2_TILE_ROWS, "avx2_tiles.h's tile");
_Static_assert(AGL_SGEMM_PACKED_NR % NR == 0,
               "the ahead-of-time panels split into this kernel's");

/* Writes the tile's R x nr accumulators to C through the epilogue; TRANS:
 * C transposed (avx2_tiles.h). Kept out of line: inlined, it crowds the
 * product's loop into spilling an accumulator. */
static __attribute__((noinline)) void store_tile(int R, int TRANS,
                                                 const __m256 acc[MR][2],
                                                 float *c, int64_t ldc, int nr,
                                                 const agl_epilogue *e) {
  if (TRANS) {
    agl_store_transposed256(R, acc, c, ldc, nr, e);
    return;
  }
  for (int i = 0; i < R; ++i) {
    agl_store_epilogue256(acc[i][0], c + i * ldc, 1, nr, e, i, 0, 0, 1);
    if (nr > 8)
      agl_store_epilogue256(acc[i][1], c + i * ldc + 8, 1, nr - 8, e, i, 8, 0,
                            1);
  }
}

/* The micro-kernel for R live rows and VECS vectors of columns (1 when
 * nr <= 8). DIRECT: A's rows read in place, lda apart. */
static AGL_ALWAYS_INLINE void
kernel_rows(const int R, const int DIRECT, const int TRANS, const int VECS,
            int64_t kc, const float *ap, int64_t lda, const float *bp,
            int64_t ldb, float *c, int64_t ldc, int nr, const agl_epilogue *e) {
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  const char *next = e->prefetch;
  int64_t next_left = e->prefetch_lines;
  const int64_t next_mask = agl_prefetch_spacing(next_left, kc) - 1;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    if (next_left > 0 && (p & next_mask) == 0) {
      _mm_prefetch(next, _MM_HINT_T1);
      next += 64;
      --next_left;
    }
    __m256 b0 = _mm256_loadu_ps(bp);
    __m256 b1 = VECS > 1 ? _mm256_loadu_ps(bp + 8) : _mm256_setzero_ps();
#pragma GCC unroll 6
    for (int i = 0; i < R; ++i) {
      __m256 a = _mm256_broadcast_ss(DIRECT ? ap + i * lda : ap + i);
      acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
      if (VECS > 1)
        acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
    }
    ap += DIRECT ? 1 : MR;
    bp += ldb;
  }
  /* A copy for store_tile: were acc's address taken, the loop would keep
   * it in memory. */
  __m256 tile[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i) {
    tile[i][0] = acc[i][0];
    tile[i][1] = acc[i][1];
  }
  store_tile(R, TRANS, (const __m256(*)[2])tile, c, ldc, nr, e);
}

#define KERNEL_ROWS(R)                                                         \
  static void kernel_##R(int64_t kc, const float *ap, int64_t lda,             \
                         const float *bp, int64_t ldb, float *c, int64_t ldc,  \
                         int nr, const agl_epilogue *e) {                      \
    if (lda && nr > 8)                                                         \
      kernel_rows(R, 1, 0, 2, kc, ap, lda, bp, ldb, c, ldc, nr, e);            \
    else if (lda)                                                              \
      kernel_rows(R, 1, 0, 1, kc, ap, lda, bp, ldb, c, ldc, nr, e);            \
    else if (nr > 8)                                                           \
      kernel_rows(R, 0, 0, 2, kc, ap, 0, bp, ldb, c, ldc, nr, e);              \
    else                                                                       \
      kernel_rows(R, 0, 0, 1, kc, ap, 0, bp, ldb, c, ldc, nr, e);              \
  }                                                                            \
  static void kernel_t_##R(int64_t kc, const float *ap, int64_t lda,           \
                           const float *bp, int64_t ldb, float *c,             \
                           int64_t ldc, int nr, const agl_epilogue *e) {       \
    (void)lda;                                                                 \
    if (nr > 8)                                                                \
      kernel_rows(R, 0, 1, 2, kc, ap, 0, bp, ldb, c, ldc, nr, e);              \
    else                                                                       \
      kernel_rows(R, 0, 1, 1, kc, ap, 0, bp, ldb, c, ldc, nr, e);              \
  }
KERNEL_ROWS(1)
KERNEL_ROWS(2)
KERNEL_ROWS(3)
KERNEL_ROWS(4)
KERNEL_ROWS(5)
KERNEL_ROWS(6)

typedef void (*rows_fn)(int64_t, const float *, int64_t, const float *, int64_t,
                        float *, int64_t, int, const agl_epilogue *);
static const rows_fn kernels_by_rows[MR + 1] = {
    NULL, kernel_1, kernel_2, kernel_3, kernel_4, kernel_5, kernel_6,
};
static const rows_fn transposed_kernels_by_rows[MR + 1] = {
    NULL,       kernel_t_1, kernel_t_2, kernel_t_3,
    kernel_t_4, kernel_t_5, kernel_t_6,
};
_Static_assert(MR == 6, "one kernel per row count");

static void kernel(int64_t kc, const float *ap, int64_t lda, const float *bp,
                   int64_t ldb, float *c, int64_t ldc, int mr, int nr,
                   const agl_epilogue *e) {
  kernels_by_rows[mr](kc, ap, lda, bp, ldb, c, ldc, nr, e);
}

static void kernel_t(int64_t kc, const float *ap, int64_t lda, const float *bp,
                     int64_t ldb, float *c, int64_t ldc, int mr, int nr,
                     const agl_epilogue *e) {
  transposed_kernels_by_rows[mr](kc, ap, lda, bp, ldb, c, ldc, nr, e);
}

/* Depth-contiguous source (src.cs == 1): 8 x 8 blocks are transposed in
 * registers, so that every load and store is a vector. */
static void pack_transposing(agl_view src, int64_t rows, int64_t kc, int r,
                             float *dst) {
  for (int64_t q = 0; q < rows; q += r) {
    int live = rows - q < r ? (int)(rows - q) : r;
    const float *base = src.data + q * src.rs;
    for (int g = 0; g < r; g += 8) {
      int width = r - g < 8 ? r - g : 8; /* lanes stored per depth */
      for (int64_t p = 0; p < kc; p += 8) {
        int64_t depth = kc - p < 8 ? kc - p : 8;
        __m256 v[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i)
          v[i] = g + i < live
                     ? agl_load_lanes256(base + (g + i) * src.rs + p, depth)
                     : _mm256_setzero_ps();
        agl_transpose8(v);
        float *out = dst + p * r + g;
        for (int64_t d = 0; d < depth; ++d)
          agl_store_lanes256(out + d * r, v[d], width);
      }
    }
    dst += kc * r;
  }
}

/* Row-contiguous source (src.rs == 1): each depth is a contiguous run. */
static void pack_copying(agl_view src, int64_t rows, int64_t kc, int r,
                         float *dst) {
  int64_t full = rows / r; /* panels without padding */
  int live = (int)(rows - full * r);
  for (int64_t p = 0; p < kc; ++p) {
    const float *s = src.data + p * src.cs;
    float *d = dst + p * r;
    for (int64_t q = 0; q < full; ++q)
      for (int g = 0; g < r; g += 8)
        agl_store_lanes256(d + q * kc * r + g,
                           agl_load_lanes256(s + q * r + g, r - g), r - g);
    if (live)
      for (int g = 0; g < r; g += 8)
        agl_store_lanes256(d + full * kc * r + g,
                           agl_load_lanes256(s + full * r + g, live - g),
                           r - g);
  }
}

static void pack(agl_view src, int64_t rows, int64_t kc, int r, float *dst) {
  if (src.rs == 1 || rows == 1)
    pack_copying((agl_view){src.data, 1, src.cs}, rows, kc, r, dst);
  else if (src.cs == 1)
    pack_transposing(src, rows, kc, r, dst);
  else
    agl_pack_strided(src, rows, kc, r, dst);
}

const agl_gemm_isa agl_gemm_avx2 = {
    "avx2", MR, NR, 1, kernel, kernel_t, pack, pack, agl_small_avx2, NULL,
};
