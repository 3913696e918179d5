/* Model descriptors: validation and lookup of inputs and outputs by name. */
#include "internal.h"

#include <string.h>

const char *agl_model_label(const agl_model_desc *model) {
  return model && model->name ? model->name : "<unnamed>";
}

static int is_power_of_two(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

/* Dimension `d` of a tensor: its dim_symbols entry must name a symbol of
 * the model (or, for outputs, be computed), and its shape entry must be the
 * upper bound that buffers are sized for. */
static agl_status check_dim(const agl_model_desc *model, const char *kind,
                            int32_t index, const agl_tensor_info *info,
                            int32_t d) {
  int32_t symbol = info->dim_symbols[d];
  int is_output = strcmp(kind, "output") == 0;
  if (symbol == AGL_DIM_STATIC)
    return AGL_OK;
  if (symbol == AGL_DIM_COMPUTED && is_output)
    return AGL_OK;
  if (symbol < 0 || symbol >= model->num_symbols)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "%s %d ('%s') of model '%s' ties dimension %d to symbol "
                    "%d, which does not exist",
                    kind, (int)index, info->name, agl_model_label(model),
                    (int)d, (int)symbol);
  if (info->shape[d] != model->symbols[symbol].max)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "%s %d ('%s') of model '%s' has extent %lld in dimension "
                    "%d, but its symbol '%s' goes up to %lld",
                    kind, (int)index, info->name, agl_model_label(model),
                    (long long)info->shape[d], (int)d,
                    model->symbols[symbol].name,
                    (long long)model->symbols[symbol].max);
  return AGL_OK;
}

static agl_status check_table(const agl_model_desc *model, const char *kind,
                              int32_t count, const agl_tensor_info *table) {
  if (count < 0 || (count > 0 && !table))
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' has a malformed %s table",
                    agl_model_label(model), kind);
  for (int32_t i = 0; i < count; ++i) {
    const agl_tensor_info *info = &table[i];
    if (!info->name)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "%s %d of model '%s' has no name", kind, (int)i,
                      agl_model_label(model));
    if (agl_dtype_size(info->dtype) == 0)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "%s %d of model '%s' has unknown element type %d", kind,
                      (int)i, agl_model_label(model), (int)info->dtype);
    if (info->rank < 0 || (info->rank > 0 && !info->shape))
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "%s %d of model '%s' has a malformed shape", kind, (int)i,
                      agl_model_label(model));
    for (int32_t d = 0; d < info->rank; ++d)
      if (info->shape[d] < 0)
        return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                        "%s %d ('%s') of model '%s' has negative extent %lld",
                        kind, (int)i, info->name, agl_model_label(model),
                        (long long)info->shape[d]);
    if (!info->dim_symbols)
      continue;
    for (int32_t d = 0; d < info->rank; ++d) {
      agl_status status = check_dim(model, kind, i, info, d);
      if (status != AGL_OK)
        return status;
    }
  }
  return AGL_OK;
}

/* Every symbol needs a name and a sane range. */
static agl_status check_symbols(const agl_model_desc *model) {
  if (model->num_symbols < 0 || (model->num_symbols > 0 && !model->symbols))
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' has a malformed symbol table",
                    agl_model_label(model));
  for (int32_t k = 0; k < model->num_symbols; ++k) {
    const agl_symbol_info *symbol = &model->symbols[k];
    if (!symbol->name)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "symbol %d of model '%s' has no name", (int)k,
                      agl_model_label(model));
    if (symbol->min < 0 || symbol->min > symbol->max)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "symbol '%s' of model '%s' has the empty or negative "
                      "range %lld..%lld",
                      symbol->name, agl_model_label(model),
                      (long long)symbol->min, (long long)symbol->max);
  }
  return AGL_OK;
}

/* A run reads each symbol's value from the inputs, so every symbol must be
 * the extent of some input dimension. */
