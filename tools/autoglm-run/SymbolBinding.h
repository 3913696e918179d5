// Matching input tensors to a model with symbolic dimensions: each input's
// type against the descriptor, and each symbol's value read from the inputs.
#ifndef AUTOGLM_RUN_SYMBOLBINDING_H
#define AUTOGLM_RUN_SYMBOLBINDING_H

#include "Tensor.h"
#include "autoglm/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace autoglm::run {

// "float32[batch,seq,2]": the type a tensor of the model must have, symbolic
// dimensions by their symbol's name and computed ones as '?'. For a static
// tensor, the same as describeType.
std::string describeExpectedType(const agl_model_desc &model,
                                 const agl_tensor_info &info);

// Whether `tensor` has the element type, rank and static extents of `info`
// (symbolic extents are checked by bindSymbols).
bool fitsType(const agl_tensor_info &info, const Tensor &tensor);

// The value of every symbol of `model`, read from the shapes of `inputs`
// (one per model input, each of which fitsType). Throws BindingError, naming
// the input, dimension, symbol and file (paths[i]), when dimensions tied to
// one symbol disagree or a value lies outside its symbol's range.
std::vector<int64_t> bindSymbols(const agl_model_desc &model,
                                 const std::vector<Tensor> &inputs,
                                 const std::vector<std::string> &paths);

// "batch=2 seq=17".
std::string describeSymbols(const agl_model_desc &model,
                            const std::vector<int64_t> &values);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_SYMBOLBINDING_H
