// Token-by-token generation with a model compiled with a KV cache
// (--max-seq-len): the prompt in one run, then one run per new token, each
// appending to the cache inside the model. Inputs are found by name:
// `input_ids` [1, seq] (required), `position_ids` [1, seq] and
// `attention_mask` [1, cached + seq] (filled in when the model has them);
// the next token comes from the last row of `logits` [1, seq, vocab].
#ifndef AUTOGLM_GENERATE_GENERATOR_H
#define AUTOGLM_GENERATE_GENERATOR_H

#include "Artifact.h"
#include "Sampler.h"
#include "Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace autoglm::generate {

struct Generation {
  std::vector<int64_t> tokens; // the new ones
  double prefillMs = 0;
  std::vector<double> stepMs; // one per token after the first
};

class Generator {
public:
  /// Checks the model's inputs and outputs; throws std::runtime_error with
  /// a message naming what does not fit.
  Generator(const agl_model_desc &model, const void *weights);

  /// Starts from an empty cache. Stops after `maxNewTokens` tokens or after
  /// `eos`. Throws if the prompt and the new tokens exceed the cache.
  Generation generate(const std::vector<int64_t> &prompt, int64_t maxNewTokens,
                      Sampler &sampler, std::optional<int64_t> eos);

  /// One untimed run on a single token, then an empty cache again: the
  /// weights (mapped from the artifact, read on first use) are in memory
  /// before the prompt is timed, as an engine that loads them at start has
  /// them.
  void warmUp();

  int64_t capacity() const { return model_.kv_cache->capacity; }
  int64_t vocabulary() const { return vocab_; }

private:
  /// One run on `tokens` at the cache's current length; returns the last
  /// row of logits.
  const float *step(const std::vector<int64_t> &tokens);

  const agl_model_desc &model_;
  run::Instance instance_;
  int ids_ = -1, positions_ = -1, mask_ = -1, logits_ = -1;
  int64_t vocab_ = 0, maxSeq_ = 0;
  std::vector<run::Tensor> inputs_, outputs_; // at their largest shapes
  std::vector<std::vector<int64_t>> inputShapes_, outputShapes_;
  // What each run passes: pointers to the buffers and shapes above, made
  // once (a run only updates the shapes' extents and the inputs' values).
  std::vector<const void *> inputData_;
  std::vector<const int64_t *> inputShapeData_;
  std::vector<void *> outputData_;
  std::vector<int64_t *> outputShapeData_;
};

} // namespace autoglm::generate

#endif // AUTOGLM_GENERATE_GENERATOR_H
