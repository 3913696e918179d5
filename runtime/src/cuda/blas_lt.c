/* Matrix products with a fused epilogue, run by cuBLASLt.
 *
 * --target=cuda turns a product followed by a bias, a ReLU or tanh-GELU, or
 * a residual add into one call of agl_cuda_gemm_epilogue (blas.h), which
 * cuBLASLt runs as one kernel: the elementwise loop and its pass over
 * memory are gone. Products of int8 operands (--precision int8) are
 * agl_cuda_gemm_int8: int32 sums on the tensor cores. cuBLASLt is loaded at run
 * time, the first time a model needs it: libcublasLt.so.13, .12 or .11, or the
 * library named by AUTOGLM_CUBLASLT.
 *
 * Describing a product to cuBLASLt (descriptors, then a heuristic query for
 * its algorithm) costs far more host time than queuing it, so each instance
 * keeps the plans of its products, keyed by everything the choice depends
 * on (shapes, strides, types, epilogue, pointer alignments): a model's
 * later runs only queue them. Each instance also owns one workspace,
 * allocated with its plans at its first such product. The types are
 * cuBLASLt's own ABI (cublasLt.h), declared here so that building the
 * runtime needs no CUDA headers. */
#include "blas.h"
#include "launch.h"

#include "autoglm/kernels.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int lt_status;
typedef struct lt_handle *lt_handle;
typedef struct lt_desc *lt_desc;
typedef struct lt_layout *lt_layout;
typedef struct lt_preference *lt_preference;
typedef struct {
  uint64_t data[8];
} lt_algo;
typedef struct {
  lt_algo algo;
  size_t workspace_size;
  lt_status state;
  float waves;
  int reserved[4];
} lt_heuristic;

enum {
  LT_SUCCESS = 0,
  LT_OP_N = 0,
  LT_OP_T = 1,
  /* cudaDataType and cublasComputeType_t */
  LT_R_32F = 0,
  LT_R_16F = 2,
  LT_R_8I = 3,
  LT_R_32I = 10,
  LT_R_16BF = 14,
  LT_COMPUTE_32F = 68,
  LT_COMPUTE_32I = 72,
  /* cublasLtMatmulDescAttributes_t */
  LT_DESC_TRANSA = 3,
  LT_DESC_TRANSB = 4,
  LT_DESC_EPILOGUE = 7,
  LT_DESC_BIAS_POINTER = 8,
  /* cublasLtMatrixLayoutAttribute_t */
  LT_LAYOUT_BATCH_COUNT = 5,
  LT_LAYOUT_BATCH_STRIDE = 6,
  /* cublasLtMatmulPreferenceAttributes_t */
  LT_PREF_MAX_WORKSPACE = 1,
  LT_PREF_ALIGN_A = 5, /* then B, C, D */
  /* cublasLtEpilogue_t */
  LT_EPILOGUE_DEFAULT = 1,
  LT_EPILOGUE_RELU = 2,
  LT_EPILOGUE_BIAS = 4,
  LT_EPILOGUE_GELU = 32
};

typedef struct lt_api {
  lt_status (*create)(lt_handle *handle);
  lt_status (*destroy)(lt_handle handle);
  lt_status (*desc_create)(lt_desc *desc, int compute_type, int scale_type);
  lt_status (*desc_destroy)(lt_desc desc);
  lt_status (*desc_set)(lt_desc desc, int attribute, const void *value,
                        size_t size);
  lt_status (*layout_create)(lt_layout *layout, int type, uint64_t rows,
                             uint64_t cols, int64_t ld);
  lt_status (*layout_destroy)(lt_layout layout);
  lt_status (*layout_set)(lt_layout layout, int attribute, const void *value,
                          size_t size);
  lt_status (*preference_create)(lt_preference *preference);
  lt_status (*preference_destroy)(lt_preference preference);
  lt_status (*preference_set)(lt_preference preference, int attribute,
                              const void *value, size_t size);
  lt_status (*heuristic)(lt_handle handle, lt_desc desc, lt_layout a,
                         lt_layout b, lt_layout c, lt_layout d,
                         lt_preference preference, int requested,
                         lt_heuristic *results, int *returned);
  lt_status (*matmul)(lt_handle handle, lt_desc desc, const void *alpha,
                      const void *a, lt_layout a_layout, const void *b,
                      lt_layout b_layout, const void *beta, const void *c,
                      lt_layout c_layout, void *d, lt_layout d_layout,
                      const lt_algo *algo, void *workspace,
                      size_t workspace_size, CUstream stream);
  const char *(*status_string)(lt_status status); /* may be null */
} lt_api;

