/* The AVX-512 packed-GEMM kernel table: a 14 x 32 micro-kernel and packing
 * routines. This file is compiled with AVX-512 enabled; nothing in it runs
 * unless the CPU has it (agl_gemm_select checks).
 *
 * Micro-kernel: 14 rows x 2 zmm columns = 28 accumulators, plus the two B
 * vectors of the current depth; A's values come in as broadcast loads,
 * each used by two FMAs. Per depth step: 2 vector loads and 14 broadcast
 * loads for 28 FMAs, so the FMA pipes, not the loads, bound it. (The
 * depth loop in assembly, as the int8 kernel has it, avx512_depth_loop.h,
 * measured no faster on a Xeon without AMX: 146-147 GFLOP/s either way at
 * 1024^3 and 2048^3, one thread.) */
#include "kernels_internal.h"

#include "avx512_tiles.h"

#include <immintrin.h>

enum { MR = AGL_TILE_ROWS, NR = 32 };
_Static_assert((int)MR <= (int)AGL_GEMM_MAX_MR && (int)NR <= (int)AGL_GEMM_MAX_NR,
               "the largest micro-tile bounds this one");
/* How many depths ahead packing prefetches a row-contiguous source. */
enum { PREFETCH_ROWS = 6 };
/* How many depths ahead (8 KiB) the micro-kernel prefetches B. Weights
 * packed ahead of time are read straight from memory by the first tile of
 * each panel; without it the MLP's products (128 x 3072 x 768, 9 MiB of
 * weights each) ran at 150-175 GFLOP/s on Zen 5, with it at 205-210
 * (16 depths ahead: 190-205; 128: slower again). */
enum { B_PREFETCH = 64 };

/* The micro-kernel for R live rows (R <= MR: a block's panels have balanced
 * heights; padding rows of a panel are not computed) and VECS vectors of
 * columns (1 when nr <= 16: the second one would only be discarded).
 * TRANS: C transposed (kernel_t). */
static inline __attribute__((always_inline)) void
kernel_rows(const int R, const int DIRECT, const int TRANS, const int VECS,
            int64_t kc, const float *ap, int64_t lda, const float *bp,
            int64_t ldb, float *c, int64_t ldc, int nr, const agl_epilogue *e) {
  __m512 acc[MR][2];
#pragma GCC unroll 14
  for (int i = 0; i < R; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  if (TRANS) {
    for (int j = 0; j < nr; ++j) {
      __builtin_prefetch(c + j * ldc, 1, 3);
      __builtin_prefetch(c + j * ldc + R - 1, 1, 3);
    }
  } else {
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
      _mm_prefetch((const char *)(c + i * ldc + 31), _MM_HINT_T0);
    }
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
    _mm_prefetch((const char *)(bp + B_PREFETCH * ldb), _MM_HINT_T0);
    if (VECS > 1)
      _mm_prefetch((const char *)(bp + B_PREFETCH * ldb + 16), _MM_HINT_T0);
    /* Unaligned loads: B panels packed ahead of time may sit anywhere. */
    __m512 b0 = _mm512_loadu_ps(bp);
    __m512 b1 = VECS > 1 ? _mm512_loadu_ps(bp + 16) : _mm512_setzero_ps();
#pragma GCC unroll 14
    for (int i = 0; i < R; ++i) {
      __m512 a = _mm512_set1_ps(DIRECT ? ap[i * lda] : ap[i]);
      acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
      if (VECS > 1)
        acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
    }
    ap += DIRECT ? 1 : MR;
    bp += ldb;
  }
  if (TRANS) {
    agl_store_transposed(R, VECS, acc, c, ldc, nr, e);
    return;
  }
  __mmask16 m0 = agl_lanes(nr), m1 = agl_lanes(nr - 16);
  const int load_c = e->load_c, act = e->act, scaled = e->alpha != 1.0f;
  const float *residual = e->residual;
  const int gated = residual && e->gated;
  const int first = e->residual_first && !gated;
  const __m512 alpha = _mm512_set1_ps(e->alpha);
  /* The bias runs along the columns: one vector pair for every row. */
  __m512 bias0 = _mm512_setzero_ps(), bias1 = _mm512_setzero_ps();
  if (e->bias) {
    bias0 = _mm512_maskz_loadu_ps(m0, e->bias);
    bias1 = _mm512_maskz_loadu_ps(m1, e->bias + 16);
  }
  /* Four rows at a time from the accumulators to the store, so that only
   * their eight vectors and the activation's temporaries are live besides
   * the accumulators still waiting (all 28 at once spilled to the stack). */
#pragma GCC unroll 4
  for (int i0 = 0; i0 < R; i0 += 4) {
    const int rows = R - i0 < 4 ? R - i0 : 4;
    __m512 v[4][2], r[4][2];
#pragma GCC unroll 4
    for (int q = 0; q < rows; ++q)
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const int i = i0 + q;
        const __mmask16 m = h ? m1 : m0;
        __m512 x = acc[i][h];
        if (scaled)
          x = _mm512_mul_ps(x, alpha);
        if (load_c)
          x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, c + i * ldc + 16 * h));
        if (e->bias)
          x = _mm512_add_ps(x, h ? bias1 : bias0);
        r[q][h] =
            residual
                ? _mm512_maskz_loadu_ps(m, residual + i * e->res_rs + 16 * h)
                : _mm512_setzero_ps();
        v[q][h] = residual && first ? _mm512_add_ps(x, r[q][h]) : x;
      }
    if (act != AGL_ACT_NONE)
      agl_activate512_n(v[0], 2 * rows, act);
    if (gated && e->gate_act != AGL_ACT_NONE)
      agl_activate512_n(r[0], 2 * rows, e->gate_act);
