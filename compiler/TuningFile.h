//===- TuningFile.h - reading autoglm-compile --tuning files ----*- C++ -*-===//
//
// A tuning file (JSON) holds, per target CPU, the knobs of kernels named by
// their tuning keys (passes/Tuning.h):
//
//   {"format": "autoglm-tuning", "version": 1,
//    "targets": {"znver4": {"sgemm b1 m128 n3072 k768": {"kc": 256},
//                           "loop 128x3072 pp": {"vector_width": 8}}}}
//
// Everything is checked when the file is read: an unknown kernel kind or
// knob, or a value of the wrong type or range, is an error naming the file,
// the key and the knob.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_TUNINGFILE_H
#define AUTOGLM_COMPILER_TUNINGFILE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace autoglm {

/// The knobs `file` gives `target`, as the module attribute the passes read
/// (kTuningAttrName); an empty dictionary when the file has no section for
/// the target, with `note` saying so.
llvm::Expected<mlir::DictionaryAttr> readTuningFile(llvm::StringRef path,
                                                    llvm::StringRef target,
                                                    mlir::MLIRContext *context,
                                                    std::string &note);

/// Checks one kernel's knobs (a JSON object) against its key's kind;
/// `where` prefixes the error. Shared with autoglm-tune.
llvm::Error checkTuningEntry(llvm::StringRef key,
                             const llvm::json::Value &knobs,
                             llvm::StringRef where);

/// The name of the CPU a compilation targets, as tuning files key it:
/// `mcpu`, or the host's name for "native".
std::string tuningTargetName(llvm::StringRef mcpu);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_TUNINGFILE_H
