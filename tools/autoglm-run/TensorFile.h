// Reading tensors from files, whatever their format.
#ifndef AUTOGLM_RUN_TENSORFILE_H
#define AUTOGLM_RUN_TENSORFILE_H

#include "Tensor.h"

#include <stdexcept>
#include <string>

namespace autoglm::run {

// A tensor file that cannot be read or written; the message names the file.
class TensorFileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Reads a .npy file or an ONNX TensorProto (.pb) file. The extension picks
// the format; any other name is recognized by its contents.
Tensor readTensorFile(const std::string &path);

// The whole file as bytes, or TensorFileError naming the file.
std::string readFileBytes(const std::string &path);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_TENSORFILE_H
