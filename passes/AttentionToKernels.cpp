//===- AttentionToKernels.cpp - attention as a runtime kernel call --------===//
//
// Before the arena is planned, every autoglm.attention_buffers becomes one
// call of agl_kernel_attention on its buffers: their addresses and strides,
// the mask's broadcast dimensions given stride 0.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace autoglm {
#define GEN_PASS_DEF_ATTENTIONTOKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr StringLiteral kAttention = "agl_kernel_attention";

func::FuncOp declareKernel(ModuleOp module) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  // (batch, heads, kv_heads, q_len, kv_len, head_dim, value_dim,
  //  q + 3 strides, k + 3, v + 3, mask + 4, out + 3, scale, causal)
  SmallVector<Type> args(7, i64);
  for (int strides : {3, 3, 3, 4, 3}) {
    args.push_back(ptr);
    args.append(strides, i64);
  }
  args.append({b.getF32Type(), b.getI32Type()});
  return autoglm::declareRuntimeFunction(module, kAttention,
                                         b.getFunctionType(args, {}));
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
  // The pointer and the batch, head and row strides of a 4-D buffer.
  auto addBuffer = [&](Value buffer) {
    autoglm::BufferPointer view = autoglm::pointerTo(b, loc, buffer);
    args.push_back(view.pointer);
    for (int d = 0; d < 3; ++d)
      args.push_back(autoglm::asI64(b, loc, view.strides[d]));
  };
  addBuffer(op.getQuery());
  addBuffer(op.getKey());
  addBuffer(op.getValue());
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
  addBuffer(op.getOutput());
  args.push_back(arith::ConstantOp::create(b, loc, op.getScaleAttr()));
  args.push_back(arith::ConstantIntOp::create(b, loc, op.getCausal(), 32));
  func::CallOp::create(b, loc, declareKernel(op->getParentOfType<ModuleOp>()),
                       args);
  op->erase();
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
