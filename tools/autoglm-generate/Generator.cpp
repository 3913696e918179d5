#include "Generator.h"

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace autoglm::generate {

namespace {

std::runtime_error unfit(const agl_model_desc &model, const std::string &what) {
  return std::runtime_error("model '" + std::string(model.name) + "' " + what);
}

bool isIndexType(int32_t dtype) {
  return dtype == AGL_DTYPE_I64 || dtype == AGL_DTYPE_I32;
}

/// Element `i` of an integer or float tensor set to `value`.
void store(run::Tensor &t, size_t i, int64_t value) {
  switch (t.dtype) {
  case AGL_DTYPE_I64:
    reinterpret_cast<int64_t *>(t.bytes.data())[i] = value;
    return;
  case AGL_DTYPE_I32:
    reinterpret_cast<int32_t *>(t.bytes.data())[i] = int32_t(value);
    return;
  case AGL_DTYPE_F32:
    reinterpret_cast<float *>(t.bytes.data())[i] = float(value);
    return;
  case AGL_DTYPE_BOOL:
    reinterpret_cast<uint8_t *>(t.bytes.data())[i] = value != 0;
    return;
  }
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

Generator::Generator(const agl_model_desc &model, const void *weights)
    : model_(model), instance_(model, weights) {
  if (!model.kv_cache)
    throw unfit(model, "keeps no KV cache: compile it with --max-seq-len");
  for (int i = 0; i < model.num_inputs; ++i) {
    const agl_tensor_info &info = model.inputs[i];
    std::string name = info.name;
    bool rank2 = info.rank == 2 && info.shape[0] == 1 &&
                 (!info.dim_symbols || info.dim_symbols[0] == AGL_DIM_STATIC);
    if (name == "input_ids" && rank2 && isIndexType(info.dtype))
      ids_ = i;
    else if (name == "position_ids" && rank2 && isIndexType(info.dtype))
      positions_ = i;
    else if (name == "attention_mask" && rank2 &&
             (isIndexType(info.dtype) || info.dtype == AGL_DTYPE_F32 ||
              info.dtype == AGL_DTYPE_BOOL))
      mask_ = i;
    else
      throw unfit(model, "has input '" + name + "' " +
                             run::describeType(info.dtype, run::shapeOf(info)) +
                             ", which generation does not know how to fill "
                             "(it fills input_ids [1, seq], position_ids "
                             "[1, seq] and attention_mask [1, length])");
    inputs_.emplace_back(info.dtype, run::shapeOf(info));
    inputShapes_.push_back(run::shapeOf(info));
  }
  if (ids_ < 0)
    throw unfit(model, "has no input 'input_ids' of shape [1, seq]");
  maxSeq_ = model.inputs[ids_].shape[1];
  for (int i = 0; i < model.num_outputs; ++i) {
    const agl_tensor_info &info = model.outputs[i];
    if (std::string(info.name) == "logits" ||
        (logits_ < 0 && i == model.num_outputs - 1 && info.rank == 3))
      logits_ = i;
    outputs_.emplace_back(info.dtype, run::shapeOf(info));
    outputShapes_.push_back(run::shapeOf(info));
  }
  if (logits_ < 0 || model.outputs[logits_].rank != 3 ||
      model.outputs[logits_].dtype != AGL_DTYPE_F32)
    throw unfit(model, "has no float32 output 'logits' of shape "
                       "[1, seq, vocabulary]");
  vocab_ = model.outputs[logits_].shape[2];
  for (size_t i = 0; i < inputs_.size(); ++i) {
    inputData_.push_back(inputs_[i].bytes.data());
    inputShapeData_.push_back(inputShapes_[i].data());
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    outputData_.push_back(outputs_[i].bytes.data());
    outputShapeData_.push_back(outputShapes_[i].data());
  }
}

const float *Generator::step(const std::vector<int64_t> &tokens) {
  int64_t cached = instance_.cacheLength();
  int64_t seq = int64_t(tokens.size());
  inputShapes_[ids_][1] = seq;
  for (int64_t t = 0; t < seq; ++t)
    store(inputs_[ids_], t, tokens[t]);
  if (positions_ >= 0) {
    inputShapes_[positions_][1] = seq;
    for (int64_t t = 0; t < seq; ++t)
      store(inputs_[positions_], t, cached + t);
  }
  if (mask_ >= 0) {
    inputShapes_[mask_][1] = cached + seq;
    for (int64_t t = 0; t < cached + seq; ++t)
      store(inputs_[mask_], t, 1);
  }
  instance_.runShaped(inputData_, inputShapeData_, outputData_,
                      outputShapeData_);
  int64_t rows = outputShapes_[logits_][1];
  return reinterpret_cast<const float *>(outputs_[logits_].bytes.data()) +
         (rows - 1) * vocab_;
}

void Generator::warmUp() {
  instance_.setCacheLength(0);
  step({0});
  instance_.setCacheLength(0);
}

Generation Generator::generate(const std::vector<int64_t> &prompt,
                               int64_t maxNewTokens, Sampler &sampler,
                               std::optional<int64_t> eos) {
  if (prompt.empty())
    throw std::runtime_error("the prompt has no tokens");
  if (int64_t(prompt.size()) > maxSeq_)
    throw unfit(model_, "takes at most " + std::to_string(maxSeq_) +
                            " tokens in one run (its 'seq' range), but the "
                            "prompt has " +
                            std::to_string(prompt.size()));
  if (int64_t(prompt.size()) + maxNewTokens - 1 > capacity())
    throw unfit(model_, "keeps " + std::to_string(capacity()) +
                            " positions in its KV cache; the prompt of " +
                            std::to_string(prompt.size()) + " tokens and " +
                            std::to_string(maxNewTokens) + " new tokens need " +
                            std::to_string(prompt.size() + maxNewTokens - 1));
  for (int64_t token : prompt)
    if (token < 0 || token >= vocab_)
      throw std::runtime_error("prompt token " + std::to_string(token) +
                               " is outside the vocabulary of " +
                               std::to_string(vocab_));
  instance_.setCacheLength(0);
  Generation result;
  if (maxNewTokens <= 0)
    return result;
  auto start = std::chrono::steady_clock::now();
  int64_t token = sampler.next(step(prompt), vocab_);
  result.prefillMs = millisecondsSince(start);
  result.tokens.push_back(token);
  while (int64_t(result.tokens.size()) < maxNewTokens &&
         !(eos && token == *eos)) {
    start = std::chrono::steady_clock::now();
    token = sampler.next(step({token}), vocab_);
    result.stepMs.push_back(millisecondsSince(start));
    result.tokens.push_back(token);
  }
  return result;
}

} // namespace autoglm::generate
