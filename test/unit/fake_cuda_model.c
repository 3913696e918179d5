/* A CUDA model written by hand, as compiled ones call the runtime: its GPU
 * image registered by a constructor, its entry function launching one
 * kernel on device pointers, y = x + weights (4 floats). With the fake
 * driver (fake_cuda_driver.c) the kernel is a host function. A second
 * descriptor names a kernel the image lacks; a third runs one matrix
 * product through agl_cuda_sgemm (cuBLAS, or fake_cublas.c); a fourth
 * has a symbolic extent, y[n] = x[n] + weights[n] for n in 1..16; a fifth
 * is compiled for profiling, its two launches bracketed as two kernels; a
 * sixth keeps a KV cache whose length it reads after the symbol values, and
 * adds the first length + 1 elements. The gemm models run one product
 * through the runtime's library calls (fake_cuda.h). */
#include "autoglm/runtime.h"
#include "fake_cuda.h"

#include <stddef.h>
#include <stdint.h>

void *mgpuModuleLoad(void *data, size_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void mgpuLaunchKernel(void *function, intptr_t gx, intptr_t gy, intptr_t gz,
                      intptr_t bx, intptr_t by, intptr_t bz, int32_t shared,
                      void *stream, void **params, void **extra,
                      size_t num_params);

static void add_kernel(unsigned threads, void **params) {
  const float *x = *(const float **)params[0];
  const float *w = *(const float **)params[1];
  float *y = *(float **)params[2];
  for (unsigned i = 0; i < threads; ++i)
    y[i] = x[i] + w[i];
}

static fake_cuda_image image = {"add_kernel", add_kernel};
static void *module;

__attribute__((constructor)) static void load_image(void) {
  module = mgpuModuleLoad(&image, sizeof image);
}

__attribute__((destructor)) static void unload_image(void) {
  mgpuModuleUnload(module);
}

static int32_t launch_threads(const char *kernel, const void *weights,
                              const void *const *inputs, void *const *outputs,
                              intptr_t threads) {
  void *function = mgpuModuleGetFunction(module, kernel);
  void *stream = mgpuStreamCreate();
  const void *x = inputs[0];
  void *y = outputs[0];
  void *params[] = {&x, &weights, &y};
  mgpuLaunchKernel(function, 1, 1, 1, threads, 1, 1, 0, stream, params, NULL,
                   3);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  return 0;
}

static int32_t launch(const char *kernel, const void *weights,
                      const void *const *inputs, void *const *outputs) {
  return launch_threads(kernel, weights, inputs, outputs, 4);
}

static int32_t run(void *arena, const void *weights, const void *const *inputs,
                   void *const *outputs, const int64_t *symbols,
                   int64_t *output_dims) {
  (void)symbols;
  (void)output_dims;
  return arena ? launch("add_kernel", weights, inputs, outputs) : 1;
}

static int32_t run_missing_kernel(void *arena, const void *weights,
                                  const void *const *inputs,
                                  void *const *outputs, const int64_t *symbols,
                                  int64_t *output_dims) {
  (void)arena;
  (void)symbols;
  (void)output_dims;
  return launch("no_such_kernel", weights, inputs, outputs);
}

void agl_cuda_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                    const float *a, int64_t a_batch_stride,
                    int64_t a_row_stride, int64_t a_col_stride, const float *b,
                    int64_t b_batch_stride, int64_t b_row_stride,
                    int64_t b_col_stride, float *c, int64_t c_batch_stride,
                    int64_t c_row_stride, int32_t accumulate, float alpha);

void agl_cuda_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k,
                        const void *a, int64_t a_batch_stride,
                        int64_t a_row_stride, int64_t a_col_stride,
                        const void *b, int64_t b_batch_stride,
                        int64_t b_row_stride, int64_t b_col_stride, float *c,
                        int64_t c_batch_stride, int64_t c_row_stride,
                        int32_t accumulate, float alpha, int32_t format);

