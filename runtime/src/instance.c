/* Instances: a model paired with its arena and the room a run needs for
 * symbol values and output extents, all allocated once up front so that
 * running allocates nothing. */
#include "internal.h"
#include "cuda/launch.h"
#include "kernels/kernels_internal.h"

#include <stdint.h>
#include <stdlib.h>

struct agl_instance {
  const agl_model_desc *model;
  void *arena;
  int owns_arena;
  const void *weights; /* mapped weights file, or null when embedded */
  /* num_symbols entries, then the KV cache length of a model that reads it
   * there (agl_model_symbol_values) */
  int64_t *symbol_values;
  int64_t *output_dims;   /* every output's extents, one after the other */
  agl_profile *profile;   /* null unless profiling */
  agl_cuda_instance *cuda; /* a CUDA model's device state, else null */
  int pending;             /* a CUDA run queued by agl_instance_run_async */
  int64_t storage[];      /* backs symbol_values and output_dims */
};

/* Never below a cache line, so that the arena does not share one with
 * unrelated heap data and vector code can assume wide alignment. */
enum { MIN_ARENA_ALIGNMENT = 64 };

/* The instance's KV cache length (null without a cache): in its arena, where
 * the model's code advances it, or after its symbol values, where the
 * runtime does (agl_kv_cache_advance). */
static int64_t *cache_length(const agl_instance *instance) {
  const agl_model_desc *model = instance->model;
  if (!model->kv_cache)
    return NULL;
  if (agl_kv_length_in_symbols(model))
    return instance->symbol_values + model->num_symbols;
  return (int64_t *)((char *)instance->arena + model->kv_cache->length_offset);
}

static agl_status make_instance(const agl_model_desc *model, void *arena,
                                int owns_arena, agl_instance **out) {
  size_t values = agl_model_symbol_values(model);
  size_t dims = agl_model_output_dims(model);
  agl_instance *instance =
      malloc(sizeof *instance + (values + dims) * sizeof(int64_t));
  if (!instance)
    return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                    "cannot allocate an instance of model '%s'",
                    agl_model_label(model));
  instance->model = model;
  instance->arena = arena;
  instance->owns_arena = owns_arena;
  instance->weights = model->weights_data; /* null: none, or a file's */
  instance->profile = NULL;
  instance->cuda = NULL;
  instance->pending = 0;
  instance->symbol_values = instance->storage;
  instance->output_dims = instance->storage + values;
  if (model->kv_cache)
    *cache_length(instance) = 0; /* a new instance's cache is empty */
  *out = instance;
  return AGL_OK;
}

agl_status agl_instance_create(const agl_model_desc *model,
                               agl_instance **out) {
  if (!out)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_create: out is null");
  *out = NULL;
  agl_status status = agl_model_check(model);
  if (status != AGL_OK)
    return status;
  if (model->device == AGL_DEVICE_CUDA) {
    /* The arena is device memory, which the device state holds. */
    agl_cuda_instance *cuda;
    status = agl_cuda_instance_create(model, &cuda);
    if (status != AGL_OK)
      return status;
    if (model->weights_data) {
      status = agl_cuda_instance_set_weights(cuda, model->weights_data);
      if (status != AGL_OK) {
        agl_cuda_instance_destroy(cuda);
        return status;
      }
    }
    status = make_instance(model, NULL, 0, out);
    if (status != AGL_OK) {
      agl_cuda_instance_destroy(cuda);
      return status;
    }
    (*out)->cuda = cuda;
    return AGL_OK;
  }
  /* Kernels run on the pool: make it (and its memory) now, not in a run. */
  status = agl_pool_ensure();
  if (status != AGL_OK)
    return status;

  void *arena = NULL;
  if (model->arena_size > 0) {
    uint64_t alignment = model->arena_alignment < MIN_ARENA_ALIGNMENT
                             ? MIN_ARENA_ALIGNMENT
                             : model->arena_alignment;
    /* aligned_alloc wants a size that is a multiple of the alignment. */
    uint64_t bytes =
        (model->arena_size + alignment - 1) / alignment * alignment;
    if (bytes < model->arena_size || bytes > SIZE_MAX)
      return agl_fail(
          AGL_ERR_OUT_OF_MEMORY,
          "the %llu-byte arena of model '%s' does not fit in memory",
          (unsigned long long)model->arena_size, agl_model_label(model));
    arena = aligned_alloc((size_t)alignment, (size_t)bytes);
    if (!arena)
      return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                      "cannot allocate the %llu-byte arena of model '%s'",
                      (unsigned long long)model->arena_size,
                      agl_model_label(model));
  }
  status = make_instance(model, arena, 1, out);
  if (status != AGL_OK)
    free(arena);
  return status;
}

