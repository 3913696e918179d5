/* A stand-in for libcublas.so and libcublasLt.so on machines without a
 * GPU, next to the fake driver (fake_cuda_driver.c), whose device memory is
 * host memory: the product is computed on the host, column-major as cuBLAS
 * defines it, on the fake driver's stream (as host work it runs at once,
 * queues or records into a graph, see fake_cuda_driver.c) with the
 * arguments' values at the call. The runtime loads it through
 * AUTOGLM_CUBLAS and AUTOGLM_CUBLASLT. FAKE_CUBLAS_FAIL=create|gemm|
 * lt_create|lt_heuristic|lt_matmul makes that call fail as the real
 * library would. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int cublasStatus_t;
enum {
  SUCCESS = 0,
  ALLOC_FAILED = 3,
  INVALID_VALUE = 7,
  EXECUTION_FAILED = 13,
  OP_T = 1,
  R_32F = 0,
  R_16F = 2,
  R_16BF = 14,
  R_8I = 3,
  R_32I = 10,
  COMPUTE_32F = 68,
  COMPUTE_32I = 72
};

static int handle_storage;

static int failing(const char *call) {
  const char *fail = getenv("FAKE_CUBLAS_FAIL");
  return fail && strcmp(fail, call) == 0;
}

/* Submits `work` on `args` to the fake driver's stream (the driver the
 * runtime loaded from AUTOGLM_CUDA_DRIVER). */
static cublasStatus_t on_stream(void (*work)(const void *), const void *args,
                                size_t bytes) {
  typedef int (*submit_fn)(void (*)(const void *), const void *, size_t);
  static submit_fn submit;
  if (!submit) {
    const char *path = getenv("AUTOGLM_CUDA_DRIVER");
    void *driver = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void *symbol = driver ? dlsym(driver, "fake_cuda_submit") : NULL;
    memcpy(&submit, &symbol, sizeof symbol);
  }
  return submit && submit(work, args, bytes) == 0 ? SUCCESS : EXECUTION_FAILED;
}

cublasStatus_t cublasCreate_v2(void **handle) {
  if (failing("create"))
    return ALLOC_FAILED;
  *handle = &handle_storage;
  return SUCCESS;
}

cublasStatus_t cublasDestroy_v2(void *handle) {
  return handle == &handle_storage ? SUCCESS : EXECUTION_FAILED;
}

cublasStatus_t cublasSetStream_v2(void *handle, void *stream) {
  (void)stream;
  return handle == &handle_storage ? SUCCESS : EXECUTION_FAILED;
}

const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

/* Element (i, j) of op(X), X column-major with leading dimension ld. */
static float at(const float *x, int ld, int op, int i, int j) {
  return op == OP_T ? x[j + (long)i * ld] : x[i + (long)j * ld];
}

typedef struct {
  int transa, transb, m, n, k, lda, ldb, ldc, batch_count;
  float alpha, beta;
  const float *a, *b;
  float *c;
  long long stride_a, stride_b, stride_c;
} sgemm_args;

static void sgemm(const void *args) {
  const sgemm_args *g = args;
  for (int e = 0; e < g->batch_count; ++e)
    for (int j = 0; j < g->n; ++j)
      for (int i = 0; i < g->m; ++i) {
        float sum = 0;
        for (int p = 0; p < g->k; ++p)
          sum += at(g->a + e * g->stride_a, g->lda, g->transa, i, p) *
                 at(g->b + e * g->stride_b, g->ldb, g->transb, p, j);
        float *out = g->c + e * g->stride_c + i + (long)j * g->ldc;
        *out = g->alpha * sum + (g->beta != 0 ? g->beta * *out : 0);
      }
}