void agl_cuda_gemm_epilogue(
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
    int64_t a_batch_stride, int64_t a_row_stride, int64_t a_col_stride,
    const void *b, int64_t b_batch_stride, int64_t b_row_stride,
    int64_t b_col_stride, float *c, int64_t c_batch_stride,
    int64_t c_row_stride, int32_t accumulate, float alpha, int32_t format,
    const float *bias, int32_t activation, const float *residual,
    int64_t residual_batch_stride, int64_t residual_row_stride);

fake_cuda_gemm fake_gemm = {.format = -1};

static int32_t run_gemm(void *arena, const void *weights,
                        const void *const *inputs, void *const *outputs,
                        const int64_t *symbols, int64_t *output_dims) {
  (void)arena;
  (void)symbols;
  (void)output_dims;
  const fake_cuda_gemm *g = &fake_gemm;
  if (g->format < 0)
    agl_cuda_sgemm(g->batch, g->m, g->n, g->k, inputs[0], g->a_batch, g->a_row,
                   g->a_col, weights, g->b_batch, g->b_row, g->b_col,
                   outputs[0], g->c_batch, g->c_row, g->accumulate, g->alpha);
  else
    agl_cuda_gemm_half(g->batch, g->m, g->n, g->k, inputs[0], g->a_batch,
                       g->a_row, g->a_col, weights, g->b_batch, g->b_row,
                       g->b_col, outputs[0], g->c_batch, g->c_row,
                       g->accumulate, g->alpha, g->format);
  return 0;
}

static int32_t run_gemm_epilogue(void *arena, const void *weights,
                                 const void *const *inputs,
                                 void *const *outputs, const int64_t *symbols,
                                 int64_t *output_dims) {
  (void)arena;
  (void)symbols;
  (void)output_dims;
  const fake_cuda_gemm *g = &fake_gemm;
  const float *w = weights;
  agl_cuda_gemm_epilogue(g->batch, g->m, g->n, g->k, inputs[0], g->a_batch,
                         g->a_row, g->a_col, w, g->b_batch, g->b_row, g->b_col,
                         outputs[0], g->c_batch, g->c_row, g->accumulate,
                         g->alpha, g->format < 0 ? 2 : g->format,
                         g->bias ? w + 16 : NULL, g->activation,
                         g->residual ? w + 32 : NULL, g->r_batch, g->r_row);
  return 0;
}

void agl_cuda_gemm_int8(int64_t batch, int64_t m, int64_t n, int64_t k,
                        const int8_t *a, int64_t a_batch_stride,
                        int64_t a_row_stride, int64_t a_col_stride,
                        const int8_t *b, int64_t b_batch_stride,
                        int64_t b_row_stride, int64_t b_col_stride, int32_t *c,
                        int64_t c_batch_stride, int64_t c_row_stride,
                        int32_t accumulate);

/* fake_gemm as an integer product: 64 int8 in (A), 64 bytes of int8
 * weights (B), 16 int32 out (C). */
static int32_t run_gemm_int8(void *arena, const void *weights,
                             const void *const *inputs, void *const *outputs,
                             const int64_t *symbols, int64_t *output_dims) {
  (void)arena;
  (void)symbols;
  (void)output_dims;
  const fake_cuda_gemm *g = &fake_gemm;
  agl_cuda_gemm_int8(g->batch, g->m, g->n, g->k, inputs[0], g->a_batch,
                     g->a_row, g->a_col, weights, g->b_batch, g->b_row,
                     g->b_col, outputs[0], g->c_batch, g->c_row, g->accumulate);
  return 0;
}

void *agl_cuda_host_staging(int64_t bytes);
void agl_cuda_copy_to_host(void *host, const void *device, int64_t bytes);
void agl_cuda_copy_to_device(void *device, const void *host, int64_t bytes);

void *fake_host_staging_seen;

/* A host section as compiled code runs one: y = x * weights on host copies
 * of x and the weights, y copied back. */
