//===- ModelSignature.h - names, dtypes and shapes of a model ---*- C++ -*-===//
#ifndef AUTOGLM_CODEGEN_EMIT_MODELSIGNATURE_H
#define AUTOGLM_CODEGEN_EMIT_MODELSIGNATURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace autoglm {

/// Values of TensorSignature::dimSymbols other than a symbol index; the
/// same as AGL_DIM_STATIC and AGL_DIM_COMPUTED in runtime.h.
constexpr int32_t kDimStatic = -1;
constexpr int32_t kDimComputed = -2;

/// What the artifact tells its callers about one input or output.
struct TensorSignature {
  std::string name;
  int32_t dtype; // ONNX TensorProto.DataType code, as in runtime.h
  /// Extents; for a dimension that is not static, its upper bound, so that
  /// numBytes() is the largest buffer a run needs.
  std::vector<int64_t> shape;
  /// Empty when every dimension is static; otherwise one entry per
  /// dimension: kDimStatic, k >= 0 (the extent is symbol k) or, for
  /// outputs, kDimComputed (an expression of the symbols).
  std::vector<int32_t> dimSymbols;
  int64_t numBytes() const;
  bool isStatic() const { return dimSymbols.empty(); }
};

/// A symbolic dimension (`--dim seq=1..128`): one size per run, in
/// [min, max].
struct SymbolSignature {
  std::string name;
  int64_t min, max;
};

/// A kernel of a model compiled for profiling (agl_kernel_info).
struct KernelSignature {
  std::string name;
  double flops = 0, bytes = 0; // per call; 0 when unknown
};

/// The KV cache of a model compiled with --max-seq-len (agl_kv_cache_info).
struct KVCacheSignature {
  int64_t capacity = 0;
  int64_t step = 0;        // positions a run appends, when stepSymbol < 0
  int32_t stepSymbol = -1; // else the symbol whose value it appends
  uint64_t lengthOffset = 0;
  /// Where the length is: at lengthOffset in the arena, which the model
  /// updates, or (GPU models) in the symbol values at lengthSlot, which the
  /// runtime keeps and advances.
  int64_t lengthSlot = -1;
  std::vector<TensorSignature> caches; // at full capacity
  std::vector<uint64_t> cacheOffsets;
};

/// Where a model's code runs (agl_model_desc::device).
constexpr uint32_t kDeviceHost = 0;
constexpr uint32_t kDeviceCuda = 1;

struct ModelSignature {
  std::string name; // C identifier prefix of every exported symbol
  /// kDeviceHost, or kDeviceCuda: the entry function then takes device
  /// pointers (the runtime copies inputs and outputs).
  uint32_t device = kDeviceHost;
  std::vector<TensorSignature> inputs, outputs;
  /// In declaration order; a run passes their values in this order.
  std::vector<SymbolSignature> symbols;
  uint64_t arenaSize = 0;
  uint64_t weightsSize = 0;
  /// Name of the weights file next to the artifact; empty when embedded.
  std::string weightsFile;
  /// The global holding weights embedded as data that the runtime hands to
  /// the code (agl_model_desc::weights_data); empty unless there are.
  std::string weightsData;
  /// Empty unless the model is compiled for profiling.
  std::vector<KernelSignature> kernels;
  /// Set for a model that keeps a KV cache; its offsets once planned.
  std::optional<KVCacheSignature> kvCache;

  /// Whether the code takes the weights as an argument (a weights file, or
  /// weights embedded as data), rather than holding them itself.
  bool takesWeights() const {
    return !weightsFile.empty() || !weightsData.empty();
  }

  /// Whether a run reads values from `symbols`: the symbols', and a KV
  /// cache length kept there.
  bool readsSymbolValues() const {
    return !symbols.empty() || (kvCache && kvCache->lengthSlot >= 0);
  }
};

/// Reads the signature of an imported (tensor-level) function, before
/// lowering erases unsignedness from the element types. Symbols come from
/// the function's `autoglm.symbols` attribute (dictionaries {name, min,
/// max}, in declaration order); an argument with dynamic (`?`) dimensions
/// names their symbols in `autoglm.dim_symbols` (array<i32>, -1 for static
/// dimensions) and takes each symbol's max as the extent. Outputs with
/// dynamic dimensions get their bounds later, from setOutputBounds; until
/// then those dimensions are kDimComputed with extent -1. Whatever the
/// attributes leave inconsistent is reported by verifySignature.
ModelSignature readSignature(mlir::func::FuncOp func, llvm::StringRef name);

/// Fills in where the arena planner put the KV cache and its length
/// (the function's `autoglm.state_offsets`); no-op without a cache.
void setStateOffsets(ModelSignature &signature, mlir::func::FuncOp planned);

/// Gives output `output` its upper-bound shape and its dimensions' symbols
/// (entries as in TensorSignature::dimSymbols; all kDimStatic, or empty,
/// makes it static), once the pipeline has computed them.
void setOutputBounds(ModelSignature &signature, size_t output,
                     llvm::ArrayRef<int64_t> maxShape,
                     llvm::ArrayRef<int32_t> dimSymbols);

/// setOutputBounds for every output with symbolic extents, from the bounds
/// the arena planner recorded on `planned` (`autoglm.output_max_shapes`).
void setPlannedOutputBounds(ModelSignature &signature,
                            mlir::func::FuncOp planned);

/// Checks that the signature is complete and consistent, as the runtime
/// checks the descriptor: every extent known, symbol ranges non-empty,
/// symbol indices valid, symbolic extents equal to the symbol's max, and
/// every symbol the extent of some input dimension.
llvm::Error verifySignature(const ModelSignature &signature);

/// `name` made into a C identifier ("my-model.v2" -> "my_model_v2").
std::string toCIdentifier(llvm::StringRef name);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_EMIT_MODELSIGNATURE_H