cublasStatus_t
cublasSgemmStridedBatched(void *handle, int transa, int transb, int m, int n,
                          int k, const float *alpha, const float *a, int lda,
                          long long stride_a, const float *b, int ldb,
                          long long stride_b, const float *beta, float *c,
                          int ldc, long long stride_c, int batch_count) {
  if (handle != &handle_storage || failing("gemm"))
    return EXECUTION_FAILED;
  sgemm_args args = {transa, transb, m,           n,        k,       lda,
                     ldb,    ldc,    batch_count, *alpha,   *beta,   a,
                     b,      c,      stride_a,    stride_b, stride_c};
  return on_stream(sgemm, &args, sizeof args);
}

/* A 16-bit float as a float. */
static float widen(uint16_t bits, int type) {
  uint32_t out;
  if (type == R_16BF) {
    out = (uint32_t)bits << 16;
  } else { /* IEEE half; no subnormals, infinities or NaNs in the tests */
    uint32_t exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
    out = exponent ? ((exponent + 112) << 23) | (mantissa << 13) : 0;
    out |= (uint32_t)(bits & 0x8000) << 16;
  }
  float f;
  memcpy(&f, &out, sizeof f);
  return f;
}

/* Element (i, j) of op(X), 16-bit X column-major with leading dimension
 * ld. */
static float at16(const uint16_t *x, int type, int ld, int op, int i, int j) {
  return widen(op == OP_T ? x[j + (long)i * ld] : x[i + (long)j * ld], type);
}

typedef struct {
  int transa, transb, m, n, k, lda, ldb, ldc, batch_count, a_type, b_type;
  float alpha, beta;
  const uint16_t *a, *b;
  float *c;
  long long stride_a, stride_b, stride_c;
} gemm_ex_args;

static void gemm_ex(const void *args) {
  const gemm_ex_args *g = args;
  for (int e = 0; e < g->batch_count; ++e)
    for (int j = 0; j < g->n; ++j)
      for (int i = 0; i < g->m; ++i) {
        float sum = 0;
        for (int p = 0; p < g->k; ++p)
          sum +=
              at16(g->a + e * g->stride_a, g->a_type, g->lda, g->transa, i, p) *
              at16(g->b + e * g->stride_b, g->b_type, g->ldb, g->transb, p, j);
        float *out = g->c + e * g->stride_c + i + (long)j * g->ldc;
        *out = g->alpha * sum + (g->beta != 0 ? g->beta * *out : 0);
      }
}

cublasStatus_t cublasGemmStridedBatchedEx(
    void *handle, int transa, int transb, int m, int n, int k,
    const void *alpha, const void *a, int a_type, int lda, long long stride_a,
    const void *b, int b_type, int ldb, long long stride_b, const void *beta,
    void *c, int c_type, int ldc, long long stride_c, int batch_count,
    int compute_type, int algo) {
  (void)algo;
  if (handle != &handle_storage || failing("gemm"))
    return EXECUTION_FAILED;
  if (a_type != b_type || (a_type != R_16F && a_type != R_16BF) ||
      c_type != R_32F || compute_type != COMPUTE_32F)
    return INVALID_VALUE;
  gemm_ex_args args = {transa,
                       transb,
                       m,
                       n,
                       k,
                       lda,
                       ldb,
                       ldc,
                       batch_count,
                       a_type,
                       b_type,
                       *(const float *)alpha,
                       *(const float *)beta,
                       a,
                       b,
                       c,
                       stride_a,
                       stride_b,
                       stride_c};
  return on_stream(gemm_ex, &args, sizeof args);
}

/* ---- cuBLASLt ------------------------------------------------------------
 * Descriptors hold the attributes the runtime sets; the heuristic offers one
 * algorithm (none with FAKE_CUBLAS_FAIL=lt_no_algorithm) and counts its
 * calls (fake_cublaslt_heuristic_calls, for the tests of the runtime's plan
 * cache); a product computes
 * D = epilogue(alpha op(A) op(B) + beta C), the bias added per row of D
 * (before the activation), GELU in its tanh form; with int8 A and B
 * (compute type 32I), D = alpha op(A) op(B) + beta C in int32, refused
 * unless the layouts follow the real library's rules for them ("TN",
 * leading dimensions multiples of 4). */

