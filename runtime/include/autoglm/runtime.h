/* AutoGLM runtime: the small, stable C ABI between compiled models and the
 * programs that run them.
 *
 * A compiled model (object file or shared library) exports, for a model
 * compiled with the name NAME:
 *   const agl_model_desc *NAME_model(void);       -- its descriptor
 *   uint64_t NAME_arena_size(void);               -- bytes of scratch memory
 * and, for a model whose shapes are all static,
 *   int32_t  NAME_run(void *arena, const void *const *inputs,
 *                     void *const *outputs);      -- one inference
 *   int32_t  NAME_run_with_weights(void *arena, const void *weights,
 *                     const void *const *inputs, void *const *outputs);
 * or, for a model with symbolic dimensions (num_symbols > 0), instead
 *   int32_t  NAME_run_shaped(void *arena, const void *weights,
 *                     const void *const *inputs, void *const *outputs,
 *                     const int64_t *symbols, int64_t *output_dims);
 * and, in its shared-library form only, `autoglm_loadable_model` (same type as
 * NAME_model) so that loaders need not know NAME. Models compiled with their
 * weights in a separate file (`weights_file` in the descriptor) have no
 * NAME_run: the weights, mapped with agl_weights_map, are passed to every run.
 *
 * Tensors are dense, row-major, aligned at least to their element size, with
 * the shapes in the descriptor; a dimension tied to a symbol takes the
 * symbol's value of the run, between its `min` and `max`. The descriptor's
 * shape holds the upper bound of such a dimension, so buffers sized from it
 * fit every run. The arena is one caller- or runtime-provided block of
 * `arena_size` bytes (planned for the upper bounds), aligned to
 * `arena_alignment`; the model never allocates during a run. Input, output
 * and arena buffers must not overlap.
 */
#ifndef AUTOGLM_RUNTIME_H
#define AUTOGLM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 8: agl_model_desc's first reserved field became `device` (models
 * compiled with --target=cuda), status AGL_ERR_DEVICE.
 * 9: the workspace of agl_kernel_conv2d_winograd (planned in the model's
 * arena) pads its 16 matrices apart.
 * 10: its transformed filters come in panels of 14 filters (the GEMM's
 * packed A), see agl_conv_winograd_filters.
 * 12: a KV cache's length may follow the symbol values
 * (AGL_KV_LENGTH_IN_SYMBOLS), which CUDA models with a KV cache use;
 * agl_model_desc ends with `weights_data` (CUDA models compiled with
 * --weights=embed). */
#define AGL_ABI_VERSION 12u

typedef enum agl_status {
  AGL_OK = 0,
  AGL_ERR_INVALID_ARGUMENT = 1, /* null pointer, wrong index, bad buffer */
  AGL_ERR_OUT_OF_MEMORY = 2,    /* arena could not be allocated */
  AGL_ERR_IO = 3,               /* a file could not be opened or loaded */
  AGL_ERR_ABI_MISMATCH = 4,     /* artifact built for another ABI version */
  AGL_ERR_NOT_FOUND = 5,        /* missing symbol, input or output name */
  AGL_ERR_MODEL_FAILED = 6,     /* the compiled code reported a failure */
  AGL_ERR_CACHE_FULL = 7,       /* a run would append past the KV cache */
  AGL_ERR_DEVICE = 8, /* no usable GPU or driver, or a CUDA call failed
                         (agl_last_error has CUDA's message) */
} agl_status;

/* Where a model's code runs (agl_model_desc::device). */
#define AGL_DEVICE_HOST 0u
/* An NVIDIA GPU: the model's kernels are embedded in the artifact, and the
 * runtime runs them through the CUDA driver (libcuda.so.1, loaded when the
 * first instance is created; the runtime itself does not link it). Each
 * instance then owns a CUDA stream and, in device memory allocated when it
 * is created, the arena, the weights (uploaded once by
 * agl_instance_set_weights) and one buffer per input and output; a run
 * copies the caller's host inputs in and the outputs back (or leaves them
 * on the device: agl_instance_device_input), and allocates nothing. Without a
 * driver or a device, creating an instance fails with AGL_ERR_DEVICE and a
 * message that says so. */
