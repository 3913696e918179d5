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
constexpr uint32_t kAbiVersion = 12;
constexpr uint64_t kArenaAlignment = 64;
/// agl_kv_cache_info's length_offset of a model that reads its KV cache
/// length after the symbol values (AGL_KV_LENGTH_IN_SYMBOLS).
constexpr uint64_t kLengthInSymbols = ~uint64_t(0);
/// What the entry function returns when the symbol values are missing or
/// outside their ranges.
constexpr int32_t kBadSymbolsCode = 1;
/// What it returns when the run would append past the KV cache's capacity.
constexpr int32_t kCacheFullCode = 2;

/// Adds the descriptor's entry function, NAME_arena_size, NAME_model and, if
/// `loadable`, autoglm_loadable_model around `graphFunction`; for a model
/// without symbols also NAME_run_with_weights and (when the weights are
/// embedded) NAME_run, for one with symbols (or a KV cache length kept
/// after them) NAME_run_shaped (the entry function itself). The graph takes
/// bare pointers to every input, every output, the arena, then (with a
/// weights file) the weights, then
/// optionally `const int64_t *symbols` (the value of each symbol) and
/// `int64_t *output_dims` (where it writes the extents of every output,
/// one output after the other); a model with symbols requires those two.
/// A graph without them has static output shapes, which the entry function
/// reports itself. Fails on an inconsistent signature (verifySignature).
/// The graph becomes internal.
llvm::Error addEntryPoints(llvm::Module &module, llvm::StringRef graphFunction,
                           const ModelSignature &signature, bool loadable);

/// Bytes of read-only data (weights and other constants) in `module`.
uint64_t constantDataSize(const llvm::Module &module);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_EMIT_ENTRYPOINTS_H
