/* The AMX micro-kernel of agl_kernel_gemm_u8s8. This file is compiled with
 * AMX (tile, int8) and AVX-512 enabled; nothing in it runs unless the CPU
 * has them and the kernel let this process use the tile registers
 * (agl_s8_amx_usable, gemm_int8.c).
 *
 * 32 rows x 32 columns of C in four 16 x 16 int32 tiles (tmm0-3). Per 16
 * depth quads (64 bytes of a row): two A tiles of 16 rows x 64 bytes
 * (tmm4-5, read where A's rows are, stride lda) and the B panel's two
 * column halves (tmm6-7: row r of a tile is quad r's 16 columns x 4 depths,
 * 64 bytes, exactly the packed layout's half-quads, 128 bytes apart), then
 * four tdpbusd (u8 x s8 in groups of 4 summed into int32, not saturating,
 * as vpdpbusd). The tiles' rows are the tile's live rows, set per call in
 * the tile configuration, so a short panel reads no row past A's. A depth
 * block whose quads are not a multiple of 16 ends with its last quads
 * copied into zeroed staging tiles. The sums go through memory to the
 * AVX-512 epilogue (int8_store_avx512.h), 16 rows at a time. The tile
 * configuration is loaded only when the row count changes, and released
 * when a thread's share of a product ends. */
#define _GNU_SOURCE /* syscall(SYS_arch_prctl) */
#include "int8_internal.h"

#include "int8_store_avx512.h"

#include <immintrin.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* GCC's tile intrinsics pass only the address to their assembly, not the
 * memory behind it: a compiler barrier orders the stores to a staging
 * buffer before the tile loads that read it, and the tile stores before
 * the loads that read their results. */
#define MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

/* The tile configuration's memory layout (palette 1). */
typedef struct tile_config {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} tile_config;

/* The tile registers (numbers: the intrinsics spell them into the
 * instruction). */
#define C00 0
#define C01 1
#define C10 2
#define C11 3
#define A0 4
#define A1 5
#define B0 6
#define B1 7

/* The row count the tiles are configured for on this thread, 0 where they
 * are not (the configuration zeroes the tiles, and reading it back with
 * sttilecfg before every call cost 15% on short depth blocks). Only this
 * file's kernel configures tiles, and it releases them when a thread's
 * share of a product ends (agl_s8_amx_release). */
static _Thread_local int t_configured_rows;

/* Configures the tiles for a tile of `rows` rows, unless they are. */
static void configure(int rows) {
  if (t_configured_rows == rows)
    return;
  const int top = rows < 16 ? rows : 16, bottom = rows - top;
  _Alignas(64) tile_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  const uint8_t tile_rows[8] = {(uint8_t)top,
                                (uint8_t)top,
                                (uint8_t)bottom,
                                (uint8_t)bottom,
                                (uint8_t)top,
                                (uint8_t)bottom,
                                16,
                                16};
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = tile_rows[t];
    cfg.colsb[t] = tile_rows[t] ? 64 : 0;
  }
  MEMORY_BARRIER();
  _tile_loadconfig(&cfg);
  t_configured_rows = rows;
}

void agl_s8_amx_release(void) {
  _tile_release();
  t_configured_rows = 0;
}

/* How many quads ahead `accumulate` prefetches B (two steps: 4 KiB, past
 * the block's end the next panel's first quads): a tile load is 16 lines
 * that nothing fetches ahead of it. Measured on a Sapphire Rapids class
 * Xeon (autoglm-int8-kernel-bench, one thread, calls alternating with and
 * without, in busy minutes): 2048^3 17-50% faster, the 128-row prefill
 * products 0-17%; in one quiet round 2048^3 ran 2% slower. */
enum { B_PREFETCH_QUADS = 32 };

/* The sums of kq quads: 16 at a time from A (rows lda bytes apart) and B
 * (128 bytes per quad), B's lines `B_PREFETCH_QUADS` ahead requested with
 * `prefetch`. `two`: the tile has rows past 16. */
static inline __attribute__((always_inline)) void
accumulate(const int two, const int prefetch, int64_t kq, const uint8_t *ap,
           int64_t lda, const int8_t *bp) {
  for (int64_t r = 0; r < kq; r += 16) {
    if (prefetch) {
      const char *ahead = (const char *)(bp + (r + B_PREFETCH_QUADS) * 128);
      for (int line = 0; line < 16 * 128 / 64; ++line)
        _mm_prefetch(ahead + 64 * line, _MM_HINT_T0);
    }
    _tile_loadd(B0, bp + r * 128, 128);
    _tile_loadd(B1, bp + r * 128 + 64, 128);
    _tile_loadd(A0, ap + 4 * r, lda);
    _tile_dpbusd(C00, A0, B0);
    _tile_dpbusd(C01, A0, B1);
    if (two) {
      _tile_loadd(A1, ap + 16 * lda + 4 * r, lda);
      _tile_dpbusd(C10, A1, B0);
      _tile_dpbusd(C11, A1, B1);
    }
  }
}

