/* The process-wide thread pool that runs kernels, and the public thread API.
 *
 * One pool serves every instance. Its workers are created once, each with its
 * packing memory, and wait for work: a short spin, then a condition variable,
 * so that an idle pool burns no CPU while back-to-back calls are dispatched
 * in microseconds. A top-level call takes the pool (a mutex; concurrent
 * callers from other threads wait their turn) and publishes the job; then
 * the caller and the workers claim its chunks one at a time from a shared
 * counter, so that a worker that is slow to wake (the machine is busy) costs
 * nothing: the caller runs the chunks nobody claimed. The caller returns
 * when every chunk is done. With one thread nothing is published at all. */
#define _GNU_SOURCE /* pthread_setaffinity_np, sched_getaffinity */

#include "kernels_internal.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* Spin iterations a worker (or the waiting caller) polls before it sleeps
 * (or yields): a pause takes about 40 ns on Zen 4, so about 100 us, longer
 * than the gap between the kernel calls of one inference. */
enum { SPIN_ITERATIONS = 2500 };

/* Model runs in progress (agl_pool_hold): with one, workers spin on. A
 * worker put to sleep between two kernels of a run costs the next one a
 * futex wake and a reschedule: tens of microseconds, and on a busy host
 * (the 2-vCPU VMs) often far more; between the kernel calls of one
 * inference there is serial code that can outlast the spin. */
static atomic_int g_holds;
static atomic_llong g_sleeps;

void agl_pool_hold(void) {
  atomic_fetch_add_explicit(&g_holds, 1, memory_order_relaxed);
}

void agl_pool_unhold(void) {
  atomic_fetch_sub_explicit(&g_holds, 1, memory_order_relaxed);
}

int64_t agl_pool_sleeps(void) {
  return atomic_load_explicit(&g_sleeps, memory_order_relaxed);
}

typedef struct pool pool;
typedef struct worker_arg {
  pool *p;
  int index;
} worker_arg;

struct pool {
  int threads; /* including the caller's thread 0 */
  pthread_t *workers; /* threads - 1 */
  worker_arg *args;   /* threads - 1, owned by the pool (a worker frees
                         nothing, so that no heap call happens in a run) */
  float **scratch;    /* threads entries */

  /* The current job; written by the caller before `state` announces it. */
  agl_parallel_fn fn;
  void *ctx;
  int64_t n;

  /* generation (32 bits) | chunks (16 bits) | next unclaimed chunk (16
   * bits). Claiming a chunk is a compare-and-swap of the whole word, so a
   * claim succeeds only while its job is current, and the job's fields stay
   * put until every claimed chunk is done. */
  _Atomic uint64_t state;
  _Atomic int done; /* chunks of the current job finished */
  _Atomic int sleepers; /* workers waiting on `wake` */
  _Atomic int shutdown;
  pthread_mutex_t lock;
  pthread_cond_t wake;
};

/* Guards g_pool and its use: held by the top-level caller for the duration
 * of one kernel call, and by pool (re)creation. */
static pthread_mutex_t g_owner = PTHREAD_MUTEX_INITIALIZER;
static pool *g_pool;
static int g_requested = -1; /* -1: not set, read AUTOGLM_NUM_THREADS */
static int g_pin;

/* This thread's packing memory while it runs pool work: workers keep theirs,
 * the caller holds slot 0's while it owns the pool. */
static _Thread_local float *t_scratch;

static void chunk_bounds(int64_t n, int64_t chunks, int64_t i,
                         int64_t *begin, int64_t *end) {
  int64_t base = n / chunks, extra = n % chunks;
  *begin = i * base + (i < extra ? i : extra);
  *end = *begin + base + (i < extra);
}

enum { MAX_CHUNKS = 0xFFFF };

static uint32_t state_generation(uint64_t state) {
  return (uint32_t)(state >> 32);
}