static int32_t run_host_section(void *arena, const void *weights,
                                const void *const *inputs, void *const *outputs,
                                const int64_t *symbols, int64_t *output_dims) {
  (void)arena;
  (void)symbols;
  (void)output_dims;
  float *staging = agl_cuda_host_staging(12 * sizeof(float));
  fake_host_staging_seen = staging;
  if (!staging)
    return 0;
  float *x = staging, *w = staging + 4, *y = staging + 8;
  agl_cuda_copy_to_host(x, inputs[0], 4 * sizeof(float));
  agl_cuda_copy_to_host(w, weights, 4 * sizeof(float));
  for (int i = 0; i < 4; ++i)
    y[i] = x[i] * w[i];
  agl_cuda_copy_to_device(outputs[0], y, 4 * sizeof(float));
  return 0;
}

static const int64_t shape[] = {4};
static const agl_tensor_info input = {"x", AGL_DTYPE_F32, 1, shape, NULL};
static const agl_tensor_info output = {"y", AGL_DTYPE_F32, 1, shape, NULL};

/* The models on x and y of 4 floats; any other fields after `entry`. */
#define FAKE_CUDA_DESC(model_name, entry, ...)                                 \
  {                                                                            \
    .abi_version = AGL_ABI_VERSION, .device = AGL_DEVICE_CUDA,                 \
    .name = model_name, .num_inputs = 1, .num_outputs = 1, .inputs = &input,   \
    .outputs = &output, .arena_size = 64, .arena_alignment = 64,               \
    .weights_size = 4 * sizeof(float), .weights_file = "fake_cuda.weights",    \
    .run = entry, __VA_ARGS__                                                  \
  }

static const agl_model_desc desc = FAKE_CUDA_DESC("fake_cuda", run);
static const agl_model_desc missing_kernel_desc =
    FAKE_CUDA_DESC("fake_cuda", run_missing_kernel);
static const agl_model_desc host_section_desc =
    FAKE_CUDA_DESC("fake_cuda", run_host_section);

/* The symbolic model's entry: n threads, and the output's extent. */
static int32_t run_shaped(void *arena, const void *weights,
                          const void *const *inputs, void *const *outputs,
                          const int64_t *symbols, int64_t *output_dims) {
  (void)arena;
  if (!symbols || symbols[0] < 1 || symbols[0] > 16)
    return 2;
  if (output_dims)
    output_dims[0] = symbols[0];
  return launch_threads("add_kernel", weights, inputs, outputs, symbols[0]);
}

static const agl_symbol_info shaped_symbols[] = {{"n", 1, 16}};
static const int64_t shaped_shape[] = {16};
static const int32_t shaped_dims[] = {0};
static const agl_tensor_info shaped_input = {"x", AGL_DTYPE_F32, 1,
                                             shaped_shape, shaped_dims};
static const agl_tensor_info shaped_output = {"y", AGL_DTYPE_F32, 1,
                                              shaped_shape, shaped_dims};
static const agl_model_desc shaped_desc = {
    .abi_version = AGL_ABI_VERSION,
    .device = AGL_DEVICE_CUDA,
    .name = "fake_cuda_shaped",
    .num_inputs = 1,
    .num_outputs = 1,
    .inputs = &shaped_input,
    .outputs = &shaped_output,
    .num_symbols = 1,
    .symbols = shaped_symbols,
    .arena_size = 64,
    .arena_alignment = 64,
    .weights_size = 16 * sizeof(float),
    .weights_file = "fake_cuda_shaped.weights",
    .run = run_shaped,
};

/* A KV cache of 4 positions, one per run, its length read where GPU models
 * read it: y[i] = x[i] + weights[i] for i up to the length. */
static int32_t run_cached(void *arena, const void *weights,
                          const void *const *inputs, void *const *outputs,
                          const int64_t *symbols, int64_t *output_dims) {
  (void)arena;
  (void)output_dims;
  if (!symbols || symbols[0] < 0 || symbols[0] > 3)
    return 2;
  return launch_threads("add_kernel", weights, inputs, outputs, symbols[0] + 1);
}

static const agl_tensor_info cache_tensor = {"past", AGL_DTYPE_F32, 1, shape,
                                             NULL};
static const uint64_t cache_offset = 0;
static const agl_kv_cache_info cache_info = {
    .capacity = 4,
    .step = 1,
    .step_symbol = -1,
    .num_caches = 1,
    .length_offset = AGL_KV_LENGTH_IN_SYMBOLS,
    .caches = &cache_tensor,
    .cache_offsets = &cache_offset,
};
static const agl_model_desc cached_desc =
    FAKE_CUDA_DESC("fake_cuda_cached", run_cached, .kv_cache = &cache_info);