static agl_status check_symbols_are_inputs(const agl_model_desc *model) {
  for (int32_t k = 0; k < model->num_symbols; ++k) {
    int named = 0;
    for (int32_t i = 0; i < model->num_inputs && !named; ++i) {
      const agl_tensor_info *info = &model->inputs[i];
      for (int32_t d = 0; info->dim_symbols && d < info->rank && !named; ++d)
        named = info->dim_symbols[d] == k;
    }
    if (!named)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "symbol '%s' of model '%s' is the extent of no input "
                      "dimension, so no run can give its value",
                      model->symbols[k].name, agl_model_label(model));
  }
  return AGL_OK;
}

agl_status agl_model_check(const agl_model_desc *model) {
  if (!model)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT, "model descriptor is null");
  if (model->abi_version != AGL_ABI_VERSION)
    return agl_fail(AGL_ERR_ABI_MISMATCH,
                    "model '%s' was built for runtime ABI %u, but this runtime "
                    "implements ABI %u",
                    agl_model_label(model), (unsigned)model->abi_version,
                    (unsigned)AGL_ABI_VERSION);
  if (!model->run)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' has no entry function", agl_model_label(model));
  if (model->device != AGL_DEVICE_HOST && model->device != AGL_DEVICE_CUDA)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' runs on unknown device %u",
                    agl_model_label(model), (unsigned)model->device);
  if (model->device == AGL_DEVICE_CUDA && model->kv_cache &&
      model->kv_cache->length_offset != AGL_KV_LENGTH_IN_SYMBOLS)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' runs on a CUDA device but keeps its KV cache "
                    "length in its arena, which the host cannot read",
                    agl_model_label(model));
  if (model->weights_file && model->weights_data)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' has both a weights file and embedded weights",
                    agl_model_label(model));
  if (model->device == AGL_DEVICE_CUDA && model->weights_size > 0 &&
      !model->weights_file && !model->weights_data)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' runs on a CUDA device, but its %llu bytes of "
                    "weights are neither in a weights file nor embedded",
                    agl_model_label(model),
                    (unsigned long long)model->weights_size);
  if (model->arena_size > 0 && !is_power_of_two(model->arena_alignment))
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' asks for arena alignment %llu, which is not a "
                    "power of two",
                    agl_model_label(model),
                    (unsigned long long)model->arena_alignment);
  if (model->num_kernels < 0 || (model->num_kernels > 0 && !model->kernels))
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' declares %d kernels but no kernel table",
                    agl_model_label(model), (int)model->num_kernels);
  for (int32_t i = 0; i < model->num_kernels; ++i)
    if (!model->kernels[i].name)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "kernel %d of model '%s' has no name", (int)i,
                      agl_model_label(model));
  /* The symbol table first: the tensor tables refer to it. */
  agl_status status = check_symbols(model);
  if (status != AGL_OK)
    return status;
  status = check_table(model, "input", model->num_inputs, model->inputs);
  if (status != AGL_OK)
    return status;
  status = check_table(model, "output", model->num_outputs, model->outputs);
  if (status != AGL_OK)
    return status;
  status = check_symbols_are_inputs(model);
  if (status != AGL_OK)
    return status;
  return agl_kv_cache_check(model);
}

static agl_status find_by_name(const agl_model_desc *model, const char *kind,
                               int32_t count, const agl_tensor_info *table,
                               const char *name, int32_t *index) {
  if (index)
    *index = -1;
  if (!model || !name || !index)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "agl_model_find_%s: model, name and index must not be null",
                    kind);
  for (int32_t i = 0; i < count; ++i) {
    if (table[i].name && strcmp(table[i].name, name) == 0) {
      *index = i;
      return AGL_OK;
    }
  }
  return agl_fail(AGL_ERR_NOT_FOUND, "model '%s' has no %s named '%s'",
                  agl_model_label(model), kind, name);
}

agl_status agl_model_find_input(const agl_model_desc *model, const char *name,
                                int32_t *index) {
  return find_by_name(model, "input", model ? model->num_inputs : 0,
                      model ? model->inputs : NULL, name, index);
}

agl_status agl_model_find_output(const agl_model_desc *model, const char *name,
                                 int32_t *index) {
  return find_by_name(model, "output", model ? model->num_outputs : 0,
                      model ? model->outputs : NULL, name, index);
}