#define AGL_DEVICE_CUDA 1u
/* The device memory of an instance of a CUDA model: the arena and each
 * input and output, each rounded up to AGL_CUDA_ALIGNMENT bytes, in one
 * allocation; the weights in another; and, from its first product through
 * cuBLASLt (with an epilogue, or of int8 operands),
 * AGL_CUDA_LT_WORKSPACE_BYTES for it. cuBLAS's handle keeps
 * a workspace of its own. (autoglm-compile --report adds these up.) */
#define AGL_CUDA_ALIGNMENT 256u
#define AGL_CUDA_LT_WORKSPACE_BYTES (32u << 20)

/* Element types use the ONNX TensorProto.DataType codes. */
typedef enum agl_dtype {
  AGL_DTYPE_F32 = 1,
  AGL_DTYPE_U8 = 2,
  AGL_DTYPE_I8 = 3,
  AGL_DTYPE_U16 = 4,
  AGL_DTYPE_I16 = 5,
  AGL_DTYPE_I32 = 6,
  AGL_DTYPE_I64 = 7,
  AGL_DTYPE_BOOL = 9, /* one byte per element, 0 or 1 */
  AGL_DTYPE_F16 = 10,
  AGL_DTYPE_F64 = 11,
  AGL_DTYPE_U32 = 12,
  AGL_DTYPE_U64 = 13,
  AGL_DTYPE_BF16 = 16,
  /* float8, float4 and 2-/4-bit integers take one byte per element, not
   * ONNX's packed form. float8/float4 bytes hold the encoding (float4 in the
   * low 4 bits); int4/int2 bytes hold the value sign-extended (an int8),
   * uint4/uint2 bytes the value (a uint8). */
  AGL_DTYPE_F8E4M3FN = 17,
  AGL_DTYPE_F8E4M3FNUZ = 18,
  AGL_DTYPE_F8E5M2 = 19,
  AGL_DTYPE_F8E5M2FNUZ = 20,
  AGL_DTYPE_U4 = 21,
  AGL_DTYPE_I4 = 22,
  AGL_DTYPE_F4E2M1 = 23,
  AGL_DTYPE_F8E8M0 = 24,
  AGL_DTYPE_U2 = 25,
  AGL_DTYPE_I2 = 26,
} agl_dtype;

/* Values of `dim_symbols` entries other than a symbol index. */
#define AGL_DIM_STATIC (-1)   /* the extent is shape[d] in every run */
#define AGL_DIM_COMPUTED (-2) /* output only: the model computes the extent
                                 from the symbols; at most shape[d] */

typedef struct agl_tensor_info {
  const char *name;
  int32_t dtype; /* agl_dtype */
  int32_t rank;
  /* `rank` extents; for a dimension that is not static, its upper bound. */
  const int64_t *shape;
  /* NULL when every dimension is static; otherwise `rank` entries, each
   * AGL_DIM_STATIC, AGL_DIM_COMPUTED or k >= 0: the extent is the value of
   * symbol k of the run. */
  const int32_t *dim_symbols;
} agl_tensor_info;

/* A symbolic dimension: one size, chosen per run, that input (and output)
 * dimensions share. */
typedef struct agl_symbol_info {
  const char *name;
  int64_t min, max; /* the run's value lies in [min, max] */
} agl_symbol_info;

/* One inference. `weights` is null for models whose weights are embedded in
 * the code. `symbols` holds the value of each symbol (in descriptor order);
 * it may be null for a model without symbols. The runtime checks the values
 * against [min, max] before calling; compiled entry functions check again
 * and return 1, running nothing, when one is outside. Unless it is null, `output_dims` receives the actual extents of
 * every output: all of output 0's, then all of output 1's, ... (static ones
 * too). Returns 0, or a nonzero code when the run failed. */
typedef int32_t (*agl_entry_fn)(void *arena, const void *weights,
                                const void *const *inputs,
                                void *const *outputs, const int64_t *symbols,
                                int64_t *output_dims);

/* One kernel of a model compiled with `autoglm-compile --profile`: a
 * matrix-product call or a fused loop nest of the compiled plan. */