typedef struct {
  int integer; /* compute and scale type 32I */
  int transa, transb;
  unsigned epilogue;
  const float *bias;
} fake_desc;

typedef struct {
  int type;
  uint64_t rows, cols;
  int64_t ld;
  int batch;
  int64_t batch_stride;
} fake_layout;

int fake_cublaslt_heuristic_calls;
static int lt_handle_storage;

enum {
  EPILOGUE_DEFAULT = 1,
  EPILOGUE_RELU = 2,
  EPILOGUE_BIAS = 4,
  EPILOGUE_GELU = 32
};

cublasStatus_t cublasLtCreate(void **handle) {
  if (failing("lt_create"))
    return ALLOC_FAILED;
  *handle = &lt_handle_storage;
  return SUCCESS;
}

cublasStatus_t cublasLtDestroy(void *handle) {
  return handle == &lt_handle_storage ? SUCCESS : INVALID_VALUE;
}

const char *cublasLtGetStatusString(cublasStatus_t status) {
  return cublasGetStatusString(status);
}

cublasStatus_t cublasLtMatmulDescCreate(fake_desc **desc, int compute_type,
                                        int scale_type) {
  const int integer = compute_type == COMPUTE_32I && scale_type == R_32I;
  if (!integer && (compute_type != COMPUTE_32F || scale_type != R_32F))
    return INVALID_VALUE;
  *desc = calloc(1, sizeof **desc);
  if (!*desc)
    return ALLOC_FAILED;
  (*desc)->integer = integer;
  (*desc)->epilogue = EPILOGUE_DEFAULT;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(fake_desc *desc) {
  free(desc);
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(fake_desc *desc, int attribute,
                                              const void *value, size_t size) {
  switch (attribute) {
  case 3: /* TRANSA */
    return size == sizeof(int32_t)
               ? (memcpy(&desc->transa, value, size), SUCCESS)
               : INVALID_VALUE;
  case 4: /* TRANSB */
    return size == sizeof(int32_t)
               ? (memcpy(&desc->transb, value, size), SUCCESS)
               : INVALID_VALUE;
  case 7: /* EPILOGUE */
    return size == sizeof(uint32_t)
               ? (memcpy(&desc->epilogue, value, size), SUCCESS)
               : INVALID_VALUE;
  case 8: /* BIAS_POINTER */
    return size == sizeof(void *) ? (memcpy(&desc->bias, value, size), SUCCESS)
                                  : INVALID_VALUE;
  }
  return INVALID_VALUE;
}

cublasStatus_t cublasLtMatrixLayoutCreate(fake_layout **layout, int type,
                                          uint64_t rows, uint64_t cols,
                                          int64_t ld) {
  if (ld < (int64_t)rows)
    return INVALID_VALUE;
  *layout = calloc(1, sizeof **layout);
  if (!*layout)
    return ALLOC_FAILED;
  **layout = (fake_layout){type, rows, cols, ld, 1, 0};
  return SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(fake_layout *layout) {
  free(layout);
  return SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(fake_layout *layout,
                                                int attribute,
                                                const void *value,
                                                size_t size) {
  if (attribute == 5 && size == sizeof(int32_t)) /* BATCH_COUNT */
    memcpy(&layout->batch, value, size);
  else if (attribute == 6 && size == sizeof(int64_t)) /* STRIDED_BATCH_OFFSET */
    memcpy(&layout->batch_stride, value, size);
  else
    return INVALID_VALUE;
  return SUCCESS;
}

static int preference_storage;

cublasStatus_t cublasLtMatmulPreferenceCreate(void **preference) {
  *preference = &preference_storage;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(void *preference) {
  return preference == &preference_storage ? SUCCESS : INVALID_VALUE;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(void *preference,
                                                    int attribute,
                                                    const void *value,
                                                    size_t size) {
  (void)value;
  if (preference != &preference_storage)
    return INVALID_VALUE;
  if (attribute == 1) /* MAX_WORKSPACE_BYTES */
    return size == sizeof(uint64_t) ? SUCCESS : INVALID_VALUE;
  if (attribute >= 5 && attribute <= 8) /* MIN_ALIGNMENT_{A,B,C,D}_BYTES */
    return size == sizeof(uint32_t) ? SUCCESS : INVALID_VALUE;
  return INVALID_VALUE;
}

typedef struct {
  uint64_t data[8];
  size_t workspace_size;
  int state;
  float waves;
  int reserved[4];
} fake_heuristic;

/* Rows and columns of op(X). */
static uint64_t op_rows(const fake_layout *x, int op) {
  return op == OP_T ? x->cols : x->rows;
}
static uint64_t op_cols(const fake_layout *x, int op) {
  return op == OP_T ? x->rows : x->cols;
}

/* Whether the layouts describe one product: op(A) m x k, op(B) k x n, C and
 * D m x n, the same batch, 16-bit or float A and B of one type, float C and
 * D; or for an integer product int8 A and B, int32 C and D, "TN", m, k and
 * the leading dimensions multiples of 4. */
static int consistent(const fake_desc *desc, const fake_layout *a,
                      const fake_layout *b, const fake_layout *c,
                      const fake_layout *d) {
  const int shapes = op_cols(a, desc->transa) == op_rows(b, desc->transb) &&
                     op_rows(a, desc->transa) == d->rows &&
                     op_cols(b, desc->transb) == d->cols &&
                     c->rows == d->rows && c->cols == d->cols &&
                     a->batch == d->batch && b->batch == d->batch &&
                     c->batch == d->batch && a->type == b->type;
  if (desc->integer)
    return shapes && a->type == R_8I && c->type == R_32I && d->type == R_32I &&
           desc->transa == OP_T && desc->transb != OP_T && d->rows % 4 == 0 &&
           a->rows % 4 == 0 && a->ld % 4 == 0 && b->ld % 4 == 0 &&
           c->ld % 4 == 0 && d->ld % 4 == 0 &&
           desc->epilogue == EPILOGUE_DEFAULT;
  return shapes &&
         (a->type == R_32F || a->type == R_16F || a->type == R_16BF) &&
         c->type == R_32F && d->type == R_32F;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(void *handle, fake_desc *desc,
                                              fake_layout *a, fake_layout *b,
                                              fake_layout *c, fake_layout *d,
                                              void *preference, int requested,
                                              fake_heuristic *results,
                                              int *returned) {
  ++fake_cublaslt_heuristic_calls;
  if (handle != &lt_handle_storage || preference != &preference_storage ||
      requested < 1 || failing("lt_heuristic"))
    return INVALID_VALUE;
  if (!consistent(desc, a, b, c, d))
    return INVALID_VALUE;
  if (failing("lt_no_algorithm")) { /* a product it has no kernel for */
    *returned = 0;
    return SUCCESS;
  }
  memset(results, 0, sizeof *results);
  results->data[0] = 42;
  *returned = 1;
  return SUCCESS;
}

/* Element (i, j) of op(X) in entry e of a batch, X of any type. */
static float element(const void *x, const fake_layout *l, int op, int e,
                     uint64_t i, uint64_t j) {
  int64_t at =
      e * l->batch_stride + (op == OP_T ? (int64_t)j + (int64_t)i * l->ld
                                        : (int64_t)i + (int64_t)j * l->ld);
  return l->type == R_32F  ? ((const float *)x)[at]
         : l->type == R_8I ? ((const int8_t *)x)[at]
                           : widen(((const uint16_t *)x)[at], l->type);
}

/* The same for the int32 C of an integer product. */
static int32_t integer_element(const void *x, const fake_layout *l, int e,
                               uint64_t i, uint64_t j) {
  return ((
      const int32_t *)x)[e * l->batch_stride + (int64_t)i + (int64_t)j * l->ld];
}

/* A product with the descriptors' values at the call. */
typedef struct {
  fake_desc desc;
  fake_layout a_layout, b_layout, c_layout, d_layout;
  float alpha, beta;
  int32_t integer_alpha, integer_beta;
  const void *a, *b, *c;
  void *d;
} lt_matmul_args;

/* An integer product: exact int32 sums of int8 products. */
static void lt_matmul_integer(const lt_matmul_args *g) {
  const fake_layout *d_layout = &g->d_layout;
  const uint64_t k = op_cols(&g->a_layout, g->desc.transa);
  for (int e = 0; e < d_layout->batch; ++e)
    for (uint64_t j = 0; j < d_layout->cols; ++j)
      for (uint64_t i = 0; i < d_layout->rows; ++i) {
        int32_t sum = 0;
        for (uint64_t p = 0; p < k; ++p)
          sum += (int32_t)element(g->a, &g->a_layout, g->desc.transa, e, i, p) *
                 (int32_t)element(g->b, &g->b_layout, g->desc.transb, e, p, j);
        int32_t v = g->integer_alpha * sum;
        if (g->integer_beta != 0)
          v += g->integer_beta * integer_element(g->c, &g->c_layout, e, i, j);
        ((int32_t *)g->d)[e * d_layout->batch_stride + (int64_t)i +
                          (int64_t)j * d_layout->ld] = v;
      }
}

static void lt_matmul(const void *args) {
  const lt_matmul_args *g = args;
  if (g->desc.integer) {
    lt_matmul_integer(g);
    return;
  }
  const fake_desc *desc = &g->desc;
  const fake_layout *d_layout = &g->d_layout;
  const uint64_t k = op_cols(&g->a_layout, desc->transa);
  for (int e = 0; e < d_layout->batch; ++e)
    for (uint64_t j = 0; j < d_layout->cols; ++j)
      for (uint64_t i = 0; i < d_layout->rows; ++i) {
        float sum = 0;
        for (uint64_t p = 0; p < k; ++p)
          sum += element(g->a, &g->a_layout, desc->transa, e, i, p) *
                 element(g->b, &g->b_layout, desc->transb, e, p, j);
        float v = g->alpha * sum;
        if (g->beta != 0)
          v += g->beta * element(g->c, &g->c_layout, 0, e, i, j);
        if (desc->epilogue & EPILOGUE_BIAS)
          v += desc->bias[i];
        if (desc->epilogue & EPILOGUE_RELU)
          v = v > 0 ? v : 0;
        if (desc->epilogue & EPILOGUE_GELU)
          v = 0.5f * v *
              (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        ((float *)g->d)[e * d_layout->batch_stride + (int64_t)i +
                        (int64_t)j * d_layout->ld] = v;
      }
}

cublasStatus_t
cublasLtMatmul(void *handle, fake_desc *desc, const void *alpha, const void *a,
               fake_layout *a_layout, const void *b, fake_layout *b_layout,
               const void *beta, const void *c, fake_layout *c_layout, void *d,
               fake_layout *d_layout, const uint64_t *algo, void *workspace,
               size_t workspace_size, void *stream) {
  (void)workspace;
  (void)workspace_size;
  (void)stream;
  if (handle != &lt_handle_storage || !algo || algo[0] != 42 ||
      failing("lt_matmul"))
    return EXECUTION_FAILED;
  if (!consistent(desc, a_layout, b_layout, c_layout, d_layout) ||
      ((desc->epilogue & EPILOGUE_BIAS) && !desc->bias))
    return INVALID_VALUE;
  lt_matmul_args args = {*desc, *a_layout, *b_layout, *c_layout, *d_layout};
  if (desc->integer) {
    memcpy(&args.integer_alpha, alpha, sizeof args.integer_alpha);
    memcpy(&args.integer_beta, beta, sizeof args.integer_beta);
  } else {
    args.alpha = *(const float *)alpha;
    args.beta = *(const float *)beta;
  }
  args.a = a;
  args.b = b;
  args.c = c;
  args.d = d;
  return on_stream(lt_matmul, &args, sizeof args);
}
