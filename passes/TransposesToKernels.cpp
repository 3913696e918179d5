//===- TransposesToKernels.cpp - transposes as runtime kernel calls -------===//
//
// A permutation whose innermost output dimension is not the input's
// (NHWC -> NCHW, a matrix transposed) lowers to a loop that reads the input
// at a stride in its innermost loop: the vectorizer leaves it scalar, one
// element per iteration. This pass replaces such a linalg.transpose (or a
// generic that only copies through a permuted input map) of 4-byte
// elements by a call of agl_kernel_transpose32, which moves 8 x 8 tiles
// through registers: the output dimension that is contiguous in the input
// becomes the kernel's rows, the output's innermost dimension its columns,
// and the others (folded where they are contiguous in both buffers) its
// planes. Permutations that keep the innermost dimension are row copies,
// which the vectorizer already handles; those and the ones with more than
// two planes' dimensions left after folding stay as they are.
//
// Like the other kernel-call passes it runs before the arena is planned
// (it also works on planned buffers) and only removes buffer uses.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferFacts.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace autoglm {
#define GEN_PASS_DEF_TRANSPOSESTOKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using autoglm::staticStrides;

namespace {

constexpr StringLiteral kTranspose = "agl_kernel_transpose32";

/// One dimension of the kernel's planes: its extent and its strides in the
/// input and in the output.
struct PlaneDim {
  int64_t extent = 1, inStride = 0, outStride = 0;
};

/// A transpose found in the IR, in the kernel's terms.
struct Transpose {
  Operation *op = nullptr;
  Value input, output;
  PlaneDim planes[2];
  int64_t rows = 1, cols = 1, inColStride = 0, outRowStride = 0;
};

/// For each output dimension, the input dimension it reads, for a
/// linalg.transpose or a generic whose body only yields its input through
/// a permutation map (the output's map the identity); else nothing.
std::optional<SmallVector<int64_t>> inputDimOfOutputDims(Operation *op) {
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    if (!transpose.hasPureBufferSemantics())
      return std::nullopt;
    return llvm::to_vector(transpose.getPermutation());
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return std::nullopt;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[1].isIdentity() || !maps[0].isPermutation())
    return std::nullopt;
  SmallVector<int64_t> inputDim(maps[0].getNumResults());
  for (auto [k, expr] : llvm::enumerate(maps[0].getResults()))
    inputDim[cast<AffineDimExpr>(expr).getPosition()] = k;
  return inputDim;
}

/// 4-byte integer or float elements, static shape and strides.
bool isStaticWords(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Type element = type.getElementType();
  return type.hasStaticShape() && staticStrides(buffer) &&
         (isa<FloatType>(element) || isa<IntegerType>(element)) &&
         element.getIntOrFloatBitWidth() == 32;
}

std::optional<Transpose> matchTranspose(Operation *op) {
  std::optional<SmallVector<int64_t>> inputDim = inputDimOfOutputDims(op);
  if (!inputDim || inputDim->empty())
    return std::nullopt;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Transpose t;
  t.op = op;
  t.input = linalgOp.getDpsInputs()[0];
  t.output = linalgOp.getDpsInits()[0];
  if (!isStaticWords(t.input) || !isStaticWords(t.output) ||
      !autoglm::disjoint(t.input, t.output))
    return std::nullopt;
  ArrayRef<int64_t> shape = cast<MemRefType>(t.output.getType()).getShape();
  SmallVector<int64_t> in = *staticStrides(t.input);
  SmallVector<int64_t> out = *staticStrides(t.output);
  const int64_t rank = shape.size(), last = rank - 1;
  // Columns: the output's innermost dimension, contiguous there and not in
  // the input. Rows: the output dimension that is contiguous in the input.
  if (out[last] != 1 || in[(*inputDim)[last]] == 1 || shape[last] == 1)
    return std::nullopt;
  std::optional<int64_t> rowDim;
  for (int64_t d = 0; d < last; ++d)
    if (shape[d] > 1 && in[(*inputDim)[d]] == 1)
      rowDim = d;
  if (!rowDim)
    return std::nullopt;
  t.rows = shape[*rowDim];
  t.cols = shape[last];
  t.inColStride = in[(*inputDim)[last]];
  t.outRowStride = out[*rowDim];
  // The planes: the other dimensions of more than one element, outermost
  // first, each folded into the one before it where both buffers hold
  // them as one run of strides.
  SmallVector<PlaneDim> planes;
  for (int64_t d = 0; d < last; ++d) {
    if (d == *rowDim || shape[d] == 1)
      continue;
    PlaneDim dim{shape[d], in[(*inputDim)[d]], out[d]};
    if (!planes.empty() &&
        planes.back().inStride == dim.extent * dim.inStride &&
        planes.back().outStride == dim.extent * dim.outStride) {
      planes.back() = {planes.back().extent * dim.extent, dim.inStride,
                       dim.outStride};
      continue;
    }
    planes.push_back(dim);
  }
  if (planes.size() > 2)
    return std::nullopt;
  // Fewer than two: the outermost ones are single.
  for (size_t i = 0; i < planes.size(); ++i)
    t.planes[2 - planes.size() + i] = planes[i];
  return t;
}

func::FuncOp declareTranspose(ModuleOp module) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  // The order of agl_kernel_transpose32's parameters (kernels.h).
  SmallVector<Type> args = {i64, i64, i64, i64, ptr, i64,
                            i64, i64, ptr, i64, i64, i64};
  return autoglm::declareRuntimeFunction(module, kTranspose,
                                         b.getFunctionType(args, {}));
}

void replaceWithKernelCall(const Transpose &t) {
  OpBuilder b(t.op);
  Location loc = t.op->getLoc();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  SmallVector<Value> args = {constant(t.planes[0].extent),
                             constant(t.planes[1].extent),
                             constant(t.rows),
                             constant(t.cols),
                             autoglm::pointerTo(b, loc, t.input).pointer,
                             constant(t.planes[0].inStride),
                             constant(t.planes[1].inStride),
                             constant(t.inColStride),
                             autoglm::pointerTo(b, loc, t.output).pointer,
                             constant(t.planes[0].outStride),
                             constant(t.planes[1].outStride),
                             constant(t.outRowStride)};
  func::CallOp::create(
      b, loc, declareTranspose(t.op->getParentOfType<ModuleOp>()), args);
  t.op->erase();
}

struct TransposesToKernelsPass
    : autoglm::impl::TransposesToKernelsBase<TransposesToKernelsPass> {
  void runOnOperation() override {
    SmallVector<Transpose> found;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::TransposeOp, linalg::GenericOp>(op))
        if (std::optional<Transpose> t = matchTranspose(op))
          found.push_back(*t);
    });
    for (const Transpose &t : found)
      replaceWithKernelCall(t);
  }
};

} // namespace
