//===- PoolingToKernels.cpp - max pooling as runtime kernel calls ---------===//
//
// The lowering writes an f32 max pool as a copy of the input into a buffer
// filled with -inf (the padding), a -inf fill of the output, and one window
// loop over (n, c | ki, kj | oy, ox) whose innermost loop reads the input
// at the pool's column stride, which the vectorizer leaves scalar. This
// pass replaces the loop by a call of agl_kernel_maxpool2d, which clips
// each window to the image instead of reading padding, so the output's fill
// and, where the padded buffer is not read again, its fill and copy go too.
//
// Like autoglm-convolutions-to-kernels it runs before the arena is planned
// (it also works on planned buffers) and only removes buffer uses; the ops it takes over are found walking
// back from the loop over the ops that touch memory, so that reading the
// input at the loop reads what the removed copy read.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferFacts.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace autoglm {
#define GEN_PASS_DEF_POOLINGTOKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using autoglm::isConstantFill;
using autoglm::isDim;
using autoglm::linearCoefficients;
using autoglm::staticStrides;

namespace {

constexpr StringLiteral kMaxPool = "agl_kernel_maxpool2d";

/// A max pool found in the IR: the ops it replaces and the call's
/// arguments.
struct MaxPool {
  linalg::GenericOp loop;
  Operation *outFill = nullptr;
  Operation *padFill = nullptr, *padCopy = nullptr; // when looked through
  Value input, output;
  int64_t batch = 1, channels = 1, height = 1, width = 1;
  int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
  int64_t dilationH = 1, dilationW = 1, padTop = 0, padLeft = 0;
  int64_t outH = 1, outW = 1;
};

bool isNegativeInfinity(Value value) {
  FloatAttr attr;
  return matchPattern(value, m_Constant<FloatAttr>(&attr)) &&
         attr.getValue().isInfinity() && attr.getValue().isNegative();
}

/// An f32 buffer of rank 4 with static strides and contiguous rows.
bool isRowContiguous4d(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto strides = staticStrides(buffer);
  return type.getRank() == 4 && type.getElementType().isF32() && strides &&
         strides->back() == 1;
}

/// The lowering's window loop:
///   out[n, c, oy, ox] = maximumf(out, in[n, c, oy * sh + ki * dh,
///                                              ox * sw + kj * dw])
/// over loops (n, c, ki, kj, oy, ox), the kernel extents given by a
/// shape-only operand; records the geometry it implies.
bool matchWindowLoop(linalg::GenericOp op, MaxPool &pool) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 6)
    return false;
  using utils::IteratorType;
  if (op.getIteratorTypesArray() !=
      ArrayRef<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                             IteratorType::reduction, IteratorType::reduction,
                             IteratorType::parallel, IteratorType::parallel})
    return false;
  Block &body = op.getRegion().front();
  auto max = dyn_cast<arith::MaximumFOp>(&body.front());
  if (!max || body.getOperations().size() != 2 ||
      body.getTerminator()->getOperand(0) != max.getResult())
    return false;
  Value in = body.getArgument(0), acc = body.getArgument(2);
  if (!((max.getLhs() == acc && max.getRhs() == in) ||
        (max.getLhs() == in && max.getRhs() == acc)))
    return false;
  Value input = op.getDpsInputs()[0], output = op.getDpsInits()[0];
  auto windowType = dyn_cast<MemRefType>(op.getDpsInputs()[1].getType());
  auto outType = cast<MemRefType>(output.getType());
  if (!isRowContiguous4d(input) || !isRowContiguous4d(output) ||
      !windowType || windowType.getRank() != 2 ||
      !windowType.hasStaticShape())
    return false;
  auto dims = [&](ArrayRef<unsigned> list) {
    return AffineMap::getMultiDimMapWithTargets(6, list, op.getContext());
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap inMap = maps[0];
  if (maps[1] != dims({2, 3}) || maps[2] != dims({0, 1, 4, 5}) ||
      inMap.getNumResults() != 4 || !isDim(inMap.getResult(0), 0) ||
      !isDim(inMap.getResult(1), 1))
    return false;
  int64_t stride[2], dilation[2];
  for (int axis = 0; axis < 2; ++axis) {
    auto coefficients = linearCoefficients(inMap.getResult(2 + axis), 6);
    if (!coefficients)
      return false;
    for (int64_t d = 0; d < 6; ++d)
      if (d != 2 + axis && d != 4 + axis && (*coefficients)[d] != 0)
        return false;
    dilation[axis] = (*coefficients)[2 + axis];
    stride[axis] = (*coefficients)[4 + axis];
    if (dilation[axis] <= 0 || stride[axis] <= 0)
      return false;
  }
  auto inType = cast<MemRefType>(input.getType());
  pool.loop = op;
  pool.input = input;
  pool.output = output;
  pool.batch = outType.getDimSize(0);
  pool.channels = outType.getDimSize(1);
  pool.height = inType.getDimSize(2);
  pool.width = inType.getDimSize(3);
  pool.kernelH = windowType.getDimSize(0);
  pool.kernelW = windowType.getDimSize(1);
  pool.strideH = stride[0];
  pool.strideW = stride[1];
  pool.dilationH = dilation[0];
  pool.dilationW = dilation[1];
  pool.outH = outType.getDimSize(2);
  pool.outW = outType.getDimSize(3);
  return true;
}

