/* Declarations shared by the runtime's source files; not installed. */
#ifndef AUTOGLM_RUNTIME_INTERNAL_H
#define AUTOGLM_RUNTIME_INTERNAL_H

#include "autoglm/runtime.h"

#define AGL_HIDDEN __attribute__((visibility("hidden")))

/* Records a printf-style message as this thread's last error and returns
 * `status`, so that failures read `return agl_fail(...)`. */
AGL_HIDDEN agl_status agl_fail(agl_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Checks that a descriptor can be run by this runtime: ABI version first
 * (other fields may mean something else in another ABI), then the tables. */
AGL_HIDDEN agl_status agl_model_check(const agl_model_desc *model);

/* The model's name for messages; never null. */
AGL_HIDDEN const char *agl_model_label(const agl_model_desc *model);

/* Sum of the ranks of the model's outputs: how many extents a run writes to
 * output_dims. */
AGL_HIDDEN size_t agl_model_output_dims(const agl_model_desc *model);

/* Reads the value of every symbol from the inputs' shapes into `values`
 * (num_symbols entries), checking static extents, agreement between the
 * dimensions tied to one symbol, and each symbol's range. A null
 * `input_shapes` stands for the descriptor's shapes, which suits only
 * models without symbols. Allocates nothing. */
AGL_HIDDEN agl_status agl_symbols_from_shapes(
    const agl_model_desc *model, const int64_t *const *input_shapes,
    int64_t *values);

/* An output extent beyond the descriptor's bound (`dims` as a run's
 * output_dims) means the model wrote past its buffer: reported rather than
 * handed to the caller as a larger shape. */
AGL_HIDDEN agl_status agl_check_output_dims(const agl_model_desc *model,
                                            const int64_t *dims);

/* The bytes of an input in a run with these symbol values (checked by
 * agl_symbols_from_shapes; null for a model without symbols), and of an
 * output with these extents (a run's output_dims; null: its bound). */
AGL_HIDDEN size_t agl_input_run_bytes(const agl_tensor_info *info,
                                      const int64_t *symbols);
AGL_HIDDEN size_t agl_output_run_bytes(const agl_tensor_info *info,
                                       const int64_t *extents);

/* KV caches (kv_cache.c). Whether the model reads its cache length after
 * its symbol values (AGL_KV_LENGTH_IN_SYMBOLS); how many values a run
 * passes in `symbols` (the symbols', then that length). The checks of a
 * descriptor's kv_cache; the check that a run with these symbol values fits
 * the capacity, and the length advanced after it where the runtime keeps
 * it; the length read and rewound. `length` points to an instance's length
 * (in its arena, or after its symbol values). */
AGL_HIDDEN int agl_kv_length_in_symbols(const agl_model_desc *model);
AGL_HIDDEN size_t agl_model_symbol_values(const agl_model_desc *model);
AGL_HIDDEN agl_status agl_kv_cache_check(const agl_model_desc *model);
AGL_HIDDEN agl_status agl_kv_cache_check_run(const agl_model_desc *model,
                                             const int64_t *length,
                                             const int64_t *symbols);
AGL_HIDDEN void agl_kv_cache_advance(const agl_model_desc *model,
                                     int64_t *length, const int64_t *symbols);
AGL_HIDDEN agl_status agl_kv_cache_length(const agl_model_desc *model,
                                          const int64_t *slot, int64_t *length);
AGL_HIDDEN agl_status agl_kv_cache_set_length(const agl_model_desc *model,
                                              int64_t *slot, int64_t length);

/* An instance's profile: a fixed buffer of events (profile.c). */
typedef struct agl_profile agl_profile;
/* Null when out of memory. */
AGL_HIDDEN agl_profile *agl_profile_create(size_t capacity);
AGL_HIDDEN void agl_profile_destroy(agl_profile *profile);
AGL_HIDDEN size_t agl_profile_read(const agl_profile *profile,
                                   const agl_profile_event **events,
                                   uint64_t *dropped);
AGL_HIDDEN void agl_profile_clear(agl_profile *profile);
/* Makes agl_profile_end on this thread record into `profile` (null: record
 * nothing); returns the profile it recorded into before. */
AGL_HIDDEN agl_profile *agl_profile_record_into(agl_profile *profile);
/* Records one event of the calling thread (counted as dropped when the
 * profile is full); counts events that could not be recorded; the clock
 * of the events (CLOCK_MONOTONIC, ns). */
AGL_HIDDEN void agl_profile_add(agl_profile *profile, int32_t kernel,
                                uint64_t begin_ns, uint64_t end_ns);
AGL_HIDDEN void agl_profile_drop(agl_profile *profile, uint64_t events);
AGL_HIDDEN uint64_t agl_profile_now_ns(void);

#endif /* AUTOGLM_RUNTIME_INTERNAL_H */
