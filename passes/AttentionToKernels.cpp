//===- AttentionToKernels.cpp - attention as a runtime kernel call --------===//
//
// Before the arena is planned, every autoglm.attention_buffers becomes one
// call of agl_kernel_attention on its buffers: their addresses and strides,
// the mask's broadcast dimensions given stride 0. A transpose that only
// moves heads and positions around the op (the [B, S, H, D] <-> [B, H, S, D]
// of every exported attention) becomes strides too: the kernel reads the
// transpose's input, or writes its output, in place.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "passes/AttentionOperands.h"
#include "passes/BufferFacts.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace autoglm {
#define GEN_PASS_DEF_ATTENTIONTOKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using autoglm::KernelOperand;
using autoglm::readOperand;
using autoglm::writeOperand;

namespace {

constexpr StringLiteral kAttention = "agl_kernel_attention";
constexpr StringLiteral kAttentionWithPast = "agl_kernel_attention_with_past";

func::FuncOp declareKernel(ModuleOp module, bool withPast) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  // (batch, heads, kv_heads, q_len, kv_len, head_dim, value_dim,
  //  q + 3 strides, k + 3, v + 3, mask + 4, out + 3, scale, causal
  //  [, past_len, past k + 3 strides, past v + 3])
  SmallVector<Type> args(7, i64);
  for (int strides : {3, 3, 3, 4, 3}) {
    args.push_back(ptr);
    args.append(strides, i64);
  }
  args.append({b.getF32Type(), b.getI32Type()});
  if (withPast) {
    args.push_back(i64);
    for (int i = 0; i < 2; ++i) {
      args.push_back(ptr);
      args.append(3, i64);
    }
  }
  return autoglm::declareRuntimeFunction(
      module, withPast ? kAttentionWithPast : kAttention,
      b.getFunctionType(args, {}));
}

/// The copy of a decode step's past keys or values into the first rows of
/// the present ones that the op reads (`present = Concat(past, new)`
/// after bufferization): a linalg.copy from `past` into a view of the
/// present buffer that starts at row 0 and is whole in every dimension but
/// the rows, of which it spans `rows`.
struct PastCopy {
  linalg::CopyOp copy;
  memref::SubViewOp view;
  Value past;
  OpFoldResult rows;
};

/// Whether two views of one buffer hold rows (dimension 2) that cannot
/// overlap: `later` starts at or after the row where `view` ends.
bool rowsAfter(Value later, memref::SubViewOp view) {
  while (auto cast = later.getDefiningOp<memref::CastOp>())
    later = cast.getSource();
  auto other = later.getDefiningOp<memref::SubViewOp>();
  if (!other || other.getSource() != view.getSource() ||
      other.getType().getRank() != other.getSourceType().getRank() ||
      !llvm::all_of(other.getMixedStrides(), isOneInteger))
    return false;
  OpFoldResult start = other.getMixedOffsets()[2],
               end = view.getMixedSizes()[2];
  if (start == end)
    return true;
  std::optional<int64_t> s = getConstantIntValue(start),
                         e = getConstantIntValue(end);
  return s && e && *s >= *e;
}

/// Whether the copy can be done by the attention kernel instead, right
/// before it reads: nothing in between reads or writes the rows it fills
/// (writing the present's other rows, the new positions, is fine) nor
/// writes its source; each op in between is a linalg op that shows what it
/// touches.
bool copyCanMoveTo(PastCopy past, Operation *op) {
  for (Operation *between = autoglm::nextEffect(past.copy); between != op;
       between = autoglm::nextEffect(between)) {
    auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(between);
    if (!linalgOp)
      return false;
    for (OpOperand &operand : between->getOpOperands()) {
      Value buffer = operand.get();
      if (!isa<BaseMemRefType>(buffer.getType()))
        continue;
      if (!autoglm::disjoint(buffer, past.view) &&
          !rowsAfter(buffer, past.view))
        return false;
      if (linalgOp.isDpsInit(&operand) &&
          !autoglm::disjoint(buffer, past.past))
        return false;
    }
  }
  return true;
}

/// Whether a view's extent `size` along dimension d is all of `buffer`'s:
/// equal constants, or, for a symbolic extent (`--dim NAME=MIN..MAX`), the
/// very value the buffer was allocated with, or its memref.dim.
bool spansWhole(OpFoldResult size, Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(d))
    return getConstantIntValue(size) == type.getDimSize(d);
  auto value = dyn_cast<Value>(size);
  if (!value)
    return false;
  if (auto dim = value.getDefiningOp<memref::DimOp>())
    if (dim.getSource() == buffer && getConstantIntValue(dim.getIndex()) == d)
      return true;
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  return alloc && alloc.getDynamicSizes()[type.getDynamicDimIndex(d)] == value;
}

