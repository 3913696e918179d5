/* Model descriptors: validation and lookup of inputs and outputs by name. */
#include "internal.h"

#include <string.h>

const char *agl_model_label(const agl_model_desc *model) {
  return model && model->name ? model->name : "<unnamed>";
}

static int is_power_of_two(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
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
  if (model->arena_size > 0 && !is_power_of_two(model->arena_alignment))
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' asks for arena alignment %llu, which is not a "
                    "power of two",
                    agl_model_label(model),
                    (unsigned long long)model->arena_alignment);
  agl_status status =
      check_table(model, "input", model->num_inputs, model->inputs);
  if (status != AGL_OK)
    return status;
  return check_table(model, "output", model->num_outputs, model->outputs);
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