/* Runs chunks of the current job until none is left unclaimed. */
static void claim_chunks(pool *p) {
  uint64_t state = atomic_load_explicit(&p->state, memory_order_acquire);
  for (;;) {
    uint64_t chunks = (state >> 16) & 0xFFFF, next = state & 0xFFFF;
    if (next >= chunks)
      return;
    if (!atomic_compare_exchange_weak_explicit(&p->state, &state, state + 1,
                                               memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    int64_t begin, end;
    chunk_bounds(p->n, (int64_t)chunks, (int64_t)next, &begin, &end);
    p->fn(p->ctx, begin, end);
    atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    state = atomic_load_explicit(&p->state, memory_order_acquire);
  }
}

static void *worker_main(void *raw) {
  worker_arg arg = *(worker_arg *)raw;
  pool *p = arg.p;
  t_scratch = p->scratch[arg.index];
  /* A new pool starts at generation 0; a job may be posted before this
   * thread gets here, so do not read the counter to start. */
  uint32_t seen = 0;
  for (;;) {
    uint32_t now = seen;
    for (int spins = 0;;) {
      now = state_generation(
          atomic_load_explicit(&p->state, memory_order_acquire));
      if (now != seen ||
          atomic_load_explicit(&p->shutdown, memory_order_relaxed))
        break;
      /* The spin's count stops at its end (a run may hold for minutes). */
      if (spins < SPIN_ITERATIONS)
        ++spins;
      else if (atomic_load_explicit(&g_holds, memory_order_relaxed) == 0)
        break;
      cpu_relax();
    }
    if (now == seen && !atomic_load(&p->shutdown)) {
      /* Publish that we sleep, then look again: the caller moves the
       * generation before it reads `sleepers` (both sequentially
       * consistent), so one of the two sees the other. */
      pthread_mutex_lock(&p->lock);
      atomic_fetch_add(&p->sleepers, 1);
      atomic_fetch_add_explicit(&g_sleeps, 1, memory_order_relaxed);
      while ((now = state_generation(atomic_load(&p->state))) == seen &&
             !atomic_load(&p->shutdown))
        pthread_cond_wait(&p->wake, &p->lock);
      atomic_fetch_sub(&p->sleepers, 1);
      pthread_mutex_unlock(&p->lock);
    }
    if (atomic_load(&p->shutdown))
      return NULL;
    seen = now;
    claim_chunks(p);
  }
}

static int cpu_count(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return count;
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? (int)online : 1;
}

/* Worker i (i >= 1) runs on the i-th CPU of the process's mask (wrapping),
 * or anywhere in the mask when pinning is off. */
static void apply_affinity(pool *p) {
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0)
    return;
  int cpus[CPU_SETSIZE], count = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask))
      cpus[count++] = c;
  if (count == 0)
    return;
  for (int i = 1; i < p->threads; ++i) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[i % count], &one);
    pthread_setaffinity_np(p->workers[i - 1], sizeof(cpu_set_t),
                           g_pin ? &one : &mask);
  }
}

static void destroy_pool(pool *p) {
  if (!p)
    return;
  if (p->workers) {
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->shutdown, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->threads - 1; ++i)
      pthread_join(p->workers[i], NULL);
    free(p->workers);
  }
  free(p->args);
  if (p->scratch)
    for (int i = 0; i < p->threads; ++i)
      free(p->scratch[i]);
  free(p->scratch);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

static int requested_threads(void) {
  if (g_requested >= 0)
    return g_requested;
  const char *env = getenv("AUTOGLM_NUM_THREADS");
  if (env && *env) {
    char *end;
    long value = strtol(env, &end, 10);
    if (*end == '\0' && value >= 0 && value <= 4096)
      return (int)value;
  }
  return 0;
}

/* Caller holds g_owner. */
static agl_status create_pool(void) {
  int threads = requested_threads();
  if (threads == 0)
    threads = cpu_count();
  pool *p = calloc(1, sizeof *p);
  if (!p)
    return agl_fail(AGL_ERR_OUT_OF_MEMORY, "cannot allocate the thread pool");
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  p->threads = threads;
  p->scratch = calloc((size_t)threads, sizeof *p->scratch);
  if (!p->scratch) {
    destroy_pool(p);
    return agl_fail(AGL_ERR_OUT_OF_MEMORY, "cannot allocate the thread pool");
  }
  for (int i = 0; i < threads; ++i) {
    p->scratch[i] = aligned_alloc(64, AGL_SCRATCH_FLOATS * sizeof(float));
    if (!p->scratch[i]) {
      destroy_pool(p);
      return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                      "cannot allocate the packing memory of %d threads "
                      "(%zu bytes each)",
                      threads, AGL_SCRATCH_FLOATS * sizeof(float));
    }
  }
  if (threads > 1) {
    p->workers = calloc((size_t)threads - 1, sizeof *p->workers);
    p->args = calloc((size_t)threads - 1, sizeof *p->args);
    if (!p->workers || !p->args) {
      destroy_pool(p);
      return agl_fail(AGL_ERR_OUT_OF_MEMORY, "cannot allocate the thread pool");
    }
    for (int i = 1; i < threads; ++i) {
      worker_arg *arg = &p->args[i - 1];
      arg->p = p;
      arg->index = i;
      int error = pthread_create(&p->workers[i - 1], NULL, worker_main, arg);
      if (error) {
        /* Keep the workers that started. */
        p->threads = i;
        destroy_pool(p);
        return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                        "cannot start pool thread %d of %d: %s", i, threads,
                        strerror(error));
      }
    }
    apply_affinity(p);
  }
  g_pool = p;
  return AGL_OK;
}