/// The symbol of extent `value`, when it is a `memref.dim` of a model input
/// whose extent there is symbolic (`autoglm.dim_symbols`): the runtime
/// checks that the inputs' extents of one symbol agree.
std::optional<int32_t> inputSymbol(Value value) {
  auto dim = value.getDefiningOp<memref::DimOp>();
  auto arg = dim ? dyn_cast<BlockArgument>(dim.getSource()) : BlockArgument();
  std::optional<int64_t> d = dim ? getConstantIntValue(dim.getIndex())
                                 : std::nullopt;
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!func || !d)
    return std::nullopt;
  auto symbols = func.getArgAttrOfType<DenseI32ArrayAttr>(
      arg.getArgNumber(), "autoglm.dim_symbols");
  if (!symbols || *d >= int64_t(symbols.size()) || symbols[*d] < 0)
    return std::nullopt;
  return symbols[*d];
}

/// Whether two extents are equal whenever the model runs: the same value,
/// or input extents of one symbol.
bool sameExtent(OpFoldResult x, OpFoldResult y) {
  if (x == y)
    return true;
  auto vx = dyn_cast<Value>(x), vy = dyn_cast<Value>(y);
  if (!vx || !vy)
    return false;
  std::optional<int32_t> sx = inputSymbol(vx), sy = inputSymbol(vy);
  return sx && sx == sy;
}

/// The past copy that fills the first rows of the op's K or V operand
/// `operand` (read in place, not through a folded transpose), if the
/// kernel can take it over.
std::optional<PastCopy> pastCopyOf(const KernelOperand &operand,
                                   autoglm::AttentionBuffersOp op) {
  if (operand.folded)
    return std::nullopt;
  Value buffer = operand.buffer;
  while (auto cast = buffer.getDefiningOp<memref::CastOp>())
    buffer = cast.getSource();
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 4)
    return std::nullopt;
  for (Operation *user : buffer.getUsers()) {
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || !view->hasOneUse() || view.getSource() != buffer ||
        view.getType().getRank() != 4 ||
        !llvm::all_of(view.getMixedOffsets(), isZeroInteger) ||
        !llvm::all_of(view.getMixedStrides(), isOneInteger))
      continue;
    auto copy = dyn_cast<linalg::CopyOp>(*view->getUsers().begin());
    if (!copy || copy.getOutputs().front() != view.getResult() ||
        copy->getBlock() != op->getBlock() || !copy->isBeforeInBlock(op))
      continue;
    bool wholeButRows = true;
    for (int64_t d : {0, 1, 3})
      wholeButRows &= spansWhole(view.getMixedSizes()[d], buffer, d);
    Value source = copy.getInputs().front();
    auto sourceType = dyn_cast<MemRefType>(source.getType());
    if (!wholeButRows || !sourceType ||
        sourceType.getStridesAndOffset().first.back() != 1)
      continue;
    PastCopy past{copy, view, source, view.getMixedSizes()[2]};
    if (copyCanMoveTo(past, op))
      return past;
  }
  return std::nullopt;
}