agl_status agl_instance_create_with_arena(const agl_model_desc *model,
                                          void *arena, size_t arena_bytes,
                                          agl_instance **out) {
  if (!out)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_create_with_arena: out is null");
  *out = NULL;
  agl_status status = agl_model_check(model);
  if (status != AGL_OK)
    return status;
  if (model->device == AGL_DEVICE_CUDA)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' runs on a CUDA device, whose arena the "
                    "instance allocates in device memory: use "
                    "agl_instance_create",
                    agl_model_label(model));
  status = agl_pool_ensure();
  if (status != AGL_OK)
    return status;

  if (model->arena_size > 0) {
    if (!arena)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "arena is null, but model '%s' needs %llu bytes",
                      agl_model_label(model),
                      (unsigned long long)model->arena_size);
    if (arena_bytes < model->arena_size)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "arena of %zu bytes is smaller than the %llu bytes model "
                      "'%s' needs",
                      arena_bytes, (unsigned long long)model->arena_size,
                      agl_model_label(model));
    if ((uintptr_t)arena % model->arena_alignment != 0)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "arena is not %llu-byte aligned, as model '%s' requires",
                      (unsigned long long)model->arena_alignment,
                      agl_model_label(model));
  }
  return make_instance(model, arena, 0, out);
}

/* While an asynchronous run is pending the instance's buffers are in use. */
static agl_status check_idle(const agl_instance *instance) {
  if (instance->pending)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "a run of model '%s' is pending: call agl_instance_wait "
                    "first",
                    agl_model_label(instance->model));
  return AGL_OK;
}

void agl_instance_destroy(agl_instance *instance) {
  if (!instance)
    return;
  if (instance->pending)
    agl_cuda_instance_wait(instance->cuda); /* the buffers must be idle */
  if (instance->owns_arena)
    free(instance->arena);
  agl_cuda_instance_destroy(instance->cuda);
  agl_profile_destroy(instance->profile);
  free(instance);
}

agl_status agl_instance_set_weights(agl_instance *instance,
                                    const void *weights) {
  if (!instance)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_set_weights: instance is null");
  if (!instance->model->weights_file)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' embeds its weights; it takes no weights file",
                    agl_model_label(instance->model));
  if (!weights)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_set_weights: weights are null");
  agl_status status = check_idle(instance);
  if (status != AGL_OK)
    return status;
  if (instance->cuda) {
    status = agl_cuda_instance_set_weights(instance->cuda, weights);
    if (status != AGL_OK)
      return status;
  }
  instance->weights = weights;
  return AGL_OK;
}

const agl_model_desc *agl_instance_model(const agl_instance *instance) {
  return instance ? instance->model : NULL;
}

static agl_status check_run(const agl_instance *instance, const char *caller,
                            const void *const *inputs, void *const *outputs) {
  if (!instance)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT, "%s: instance is null", caller);
  /* The descriptor was checked when the instance was created. */
  const agl_model_desc *model = instance->model;
  if (model->num_inputs > 0 && !inputs)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' takes %d inputs, but the input array is null",
                    agl_model_label(model), (int)model->num_inputs);
  if (model->num_outputs > 0 && !outputs)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' has %d outputs, but the output array is null",
                    agl_model_label(model), (int)model->num_outputs);
  agl_status status = check_idle(instance);
  if (status != AGL_OK)
    return status;
  /* A CUDA model's null tensors stay in its device buffers. */
  for (int32_t i = 0; i < model->num_inputs && !instance->cuda; ++i)
    if (!inputs[i])
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "input %d ('%s') of model '%s' is null", (int)i,
                      model->inputs[i].name, agl_model_label(model));
  for (int32_t i = 0; i < model->num_outputs && !instance->cuda; ++i)
    if (!outputs[i])
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "output %d ('%s') of model '%s' is null", (int)i,
                      model->outputs[i].name, agl_model_label(model));

  if (model->weights_file && !instance->weights)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' keeps its weights in '%s': map them "
                    "(agl_weights_map) and call agl_instance_set_weights first",
                    agl_model_label(model), model->weights_file);
  return AGL_OK;
}