/* Compiled with --profile: each launch bracketed, as two kernels. */
uint64_t agl_cuda_profile_begin(void);
void agl_cuda_profile_end(int32_t kernel, uint64_t token);

static int32_t run_profiled(void *arena, const void *weights,
                            const void *const *inputs, void *const *outputs,
                            const int64_t *symbols, int64_t *output_dims) {
  (void)arena;
  (void)symbols;
  (void)output_dims;
  for (int32_t kernel = 0; kernel < 2; ++kernel) {
    uint64_t token = agl_cuda_profile_begin();
    int32_t code = launch("add_kernel", weights, inputs, outputs);
    agl_cuda_profile_end(kernel, token);
    if (code != 0)
      return code;
  }
  return 0;
}

static const agl_kernel_info profiled_kernels[] = {
    {"k0_add_kernel x+weights", 0, 0}, {"k1_add_kernel x+weights", 0, 0}};
static const agl_model_desc profiled_desc =
    FAKE_CUDA_DESC("fake_cuda_profiled", run_profiled, .num_kernels = 2,
                   .kernels = profiled_kernels);

static const int64_t gemm_shape[] = {16};
static const agl_tensor_info gemm_input = {"a", AGL_DTYPE_F32, 1, gemm_shape,
                                           NULL};
static const agl_tensor_info gemm_output = {"c", AGL_DTYPE_F32, 1, gemm_shape,
                                            NULL};
/* A product's model: one input, one output, `bytes` of weights. */
#define FAKE_PRODUCT_DESC(model_name, entry, input, output, bytes)             \
  {                                                                            \
    .abi_version = AGL_ABI_VERSION, .device = AGL_DEVICE_CUDA,                 \
    .name = model_name, .num_inputs = 1, .num_outputs = 1, .inputs = (input),  \
    .outputs = (output), .arena_size = 64, .arena_alignment = 64,              \
    .weights_size = (bytes), .weights_file = model_name ".weights",            \
    .run = entry,                                                              \
  }
/* One with 16 floats in and out, `floats` of weights. */
#define FAKE_GEMM_DESC(model_name, entry, floats)                              \
  FAKE_PRODUCT_DESC(model_name, entry, &gemm_input, &gemm_output,              \
                    (floats) * sizeof(float))

static const agl_model_desc gemm_desc =
    FAKE_GEMM_DESC("fake_cuda_gemm", run_gemm, 16);
static const agl_model_desc gemm_epilogue_desc =
    FAKE_GEMM_DESC("fake_cuda_gemm_epilogue", run_gemm_epilogue, 48);

static const int64_t int8_input_shape[] = {64};
static const agl_tensor_info int8_input = {"a", AGL_DTYPE_I8, 1,
                                           int8_input_shape, NULL};
static const agl_tensor_info int32_output = {"c", AGL_DTYPE_I32, 1, gemm_shape,
                                             NULL};
static const agl_model_desc gemm_int8_desc = FAKE_PRODUCT_DESC(
    "fake_cuda_gemm_int8", run_gemm_int8, &int8_input, &int32_output, 64);

const agl_model_desc *fake_cuda_model(void) { return &desc; }
const agl_model_desc *fake_cuda_model_gemm_int8(void) {
  return &gemm_int8_desc;
}
const agl_model_desc *fake_cuda_model_shaped(void) { return &shaped_desc; }
const agl_model_desc *fake_cuda_model_profiled(void) { return &profiled_desc; }
const agl_model_desc *fake_cuda_model_cached(void) { return &cached_desc; }
const agl_model_desc *fake_cuda_model_host_section(void) {
  return &host_section_desc;
}
const agl_model_desc *fake_cuda_model_gemm_epilogue(void) {
  return &gemm_epilogue_desc;
}
const agl_model_desc *fake_cuda_model_gemm(void) { return &gemm_desc; }
const agl_model_desc *fake_cuda_model_missing_kernel(void) {
  return &missing_kernel_desc;
}