LogicalResult replaceWithKernelCall(autoglm::AttentionBuffersOp op) {
  for (Value buffer : {op.getQuery(), op.getKey(), op.getValue(),
                       op.getOutput()}) {
    auto [strides, offset] =
        cast<MemRefType>(buffer.getType()).getStridesAndOffset();
    // The lowering asks for unit-stride rows; anything else is a bug.
    if (strides.back() != 1)
      return op.emitOpError("the kernel needs contiguous rows; operand has "
                            "stride ")
             << strides.back() << " along its last dimension";
  }
  KernelOperand query = readOperand(op.getQuery(), op),
                key = readOperand(op.getKey(), op),
                value = readOperand(op.getValue(), op);
  KernelOperand output =
      writeOperand(op.getOutput(), op,
                   {query.buffer, key.buffer, value.buffer, op.getMask()});
  if (output.folded)
    autoglm::hoistBefore(output.buffer, op);
  // The past keys and values, both copied over the same rows, and none of
  // the buffers the kernel writes (out, K, V) holding any of them.
  std::optional<PastCopy> pastKey = pastCopyOf(key, op),
                          pastValue = pastCopyOf(value, op);
  const bool withPast =
      pastKey && pastValue && sameExtent(pastKey->rows, pastValue->rows) &&
      llvm::all_of(
          ArrayRef<Value>{output.buffer, key.buffer, value.buffer},
          [&](Value written) {
            return autoglm::disjoint(written, pastKey->past) &&
                   autoglm::disjoint(written, pastValue->past);
          });
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto i64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  // An extent, static or read from the buffer (symbolic lengths).
  auto extent = [&](Value buffer, int64_t d) -> Value {
    int64_t size = cast<MemRefType>(buffer.getType()).getDimSize(d);
    if (!ShapedType::isDynamic(size))
      return i64(size);
    return autoglm::asI64(b, loc, memref::DimOp::create(b, loc, buffer, d));
  };
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  SmallVector<Value> args = {extent(q, 0), extent(q, 1), extent(k, 1),
                             extent(q, 2), extent(k, 2), extent(q, 3),
                             extent(v, 3)};
  // The pointer and the batch, head and row strides of a 4-D operand.
  auto addBuffer = [&](const KernelOperand &operand) {
    autoglm::BufferPointer view = autoglm::pointerTo(b, loc, operand.buffer);
    args.push_back(view.pointer);
    for (int d = 0; d < 3; ++d)
      args.push_back(autoglm::asI64(b, loc, view.strides[operand.dims[d]]));
  };
  addBuffer(query);
  addBuffer(key);
  addBuffer(value);
  if (Value mask = op.getMask()) {
    // Right-aligned on [B, H, Sq, Sk]; extent 1 (or no axis) broadcasts.
    autoglm::BufferPointer view = autoglm::pointerTo(b, loc, mask);
    auto shape = cast<MemRefType>(mask.getType()).getShape();
    int64_t missing = 4 - int64_t(shape.size());
    args.push_back(view.pointer);
    for (int64_t d = 0; d < 4; ++d) {
      int64_t axis = d - missing;
      if (axis < 0 || shape[axis] == 1) {
        args.push_back(i64(0));
        continue;
      }
      Value stride = autoglm::asI64(b, loc, view.strides[axis]);
      if (ShapedType::isDynamic(shape[axis])) {
        // A symbolic extent that is 1 when the model runs broadcasts too.
        Value one = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          extent(mask, axis), i64(1));
        stride = arith::SelectOp::create(b, loc, one, i64(0), stride);
      }
      args.push_back(stride);
    }
  } else {
    args.push_back(
        LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext())));
    args.append({i64(0), i64(0), i64(0), i64(0)});
  }
  addBuffer(output);
  args.push_back(arith::ConstantOp::create(b, loc, op.getScaleAttr()));
  args.push_back(arith::ConstantIntOp::create(b, loc, op.getCausal(), 32));
  if (withPast) {
    args.push_back(autoglm::asI64(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, pastKey->rows)));
    addBuffer({pastKey->past});
    addBuffer({pastValue->past});
  }
  func::CallOp::create(
      b, loc, declareKernel(op->getParentOfType<ModuleOp>(), withPast), args);
  if (withPast)
    for (PastCopy *past : {&*pastKey, &*pastValue}) {
      past->copy->erase();
      past->view->erase();
    }
  SmallVector<Value> unused = {op.getQuery(), op.getKey(), op.getValue(),
                               op.getOutput()};
  op->erase();
  // The folded copies, and the buffers (and casts) only they used.
  for (const KernelOperand *operand : {&query, &key, &value, &output})
    if (operand->folded)
      operand->folded->erase();
  for (Value buffer : unused)
    while (buffer && buffer.use_empty() &&
           isa_and_present<memref::CastOp, memref::AllocOp>(
               buffer.getDefiningOp())) {
      Operation *def = buffer.getDefiningOp();
      buffer = isa<memref::CastOp>(def) ? def->getOperand(0) : Value();
      def->erase();
    }
  return success();
}

struct AttentionToKernelsPass
    : autoglm::impl::AttentionToKernelsBase<AttentionToKernelsPass> {
  void runOnOperation() override {
    SmallVector<autoglm::AttentionBuffersOp> ops;
    getOperation().walk(
        [&](autoglm::AttentionBuffersOp op) { ops.push_back(op); });
    for (auto op : ops)
      if (failed(replaceWithKernelCall(op)))
        return signalPassFailure();
  }
};

} // namespace
