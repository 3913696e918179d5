/* The cache blocking of the packed GEMM (sgemm.c): a cost model that sizes
 * the blocks from this CPU's caches, and the fitting of any blocking, the
 * model's or a compiled model's tuned one, into the packing memory.
 *
 * The model, for an MR x NR micro-kernel on f32:
 *  - kc: one packed A micro-panel (MR x kc) takes two thirds of the L1d,
 *    leaving room for the B micro-panel streaming past it;
 *  - nc: the packed B block (kc x nc) takes three quarters of the L2, where
 *    it stays while every A micro-panel of the block passes;
 *  - mc: the packed A block (mc x kc) takes half of this core's share of the
 *    L3, as far as the packing memory holds it.
 * On Zen 4 (32 KiB L1d, 1 MiB L2) that is kc 384, nc 512, mc 1120: the
 * blocking measured best there. */
#include "kernels_internal.h"

#include <pthread.h>
#include <unistd.h>

static int64_t system_cache(int name) {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  long bytes = sysconf(name);
  return bytes > 0 ? bytes : 0;
#else
  (void)name;
  return 0;
#endif
}

void agl_cache_sizes(int64_t *l1d, int64_t *l2, int64_t *l3) {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  *l1d = system_cache(_SC_LEVEL1_DCACHE_SIZE);
  *l2 = system_cache(_SC_LEVEL2_CACHE_SIZE);
  *l3 = system_cache(_SC_LEVEL3_CACHE_SIZE);
#else
  *l1d = *l2 = *l3 = 0;
#endif
}

static int64_t round_down(int64_t x, int64_t step) {
  return x / step * step;
}

static int64_t round_up(int64_t x, int64_t step) {
  return (x + step - 1) / step * step;
}

/* The cache sizes the cost models use: the system's, or where it does not
 * say, those of the CPU the defaults were measured on. */
static void model_caches(int64_t *l1d, int64_t *l2, int64_t *l3) {
  agl_cache_sizes(l1d, l2, l3);
  if (*l1d <= 0)
    *l1d = 32 << 10;
  if (*l2 <= 0)
    *l2 = 1 << 20;
  if (*l3 <= 0)
    *l3 = 32 << 20;
}

static agl_block_sizes model_sizes(int mr, int nr) {
  int64_t l1d, l2, l3;
  model_caches(&l1d, &l2, &l3);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1)
    cores = 1;
  const int64_t f = (int64_t)sizeof(float);
  agl_block_sizes s;
  s.kc = round_down(l1d * 2 / 3 / (mr * f), 32);
  if (s.kc < 32)
    s.kc = 32;
  s.nc = round_down(l2 * 3 / 4 / (s.kc * f), nr);
  if (s.nc < nr)
    s.nc = nr;
  s.mc = round_down(l3 / cores / 2 / (s.kc * f), mr);
  if (s.mc < mr)
    s.mc = mr;
  return s;
}

/* The model's sizes for each kernel table, computed once: reading the
 * cache sizes may take CPUID instructions, which trap in virtual machines. */
static const agl_gemm_isa *const g_tables[] = {
    &agl_gemm_portable,
#if defined(AGL_HAVE_AVX2_KERNELS)
    &agl_gemm_avx2,
#endif
#if defined(AGL_HAVE_AVX512_KERNELS)
    &agl_gemm_avx512,
#endif
};
enum { TABLES = sizeof g_tables / sizeof g_tables[0] };
static agl_block_sizes g_sizes[TABLES];
static int64_t g_l2_bytes, g_system_l2_bytes;
static pthread_once_t g_model_once = PTHREAD_ONCE_INIT;

static void compute_model(void) {
  for (int t = 0; t < TABLES; ++t)
    g_sizes[t] = model_sizes(g_tables[t]->mr, g_tables[t]->nr);
  int64_t l1d, l3;
  agl_cache_sizes(&l1d, &g_system_l2_bytes, &l3);
  model_caches(&l1d, &g_l2_bytes, &l3);
}

int64_t agl_l2_bytes(void) {
  pthread_once(&g_model_once, compute_model);
  return g_l2_bytes;
}

int64_t agl_system_l2_bytes(void) {
  pthread_once(&g_model_once, compute_model);
  return g_system_l2_bytes;
}

agl_block_sizes agl_requested_sizes(agl_block_sizes s,
                                    const agl_gemm_blocking *request) {
  if (request) {
    if (request->kc > 0)
      s.kc = request->kc;
    if (request->nc > 0)
      s.nc = request->nc;
    if (request->mc > 0)
      s.mc = request->mc;
  }
  return s;
}

agl_block_sizes agl_gemm_block_sizes(const agl_gemm_isa *isa,
                                     const agl_gemm_blocking *request) {
  pthread_once(&g_model_once, compute_model);
  agl_block_sizes s = g_sizes[0];
  for (int t = 0; t < TABLES; ++t)
    if (isa == g_tables[t])
      s = g_sizes[t];
  s = agl_requested_sizes(s, request);
  s.mc = round_up(s.mc, isa->mr);
  s.nc = round_up(s.nc, isa->nr);
  /* Fit kc * (mc + nc) into the packing memory: mc first (the A block is
   * packed once per kc depths whatever its height), then nc, then kc. */
  const int64_t room = (int64_t)AGL_SCRATCH_FLOATS;
  if (s.kc * (s.mc + s.nc) > room)
    s.mc = round_down(room / s.kc - s.nc, isa->mr);
  if (s.mc < isa->mr) {
    s.mc = isa->mr;
    if (s.kc * (s.mc + s.nc) > room)
      s.nc = round_down(room / s.kc - s.mc, isa->nr);
    if (s.nc < isa->nr) {
      s.nc = isa->nr;
      s.kc = room / (s.mc + s.nc);
    }
  }
  return s;
}
