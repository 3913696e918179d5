/* Microbenchmark of the uint8 x int8 GEMM against the float one:
 * agl_kernel_gemm_u8s8 (int32 output, and the float epilogue with per-column
 * scales), agl_kernel_gemm_u8s8_requantize (uint8 output, without and with
 * GELU) and agl_kernel_sgemm_packed on the same shapes, a square one and
 * the GLM layer's prefill MLP product; median time of repeated calls after
 * warm-up, GOP/s (2 m n k) and the speedup over the float GEMM; and the
 * int32 product once more with AMX barred ("no AMX": the VNNI kernel where
 * the CPU has AMX, the same kernel elsewhere). The modes
 * alternate call by call, so that other load falls on all of them. 1-thread
 * times are CPU time of the calling thread (bench_timing.h).
 *
 *   autoglm-int8-kernel-bench [--reps N] [--threads 1,2]
 */
#include "autoglm/kernels_int8.h"
#include "autoglm/runtime.h"
#include "bench_timing.h"

#include <stdio.h>

/* The runtime's switch between AMX and VNNI (int8_internal.h), linked
 * from the static library. */
void agl_s8_allow_amx(int allow);
#include <stdlib.h>
#include <string.h>

typedef struct shape {
  const char *name;
  int64_t m, n, k;
} shape;

static const shape shapes[] = {
    {"square 2048x2048x2048", 2048, 2048, 2048},
    {"prefill mlp 128x768x3072", 128, 768, 3072},
    {"prefill mlp 128x3072x768", 128, 3072, 768},
    {"prefill qkv 128x3072x1024", 128, 3072, 1024},
    {"prefill o 128x1024x1024", 128, 1024, 1024},
};

static void *aligned(size_t bytes) {
  return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

static void run_shape(const shape *s, int threads, int reps) {
  const int64_t m = s->m, n = s->n, k = s->k, nr = AGL_SGEMM_PACKED_NR;
  const int64_t panels = (n + nr - 1) / nr;
  float *a = aligned((size_t)(m * k) * 4), *c = aligned((size_t)(m * n) * 4);
  float *packed = aligned((size_t)(panels * nr * k) * 4);
  uint8_t *a8 = aligned((size_t)(m * k));
  int8_t *w8 = aligned((size_t)(k * n));
  void *packed8 = aligned((size_t)agl_s8_packed_bytes(k, n));
  float *scale = aligned((size_t)n * 4);
  unsigned state = 12345;
  for (int64_t i = 0; i < k * n; ++i) {
    state = state * 1664525u + 1013904223u;
    w8[i] = (int8_t)(state >> 24);
  }
  memset(packed, 0, (size_t)(panels * nr * k) * 4);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0; j < nr && p * nr + j < n; ++j)
        packed[(p * k + r) * nr + j] = (float)w8[r * n + p * nr + j] / 128.0f;
  agl_pack_b_s8(w8, k, n, n, 1, packed8);
  for (int64_t i = 0; i < m * k; ++i) {
    a8[i] = (uint8_t)(i * 37 % 251);
    a[i] = (float)a8[i] / 256.0f;
  }
  for (int64_t j = 0; j < n; ++j)
    scale[j] = 1.0f / 32768.0f;
  uint8_t *c8 = aligned((size_t)(m * n));
  enum { MODES = 6 };
  double *times[MODES];
  for (int mode = 0; mode < MODES; ++mode)
    times[mode] = malloc((size_t)reps * sizeof(double));
  for (int r = -2; r < reps; ++r)
    for (int mode = 0; mode < MODES; ++mode) {
      double start = now();
      if (mode == 0)
        agl_kernel_sgemm_packed(1, m, n, k, a, 0, k, 1, packed, c, 0, n, 0,
                                1.0f, NULL, 0, NULL, 0, 0, NULL);
      else if (mode <= 2 || mode == 5) {
        agl_s8_allow_amx(mode != 5);
        agl_kernel_gemm_u8s8(1, m, n, k, a8, 0, k, 128, packed8, c, 0, n, 1.0f,
                             mode == 2 ? scale : NULL, NULL, 0, NULL, 0, 0,
                             NULL);
        agl_s8_allow_amx(1);
      } else
        agl_kernel_gemm_u8s8_requantize(
            1, m, n, k, a8, 0, k, 128, packed8, c8, 0, n, 1.0f, scale, NULL,
            mode == 4 ? AGL_ACT_GELU_ERF : AGL_ACT_NONE, NULL, 0, 0, 0.02f, 128,
            NULL);
      if (r >= 0)
        times[mode][r] = now() - start;
    }
  static const char *names[MODES] = {"fp32 packed",   "u8s8 int32",
                                     "u8s8 float",    "u8s8 ->u8",
                                     "u8s8 gelu->u8", "u8s8 int32 no AMX"};
  double fp32 = 0;
  for (int mode = 0; mode < MODES; ++mode) {
    qsort(times[mode], (size_t)reps, sizeof(double), compare_doubles);
    double median = times[mode][reps / 2];
    if (mode == 0)
      fp32 = median;
    printf("%-26s %d thr %-17s %10.1f us %7.1f GOP/s  %.2fx\n", s->name,
           threads, names[mode], median * 1e6, 2.0 * m * n * k / median / 1e9,
           fp32 / median);
    free(times[mode]);
  }
  fflush(stdout);
  free(a);
  free(c);
  free(c8);
  free(packed);
  free(a8);
  free(w8);
  free(packed8);
  free(scale);
}

int main(int argc, char **argv) {
  int reps = 15;
  int thread_list[8] = {1}, num_threads = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      num_threads = 0;
      for (char *t = strtok(argv[++i], ","); t && num_threads < 8;
           t = strtok(NULL, ","))
        thread_list[num_threads++] = atoi(t);
    } else {
      fprintf(stderr, "usage: %s [--reps N] [--threads 1,2]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 1) {
    fprintf(stderr, "reps must be positive\n");
    return 2;
  }
  for (int t = 0; t < num_threads; ++t) {
    if (agl_set_num_threads(thread_list[t]) != AGL_OK) {
      fprintf(stderr, "%s\n", agl_last_error());
      return 1;
    }
    g_cpu_clock = thread_list[t] == 1;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
      run_shape(&shapes[i], thread_list[t],
                shapes[i].m >= 1024 ? reps : 4 * reps);
  }
  return 0;
}
