//===- ProfileGpuLaunches.cpp - time the GPU work of a CUDA model ---------===//
//
// `autoglm-compile --target=cuda --profile`: each kernel launch, library
// call and host section of the host code is bracketed by calls of the
// runtime's agl_cuda_profile_begin/_end, which record a pair of CUDA
// events on the run's stream while an instance profiles. The kernels'
// names (what runs, then its ONNX nodes) and, for the products with
// constant extents, their FLOPs go into the module's
// `autoglm.kernels` attribute, from which the artifact's kernel table is
// written, as the CPU's autoglm-instrument-kernels does.
//
//===----------------------------------------------------------------------===//

#include "dialects/NodeNames.h"
#include "passes/GpuWork.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_PROFILEGPULAUNCHES
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr StringLiteral kBegin = "agl_cuda_profile_begin";
constexpr StringLiteral kEnd = "agl_cuda_profile_end";

/// What runs: the kernel, the library function, or "host".
std::string workName(Operation *op, autoglm::GpuWork work) {
  switch (work) {
  case autoglm::GpuWork::Kernel:
    return cast<gpu::LaunchFuncOp>(op).getKernelName().str();
  case autoglm::GpuWork::Library:
    return cast<func::CallOp>(op).getCallee().str();
  case autoglm::GpuWork::Host:
    return "host";
  }
  llvm_unreachable("unknown GPU work");
}

struct ProfileGpuLaunchesPass
    : autoglm::impl::ProfileGpuLaunchesBase<ProfileGpuLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<Operation *, autoglm::GpuWork>> work;
    autoglm::walkGpuWork(module, [&](Operation *op, autoglm::GpuWork kind) {
      work.emplace_back(op, kind);
    });
    if (work.empty())
      return;
    OpBuilder b(module.getContext());
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    func::FuncOp begin = autoglm::declareRuntimeFunction(
        module, kBegin, b.getFunctionType({}, {i64}));
    func::FuncOp end = autoglm::declareRuntimeFunction(
        module, kEnd, b.getFunctionType({i32, i64}, {}));
    SmallVector<Attribute> table;
    for (auto [index, entry] : llvm::enumerate(work)) {
      auto [op, kind] = entry;
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      Value token = func::CallOp::create(b, loc, begin).getResult(0);
      b.setInsertionPointAfter(op);
      Value id = arith::ConstantIntOp::create(b, loc, i32, index);
      func::CallOp::create(b, loc, end, ValueRange{id, token});
      std::string nodes = autoglm::onnxNodeLabel(loc);
      std::string name = workName(op, kind);
      auto flops = op->getAttrOfType<FloatAttr>(autoglm::kFlopsAttrName);
      table.push_back(b.getDictionaryAttr(
          {b.getNamedAttr(
               "name",
               b.getStringAttr(nodes.empty() ? name : name + " " + nodes)),
           b.getNamedAttr("flops", flops ? flops : b.getF64FloatAttr(0)),
           b.getNamedAttr("bytes", b.getF64FloatAttr(0))}));
    }
    module->setAttr("autoglm.kernels", b.getArrayAttr(table));
  }
};

} // namespace
