#include "TensorFile.h"

#include "NpyFile.h"
#include "TensorProtoFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace autoglm::run {

namespace {
bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

std::string readFileBytes(const std::string &path) {
  const auto fail = [&path] {
    return TensorFileError("cannot read '" + path +
                           "': " + std::strerror(errno));
  };
  const std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(
      std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file)
    throw fail();
  std::string bytes;
  char buffer[1 << 16];
  size_t count;
  while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0)
    bytes.append(buffer, count);
  if (std::ferror(file.get())) // e.g. EISDIR for a directory
    throw fail();
  return bytes;
}

Tensor readTensorFile(const std::string &path) {
  const std::string bytes = readFileBytes(path);
  if (endsWith(path, ".npy"))
    return parseNpy(bytes, path);
  if (endsWith(path, ".pb"))
    return parseTensorProto(bytes, path);
  if (looksLikeNpy(bytes))
    return parseNpy(bytes, path);
  return parseTensorProto(bytes, path);
}

} // namespace autoglm::run
