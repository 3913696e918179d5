#include "AtomicFile.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace autoglm::run {

std::string writeFileAtomically(const std::string &path,
                                const std::string &contents) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path partial =
      target.parent_path() / ("." + target.filename().string() + ".partial-" +
                              std::to_string(static_cast<long>(getpid())));
  const std::string failure = "cannot write '" + path + "': ";
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    if (!file)
      return failure + std::strerror(errno);
    file.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    file.close();
    if (!file) {
      std::string reason = std::strerror(errno);
      std::error_code ignored;
      fs::remove(partial, ignored);
      return failure + reason;
    }
  }
  std::error_code error;
  fs::rename(partial, target, error);
  if (error) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return failure + error.message();
  }
  return "";
}

} // namespace autoglm::run
