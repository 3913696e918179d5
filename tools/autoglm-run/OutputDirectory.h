// Saving every output of a run as DIR/NAME.npy.
#ifndef AUTOGLM_RUN_OUTPUTDIRECTORY_H
#define AUTOGLM_RUN_OUTPUTDIRECTORY_H

#include "Tensor.h"

#include <string>
#include <vector>

namespace autoglm::run {

// A file name for a tensor name: characters other than letters, digits, '.',
// '-' and '_' become '_' (ONNX names often contain '/' and ':').
std::string fileNameFor(const std::string &tensorName);

// Creates `directory` if needed and writes tensors[i] as names[i].npy; a name
// that sanitizes to an earlier one gets its index appended. Returns the paths.
std::vector<std::string> writeOutputs(const std::string &directory,
                                      const std::vector<std::string> &names,
                                      const std::vector<Tensor> &tensors);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_OUTPUTDIRECTORY_H
