// ONNX TensorProto files (.pb), as in the ONNX backend test data sets.
#ifndef AUTOGLM_RUN_TENSORPROTOFILE_H
#define AUTOGLM_RUN_TENSORPROTOFILE_H

#include "Tensor.h"

#include <string>

namespace autoglm::run {

// Decodes a serialized onnx.TensorProto held in raw_data or in the typed
// fields (float_data, int32_data, int64_data, double_data, uint64_data);
// `origin` names it in errors, which are TensorFileError.
Tensor parseTensorProto(const std::string &bytes, const std::string &origin);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_TENSORPROTOFILE_H
