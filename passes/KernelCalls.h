//===- KernelCalls.h - calls of the runtime's kernels on buffers -*- C++ -*-===//
//
// What the passes that replace linalg ops by runtime kernel calls share:
// recognizing a multiply-accumulate body and passing a buffer to C as the
// address of its first element and its strides.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_KERNELCALLS_H
#define AUTOGLM_PASSES_KERNELCALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace autoglm {

/// The attribute on a GEMM call that names the epilogue it computes
/// ("bias+gelu_erf+residual"): reports and profiles show it.
inline constexpr llvm::StringLiteral kEpilogueAttrName = "autoglm.epilogue";

/// The attribute on a GPU library call (a cuBLAS product) with constant
/// extents: its floating-point operations (2 m n k per product of its
/// batch), which autoglm-record-gpu-placement passes on to --explain and
/// to --profile's kernel table.
inline constexpr llvm::StringLiteral kFlopsAttrName = "autoglm.flops";

/// On the same calls: the bytes of its operands read and written once (its
/// batch's A, B and C, C twice when it accumulates, bias and residual), and
/// the type of A and B ("f32", "f16", "bf16"), for --explain.
inline constexpr llvm::StringLiteral kBytesAttrName = "autoglm.bytes";
inline constexpr llvm::StringLiteral kOperandTypeAttrName =
    "autoglm.operand_type";

/// On a GPU kernel's rated op or a GPU library call: why the product got
/// that kernel and not the other (autoglm-weight-products-to-gpu's
/// estimates), for the report.
inline constexpr llvm::StringLiteral kChoiceAttrName = "autoglm.choice";

/// On a float32 matrix product (a linalg.generic) of a GPU model whose
/// weight autoglm-weight-products-to-gpu dequantizes at run time: its cuBLAS
/// call takes 16-bit operands, whatever the build's precision.
inline constexpr llvm::StringLiteral kHalfOperandsAttrName =
    "autoglm.half_operands";

/// The attribute on the declaration of a runtime function that host code
/// calls with device pointers, and that queues its own GPU work (a cuBLAS
/// product): the CUDA pipeline leaves its calls in host code.
inline constexpr llvm::StringLiteral kDeviceLibraryAttrName =
    "autoglm.device_library";

/// The attribute autoglm-map-loops-to-gpu puts on an op it runs in a
/// one-thread GPU kernel: why it could not be spread over threads. The
/// placement report (autoglm-record-gpu-placement) shows it.
inline constexpr llvm::StringLiteral kOneThreadAttrName = "autoglm.one_thread";

/// The attribute autoglm-place-on-host puts on a host section of a CUDA
/// model (ops that --device-hint keeps off the GPU): why it runs there.
inline constexpr llvm::StringLiteral kHostSectionAttrName = "autoglm.host";

/// The operand of an agl_kernel_attention(_with_past) call that says
/// whether it is causal: after the 7 sizes, Q, K, V (a pointer and 3
/// strides each), the mask (a pointer and 4), out (3) and the scale.
/// agl_kernel_attention_with_past's past length follows it.
inline constexpr unsigned kAttentionCausalOperand = 29;

/// The body is `out + in0 * in1` (either operand order) on f32.
bool isMultiplyAccumulate(mlir::linalg::GenericOp op);

/// A buffer as a kernel takes it: the address of its first element (an
/// !llvm.ptr) and the stride (in elements) of each of its dimensions.
struct BufferPointer {
  mlir::Value pointer;
  llvm::SmallVector<mlir::Value> strides; // index values
};
BufferPointer pointerTo(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value buffer);

/// The private declaration of runtime function `name` (a kernel, a
/// profiling hook) in `module`, made on first use.
mlir::func::FuncOp declareRuntimeFunction(mlir::ModuleOp module,
                                          llvm::StringRef name,
                                          mlir::FunctionType type);

/// A kernel that a profiled model times: the op that runs it, and its
/// entry in the model's kernel table.
struct TimedKernel {
  mlir::Operation *op;
  std::string name;
  double flops = 0, bytes = 0; // per call; 0 when unknown
};

/// For --profile: brackets each kernel's op with calls of the runtime's
/// `begin` (() -> i64, before it) and `end` ((i32 kernel index, i64 what
/// begin returned) -> (), after it), and lists the kernels in `module`'s
/// `autoglm.kernels` attribute, from which the artifact's kernel table is
/// written.
void bracketKernels(mlir::ModuleOp module, llvm::StringRef begin,
                    llvm::StringRef end, llvm::ArrayRef<TimedKernel> kernels);

/// The coefficients of a linear expression without constant term in
/// `dims` dimensions, or nothing.
std::optional<llvm::SmallVector<int64_t>>
linearCoefficients(mlir::AffineExpr expr, unsigned dims);

/// Whether `e` is dimension `dim`.
bool isDim(mlir::AffineExpr e, unsigned dim);

/// `index` as an i64 kernel argument.
mlir::Value asI64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index);

} // namespace autoglm

#endif // AUTOGLM_PASSES_KERNELCALLS_H
