/* Instances: a model paired with its arena, allocated once up front so that
 * running allocates nothing. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>

struct agl_instance {
  const agl_model_desc *model;
  void *arena;
  int owns_arena;
  const void *weights; /* mapped weights file, or null when embedded */
};

/* Never below a cache line, so that the arena does not share one with
 * unrelated heap data and vector code can assume wide alignment. */
enum { MIN_ARENA_ALIGNMENT = 64 };

static agl_status make_instance(const agl_model_desc *model, void *arena,
                                int owns_arena, agl_instance **out) {
  agl_instance *instance = malloc(sizeof *instance);
  if (!instance)
    return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                    "cannot allocate an instance of model '%s'",
                    agl_model_label(model));
  instance->model = model;
  instance->arena = arena;
  instance->owns_arena = owns_arena;
  instance->weights = NULL;
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

void agl_instance_destroy(agl_instance *instance) {
  if (!instance)
    return;
  if (instance->owns_arena)
    free(instance->arena);
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
  instance->weights = weights;
  return AGL_OK;
}

const agl_model_desc *agl_instance_model(const agl_instance *instance) {
  return instance ? instance->model : NULL;
}

agl_status agl_instance_run(agl_instance *instance, const void *const *inputs,
                            void *const *outputs) {
  if (!instance)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_instance_run: instance is null");
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
  for (int32_t i = 0; i < model->num_inputs; ++i)
    if (!inputs[i])
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "input %d ('%s') of model '%s' is null", (int)i,
                      model->inputs[i].name, agl_model_label(model));
  for (int32_t i = 0; i < model->num_outputs; ++i)
    if (!outputs[i])
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "output %d ('%s') of model '%s' is null", (int)i,
                      model->outputs[i].name, agl_model_label(model));

  if (model->weights_file && !instance->weights)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' keeps its weights in '%s': map them "
                    "(agl_weights_map) and call agl_instance_set_weights first",
                    agl_model_label(model), model->weights_file);

  int32_t code = model->run(instance->arena, instance->weights, inputs, outputs);
  if (code != 0)
    return agl_fail(AGL_ERR_MODEL_FAILED, "model '%s' failed with code %d",
                    agl_model_label(model), (int)code);
  return AGL_OK;
}