/* Waits for a CUDA model's run; then its kernel events go to the profile. */
static agl_status finish_cuda_run(agl_instance *instance) {
  agl_status status = agl_cuda_instance_wait(instance->cuda);
  if (status != AGL_OK)
    return status;
  return agl_cuda_instance_collect_profile(instance->cuda, instance->profile);
}

/* Runs the entry function with the instance's symbol values (a CUDA
 * model's run is only queued, and waited for unless `async`), and advances
 * the KV cache length where the runtime keeps it: once queued, the run has
 * read it. */
static agl_status call_entry(agl_instance *instance, const void *const *inputs,
                             void *const *outputs, int64_t *output_dims,
                             int async) {
  const agl_model_desc *model = instance->model;
  const int64_t *symbols =
      agl_model_symbol_values(model) > 0 ? instance->symbol_values : NULL;
  if (instance->cuda) {
    agl_status status = agl_cuda_instance_enqueue(
        instance->cuda, inputs, outputs, symbols, output_dims);
    if (status != AGL_OK)
      return status;
    agl_kv_cache_advance(model, cache_length(instance), symbols);
    if (async) {
      instance->pending = 1;
      return AGL_OK;
    }
    return finish_cuda_run(instance);
  }
  agl_profile *outer = agl_profile_record_into(instance->profile);
  agl_pool_hold();
  int32_t code = model->run(instance->arena, instance->weights, inputs,
                            outputs, symbols, output_dims);
  agl_pool_unhold();
  agl_profile_record_into(outer);
  if (code != 0)
    return agl_fail(AGL_ERR_MODEL_FAILED, "model '%s' failed with code %d",
                    agl_model_label(model), (int)code);
  agl_kv_cache_advance(model, cache_length(instance), symbols);
  return AGL_OK;
}

static agl_status run_static(agl_instance *instance, const char *caller,
                             const void *const *inputs, void *const *outputs,
                             int async) {
  agl_status status = check_run(instance, caller, inputs, outputs);
  if (status != AGL_OK)
    return status;
  const agl_model_desc *model = instance->model;
  if (model->num_symbols > 0)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' has symbolic dimensions (%d symbols, the "
                    "first '%s'): run it with agl_instance_run_shaped, which "
                    "takes the shapes of the inputs",
                    agl_model_label(model), (int)model->num_symbols,
                    model->symbols[0].name);
  status = agl_kv_cache_check_run(model, cache_length(instance), NULL);
  if (status != AGL_OK)
    return status;
  return call_entry(instance, inputs, outputs, NULL, async);
}

agl_status agl_instance_run(agl_instance *instance, const void *const *inputs,
                            void *const *outputs) {
  return run_static(instance, "agl_instance_run", inputs, outputs, 0);
}

agl_status agl_instance_run_async(agl_instance *instance,
                                  const void *const *inputs,
                                  void *const *outputs) {
  return run_static(instance, "agl_instance_run_async", inputs, outputs, 1);
}

agl_status agl_instance_wait(agl_instance *instance) {
  if (!instance)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_wait: instance is null");
  if (!instance->pending)
    return AGL_OK;
  instance->pending = 0;
  return finish_cuda_run(instance);
}

static agl_status device_buffer(const agl_instance *instance, int output,
                                int32_t index, void **address) {
  const char *caller =
      output ? "agl_instance_device_output" : "agl_instance_device_input";
  if (!instance || !address)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT, "%s: instance or address is null",
                    caller);
  const agl_model_desc *model = instance->model;
  if (!instance->cuda)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "%s: model '%s' runs on the host; only a CUDA model's "
                    "tensors have device buffers",
                    caller, agl_model_label(model));
  int32_t count = output ? model->num_outputs : model->num_inputs;
  if (index < 0 || index >= count)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT, "%s: model '%s' has no %s %d",
                    caller, agl_model_label(model), output ? "output" : "input",
                    (int)index);
  *address = agl_cuda_instance_buffer(instance->cuda, output, index);
  return AGL_OK;
}