/* The epilogue of 1..16 rows, each count compiled on its own (known at
 * compile time, the rows' vectors stay in registers). */
typedef void (*store_fn)(__m512i acc[][2], int cols, void *c, int64_t ldc,
                         const agl_s8_epilogue *e);
#define STORE_ROWS(R)                                                          \
  static void store_##R(__m512i acc[][2], int cols, void *c, int64_t ldc,      \
                        const agl_s8_epilogue *e) {                            \
    agl_s8_store_avx512(R, acc, cols, c, ldc, e);                              \
  }
STORE_ROWS(1)
STORE_ROWS(2)
STORE_ROWS(3)
STORE_ROWS(4)
STORE_ROWS(5)
STORE_ROWS(6)
STORE_ROWS(7)
STORE_ROWS(8)
STORE_ROWS(9)
STORE_ROWS(10)
STORE_ROWS(11)
STORE_ROWS(12)
STORE_ROWS(13)
STORE_ROWS(14)
STORE_ROWS(15)
STORE_ROWS(16)
static const store_fn store_rows[17] = {
    NULL,     store_1,  store_2,  store_3,  store_4,  store_5,
    store_6,  store_7,  store_8,  store_9,  store_10, store_11,
    store_12, store_13, store_14, store_15, store_16};

void agl_s8_kernel_amx(int64_t kq, const uint8_t *ap, int64_t lda,
                       const int8_t *bp, int rows, int cols, void *c,
                       int64_t ldc, const agl_s8_epilogue *e) {
  const int two = rows > 16;
  configure(rows);
  _tile_zero(C00);
  _tile_zero(C01);
  if (two) {
    _tile_zero(C10);
    _tile_zero(C11);
  }
  const int64_t whole = kq / 16 * 16;
  if (two)
    accumulate(1, 1, whole, ap, lda, bp);
  else
    accumulate(0, 1, whole, ap, lda, bp);
  if (whole < kq) {
    /* The last quads, zero past them: zero bytes of A meet the zero rows
     * of B, and nothing past the block is read. */
    const int64_t tail = kq - whole;
    _Alignas(64) uint8_t a_tail[32][64];
    _Alignas(64) int8_t b_tail[16][128];
    memset(a_tail, 0, sizeof a_tail);
    memset(b_tail, 0, sizeof b_tail);
    for (int i = 0; i < rows; ++i)
      memcpy(a_tail[i], ap + i * lda + 4 * whole, (size_t)(4 * tail));
    memcpy(b_tail, bp + whole * 128, (size_t)(128 * tail));
    MEMORY_BARRIER();
    if (two)
      accumulate(1, 0, 16, &a_tail[0][0], 64, &b_tail[0][0]);
    else
      accumulate(0, 0, 16, &a_tail[0][0], 64, &b_tail[0][0]);
  }
  /* acc[i][h]: row i's columns 16h..16h+15. */
  __m512i acc[32][2];
  _tile_stored(C00, &acc[0][0], 128);
  _tile_stored(C01, &acc[0][1], 128);
  if (two) {
    _tile_stored(C10, &acc[16][0], 128);
    _tile_stored(C11, &acc[16][1], 128);
  }
  MEMORY_BARRIER();
  store_rows[rows < 16 ? rows : 16](acc, cols, c, ldc, e);
  if (two) {
    /* The bottom rows: 16 rows down in C and the residual (16 columns
     * along with C transposed). */
    agl_s8_epilogue bottom = *e;
    if (bottom.residual)
      bottom.residual += 16 * e->res_rs;
    const int64_t skip = e->transposed ? 16 : 16 * ldc;
    unsigned char *c16 = (unsigned char *)c + skip * (e->quantize ? 1 : 4);
    store_rows[rows - 16](acc + 16, cols, c16, ldc, &bottom);
  }
}

/* XFEATURE_XTILEDATA's permission request (arch/x86/include/uapi/asm/
 * prctl.h): Linux gives a process the tile registers' state only when it
 * asks. */
enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };

int agl_s8_amx_usable(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512vl"))
    return 0;
  unsigned eax, ebx, ecx, edx;
  __asm__("cpuid"
          : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx)
          : "a"(7), "c"(0));
  const unsigned amx_tile = 1u << 24, amx_int8 = 1u << 25;
  if ((edx & (amx_tile | amx_int8)) != (amx_tile | amx_int8))
    return 0;
  return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
}