#pragma GCC unroll 4
    for (int q = 0; q < rows; ++q)
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        __m512 x = v[q][h];
        if (gated)
          x = _mm512_mul_ps(x, r[q][h]);
        else if (residual && !first)
          x = _mm512_add_ps(x, r[q][h]);
        _mm512_mask_storeu_ps(c + (i0 + q) * ldc + 16 * h, h ? m1 : m0, x);
      }
  }
}

#define KERNEL_ROWS(R)                                                         \
  static void kernel_##R(int64_t kc, const float *ap, int64_t lda,             \
                         const float *bp, int64_t ldb, float *c, int64_t ldc,  \
                         int nr, const agl_epilogue *e) {                      \
    if (lda && nr > 16)                                                        \
      kernel_rows(R, 1, 0, 2, kc, ap, lda, bp, ldb, c, ldc, nr, e);            \
    else if (lda)                                                              \
      kernel_rows(R, 1, 0, 1, kc, ap, lda, bp, ldb, c, ldc, nr, e);            \
    else if (nr > 16)                                                          \
      kernel_rows(R, 0, 0, 2, kc, ap, 0, bp, ldb, c, ldc, nr, e);              \
    else                                                                       \
      kernel_rows(R, 0, 0, 1, kc, ap, 0, bp, ldb, c, ldc, nr, e);              \
  }                                                                            \
  static void kernel_t_##R(int64_t kc, const float *ap, int64_t lda,           \
                           const float *bp, int64_t ldb, float *c,             \
                           int64_t ldc, int nr, const agl_epilogue *e) {       \
    (void)lda;                                                                 \
    if (nr > 16)                                                               \
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
KERNEL_ROWS(7)
KERNEL_ROWS(8)
KERNEL_ROWS(9)
KERNEL_ROWS(10)
KERNEL_ROWS(11)
KERNEL_ROWS(12)
KERNEL_ROWS(13)
KERNEL_ROWS(14)

typedef void (*rows_fn)(int64_t, const float *, int64_t, const float *, int64_t,
                        float *, int64_t, int, const agl_epilogue *);
static const rows_fn kernels_by_rows[MR + 1] = {
    NULL,      kernel_1,  kernel_2,  kernel_3,  kernel_4,
    kernel_5,  kernel_6,  kernel_7,  kernel_8,  kernel_9,
    kernel_10, kernel_11, kernel_12, kernel_13, kernel_14,
};
static const rows_fn transposed_kernels_by_rows[MR + 1] = {
    NULL,        kernel_t_1,  kernel_t_2,  kernel_t_3,  kernel_t_4,
    kernel_t_5,  kernel_t_6,  kernel_t_7,  kernel_t_8,  kernel_t_9,
    kernel_t_10, kernel_t_11, kernel_t_12, kernel_t_13, kernel_t_14,
};
_Static_assert(MR == 14, "one kernel per row count");

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

/* Depth-contiguous source (src.cs == 1): 16 x 16 blocks are transposed in
 * registers, so that every load and store is a vector. */
static void pack_transposing(agl_view src, int64_t rows, int64_t kc, int r,
                             float *dst) {
  for (int64_t q = 0; q < rows; q += r) {
    int live = rows - q < r ? (int)(rows - q) : r;
    const float *base = src.data + q * src.rs;
    for (int g = 0; g < r; g += 16) {
      int width = r - g < 16 ? r - g : 16; /* lanes stored per depth */
      __mmask16 out_mask = agl_lanes(width);
      for (int64_t p = 0; p < kc; p += 16) {
        int depth = kc - p < 16 ? (int)(kc - p) : 16;
        __mmask16 in_mask = agl_lanes(depth);
        __m512 v[16];
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) {
          v[i] = g + i < live ? _mm512_maskz_loadu_ps(
                                    in_mask, base + (g + i) * src.rs + p)
                              : _mm512_setzero_ps();
        }
        agl_transpose16(v);
        float *out = dst + p * r + g;
        for (int d = 0; d < depth; ++d)
          _mm512_mask_storeu_ps(out + d * r, out_mask, v[d]);
      }
    }
    dst += kc * r;
  }
}

