/* Workers stay awake through a model's run: a run whose two parallel
 * kernels are 5 ms of serial work apart (far longer than a worker spins
 * before it sleeps) sees no worker go to sleep, where outside a run the
 * worker does go to sleep (the control, which shows that the count moves).
 * Two threads, the static library. */
#include "kernels_internal.h"

#include "autoglm/kernels.h"
#include "autoglm/runtime.h"

#include <stdio.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Serial work on the calling thread, as a model's code between kernels. */
static void busy(double duration) {
  const double end = seconds() + duration;
  while (seconds() < end) {
  }
}

static void touch(void *ctx, int64_t begin, int64_t end) {
  float *x = ctx;
  for (int64_t i = begin; i < end; ++i)
    x[i] += 1.0f;
}

static int64_t g_sleeps_in_run = -1;

static int32_t gapped_run(void *arena, const void *weights,
                          const void *const *in, void *const *out,
                          const int64_t *symbols, int64_t *output_dims) {
  (void)weights, (void)in, (void)symbols, (void)output_dims;
  float *x = arena;
  agl_parallel_for(64, 1, touch, x);
  const int64_t before = agl_pool_sleeps();
  busy(0.005);
  agl_parallel_for(64, 1, touch, x);
  g_sleeps_in_run = agl_pool_sleeps() - before;
  *(float *)out[0] = x[0];
  return 0;
}

static const int64_t one[1] = {1};
static const agl_tensor_info tensors[1] = {{"y", AGL_DTYPE_F32, 1, one}};
static const agl_model_desc model = {
    .abi_version = AGL_ABI_VERSION,
    .name = "gapped",
    .num_inputs = 0,
    .num_outputs = 1,
    .outputs = tensors,
    .arena_size = 64 * sizeof(float),
    .arena_alignment = 64,
    .run = gapped_run,
};

int main(void) {
  if (agl_set_num_threads(2) != AGL_OK) {
    printf("FAILED: agl_set_num_threads: %s\n", agl_last_error());
    return 1;
  }
  agl_instance *instance = NULL;
  if (agl_instance_create(&model, &instance) != AGL_OK) {
    printf("FAILED: agl_instance_create: %s\n", agl_last_error());
    return 1;
  }
  float y = 0.0f;
  void *outputs[1] = {&y};
  int failures = 0;
  for (int r = 0; r < 3; ++r) {
    if (agl_instance_run(instance, NULL, outputs) != AGL_OK) {
      printf("FAILED: run: %s\n", agl_last_error());
      return 1;
    }
    if (g_sleeps_in_run != 0) {
      printf("FAILED: run %d: a worker slept %lld times between two kernels\n",
             r, (long long)g_sleeps_in_run);
      failures = 1;
    }
  }
  if (y != 6.0f) {
    printf("FAILED: y = %g after 3 runs of 2 kernels, expected 6\n", y);
    failures = 1;
  }
  /* The control: with no run in progress the worker does go to sleep
   * (within 5 ms here; up to a second allowed, for a machine whose one CPU
   * the two threads share). */
  float x[64] = {0};
  agl_parallel_for(64, 1, touch, x);
  const int64_t before = agl_pool_sleeps();
  const double give_up = seconds() + 1.0;
  while (agl_pool_sleeps() == before && seconds() < give_up)
    busy(0.001);
  if (agl_pool_sleeps() == before) {
    printf("FAILED: no worker slept through 1 s outside a run\n");
    failures = 1;
  }
  agl_instance_destroy(instance);
  printf(failures ? "FAILED\n" : "workers stayed awake through the runs\n");
  return failures;
}