agl_status agl_pool_ensure(void) {
  if (t_scratch)
    return AGL_OK; /* inside a parallel region: the pool exists */
  pthread_mutex_lock(&g_owner);
  agl_status status = g_pool ? AGL_OK : create_pool();
  pthread_mutex_unlock(&g_owner);
  return status;
}

int agl_pool_acquire(void) {
  if (t_scratch)
    return 0;
  pthread_mutex_lock(&g_owner);
  if (!g_pool && create_pool() != AGL_OK) {
    pthread_mutex_unlock(&g_owner);
    return -1;
  }
  t_scratch = g_pool->scratch[0];
  return g_pool->threads;
}

void agl_pool_release(void) {
  t_scratch = NULL;
  pthread_mutex_unlock(&g_owner);
}

float *agl_pool_scratch(void) { return t_scratch; }

void agl_pool_run(int64_t n, int64_t chunks, agl_parallel_fn fn, void *ctx) {
  pool *p = g_pool;
  if (n <= 0)
    return;
  if (chunks > n)
    chunks = n;
  if (chunks > MAX_CHUNKS)
    chunks = MAX_CHUNKS;
  if (chunks <= 1 || p->threads <= 1) {
    fn(ctx, 0, n);
    return;
  }
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  uint32_t generation = state_generation(atomic_load(&p->state)) + 1;
  /* Sequentially consistent: ordered before the read of `sleepers`. */
  atomic_store(&p->state, (uint64_t)generation << 32 | (uint64_t)chunks << 16);
  if (atomic_load(&p->sleepers) > 0) {
    pthread_mutex_lock(&p->lock);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
  }
  claim_chunks(p);
  for (int i = 0;
       atomic_load_explicit(&p->done, memory_order_acquire) < chunks; ++i) {
    if (i < SPIN_ITERATIONS)
      cpu_relax();
    else
      sched_yield();
  }
}

void agl_parallel_for(int64_t n, int64_t grain, agl_parallel_fn fn,
                      void *ctx) {
  if (n <= 0 || !fn)
    return;
  int threads = agl_pool_acquire();
  if (threads <= 0) {
    /* Nested (or no pool could be made): serially, here. */
    fn(ctx, 0, n);
    return;
  }
  if (grain < 1)
    grain = 1;
  agl_pool_run(n, (n + grain - 1) / grain < threads ? (n + grain - 1) / grain
                                                    : threads,
               fn, ctx);
  agl_pool_release();
}

/* Joins the workers when the runtime is unloaded (dlclose) or the process
 * exits, so that no thread is left running code that goes away; skipped if
 * a kernel call is still in flight. */
__attribute__((destructor)) static void shutdown_pool(void) {
  if (t_scratch || pthread_mutex_trylock(&g_owner) != 0)
    return;
  destroy_pool(g_pool);
  g_pool = NULL;
  pthread_mutex_unlock(&g_owner);
}

/* ---- public thread API -------------------------------------------------- */

agl_status agl_set_num_threads(int32_t threads) {
  if (threads < 0)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_set_num_threads: %d threads is negative (0 means one "
                    "per CPU the process may run on)",
                    (int)threads);
  if (t_scratch)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_set_num_threads: called from inside a parallel "
                    "region, where the pool cannot be changed");
  pthread_mutex_lock(&g_owner);
  g_requested = threads;
  destroy_pool(g_pool);
  g_pool = NULL;
  agl_status status = create_pool();
  pthread_mutex_unlock(&g_owner);
  return status;
}

int32_t agl_get_num_threads(void) {
  if (t_scratch)
    return g_pool ? g_pool->threads : 1; /* held by this thread's caller */
  pthread_mutex_lock(&g_owner);
  int threads = g_pool ? g_pool->threads : requested_threads();
  if (threads == 0)
    threads = cpu_count();
  pthread_mutex_unlock(&g_owner);
  return threads;
}

agl_status agl_set_thread_affinity(int32_t pin) {
  if (t_scratch)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_set_thread_affinity: called from inside a parallel "
                    "region");
  pthread_mutex_lock(&g_owner);
  g_pin = pin != 0;
  if (g_pool && g_pool->threads > 1)
    apply_affinity(g_pool);
  pthread_mutex_unlock(&g_owner);
  return AGL_OK;
}