typedef struct agl_kernel_info {
  /* What runs ("sgemm_packed", "loop", "copy", ...), then the ONNX nodes it
   * came from, joined with '+'. */
  const char *name;
  double flops; /* floating-point operations per call; 0 when unknown */
  double bytes; /* bytes of its operands, read and written; 0 when unknown */
} agl_kernel_info;

/* A model compiled with `--max-seq-len` keeps its past keys and values in
 * a KV cache inside its arena: `num_caches` tensors of `capacity` positions
 * along the sequence axis, and the number of positions in use (an int64 at
 * `length_offset`). Each run reads the cache up to that length, appends its
 * new positions in place and advances the length; instances start empty.
 * The exported model's past inputs and present outputs are not in the
 * signature.
 * A length_offset of AGL_KV_LENGTH_IN_SYMBOLS (CUDA models, whose arena is
 * device memory that their host code cannot read) says that the length is
 * not in the arena: the entry function reads it as symbols[num_symbols],
 * and whoever calls it (the runtime) keeps it and advances it after a run. */
#define AGL_KV_LENGTH_IN_SYMBOLS UINT64_MAX
typedef struct agl_kv_cache_info {
  int64_t capacity;      /* positions each cache holds */
  int64_t step;          /* positions a run appends, when step_symbol < 0 */
  int32_t step_symbol;   /* the symbol whose value a run appends, or -1 */
  int32_t num_caches;
  uint64_t length_offset; /* arena offset of the int64 length */
  /* Per cache: named after the exported past input, at full capacity. */
  const agl_tensor_info *caches;
  const uint64_t *cache_offsets; /* arena offset of each cache */
} agl_kv_cache_info;

typedef struct agl_model_desc {
  uint32_t abi_version; /* AGL_ABI_VERSION of the compiler that built it */
  uint32_t device;      /* AGL_DEVICE_HOST or AGL_DEVICE_CUDA */
  const char *name;
  int32_t num_inputs;
  int32_t num_outputs;
  const agl_tensor_info *inputs;
  const agl_tensor_info *outputs;
  int32_t num_symbols; /* 0 when every shape is static */
  uint32_t reserved2;
  const agl_symbol_info *symbols;
  uint64_t arena_size;      /* bytes; 0 means no arena is needed */
  uint64_t arena_alignment; /* bytes, a power of two */
  uint64_t weights_size;    /* bytes of read-only weights */
  /* File (next to the artifact) that holds the weights, of exactly
   * weights_size bytes; null when they are embedded in the code. */
  const char *weights_file;
  agl_entry_fn run;
  /* The kernels a profiled model reports (agl_profile_end's `kernel`
   * indexes this table); 0 and null for a model compiled without
   * --profile. */
  int32_t num_kernels;
  uint32_t reserved3;
  const agl_kernel_info *kernels;
  /* Null unless the model keeps a KV cache. */
  const agl_kv_cache_info *kv_cache;
  /* Weights the entry function takes that are embedded in the artifact
   * (weights_size bytes; a CUDA model compiled with --weights=embed, whose
   * instances upload them when they are created); null when they are in a
   * weights file or in the model's code. */
  const void *weights_data;
} agl_model_desc;

/* ---- status and types ---------------------------------------------------- */
const char *agl_status_string(agl_status status);
/* Message of the last failing call on this thread ("" if none). */
const char *agl_last_error(void);
/* Bytes per element, 0 for an unknown dtype. */
size_t agl_dtype_size(int32_t dtype);
/* "float32", "int64", ...; "unknown" otherwise. */
const char *agl_dtype_name(int32_t dtype);
/* From the descriptor's shape: for dimensions that are not static, the
 * upper bound, which is what a buffer must hold. */
size_t agl_tensor_num_elements(const agl_tensor_info *info);
size_t agl_tensor_num_bytes(const agl_tensor_info *info);
/* Index of the input/output called `name`, or AGL_ERR_NOT_FOUND. */
agl_status agl_model_find_input(const agl_model_desc *model, const char *name,
                                int32_t *index);
