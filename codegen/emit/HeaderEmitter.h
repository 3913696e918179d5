//===- HeaderEmitter.h - the C header of a compiled model -------*- C++ -*-===//
#ifndef AUTOGLM_CODEGEN_EMIT_HEADEREMITTER_H
#define AUTOGLM_CODEGEN_EMIT_HEADEREMITTER_H

#include "codegen/emit/ModelSignature.h"

#include <string>

namespace autoglm {

/// The header a deployment includes: entry points, the arena size, and each
/// input's and output's name, dtype and shape as constants.
std::string emitHeader(const ModelSignature &signature,
                       llvm::StringRef sourceName);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_EMIT_HEADEREMITTER_H
