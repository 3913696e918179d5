//===- KernelCalls.cpp - calls of the runtime's kernels on buffers --------===//

#include "passes/KernelCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace autoglm {

std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr expr,
                                                       unsigned dims) {
  MLIRContext *ctx = expr.getContext();
  auto valueWithOne = [&](int64_t one) -> std::optional<int64_t> {
    SmallVector<AffineExpr> values;
    for (unsigned i = 0; i < dims; ++i)
      values.push_back(getAffineConstantExpr(i == one ? 1 : 0, ctx));
    auto value = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(expr.replaceDims(values), dims, 0));
    if (!value)
      return std::nullopt;
    return value.getValue();
  };
  if (valueWithOne(-1) != 0)
    return std::nullopt;
  SmallVector<int64_t> coefficients;
  AffineExpr rebuilt = getAffineConstantExpr(0, ctx);
  for (unsigned i = 0; i < dims; ++i) {
    std::optional<int64_t> c = valueWithOne(i);
    if (!c)
      return std::nullopt;
    coefficients.push_back(*c);
    rebuilt = rebuilt + getAffineDimExpr(i, ctx) * *c;
  }
  if (simplifyAffineExpr(rebuilt - expr, dims, 0) !=
      getAffineConstantExpr(0, ctx))
    return std::nullopt;
  return coefficients;
}

bool isDim(AffineExpr e, unsigned dim) {
  auto d = dyn_cast<AffineDimExpr>(e);
  return d && d.getPosition() == dim;
}

bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add = dyn_cast_or_null<arith::AddFOp>(mul ? mul->getNextNode() : nullptr);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || yield.getValues().size() != 1 ||
      yield.getValues()[0] != add.getResult())
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1),
        acc = body.getArgument(2);
  bool product = (mul.getLhs() == a && mul.getRhs() == b) ||
                 (mul.getLhs() == b && mul.getRhs() == a);
  bool accumulates = (add.getLhs() == acc && add.getRhs() == mul) ||
                     (add.getLhs() == mul && add.getRhs() == acc);
  return product && accumulates && mul.getType().isF32();
}

BufferPointer pointerTo(OpBuilder &b, Location loc, Value buffer) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer());
  auto type = cast<MemRefType>(buffer.getType());
  Value elementBytes = arith::ConstantIndexOp::create(
      b, loc, type.getElementTypeBitWidth() / 8);
  Value address = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(b, loc, metadata.getOffset(), elementBytes));
  BufferPointer result;
  result.pointer = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()),
      asI64(b, loc, address));
  llvm::append_range(result.strides, metadata.getStrides());
  return result;
}

Value asI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

} // namespace autoglm

func::FuncOp autoglm::declareRuntimeFunction(ModuleOp module, StringRef name,
                                             FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

void autoglm::bracketKernels(ModuleOp module, StringRef begin, StringRef end,
                             ArrayRef<TimedKernel> kernels) {
  if (kernels.empty())
    return;
  OpBuilder b(module.getContext());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  func::FuncOp beginFn =
      declareRuntimeFunction(module, begin, b.getFunctionType({}, {i64}));
  func::FuncOp endFn =
      declareRuntimeFunction(module, end, b.getFunctionType({i32, i64}, {}));
  SmallVector<Attribute> table;
  for (auto [index, kernel] : llvm::enumerate(kernels)) {
    Location loc = kernel.op->getLoc();
    b.setInsertionPoint(kernel.op);
    Value token = func::CallOp::create(b, loc, beginFn).getResult(0);
    b.setInsertionPointAfter(kernel.op);
    Value id = arith::ConstantIntOp::create(b, loc, i32, index);
    func::CallOp::create(b, loc, endFn, ValueRange{id, token});
    table.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("name", b.getStringAttr(kernel.name)),
         b.getNamedAttr("flops", b.getF64FloatAttr(kernel.flops)),
         b.getNamedAttr("bytes", b.getF64FloatAttr(kernel.bytes))}));
  }
  module->setAttr("autoglm.kernels", b.getArrayAttr(table));
}
