//===- Tuning.h - per-kernel knobs from a tuning file -----------*- C++ -*-===//
//
// The passes that choose how a kernel runs (its cache blocking, convolution
// strategy, vector width, threads) take their choice from the module
// attribute `autoglm.tuning` where it names the kernel, and from their cost
// models where it does not. The attribute maps a kernel's tuning key, its
// kind and shape ("sgemm b1 m128 n3072 k768"), to a dictionary of knobs;
// `autoglm-compile --tuning FILE` sets it from a tuning file, and autoglm-tune
// writes such files.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_TUNING_H
#define AUTOGLM_PASSES_TUNING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>
#include <string>

namespace autoglm {

/// The module attribute holding the knobs.
inline constexpr llvm::StringLiteral kTuningAttrName = "autoglm.tuning";
/// An op moved out of its place (into a parallel body) keeps its key here.
inline constexpr llvm::StringLiteral kTuningKeyAttrName = "autoglm.tuning_key";

/// The key of a product C[b] (m x n) = A[b] (m x k) * B[b] (k x n) on the
/// runtime's GEMM (a dynamic extent, ShapedType::kDynamic, shows as '?').
std::string gemmTuningKey(int64_t batch, int64_t m, int64_t n, int64_t k);

/// The key of a 2-D convolution: batch, groups, channels per group, input
/// size, filters per group, window, strides, output size.
struct ConvShape {
  int64_t batch, groups, channels, height, width, filters;
  int64_t kernelH, kernelW, strideH, strideW, outH, outW;
};
std::string convTuningKey(const ConvShape &shape);

/// The key of a loop nest: "loop" for a generic or the named op ("fill",
/// "copy", ...), its static loop ranges ('?' when symbolic) and iterator
/// kinds, e.g. "loop 128x3072 pp"; the stamped key for an op that carries
/// one.
std::string loopTuningKey(mlir::linalg::LinalgOp op);

/// A loop nest's vector width (f32 lanes) from its tuning, else `fallback`.
int64_t loopVectorWidth(mlir::linalg::LinalgOp op, int64_t fallback);
/// Whether a loop nest's tuning puts it on the thread pool, if it says.
std::optional<bool> loopParallelism(mlir::linalg::LinalgOp op);

/// The knobs the module's tuning attribute gives `key`, or null.
mlir::DictionaryAttr tuningFor(mlir::Operation *op, llvm::StringRef key);

/// A knob's value, if the dictionary sets it.
std::optional<int64_t> intKnob(mlir::DictionaryAttr knobs,
                               llvm::StringRef name);
std::optional<bool> boolKnob(mlir::DictionaryAttr knobs, llvm::StringRef name);
std::optional<llvm::StringRef> stringKnob(mlir::DictionaryAttr knobs,
                                          llvm::StringRef name);

/// The cache blocking of a GEMM or convolution call (agl_gemm_blocking);
/// 0 leaves a field to the runtime's cost model.
struct GemmBlocking {
  int64_t kc = 0, nc = 0, mc = 0;
  bool isDefault() const { return !kc && !nc && !mc; }
};
/// The kc/nc/mc knobs the tuning gives `key`.
GemmBlocking tunedBlocking(mlir::Operation *op, llvm::StringRef key);
/// The call's blocking argument: a pointer to a constant agl_gemm_blocking
/// (one private global per distinct blocking), or null for the default.
mlir::Value blockingArgument(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::ModuleOp module,
                             const GemmBlocking &blocking);
/// Records a call's blocking on it (the attribute `autoglm.blocking`), for
/// reports; blockingOfCall reads it back (all 0 when absent).
void recordBlocking(mlir::Operation *call, const GemmBlocking &blocking);
GemmBlocking blockingOfCall(mlir::Operation *call);

/// The knobs a kind of kernel takes, for checking tuning files and for the
/// tuner's search.
enum class KnobType {
  Block,    // a cache block size: 1 to AGL_GEMM_SCRATCH_FLOATS elements
  Lanes,    // f32 lanes per vector: 1 (scalar), 4, 8 or 16
  Bool,     // true or false
  Strategy, // one of convolutionStrategies()
};
struct KnobSpec {
  llvm::StringLiteral name;
  KnobType type;
  llvm::StringLiteral help;
};
/// The kind of kernel a key names (its first word), and that kind's knobs
/// (empty for an unknown kind).
llvm::ArrayRef<KnobSpec> knobsOfKind(llvm::StringRef key);
/// The values a Strategy knob may take.
llvm::ArrayRef<llvm::StringLiteral> convolutionStrategies();

} // namespace autoglm

#endif // AUTOGLM_PASSES_TUNING_H
