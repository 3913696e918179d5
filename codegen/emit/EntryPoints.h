//===- EntryPoints.h - the C ABI of a compiled model ------------*- C++ -*-===//
#ifndef AUTOGLM_CODEGEN_EMIT_ENTRYPOINTS_H
#define AUTOGLM_CODEGEN_EMIT_ENTRYPOINTS_H

#include "codegen/emit/ModelSignature.h"

#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

namespace autoglm {

/// Must match AGL_ABI_VERSION and the arena alignment of runtime.h.
constexpr uint32_t kAbiVersion = 2;
constexpr uint64_t kArenaAlignment = 64;

/// Adds NAME_run_with_weights, NAME_arena_size, NAME_model, NAME_run (when
/// the weights are embedded) and, if `loadable`, autoglm_loadable_model
/// around `graphFunction`, which takes bare pointers to every input, every
/// output, the arena, then (with a weights file) the weights. The graph
/// becomes internal.
llvm::Error addEntryPoints(llvm::Module &module, llvm::StringRef graphFunction,
                           const ModelSignature &signature, bool loadable);

/// Bytes of read-only data (weights and other constants) in `module`.
uint64_t constantDataSize(const llvm::Module &module);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_EMIT_ENTRYPOINTS_H