agl_status agl_model_find_output(const agl_model_desc *model, const char *name,
                                 int32_t *index);

/* ---- instances: one arena each, created once ------------------------------ */
typedef struct agl_instance agl_instance;

/* Allocates the arena once (aligned), with the instance's room for a run's
 * symbol values and output extents; checks the ABI version. */
agl_status agl_instance_create(const agl_model_desc *model,
                               agl_instance **out);
/* Host models only (AGL_ERR_INVALID_ARGUMENT for a CUDA model, whose arena
 * is device memory the instance allocates).
 * Uses caller memory: `arena` must be aligned to model->arena_alignment and
 * hold at least model->arena_size bytes. The instance does not own it. */
agl_status agl_instance_create_with_arena(const agl_model_desc *model,
                                          void *arena, size_t arena_bytes,
                                          agl_instance **out);
void agl_instance_destroy(agl_instance *instance);
/* Gives an instance of a model with a weights file its mapped weights
 * (agl_weights_data); required before running such a model. */
agl_status agl_instance_set_weights(agl_instance *instance,
                                    const void *weights);
const agl_model_desc *agl_instance_model(const agl_instance *instance);
/* One inference of a model without symbols; allocates nothing. Instances
 * are not thread-safe, but distinct instances (of the same model too) may
 * run concurrently. A model with symbols is refused: use
 * agl_instance_run_shaped. */
agl_status agl_instance_run(agl_instance *instance, const void *const *inputs,
                            void *const *outputs);
/* One inference at the sizes of the given inputs; allocates nothing.
 * input_shapes[i] holds the `rank` extents of input i; each symbol's value is
 * read from the dimensions tied to it, which must agree and lie in the
 * symbol's range, and static dimensions must match the descriptor.
 * `input_shapes` may be null for a model without symbols. Output buffers
 * must hold the descriptor's (upper-bound) shapes; output_shapes[i], unless
 * it or output_shapes is null, receives the `rank` actual extents of
 * output i. */
agl_status agl_instance_run_shaped(agl_instance *instance,
                                   const void *const *inputs,
                                   const int64_t *const *input_shapes,
                                   void *const *outputs,
                                   int64_t *const *output_shapes);

/* ---- CUDA models: asynchronous runs, tensors kept on the device ---------- */
/* Queues one inference, as agl_instance_run does, and returns without
 * waiting for it: a CUDA model's input copies, kernels and output copies go
 * to the instance's stream, and the caller's buffers must stay valid and
 * untouched until agl_instance_wait. A failure to queue it (a bad argument,
 * a launch, the compiled code's own check) is returned at once, and then no
 * run is pending. While one is, the instance refuses other runs and
 * agl_instance_set_weights; agl_instance_destroy waits for it. A host model
 * runs before agl_instance_run_async returns. */
agl_status agl_instance_run_async(agl_instance *instance,
                                  const void *const *inputs,
                                  void *const *outputs);
/* Waits for the pending run, if any, and returns how it ended (AGL_OK when
 * none is pending; AGL_ERR_DEVICE with CUDA's text for a failure of the
 * queued work). */
agl_status agl_instance_wait(agl_instance *instance);
/* The device address (a CUdeviceptr) of a CUDA model instance's buffer for
 * input or output `index`, where runs read and write it. In
 * agl_instance_run(_async, _shaped) of a CUDA model, a null inputs[i] is
 * not copied in: the run reads what the buffer holds (the last run's copy,
 * or what the caller wrote to this address); a null outputs[i] is not
 * copied out and stays in the buffer until the next run. So a decode loop
 * keeps its tensors on the GPU. AGL_ERR_INVALID_ARGUMENT for a host model
 * or an index out of range. */
agl_status agl_instance_device_input(const agl_instance *instance,
                                     int32_t index, void **address);
agl_status agl_instance_device_output(const agl_instance *instance,
                                      int32_t index, void **address);

/* A model with a KV cache (model->kv_cache): the positions in use, which
 * runs advance (a run that would pass the capacity fails with
 * AGL_ERR_CACHE_FULL and changes nothing). Setting a length at most the
 * current one forgets the positions past it (0 starts a new sequence);
 * AGL_ERR_INVALID_ARGUMENT for a longer length or a model without a cache. */