/// Whether `op` copies the input into the interior of `padded` (a subview
/// with unit strides, batch and channels whole); records the input and the
/// padding.
bool matchPaddingCopy(Operation *op, Value padded, MaxPool &pool) {
  auto copy = dyn_cast<linalg::CopyOp>(op);
  if (!copy)
    return false;
  auto interior = copy.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
  if (!interior || interior.getSource() != padded ||
      !interior.hasUnitStride())
    return false;
  Value source = copy.getInputs()[0];
  ArrayRef<int64_t> offsets = interior.getStaticOffsets();
  if (!isRowContiguous4d(source) ||
      llvm::any_of(offsets, ShapedType::isDynamic) || offsets[0] != 0 ||
      offsets[1] != 0)
    return false;
  auto type = cast<MemRefType>(source.getType());
  pool.padCopy = copy;
  pool.input = source;
  pool.height = type.getDimSize(2);
  pool.width = type.getDimSize(3);
  pool.padTop = offsets[2];
  pool.padLeft = offsets[3];
  return true;
}

/// Matches the loop and, walking back from it over the ops that touch
/// memory, the -inf fill of its output and the padded copy of its input
/// (the copy, then the -inf fill before it). The walk stops at the first op
/// with no role. Without the output's fill the loop is left alone: the
/// kernel writes the output rather than taking the max with what it holds.
std::optional<MaxPool> matchMaxPool(linalg::GenericOp loop) {
  MaxPool pool;
  if (!matchWindowLoop(loop, pool))
    return std::nullopt;
  Value padded = pool.input;
  for (Operation *op = autoglm::previousEffect(loop); op;
       op = autoglm::previousEffect(op)) {
    if (!pool.outFill &&
        isConstantFill(op, pool.output, isNegativeInfinity)) {
      pool.outFill = op;
    } else if (!pool.padCopy && matchPaddingCopy(op, padded, pool)) {
    } else if (pool.padCopy && !pool.padFill &&
               isConstantFill(op, padded, isNegativeInfinity)) {
      pool.padFill = op;
    } else {
      break;
    }
    if (pool.outFill && pool.padFill)
      break;
  }
  if (!pool.outFill)
    return std::nullopt;
  // Without the fill before it, or when it is read again, the padded
  // buffer stays: the kernel reads it, unpadded.
  if (pool.padCopy &&
      (!pool.padFill || !autoglm::deadAfter(padded, loop))) {
    pool.padCopy = pool.padFill = nullptr;
    auto type = cast<MemRefType>(padded.getType());
    pool.input = padded;
    pool.height = type.getDimSize(2);
    pool.width = type.getDimSize(3);
    pool.padTop = pool.padLeft = 0;
  }
  if (!autoglm::disjoint(pool.input, pool.output))
    return std::nullopt;
  return pool;
}

func::FuncOp declareMaxPool(ModuleOp module) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  // The order of agl_kernel_maxpool2d's parameters (kernels.h).
  SmallVector<Type> args = {i64, i64, i64, i64, ptr, i64, i64, i64,
                            i64, i64, i64, i64, i64, i64, i64, i64,
                            ptr, i64, i64, i64, i64, i64};
  return autoglm::declareRuntimeFunction(module, kMaxPool,
                                         b.getFunctionType(args, {}));
}

void replaceWithKernelCall(MaxPool &pool) {
  OpBuilder b(pool.loop);
  Location loc = pool.loop.getLoc();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  SmallVector<int64_t> in = *staticStrides(pool.input);
  SmallVector<int64_t> out = *staticStrides(pool.output);
  SmallVector<Value> args = {
      constant(pool.batch),
      constant(pool.channels),
      constant(pool.height),
      constant(pool.width),
      autoglm::pointerTo(b, loc, pool.input).pointer,
      constant(in[0]),
      constant(in[1]),
      constant(in[2]),
      constant(pool.kernelH),
      constant(pool.kernelW),
      constant(pool.strideH),
      constant(pool.strideW),
      constant(pool.dilationH),
      constant(pool.dilationW),
      constant(pool.padTop),
      constant(pool.padLeft),
      autoglm::pointerTo(b, loc, pool.output).pointer,
      constant(pool.outH),
      constant(pool.outW),
      constant(out[0]),
      constant(out[1]),
      constant(out[2])};
  func::CallOp::create(b, loc,
                       declareMaxPool(pool.loop->getParentOfType<ModuleOp>()),
                       args);
  for (Operation *op : {pool.loop.getOperation(), pool.outFill, pool.padCopy,
                        pool.padFill})
    if (op)
      op->erase();
}

struct PoolingToKernelsPass
    : autoglm::impl::PoolingToKernelsBase<PoolingToKernelsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> loops;
    // Window loops only: the fills the calls replace are never among them.
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumLoops() == 6 && op.getNumDpsInputs() == 2)
        loops.push_back(op);
    });
    for (linalg::GenericOp loop : loops)
      if (std::optional<MaxPool> pool = matchMaxPool(loop))
        replaceWithKernelCall(*pool);
  }
};

} // namespace