/* Per instance: cuBLAS's recommendation for Hopper, enough for every
 * algorithm it picks on smaller GPUs too. */
enum { WORKSPACE_BYTES = AGL_CUDA_LT_WORKSPACE_BYTES, PLANS = 64 };

/* What an algorithm choice depends on; compared bytewise (zeroed first). */
typedef struct plan_key {
  int64_t batch, m, n, k, lda, ldb, ldc, ldr;
  int64_t a_batch, b_batch, c_batch, r_batch;
  int32_t op_a, op_b, type, epilogue, c_source;
  uint32_t align[5]; /* A, B, C, D, bias */
} plan_key;

/* How C enters: not at all (beta 0), as D itself, or as the residual. */
enum { C_NONE = 0, C_OUTPUT = 1, C_RESIDUAL = 2 };

typedef struct plan {
  int made;
  plan_key key;
  lt_desc desc;
  lt_layout a, b, c, d;
  lt_algo algo;
} plan;

struct agl_cuda_lt {
  lt_handle handle;
  CUdeviceptr workspace;
  size_t workspace_size;
  plan plans[PLANS];
  unsigned next; /* the slot a new plan takes once all are made */
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static lt_api api;
static int loaded;

static int load_lt(char *why, size_t size) {
  pthread_mutex_lock(&load_lock);
  if (!loaded) {
    static const char *const candidates[] = {
        "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"};
    void *library = agl_cuda_open_library(
        "AUTOGLM_CUBLASLT", candidates, sizeof candidates / sizeof *candidates,
        "cuBLASLt for the model's products with an epilogue or int8 "
        "operands (libcublasLt.so)",
        why, size);
    if (library) {
      struct {
        void **slot;
        const char *name;
      } symbols[] = {
          {(void **)&api.create, "cublasLtCreate"},
          {(void **)&api.destroy, "cublasLtDestroy"},
          {(void **)&api.desc_create, "cublasLtMatmulDescCreate"},
          {(void **)&api.desc_destroy, "cublasLtMatmulDescDestroy"},
          {(void **)&api.desc_set, "cublasLtMatmulDescSetAttribute"},
          {(void **)&api.layout_create, "cublasLtMatrixLayoutCreate"},
          {(void **)&api.layout_destroy, "cublasLtMatrixLayoutDestroy"},
          {(void **)&api.layout_set, "cublasLtMatrixLayoutSetAttribute"},
          {(void **)&api.preference_create, "cublasLtMatmulPreferenceCreate"},
          {(void **)&api.preference_destroy, "cublasLtMatmulPreferenceDestroy"},
          {(void **)&api.preference_set,
           "cublasLtMatmulPreferenceSetAttribute"},
          {(void **)&api.heuristic, "cublasLtMatmulAlgoGetHeuristic"},
          {(void **)&api.matmul, "cublasLtMatmul"},
      };
      const char *missing = NULL;
      for (size_t i = 0; i < sizeof symbols / sizeof *symbols; ++i)
        if (!(*symbols[i].slot = dlsym(library, symbols[i].name)) && !missing)
          missing = symbols[i].name;
      *(void **)&api.status_string = dlsym(library, "cublasLtGetStatusString");
      if (missing) {
        snprintf(why, size, "libcublasLt lacks %s", missing);
        dlclose(library);
      } else {
        loaded = 1;
      }
    }
  }
  int ok = loaded;
  pthread_mutex_unlock(&load_lock);
  return ok;
}

static void lt_failed(const char *what, lt_status status) {
  agl_cuda_blas_failed(what, status,
                       api.status_string ? api.status_string(status) : NULL);
}

static void plan_release(plan *p) {
  if (p->desc)
    api.desc_destroy(p->desc);
  lt_layout *layouts[] = {&p->a, &p->b, &p->c, &p->d};
  for (size_t i = 0; i < 4; ++i)
    if (*layouts[i])
      api.layout_destroy(*layouts[i]);
  memset(p, 0, sizeof *p);
}

void agl_cuda_lt_destroy(struct agl_cuda_lt *lt) {
  if (!lt)
    return;
  for (size_t i = 0; i < PLANS; ++i)
    plan_release(&lt->plans[i]);
  const agl_cuda_api *driver = agl_cuda_loaded();
  if (lt->workspace && driver)
    driver->cuMemFree(lt->workspace);
  if (lt->handle)
    api.destroy(lt->handle);
  free(lt);
}

/* The instance's cuBLASLt state, made at its first product. */
static struct agl_cuda_lt *instance_lt(agl_cuda_blas *blas) {
  if (blas->lt)
    return blas->lt;
  struct agl_cuda_lt *lt = calloc(1, sizeof *lt);
  if (!lt) {
    agl_cuda_run_failed("out of host memory for the cuBLASLt plans");
    return NULL;
  }
  lt_status status = api.create(&lt->handle);
  if (status != LT_SUCCESS) {
    free(lt);
    lt_failed("cublasLtCreate", status);
    return NULL;
  }
  /* Without the workspace, cuBLASLt picks among the algorithms that need
   * none. */
  const agl_cuda_api *driver = agl_cuda_loaded();
  if (driver &&
      driver->cuMemAlloc(&lt->workspace, WORKSPACE_BYTES) == AGL_CUDA_SUCCESS)
    lt->workspace_size = WORKSPACE_BYTES;
  else
    lt->workspace = 0;
  blas->lt = lt;
  return lt;
}

/* The largest power of two up to 256 that divides the address. */
static uint32_t alignment(const void *pointer) {
  uintptr_t address = (uintptr_t)pointer;
  uint32_t align = 256;
  while (align > 1 && address % align)
    align /= 2;
  return align;
}

/* A layout of `rows` x `cols` (column-major) of `type`, batched. */
static lt_status make_layout(lt_layout *layout, int type, int64_t rows,
                             int64_t cols, int64_t ld, int64_t batch,
                             int64_t batch_stride) {
  lt_status status =
      api.layout_create(layout, type, (uint64_t)rows, (uint64_t)cols, ld);
  if (status != LT_SUCCESS || batch == 1)
    return status;
  int32_t count = (int32_t)batch;
  status = api.layout_set(*layout, LT_LAYOUT_BATCH_COUNT, &count, sizeof count);
  if (status == LT_SUCCESS)
    status = api.layout_set(*layout, LT_LAYOUT_BATCH_STRIDE, &batch_stride,
                            sizeof batch_stride);
  return status;
}

/* The operands' type in words, for messages. */
static const char *operand_type_name(int type) {
  switch (type) {
  case LT_R_8I:
    return "int8";
  case LT_R_16F:
    return "fp16";
  case LT_R_16BF:
    return "bf16";
  }
  return "fp32";
}

/* Describes the product of `key` to cuBLASLt and asks for its algorithm;
 * on failure, fails the run (with what failed) and releases the plan. */
static int plan_make(struct agl_cuda_lt *lt, plan *p, const plan_key *key,
                     const float *bias) {
  p->key = *key;
  /* 8-bit operands: int32 sums, scale factors and output. */
  const int integer = key->type == LT_R_8I;
  const int sums = integer ? LT_R_32I : LT_R_32F;
  const char *what = "cublasLtMatmulDescCreate";
  lt_status status = api.desc_create(
      &p->desc, integer ? LT_COMPUTE_32I : LT_COMPUTE_32F, sums);
  int32_t op_a = key->op_a, op_b = key->op_b;
  uint32_t epilogue = (uint32_t)key->epilogue;
  if (status == LT_SUCCESS) {
    what = "cublasLtMatmulDescSetAttribute";
    status = api.desc_set(p->desc, LT_DESC_TRANSA, &op_a, sizeof op_a);
  }
  if (status == LT_SUCCESS)
    status = api.desc_set(p->desc, LT_DESC_TRANSB, &op_b, sizeof op_b);
  if (status == LT_SUCCESS)
    status =
        api.desc_set(p->desc, LT_DESC_EPILOGUE, &epilogue, sizeof epilogue);
  if (status == LT_SUCCESS && bias)
    status = api.desc_set(p->desc, LT_DESC_BIAS_POINTER, &bias, sizeof bias);
  /* cuBLASLt's A is op(A) = n x k (the model's B), its B k x m (the
   * model's A), C and D n x m. */
  if (status == LT_SUCCESS) {
    what = "cublasLtMatrixLayoutCreate";
    status = make_layout(&p->a, key->type, op_a == LT_OP_N ? key->n : key->k,
                         op_a == LT_OP_N ? key->k : key->n, key->ldb,
                         key->batch, key->b_batch);
  }
  if (status == LT_SUCCESS)
    status = make_layout(&p->b, key->type, op_b == LT_OP_N ? key->k : key->m,
                         op_b == LT_OP_N ? key->m : key->k, key->lda,
                         key->batch, key->a_batch);
  if (status == LT_SUCCESS)
    status = make_layout(&p->d, sums, key->n, key->m, key->ldc, key->batch,
                         key->c_batch);
  if (status == LT_SUCCESS)
    status = key->c_source == C_RESIDUAL
                 ? make_layout(&p->c, sums, key->n, key->m, key->ldr,
                               key->batch, key->r_batch)
                 : make_layout(&p->c, sums, key->n, key->m, key->ldc,
                               key->batch, key->c_batch);
  lt_preference preference = NULL;
  if (status == LT_SUCCESS) {
    what = "cublasLtMatmulPreference";
    status = api.preference_create(&preference);
  }
  uint64_t workspace = lt->workspace_size;
  if (status == LT_SUCCESS)
    status = api.preference_set(preference, LT_PREF_MAX_WORKSPACE, &workspace,
                                sizeof workspace);
  /* The model's B is cuBLASLt's A, its A cuBLASLt's B. */
  const uint32_t align[4] = {key->align[1], key->align[0], key->align[2],
                             key->align[3]};
  for (int i = 0; i < 4 && status == LT_SUCCESS; ++i)
    status = api.preference_set(preference, LT_PREF_ALIGN_A + i, &align[i],
                                sizeof align[i]);
  lt_heuristic result;
  int returned = 0;
  if (status == LT_SUCCESS) {
    what = "cublasLtMatmulAlgoGetHeuristic";
    status = api.heuristic(lt->handle, p->desc, p->a, p->b, p->c, p->d,
                           preference, 1, &result, &returned);
  }
  if (preference)
    api.preference_destroy(preference);
  if (status == LT_SUCCESS && (returned < 1 || result.state != LT_SUCCESS)) {
    char message[300];
    snprintf(message, sizeof message,
             "cuBLASLt has no algorithm for a %lld x %lldx%lldx%lld product "
             "of %s operands with epilogue %d",
             (long long)key->batch, (long long)key->m, (long long)key->n,
             (long long)key->k, operand_type_name(key->type), key->epilogue);
    agl_cuda_run_failed(message);
    plan_release(p);
    return 0;
  }
  if (status != LT_SUCCESS) {
    lt_failed(what, status);
    plan_release(p);
    return 0;
  }
  p->algo = result.algo;
  p->made = 1;
  return 1;
}

/* The plan for `key`: one made before, or a new one in a free slot (the
 * oldest once all are taken). */
static plan *plan_for(struct agl_cuda_lt *lt, const plan_key *key,
                      const float *bias) {
  for (size_t i = 0; i < PLANS; ++i)
    if (lt->plans[i].made && !memcmp(&lt->plans[i].key, key, sizeof *key))
      return &lt->plans[i];
  plan *p = NULL;
  for (size_t i = 0; i < PLANS && !p; ++i)
    if (!lt->plans[i].made)
      p = &lt->plans[i];
  if (!p) {
    p = &lt->plans[lt->next++ % PLANS];
    plan_release(p);
  }
  return plan_make(lt, p, key, bias) ? p : NULL;
}

int agl_cuda_lt_takes(int32_t activation, int residual, int32_t accumulate) {
  return (activation == AGL_ACT_NONE || activation == AGL_ACT_RELU ||
          activation == AGL_ACT_GELU_TANH) &&
         !(residual && (activation != AGL_ACT_NONE || accumulate));
}

/* cuBLASLt's epilogue for the activation and bias; 0 if it has none. */
static int32_t epilogue_of(int32_t activation, int bias) {
  switch (activation) {
  case AGL_ACT_NONE:
    return bias ? LT_EPILOGUE_BIAS : LT_EPILOGUE_DEFAULT;
  case AGL_ACT_RELU:
    return LT_EPILOGUE_RELU | (bias ? LT_EPILOGUE_BIAS : 0);
  case AGL_ACT_GELU_TANH:
    return LT_EPILOGUE_GELU | (bias ? LT_EPILOGUE_BIAS : 0);
  }
  return 0;
}

/* The shapes, leading dimensions, batch strides and transpositions of a
 * row-major product C = A B (m x k by k x n) in `key`: as cuBLASLt sees it,
 * column-major C^T = B^T A^T. */
static void describe_product(plan_key *key, const agl_cuda_product *layout,
                             int64_t batch, int64_t m, int64_t n, int64_t k,
                             int64_t a_batch_stride, int64_t b_batch_stride,
                             int64_t c_batch_stride) {
  key->lda = layout->lda;
  key->ldb = layout->ldb;
  key->ldc = layout->ldc;
  key->batch = batch;
  key->m = m;
  key->n = n;
  key->k = k;
  if (batch > 1) {
    key->a_batch = a_batch_stride;
    key->b_batch = b_batch_stride;
    key->c_batch = c_batch_stride;
  }
  key->op_a = layout->b_transposed ? LT_OP_T : LT_OP_N;
  key->op_b = layout->a_transposed ? LT_OP_T : LT_OP_N;
}

/* Queues the product `key` describes on the run's stream, its plan made if
 * it is new: D = epilogue(alpha A B + beta C), `alpha` and `beta` of the
 * plan's scale type (int32 for 8-bit operands, else float). */
static void queue_product(agl_cuda_blas *blas, CUstream stream, plan_key *key,
                          const void *a, const void *b, const void *c_in,
                          void *d, const float *bias, const void *alpha,
                          const void *beta) {
  char why[400];
  if (!load_lt(why, sizeof why)) {
    agl_cuda_run_failed(why);
    return;
  }
  struct agl_cuda_lt *lt = instance_lt(blas);
  if (!lt)
    return;
  const void *pointers[5] = {a, b, c_in, d, bias};
  for (int i = 0; i < 5; ++i)
    key->align[i] = pointers[i] ? alignment(pointers[i]) : 0;
  plan *p = plan_for(lt, key, bias);
  if (!p)
    return;
  lt_status status = LT_SUCCESS;
  if (bias)
    status = api.desc_set(p->desc, LT_DESC_BIAS_POINTER, &bias, sizeof bias);
  /* The model's B is cuBLASLt's A, its A cuBLASLt's B. */
  if (status == LT_SUCCESS)
    status = api.matmul(
        lt->handle, p->desc, alpha, b, p->a, a, p->b, beta, c_in, p->c, d, p->d,
        &p->algo, (void *)(uintptr_t)lt->workspace, lt->workspace_size, stream);
  if (status != LT_SUCCESS) {
    char text[160];
    snprintf(text, sizeof text, "cublasLtMatmul (%lld x %lldx%lldx%lld)",
             (long long)key->batch, (long long)key->m, (long long)key->n,
             (long long)key->k);
    lt_failed(text, status);
  }
}

void agl_cuda_gemm_epilogue(
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const void *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, float *c, int64_t c_batch_stride,
    int64_t c_row_stride, int32_t accumulate, float alpha, int32_t format,
    const float *bias, int32_t activation, const float *residual,
    int64_t residual_batch_stride, int64_t residual_row_stride) {
  static const char caller[] = "agl_cuda_gemm_epilogue";
  CUstream stream;
  agl_cuda_blas *blas = agl_cuda_blas_of_run(caller, &stream);
  if (!blas || batch <= 0 || m <= 0 || n <= 0)
    return;
  plan_key key;
  memset(&key, 0, sizeof key);
  if (!agl_cuda_lt_takes(activation, residual != NULL, accumulate)) {
    char message[200];
    snprintf(
        message, sizeof message, "%s: no cuBLASLt epilogue for activation %d%s",
        caller, (int)activation,
        residual ? " with a residual, or a residual while accumulating" : "");
    agl_cuda_run_failed(message);
    return;
  }
  agl_cuda_product layout;
  int r_transposed = 0;
  if (!agl_cuda_product_layout(m, n, k, a_row_stride, a_col_stride,
                               b_row_stride, b_col_stride, c_row_stride,
                               &layout) ||
      (residual && (!agl_cuda_blas_layout(m, n, residual_row_stride, 1,
                                          &r_transposed, &key.ldr) ||
                    r_transposed)) ||
      batch > INT_MAX || format < AGL_CUDA_HALF || format > AGL_CUDA_FLOAT) {
    agl_cuda_blas_refuse(caller, "cuBLASLt", m, n, k);
    return;
  }
  describe_product(&key, &layout, batch, m, n, k, a_batch_stride,
                   b_batch_stride, c_batch_stride);
  if (batch > 1)
    key.r_batch = residual ? residual_batch_stride : 0;
  key.type = format == AGL_CUDA_HALF   ? LT_R_16F
             : format == AGL_CUDA_BF16 ? LT_R_16BF
                                       : LT_R_32F;
  key.epilogue = epilogue_of(activation, bias != NULL);
  key.c_source = residual ? C_RESIDUAL : accumulate ? C_OUTPUT : C_NONE;
  const float beta = key.c_source == C_NONE ? 0.0f : 1.0f;
  queue_product(blas, stream, &key, a, b, residual ? (const void *)residual : c,
                c, bias, &alpha, &beta);
}

int agl_cuda_int8_takes(int64_t m, int64_t n, int64_t k, int64_t a_row_stride,
                        int64_t a_col_stride, int64_t b_row_stride,
                        int64_t b_col_stride, int64_t c_row_stride,
                        agl_cuda_product *layout) {
  /* cuBLASLt's integer products with the regular (column-major) order:
   * "TN" (the model's A and B both contiguous along k), leading dimensions
   * and the product's n and k multiples of 4. */
  return agl_cuda_product_layout(m, n, k, a_row_stride, a_col_stride,
                                 b_row_stride, b_col_stride, c_row_stride,
                                 layout) &&
         !layout->a_transposed && layout->b_transposed && n % 4 == 0 &&
         k % 4 == 0 && layout->lda % 4 == 0 && layout->ldb % 4 == 0 &&
         layout->ldc % 4 == 0;
}

void agl_cuda_gemm_int8(int64_t batch, int64_t m, int64_t n, int64_t k,
                        const int8_t *a, int64_t a_batch_stride,
                        int64_t a_row_stride, int64_t a_col_stride,
                        const int8_t *b, int64_t b_batch_stride,
                        int64_t b_row_stride, int64_t b_col_stride, int32_t *c,
                        int64_t c_batch_stride, int64_t c_row_stride,
                        int32_t accumulate) {
  static const char caller[] = "agl_cuda_gemm_int8";
  CUstream stream;
  agl_cuda_blas *blas = agl_cuda_blas_of_run(caller, &stream);
  if (!blas || batch <= 0 || m <= 0 || n <= 0)
    return;
  agl_cuda_product layout;
  if (!agl_cuda_int8_takes(m, n, k, a_row_stride, a_col_stride, b_row_stride,
                           b_col_stride, c_row_stride, &layout) ||
      batch > INT_MAX ||
      (batch > 1 && (a_batch_stride % 4 != 0 || b_batch_stride % 4 != 0)) ||
      (uintptr_t)a % 4 != 0 || (uintptr_t)b % 4 != 0 || (uintptr_t)c % 4 != 0) {
    agl_cuda_blas_refuse(caller, "cuBLASLt", m, n, k);
    return;
  }
  plan_key key;
  memset(&key, 0, sizeof key);
  describe_product(&key, &layout, batch, m, n, k, a_batch_stride,
                   b_batch_stride, c_batch_stride);
  key.type = LT_R_8I;
  key.epilogue = LT_EPILOGUE_DEFAULT;
  key.c_source = accumulate ? C_OUTPUT : C_NONE;
  const int32_t alpha = 1, beta = accumulate ? 1 : 0;
  queue_product(blas, stream, &key, a, b, c, c, NULL, &alpha, &beta);
}
