/* The symbol values of a shaped run, read from the shapes of its inputs,
 * and the bytes its tensors take. */
#include "internal.h"

enum { UNSET = -1 }; /* no extent is negative */

size_t agl_model_output_dims(const agl_model_desc *model) {
  size_t count = 0;
  for (int32_t i = 0; i < model->num_outputs; ++i)
    count += (size_t)model->outputs[i].rank;
  return count;
}

size_t agl_input_run_bytes(const agl_tensor_info *info,
                           const int64_t *symbols) {
  size_t count = 1;
  for (int32_t d = 0; d < info->rank; ++d) {
    int32_t symbol = info->dim_symbols ? info->dim_symbols[d] : AGL_DIM_STATIC;
    count *=
        (size_t)(symbols && symbol >= 0 ? symbols[symbol] : info->shape[d]);
  }
  return count * agl_dtype_size(info->dtype);
}

size_t agl_output_run_bytes(const agl_tensor_info *info,
                            const int64_t *extents) {
  if (!extents)
    return agl_tensor_num_bytes(info);
  size_t count = 1;
  for (int32_t d = 0; d < info->rank; ++d)
    count *= (size_t)extents[d];
  return count * agl_dtype_size(info->dtype);
}

agl_status agl_check_output_dims(const agl_model_desc *model,
                                 const int64_t *dims) {
  for (int32_t i = 0; i < model->num_outputs; ++i) {
    const agl_tensor_info *info = &model->outputs[i];
    for (int32_t d = 0; d < info->rank; ++d)
      if (dims[d] < 0 || dims[d] > info->shape[d])
        return agl_fail(AGL_ERR_MODEL_FAILED,
                        "model '%s' reports extent %lld in dimension %d of "
                        "output '%s', outside 0..%lld",
                        agl_model_label(model), (long long)dims[d], (int)d,
                        info->name, (long long)info->shape[d]);
    dims += info->rank;
  }
  return AGL_OK;
}

/* The input dimension a symbol's value was first read from: the first one
 * tied to it, since inputs are read in order. */
static void first_use(const agl_model_desc *model, int32_t symbol,
                      int32_t *input, int32_t *dim) {
  for (int32_t i = 0; i < model->num_inputs; ++i) {
    const agl_tensor_info *info = &model->inputs[i];
    for (int32_t d = 0; info->dim_symbols && d < info->rank; ++d)
      if (info->dim_symbols[d] == symbol) {
        *input = i;
        *dim = d;
        return;
      }
  }
  *input = *dim = 0; /* unreachable for a checked descriptor */
}

static agl_status read_dim(const agl_model_desc *model, int32_t i, int32_t d,
                           int64_t extent, int64_t *values) {
  const agl_tensor_info *info = &model->inputs[i];
  const char *label = agl_model_label(model);
  if (extent < 0)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "input '%s' of model '%s' has negative extent %lld in "
                    "dimension %d",
                    info->name, label, (long long)extent, (int)d);

  int32_t symbol = info->dim_symbols ? info->dim_symbols[d] : AGL_DIM_STATIC;
  if (symbol < 0) {
    if (extent != info->shape[d])
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "input '%s' of model '%s' has extent %lld in dimension "
                      "%d, but the model needs %lld there",
                      info->name, label, (long long)extent, (int)d,
                      (long long)info->shape[d]);
    return AGL_OK;
  }

  const agl_symbol_info *s = &model->symbols[symbol];
  if (values[symbol] == UNSET) {
    if (extent < s->min || extent > s->max)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "input '%s' of model '%s' has extent %lld in dimension "
                      "%d, outside the range %lld..%lld of symbol '%s'",
                      info->name, label, (long long)extent, (int)d,
                      (long long)s->min, (long long)s->max, s->name);
    values[symbol] = extent;
    return AGL_OK;
  }
  if (extent != values[symbol]) {
    int32_t first_input, first_dim;
    first_use(model, symbol, &first_input, &first_dim);
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "input '%s' of model '%s' has extent %lld in dimension "
                    "%d, but symbol '%s' is %lld (dimension %d of input '%s')",
                    info->name, label, (long long)extent, (int)d, s->name,
                    (long long)values[symbol], (int)first_dim,
                    model->inputs[first_input].name);
  }
  return AGL_OK;
}

agl_status agl_symbols_from_shapes(const agl_model_desc *model,
                                   const int64_t *const *input_shapes,
                                   int64_t *values) {
  if (!input_shapes) {
    if (model->num_symbols > 0)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "model '%s' has symbolic dimensions, so its runs need "
                      "the shapes of their inputs (input_shapes is null)",
                      agl_model_label(model));
    return AGL_OK;
  }
  for (int32_t k = 0; k < model->num_symbols; ++k)
    values[k] = UNSET;
  for (int32_t i = 0; i < model->num_inputs; ++i) {
    const agl_tensor_info *info = &model->inputs[i];
    if (info->rank == 0)
      continue;
    if (!input_shapes[i])
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "the shape of input %d ('%s') of model '%s' is null",
                      (int)i, info->name, agl_model_label(model));
    for (int32_t d = 0; d < info->rank; ++d) {
      agl_status status = read_dim(model, i, d, input_shapes[i][d], values);
      if (status != AGL_OK)
        return status;
    }
  }
  /* The descriptor check guarantees that every symbol has an input
   * dimension, so every value is set now. */
  return AGL_OK;
}
