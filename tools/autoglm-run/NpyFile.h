// NumPy .npy files (format versions 1, 2 and 3): little-endian, C order.
#ifndef AUTOGLM_RUN_NPYFILE_H
#define AUTOGLM_RUN_NPYFILE_H

#include "Tensor.h"

#include <string>

namespace autoglm::run {

bool looksLikeNpy(const std::string &bytes);

// Decodes the contents of a .npy file; `origin` names it in errors, which
// are TensorFileError.
Tensor parseNpy(const std::string &bytes, const std::string &origin);

// Encodes a tensor as a version 1.0 .npy file. NumPy has no bfloat16, so
// bfloat16 tensors are widened (exactly) to float32.
std::string encodeNpy(const Tensor &tensor);

// Writes through a temporary file renamed into place, so that `path` never
// holds a partial file.
void writeNpy(const std::string &path, const Tensor &tensor);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_NPYFILE_H
