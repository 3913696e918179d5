/* Machine probes for bench/run.py: the peak float32 FMA rate of one thread,
 * and the read bandwidth of THREADS threads over a buffer of a given size.
 *
 *   cc -O2 -mavx512f -mfma -pthread peak_probe.c -o peak_probe
 *   peak_probe fma                  -> {"fma_gflops": G, "vector_bits": 512}
 *   peak_probe read BYTES THREADS   -> {"read_gbs": G, "bytes": B, "threads": T}
 *
 * fma: CHAINS independent accumulators, each updated by a fused multiply-add
 * per step, so the FMA units never wait on a result (enough chains to cover
 * FMA latency times the number of FMA pipes). Each 512-bit FMA is 32 float
 * operations (16 lanes, a multiply and an add). Built without AVX-512 it
 * uses 256-bit FMAs instead. The best of several repetitions is reported.
 *
 * read: each thread sums its share of the buffer with vector loads into
 * independent accumulators; the best of several passes over the whole
 * buffer is reported, in 1e9 bytes per second. The buffer is written once
 * first, so its pages are mapped.
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define VEC_BITS 512
#define vset1(x) _mm512_set1_ps(x)
#define vfma(a, b, c) _mm512_fmadd_ps(a, b, c)
#define vadd(a, b) _mm512_add_ps(a, b)
#define vload(p) _mm512_load_ps(p)
#define vsum(a) _mm512_reduce_add_ps(a)
#define CHAINS 16 /* of 32 registers */
#elif defined(__AVX2__) || defined(__FMA__)
typedef __m256 vec;
#define VEC_BITS 256
#define vset1(x) _mm256_set1_ps(x)
#define vfma(a, b, c) _mm256_fmadd_ps(a, b, c)
#define vadd(a, b) _mm256_add_ps(a, b)
#define vload(p) _mm256_load_ps(p)
#define CHAINS 12 /* of 16 registers */
static float vsum(__m256 a) {
  float t[8];
  _mm256_storeu_ps(t, a);
  return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}
#else
#error "peak_probe needs FMA (build with -mavx512f -mfma or -mavx2 -mfma)"
#endif

#define LANES (VEC_BITS / 32)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* `steps` FMAs on each of CHAINS independent chains, written out so that
 * every accumulator stays in a register (a loop over an array of them can
 * leave them in memory at -O2). */
#define CHAIN_DECL(i) vec acc##i = vset1(seed + i);
#define CHAIN_STEP(i) acc##i = vfma(acc##i, a, b);
#define CHAIN_SUM(i) total = vadd(total, acc##i);
#if CHAINS == 16
#define FOR_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) \
  X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#else
#define FOR_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) \
  X(8) X(9) X(10) X(11)
#endif

static float fma_kernel(long steps, float seed) {
  FOR_CHAINS(CHAIN_DECL)
  const vec a = vset1(0.999999f), b = vset1(1e-7f);
  for (long i = 0; i < steps; ++i) {
    FOR_CHAINS(CHAIN_STEP)
  }
  vec total = vset1(0.0f);
  FOR_CHAINS(CHAIN_SUM)
  return vsum(total);
}

static int probe_fma(void) {
  const long steps = 20 * 1000 * 1000;
  float sink = 0.0f;
  double best = 0.0;
  sink += fma_kernel(steps / 10, 1.0f); /* warm up, clocks up */
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
    sink += fma_kernel(steps, (float)rep);
    double dt = now() - t0;
    double gflops = (double)steps * CHAINS * LANES * 2.0 / dt * 1e-9;
    if (gflops > best) best = gflops;
  }
  printf("{\"fma_gflops\": %.3f, \"vector_bits\": %d, \"sink\": %g}\n", best,
         VEC_BITS, (double)sink);
  return 0;
}

struct reader {
  const float *data;
  size_t floats;
  float sum;
};

static void *read_part(void *arg) {
  struct reader *r = arg;
  vec s0 = vset1(0), s1 = vset1(0), s2 = vset1(0), s3 = vset1(0);
  const float *p = r->data;
  size_t i = 0;
  for (; i + 4 * LANES <= r->floats; i += 4 * LANES) {
    s0 = vadd(s0, vload(p + i));
    s1 = vadd(s1, vload(p + i + LANES));
    s2 = vadd(s2, vload(p + i + 2 * LANES));
    s3 = vadd(s3, vload(p + i + 3 * LANES));
  }
  r->sum = vsum(vadd(vadd(s0, s1), vadd(s2, s3)));
  return NULL;
}

static int probe_read(size_t bytes, int threads) {
  if (threads < 1 || threads > 256) return 2;
  size_t chunk = (size_t)threads * 4 * LANES * sizeof(float);
  bytes = (bytes + chunk - 1) / chunk * chunk;
  float *buf = aligned_alloc(64, bytes);
  if (!buf) return 1;
  size_t floats = bytes / sizeof(float);
  for (size_t i = 0; i < floats; ++i) buf[i] = (float)(i & 1023) * 1e-3f;
  size_t part = floats / threads;
  pthread_t tids[256];
  struct reader rs[256];
  double best = 0.0, sink = 0.0;
  for (int rep = 0; rep < 21; ++rep) {
    double t0 = now();
    for (int t = 0; t < threads; ++t) {
      rs[t] = (struct reader){buf + (size_t)t * part, part, 0.0f};
      if (t > 0) pthread_create(&tids[t], NULL, read_part, &rs[t]);
    }
    read_part(&rs[0]);
    for (int t = 1; t < threads; ++t) pthread_join(tids[t], NULL);
    double dt = now() - t0;
    for (int t = 0; t < threads; ++t) sink += rs[t].sum;
    /* The first pass is a warm-up. */
    if (rep > 0 && bytes / dt * 1e-9 > best) best = bytes / dt * 1e-9;
  }
  free(buf);
  printf("{\"read_gbs\": %.3f, \"bytes\": %zu, \"threads\": %d, \"sink\": %g}\n",
         best, bytes, threads, sink);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "fma") == 0) return probe_fma();
  if (argc >= 4 && strcmp(argv[1], "read") == 0)
    return probe_read(strtoull(argv[2], NULL, 10), atoi(argv[3]));
  fprintf(stderr, "usage: %s fma | read BYTES THREADS\n", argv[0]);
  return 2;
}