agl_status agl_instance_device_input(const agl_instance *instance,
                                     int32_t index, void **address) {
  return device_buffer(instance, 0, index, address);
}

agl_status agl_instance_device_output(const agl_instance *instance,
                                      int32_t index, void **address) {
  return device_buffer(instance, 1, index, address);
}

agl_status agl_instance_cache_length(const agl_instance *instance,
                                     int64_t *length) {
  if (!instance || !length)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_cache_length: instance or length is null");
  return agl_kv_cache_length(instance->model, cache_length(instance), length);
}

agl_status agl_instance_set_cache_length(agl_instance *instance,
                                         int64_t length) {
  if (!instance)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_set_cache_length: instance is null");
  return agl_kv_cache_set_length(instance->model, cache_length(instance),
                                 length);
}

static agl_status copy_output_shapes(const agl_model_desc *model,
                                     const int64_t *dims,
                                     int64_t *const *output_shapes) {
  agl_status status = agl_check_output_dims(model, dims);
  if (status != AGL_OK)
    return status;
  for (int32_t i = 0; i < model->num_outputs; ++i) {
    const agl_tensor_info *info = &model->outputs[i];
    if (output_shapes && output_shapes[i])
      for (int32_t d = 0; d < info->rank; ++d)
        output_shapes[i][d] = dims[d];
    dims += info->rank;
  }
  return AGL_OK;
}

agl_status agl_instance_run_shaped(agl_instance *instance,
                                   const void *const *inputs,
                                   const int64_t *const *input_shapes,
                                   void *const *outputs,
                                   int64_t *const *output_shapes) {
  agl_status status =
      check_run(instance, "agl_instance_run_shaped", inputs, outputs);
  if (status != AGL_OK)
    return status;
  const agl_model_desc *model = instance->model;
  status = agl_symbols_from_shapes(model, input_shapes,
                                   instance->symbol_values);
  if (status != AGL_OK)
    return status;

  status = agl_kv_cache_check_run(model, cache_length(instance),
                                  instance->symbol_values);
  if (status != AGL_OK)
    return status;

  /* The bounds stand in for extents a model might leave unwritten; the
   * static ones are exact. */
  int64_t *dims = instance->output_dims;
  for (int32_t i = 0; i < model->num_outputs; ++i)
    for (int32_t d = 0; d < model->outputs[i].rank; ++d)
      *dims++ = model->outputs[i].shape[d];

  status = call_entry(instance, inputs, outputs, instance->output_dims, 0);
  if (status != AGL_OK)
    return status;
  return copy_output_shapes(model, instance->output_dims, output_shapes);
}

agl_status agl_instance_set_profile_capacity(agl_instance *instance,
                                             size_t max_events) {
  if (!instance)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_set_profile_capacity: instance is null");
  if (instance->model->num_kernels == 0)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' was compiled without --profile: it has no "
                    "kernels to time",
                    agl_model_label(instance->model));
  agl_status status = check_idle(instance);
  if (status != AGL_OK)
    return status;
  /* A CUDA model's kernels are timed by events made now. */
  if (instance->cuda && (status = agl_cuda_instance_set_profile(
                             instance->cuda, max_events)) != AGL_OK)
    return status;
  agl_profile *profile = NULL;
  if (max_events > 0) {
    profile = max_events <= SIZE_MAX / sizeof(agl_profile_event)
                  ? agl_profile_create(max_events)
                  : NULL;
    if (!profile)
      return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                      "cannot allocate a profile of %zu events for model "
                      "'%s'",
                      max_events, agl_model_label(instance->model));
  }
  agl_profile_destroy(instance->profile);
  instance->profile = profile;
  return AGL_OK;
}

size_t agl_instance_profile_events(const agl_instance *instance,
                                   const agl_profile_event **events,
                                   uint64_t *dropped) {
  return agl_profile_read(instance ? instance->profile : NULL, events,
                          dropped);
}

void agl_instance_clear_profile(agl_instance *instance) {
  if (instance)
    agl_profile_clear(instance->profile);
}
