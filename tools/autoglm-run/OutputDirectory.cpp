#include "OutputDirectory.h"

#include "NpyFile.h"
#include "TensorFile.h"

#include <cctype>
#include <filesystem>
#include <set>

namespace autoglm::run {

std::string fileNameFor(const std::string &tensorName) {
  std::string name = tensorName;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' &&
        c != '_')
      c = '_';
  // Leading dots would hide the file, or name "." and "..".
  if (name.empty() || name[0] == '.')
    name.insert(0, "_");
  return name;
}

std::vector<std::string> writeOutputs(const std::string &directory,
                                      const std::vector<std::string> &names,
                                      const std::vector<Tensor> &tensors) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    throw TensorFileError("cannot create directory '" + directory +
                          "': " + error.message());

  std::set<std::string> used;
  std::vector<std::string> paths;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string stem = fileNameFor(names[i]);
    if (!used.insert(stem).second) {
      stem += "_" + std::to_string(i);
      used.insert(stem);
    }
    const std::string path = (fs::path(directory) / (stem + ".npy")).string();
    writeNpy(path, tensors[i]);
    paths.push_back(path);
  }
  return paths;
}

} // namespace autoglm::run
