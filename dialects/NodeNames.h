//===- NodeNames.h - the ONNX nodes an operation came from ------*- C++ -*-===//
//
// The importer gives every op the name of its ONNX node as location; fusion
// fuses those locations. These helpers read them back for reports, IR
// dumps and profiles.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_DIALECTS_NODENAMES_H
#define AUTOGLM_DIALECTS_NODENAMES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace autoglm {

/// The ONNX node names in `loc`, in order (producers before consumers for a
/// fused op), without repeats.
inline llvm::SmallVector<llvm::StringRef> onnxNodeNames(mlir::Location loc) {
  llvm::SmallVector<llvm::StringRef> names;
  loc->walk([&](mlir::Location inner) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(inner))
      if (!llvm::is_contained(names, name.getName().strref()))
        names.push_back(name.getName().strref());
    return mlir::WalkResult::advance();
  });
  return names;
}

/// The names joined with '+', or "" for none.
inline std::string onnxNodeLabel(mlir::Location loc) {
  return llvm::join(onnxNodeNames(loc), "+");
}

} // namespace autoglm

#endif // AUTOGLM_DIALECTS_NODENAMES_H
