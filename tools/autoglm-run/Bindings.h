// Matching "--input NAME=PATH" and "--input PATH" arguments to a model's
// inputs (and "--expect" arguments to its outputs).
#ifndef AUTOGLM_RUN_BINDINGS_H
#define AUTOGLM_RUN_BINDINGS_H

#include <stdexcept>
#include <string>
#include <vector>

namespace autoglm::run {

class BindingError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Returns the path bound to each of `names` ("" where none is). An argument
// is NAME=PATH when the text before its first '=' is one of `names`; other
// arguments are paths that bind by position: the i-th of them to names[i].
// An argument that looks like NAME=PATH but names nothing is an error unless
// it is an existing file. `kind` ("input", "output") and `model` appear in
// error messages.
std::vector<std::string>
bindFileArguments(const std::vector<std::string> &arguments,
                  const std::vector<std::string> &names,
                  const std::string &kind, const std::string &model);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_BINDINGS_H
