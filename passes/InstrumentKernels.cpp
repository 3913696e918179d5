//===- InstrumentKernels.cpp - time every kernel of the plan --------------===//
//
// For `autoglm-compile --profile`: each kernel of a model's plan (a GEMM
// call, a loop nest, a copy) is bracketed by calls of the runtime's
// agl_profile_begin/agl_profile_end, which record one event per call while
// an instance profiles. The kernels' names and FLOPs go into the module's
// `autoglm.kernels` attribute, from which the artifact's kernel table is
// written.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelCalls.h"
#include "passes/Passes.h"
#include "passes/PlannedKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_INSTRUMENTKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr StringLiteral kBegin = "agl_profile_begin";
constexpr StringLiteral kEnd = "agl_profile_end";

struct InstrumentKernelsPass
    : autoglm::impl::InstrumentKernelsBase<InstrumentKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    std::vector<autoglm::PlannedKernel> kernels =
        autoglm::collectPlannedKernels(module);
    if (kernels.empty())
      return;
    func::FuncOp begin = autoglm::declareRuntimeFunction(
        module, kBegin, b.getFunctionType({}, {i64}));
    func::FuncOp end = autoglm::declareRuntimeFunction(
        module, kEnd, b.getFunctionType({i32, i64}, {}));

    SmallVector<Attribute> table;
    for (auto [index, kernel] : llvm::enumerate(kernels)) {
      Operation *op = kernel.op;
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      Value start = func::CallOp::create(b, loc, begin).getResult(0);
      b.setInsertionPointAfter(op);
      Value id = arith::ConstantIntOp::create(b, loc, i32, index);
      func::CallOp::create(b, loc, end, ValueRange{id, start});

      table.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("name", b.getStringAttr(kernel.name())),
           b.getNamedAttr("flops", b.getF64FloatAttr(kernel.flops)),
           b.getNamedAttr("bytes", b.getF64FloatAttr(kernel.bytes))}));
    }
    module->setAttr("autoglm.kernels", b.getArrayAttr(table));
  }
};

} // namespace
