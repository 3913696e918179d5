/* Runs several instances of one model, compiled to an object file, on
 * concurrent threads, to check that distinct instances do not interfere.
 *
 * Build (test_memory.py does this):
 *   cc -std=c11 -DMODEL=glm_layer -DMODEL_HEADER='"glm_layer.h"' \
 *      -I runtime/include -I DIR concurrency.c DIR/glm_layer.o \
 *      libautoglm_rt.a -lm -ldl -lpthread
 *
 * Usage: concurrency DIR THREADS ITERATIONS
 * Thread t reads its inputs from DIR/thread_<t>/input_<i>.bin (raw bytes,
 * the descriptor's sizes), so every thread may work on different data. The
 * program creates one instance (one arena) per thread and first runs each
 * instance once on the main thread, one after the other: these outputs are
 * the baseline. Then all threads start together (a barrier) and each runs
 * its own instance ITERATIONS times; every result must be bit-identical to
 * its thread's baseline, since the compiled code is deterministic and an
 * instance shares nothing mutable with another. Each thread's last outputs
 * are written to DIR/thread_<t>/output_<i>.bin for comparison with the
 * references. Prints one line per thread and a verdict line (PASS / FAIL);
 * exit status 0 on PASS, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "raw_io.h"

#include MODEL_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(suffix) CAT(MODEL, suffix)

#define MAX_THREADS 64
#define MAX_TENSORS 8

typedef struct {
  int index;
  long iterations;
  agl_instance *instance;
  const void *inputs[MAX_TENSORS];
  void *outputs[MAX_TENSORS];
  void *baseline[MAX_TENSORS];
  /* Results of the thread. */
  long completed;
  long differing;
  agl_status status;
} worker;

static const agl_model_desc *model;
static pthread_barrier_t start_line;

static int fail(const char *message, const char *detail) {
  fprintf(stderr, "concurrency: %s%s%s\n", message, detail ? ": " : "",
          detail ? detail : "");
  printf("verdict: FAIL (%s)\n", message);
  return 1;
}

static void *work(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(&start_line);
  for (long it = 0; it < w->iterations; ++it) {
    /* Poison the outputs so that a run that skips an element shows up. */
    for (int32_t i = 0; i < model->num_outputs; ++i)
      memset(w->outputs[i], (int)(0x11 * (it % 15 + 1)),
             agl_tensor_num_bytes(&model->outputs[i]));
    w->status = agl_instance_run(w->instance, w->inputs, w->outputs);
    if (w->status != AGL_OK)
      return NULL;
    for (int32_t i = 0; i < model->num_outputs; ++i)
      if (memcmp(w->outputs[i], w->baseline[i],
                 agl_tensor_num_bytes(&model->outputs[i])) != 0) {
        ++w->differing;
        break;
      }
    ++w->completed;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return fail("usage: concurrency DIR THREADS ITERATIONS", NULL);
  const char *dir = argv[1];
  int threads = atoi(argv[2]);
  long iterations = strtol(argv[3], NULL, 10);
  if (threads < 1 || threads > MAX_THREADS || iterations < 1)
    return fail("bad THREADS or ITERATIONS", NULL);

  model = F(_model)();
  if (model->num_inputs > MAX_TENSORS || model->num_outputs > MAX_TENSORS)
    return fail("too many inputs or outputs for this program", NULL);

  static worker workers[MAX_THREADS];
  char path[4096];
  for (int t = 0; t < threads; ++t) {
    worker *w = &workers[t];
    w->index = t;
    w->iterations = iterations;
    for (int32_t i = 0; i < model->num_inputs; ++i) {
      snprintf(path, sizeof path, "%s/thread_%d/input_%d.bin", dir, t, (int)i);
      if (!(w->inputs[i] =
                read_file(path, agl_tensor_num_bytes(&model->inputs[i]))))
        return fail("cannot read (or wrong size)", path);
    }
    for (int32_t i = 0; i < model->num_outputs; ++i) {
      size_t bytes = agl_tensor_num_bytes(&model->outputs[i]) + 1;
      w->outputs[i] = malloc(bytes);
      w->baseline[i] = malloc(bytes);
      if (!w->outputs[i] || !w->baseline[i])
        return fail("out of memory", NULL);
    }
    if (agl_instance_create(model, &w->instance) != AGL_OK)
      return fail("cannot create an instance", agl_last_error());
  }

  /* Baselines, one instance at a time. */
  for (int t = 0; t < threads; ++t) {
    worker *w = &workers[t];
    if (agl_instance_run(w->instance, w->inputs, w->baseline) != AGL_OK)
      return fail("agl_instance_run failed", agl_last_error());
  }

  if (pthread_barrier_init(&start_line, NULL, (unsigned)threads) != 0)
    return fail("cannot create a barrier", NULL);
  pthread_t ids[MAX_THREADS];
  for (int t = 0; t < threads; ++t)
    if (pthread_create(&ids[t], NULL, work, &workers[t]) != 0)
      return fail("cannot start a thread", NULL);
  for (int t = 0; t < threads; ++t)
    pthread_join(ids[t], NULL);
  pthread_barrier_destroy(&start_line);

  int ok = 1;
  for (int t = 0; t < threads; ++t) {
    worker *w = &workers[t];
    printf("thread %d: %ld of %ld runs, %ld differ from the baseline%s%s\n", t,
           w->completed, w->iterations, w->differing,
           w->status == AGL_OK ? "" : ", failed: ",
           w->status == AGL_OK ? "" : agl_status_string(w->status));
    if (w->status != AGL_OK || w->differing || w->completed != w->iterations)
      ok = 0;
    for (int32_t i = 0; i < model->num_outputs; ++i) {
      snprintf(path, sizeof path, "%s/thread_%d/output_%d.bin", dir, t, (int)i);
      if (write_file(path, w->outputs[i],
                     agl_tensor_num_bytes(&model->outputs[i])))
        return fail("cannot write", path);
    }
    agl_instance_destroy(w->instance);
    for (int32_t i = 0; i < model->num_inputs; ++i)
      free((void *)w->inputs[i]);
    for (int32_t i = 0; i < model->num_outputs; ++i) {
      free(w->outputs[i]);
      free(w->baseline[i]);
    }
  }
  if (!ok)
    return fail("a thread failed or gave other results than its baseline",
                NULL);
  printf("verdict: PASS\n");
  return 0;
}
