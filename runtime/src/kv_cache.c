/* KV caches of models compiled with --max-seq-len: the descriptor's checks,
 * the length, and the check that a run fits. The length is kept in the
 * arena, where the model's code advances it, or after the symbol values
 * (AGL_KV_LENGTH_IN_SYMBOLS), where the runtime advances it. The model's
 * code updates the caches themselves. */
#include "internal.h"

#include <string.h>

int agl_kv_length_in_symbols(const agl_model_desc *model) {
  return model->kv_cache &&
         model->kv_cache->length_offset == AGL_KV_LENGTH_IN_SYMBOLS;
}

size_t agl_model_symbol_values(const agl_model_desc *model) {
  return (size_t)model->num_symbols + (agl_kv_length_in_symbols(model) ? 1 : 0);
}

agl_status agl_kv_cache_check(const agl_model_desc *model) {
  const agl_kv_cache_info *cache = model->kv_cache;
  if (!cache)
    return AGL_OK;
  const char *label = agl_model_label(model);
  if (cache->capacity <= 0 || cache->num_caches <= 0 || !cache->caches ||
      !cache->cache_offsets)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' declares an empty or incomplete KV cache",
                    label);
  if (cache->step_symbol >= model->num_symbols ||
      (cache->step_symbol < 0 && cache->step <= 0))
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' declares a KV cache with no valid step", label);
  if (!agl_kv_length_in_symbols(model) &&
      (cache->length_offset % sizeof(int64_t) != 0 ||
       cache->length_offset + sizeof(int64_t) > model->arena_size))
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' keeps its KV cache length outside its arena",
                    label);
  for (int32_t i = 0; i < cache->num_caches; ++i)
    if (cache->cache_offsets[i] + agl_tensor_num_bytes(&cache->caches[i]) >
        model->arena_size)
      return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                      "model '%s' places KV cache '%s' outside its arena",
                      label,
                      cache->caches[i].name ? cache->caches[i].name : "?");
  return AGL_OK;
}

/* Positions a run with these symbol values appends. */
static int64_t step_of(const agl_kv_cache_info *cache, const int64_t *symbols) {
  return cache->step_symbol >= 0 ? symbols[cache->step_symbol] : cache->step;
}

agl_status agl_kv_cache_check_run(const agl_model_desc *model,
                                  const int64_t *length,
                                  const int64_t *symbols) {
  const agl_kv_cache_info *cache = model->kv_cache;
  if (!cache)
    return AGL_OK;
  int64_t step = step_of(cache, symbols);
  if (*length + step > cache->capacity)
    return agl_fail(AGL_ERR_CACHE_FULL,
                    "the KV cache of model '%s' holds %lld positions; %lld "
                    "are in use and this run appends %lld (reset it with "
                    "agl_instance_set_cache_length)",
                    agl_model_label(model), (long long)cache->capacity,
                    (long long)*length, (long long)step);
  return AGL_OK;
}

void agl_kv_cache_advance(const agl_model_desc *model, int64_t *length,
                          const int64_t *symbols) {
  if (agl_kv_length_in_symbols(model))
    *length += step_of(model->kv_cache, symbols);
}

agl_status agl_kv_cache_length(const agl_model_desc *model, const int64_t *slot,
                               int64_t *length) {
  if (!model->kv_cache)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "model '%s' has no KV cache (compile it with "
                    "--max-seq-len)",
                    agl_model_label(model));
  *length = *slot;
  return AGL_OK;
}

agl_status agl_kv_cache_set_length(const agl_model_desc *model, int64_t *slot,
                                   int64_t length) {
  int64_t current = 0;
  agl_status status = agl_kv_cache_length(model, slot, &current);
  if (status != AGL_OK)
    return status;
  if (length < 0 || length > current)
    return agl_fail(AGL_ERR_INVALID_ARGUMENT,
                    "cannot set the KV cache length of model '%s' to %lld: "
                    "it holds %lld positions, and only a shorter length "
                    "keeps its contents meaningful",
                    agl_model_label(model), (long long)length,
                    (long long)current);
  *slot = length;
  return AGL_OK;
}