/* Row-contiguous source (src.rs == 1): each depth is a contiguous run,
 * read whole (for all panels) before the next depth, so that the reads
 * stream. */
static void pack_copying(agl_view src, int64_t rows, int64_t kc, int r,
                         float *dst) {
  int64_t full = rows / r; /* panels without padding */
  for (int64_t p = 0; p < kc; ++p) {
    const float *s = src.data + p * src.cs;
    float *d = dst + p * r;
    /* B often comes from memory: ask for rows a few depths ahead. */
    const float *ahead = s + PREFETCH_ROWS * src.cs;
    if (r == 32) {
      for (int64_t q = 0; q < full; ++q) {
        _mm_prefetch((const char *)(ahead + q * r), _MM_HINT_T0);
        _mm_prefetch((const char *)(ahead + q * r + 16), _MM_HINT_T0);
        _mm512_storeu_ps(d + q * kc * r, _mm512_loadu_ps(s + q * r));
        _mm512_storeu_ps(d + q * kc * r + 16, _mm512_loadu_ps(s + q * r + 16));
      }
    } else {
      for (int64_t q = 0; q < full; ++q)
        for (int g = 0; g < r; g += 16)
          _mm512_mask_storeu_ps(d + q * kc * r + g, agl_lanes(r - g),
                                _mm512_maskz_loadu_ps(agl_lanes(r - g),
                                                      s + q * r + g));
    }
    if (full * r < rows) {
      int live = (int)(rows - full * r);
      for (int g = 0; g < r; g += 16)
        _mm512_mask_storeu_ps(d + full * kc * r + g, agl_lanes(r - g),
                              _mm512_maskz_loadu_ps(agl_lanes(live - g),
                                                    s + full * r + g));
    }
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

const agl_gemm_isa agl_gemm_avx512 = {
    "avx512", MR, NR, 1, kernel, kernel_t, pack, pack, agl_small_avx512,
    agl_small_packed_avx512,
};