agl_status agl_instance_cache_length(const agl_instance *instance,
                                     int64_t *length);
agl_status agl_instance_set_cache_length(agl_instance *instance,
                                         int64_t length);

/* ---- threads -------------------------------------------------------------- */
/* Threads that run compiled kernels: one process-wide pool, created once and
 * reused by every instance; 0 means one per CPU the process may run on.
 * Default: the AUTOGLM_NUM_THREADS environment variable, else 0. The pool
 * is created by the first agl_instance_create*, with each thread's packing
 * memory, so that runs allocate nothing. Setting the count replaces the pool
 * (its workers are joined), waiting for a kernel call in flight on another
 * thread; negative counts are refused (AGL_ERR_INVALID_ARGUMENT), as are
 * calls from inside a parallel region. */
agl_status agl_set_num_threads(int32_t threads);
/* The number of threads kernels run on (the caller's included): the pool's,
 * or what the pool will have once it is created. */
int32_t agl_get_num_threads(void);
/* Pin pool thread i (the caller is thread 0) to the i-th CPU of the process's
 * affinity mask. Nonzero pins the pool's workers (threads 1..n-1, wrapping
 * around the mask), now and in pools created later; the caller's thread is
 * left as it is. Zero lets them run anywhere in the mask again. */
agl_status agl_set_thread_affinity(int32_t pin);

/* ---- profiling -------------------------------------------------------------- */
/* A model compiled with `autoglm-compile --profile` times each of its
 * kernels. Once an instance has a profile buffer, every run records one
 * event per kernel call, until the buffer is full; recording allocates
 * nothing. Without a buffer, a profiled model runs as usual (each kernel
 * then costs two cheap calls). */
typedef struct agl_profile_event {
  int32_t kernel;    /* index into the model's kernels table */
  int32_t thread;    /* the OS thread id of the thread that ran the model */
  uint64_t begin_ns; /* CLOCK_MONOTONIC */
  uint64_t end_ns;
} agl_profile_event;

/* Gives the instance room for `max_events` events (replacing an earlier
 * buffer and its events); 0 turns profiling off and frees the buffer.
 * AGL_ERR_INVALID_ARGUMENT for a model compiled without --profile. */
agl_status agl_instance_set_profile_capacity(agl_instance *instance,
                                             size_t max_events);
/* The events recorded since the buffer was set or cleared, in order of
 * their end; `*dropped` (if not null) counts those that found it full. */
size_t agl_instance_profile_events(const agl_instance *instance,
                                   const agl_profile_event **events,
                                   uint64_t *dropped);
/* Forgets the recorded events; keeps the buffer. */
void agl_instance_clear_profile(agl_instance *instance);

/* Called by profiled models around each kernel: begin returns a timestamp
 * (0 when no profile is being recorded on this thread), end records the
 * event. Not for use by applications. */
uint64_t agl_profile_begin(void);
void agl_profile_end(int32_t kernel, uint64_t begin_ns);

/* ---- weights files ---------------------------------------------------------- */
typedef struct agl_weights agl_weights;

/* Maps a model's weights file read-only (never copied); checks its size
 * against model->weights_size. Many instances may share one mapping. */
agl_status agl_weights_map(const agl_model_desc *model, const char *path,
                           agl_weights **out);
const void *agl_weights_data(const agl_weights *weights);
void agl_weights_unmap(agl_weights *weights);

/* ---- shared-library artifacts --------------------------------------------- */
typedef struct agl_library agl_library;

/* dlopen()s an artifact built with --emit=so and returns its descriptor.
 * A bare file name means a file in the current directory. If the model has
 * a weights file, it is mapped from the artifact's folder. */
agl_status agl_library_open(const char *path, agl_library **out,
                            const agl_model_desc **model);
/* The library's mapped weights, or null when they are embedded. */
const void *agl_library_weights(const agl_library *library);
void agl_library_close(agl_library *library);

#ifdef __cplusplus
}
#endif

#endif /* AUTOGLM_RUNTIME_H */
