// Files written whole or not at all: output tensors, profile traces.
#ifndef AUTOGLM_RUN_ATOMICFILE_H
#define AUTOGLM_RUN_ATOMICFILE_H

#include <string>

namespace autoglm::run {

// Writes `contents` to a hidden file next to `path`, then renames it to
// `path`, so a reader never sees a partial file and a failure leaves none.
// Returns "" on success, else "cannot write '<path>': <reason>".
std::string writeFileAtomically(const std::string &path,
                                const std::string &contents);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_ATOMICFILE_H
