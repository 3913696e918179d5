#include "Bindings.h"

#include <algorithm>
#include <filesystem>

namespace autoglm::run {

namespace {

std::string listNames(const std::vector<std::string> &names) {
  if (names.empty())
    return "none";
  std::string list;
  for (const std::string &name : names)
    list += (list.empty() ? "" : ", ") + name;
  return list;
}

} // namespace

std::vector<std::string>
bindFileArguments(const std::vector<std::string> &arguments,
                  const std::vector<std::string> &names,
                  const std::string &kind, const std::string &model) {
  std::vector<std::string> paths(names.size());
  size_t nextPosition = 0;

  for (const std::string &argument : arguments) {
    size_t index;
    std::string path;
    const size_t equals = argument.find('=');
    const std::string prefix = argument.substr(0, equals);
    const auto named = std::find(names.begin(), names.end(), prefix);

    if (equals != std::string::npos && named != names.end()) {
      index = static_cast<size_t>(named - names.begin());
      path = argument.substr(equals + 1);
    } else {
      std::error_code ignored;
      if (equals != std::string::npos &&
          !std::filesystem::exists(argument, ignored))
        throw BindingError("unknown " + kind + " '" + prefix + "'; model '" +
                           model + "' has " + kind + "s: " + listNames(names));
      if (nextPosition >= names.size())
        throw BindingError("too many " + kind + "s: model '" + model +
                           "' has " + std::to_string(names.size()) + " (" +
                           listNames(names) + ")");
      index = nextPosition++;
      path = argument;
    }

    if (path.empty())
      throw BindingError(kind + " '" + names[index] + "' has an empty path");
    if (!paths[index].empty())
      throw BindingError(kind + " '" + names[index] + "' is given twice");
    paths[index] = path;
  }
  return paths;
}

} // namespace autoglm::run
