//===- RecordGpuPlacement.cpp - where each part of a CUDA model runs ------===//
//
// After the kernels are outlined and named, lists in program order what
// the host code launches: each GPU kernel (spread over blocks and threads,
// or in one thread, and why) and each runtime library call that queues its
// own GPU work (cuBLAS products, with the epilogue each computes), and
// each host section (--device-hint, autoglm-place-on-host) with its reason.
// With each kernel and call goes what --explain rates it by: a kernel's
// grid and block, whether its blocks reduce rows, and an estimate of its
// floating-point operations and bytes (or those a kernel written whole
// states, with its operand type); a call's operand type, FLOPs and
// bytes. The compile report prints the list.
//
//===----------------------------------------------------------------------===//

#include "dialects/NodeNames.h"
#include "passes/GpuWork.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace autoglm {
#define GEN_PASS_DEF_RECORDGPUPLACEMENT
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// The reason the kernel runs in one thread, or null if it is spread.
StringAttr oneThreadReason(gpu::GPUFuncOp kernel) {
  StringAttr reason;
  kernel.walk([&](Operation *op) {
    reason = op->getAttrOfType<StringAttr>(autoglm::kOneThreadAttrName);
    return reason ? WalkResult::interrupt() : WalkResult::advance();
  });
  return reason;
}

/// The integer `v` holds when it folds to a constant from constants and
/// the values `leaf` knows (as affine.apply and index arithmetic on the
/// launch's extents do before canonicalization).
std::optional<int64_t>
foldedValue(Value v, llvm::function_ref<std::optional<int64_t>(Value)> leaf,
            int depth = 0) {
  if (std::optional<int64_t> constant = getConstantIntValue(v))
    return constant;
  if (std::optional<int64_t> known = leaf(v))
    return known;
  Operation *op = v.getDefiningOp();
  if (!op || depth > 16 || op->getNumResults() != 1 || !isPure(op))
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : op->getOperands()) {
    std::optional<int64_t> value = foldedValue(operand, leaf, depth + 1);
    if (!value || !operand.getType().isIntOrIndex())
      return std::nullopt;
    operands.push_back(IntegerAttr::get(operand.getType(), *value));
  }
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) || results.size() != 1)
    return std::nullopt;
  if (auto folded = dyn_cast<Value>(results[0]))
    return foldedValue(folded, leaf, depth + 1);
  auto attr = dyn_cast<IntegerAttr>(cast<Attribute>(results[0]));
  return attr ? std::optional(attr.getInt()) : std::nullopt;
}

std::optional<int64_t> noLeaf(Value) { return std::nullopt; }

/// What one thread of a kernel computes, given the integer values the
/// launch passes as constants.
class ThreadWork {
public:
  ThreadWork(gpu::GPUFuncOp kernel, gpu::LaunchFuncOp launch) {
    for (auto [arg, operand] :
         llvm::zip(kernel.getArguments(), launch.getKernelOperands()))
      if (std::optional<int64_t> value = foldedValue(operand, noLeaf))
        known_[arg] = *value;
  }

  /// Arithmetic operations on floats (and on integers other than indices,
  /// as integer products make them) in `block`, each loop's body counted
  /// as often as it runs; a loop whose lower bound depends on the thread
  /// (a thread striding through a row) from 0. Nullopt when a loop's
  /// extent is not known at compile time.
  std::optional<double> operations(Block &block) {
    double total = 0;
    for (Operation &op : block) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto upper = value(loop.getUpperBound());
        auto step = value(loop.getStep());
        auto body = operations(*loop.getBody());
        if (!upper || !step || *step <= 0 || !body)
          return std::nullopt;
        int64_t lower = value(loop.getLowerBound()).value_or(0);
        total +=
            double(std::max<int64_t>(0, (*upper - lower + *step - 1) / *step)) *
            *body;
        continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        auto then = operations(branch.getThenRegion().front());
        auto otherwise = branch.getElseRegion().empty()
                             ? std::optional<double>(0)
                             : operations(branch.getElseRegion().front());
        if (!then || !otherwise)
          return std::nullopt;
        total += std::max(*then, *otherwise);
        continue;
      }
      total += cost(op);
    }
    return total;
  }

private:
  std::optional<int64_t> value(Value v) {
    return foldedValue(v, [&](Value leaf) -> std::optional<int64_t> {
      auto it = known_.find(leaf);
      return it == known_.end() ? std::nullopt : std::optional(it->second);
    });
  }

  static double cost(Operation &op) {
    Dialect *dialect = op.getDialect();
    if (!dialect)
      return 0;
    if (isa<math::FmaOp>(op))
      return 2;
    if (isa<math::MathDialect>(dialect))
      return 1;
    if (!isa<arith::ArithDialect>(dialect) || op.getNumResults() != 1 ||
        isa<arith::ConstantOp, arith::IndexCastOp, arith::SelectOp>(op))
      return 0;
    Type type = op.getResult(0).getType();
    if (isa<FloatType>(type))
      return isa<arith::ExtFOp, arith::TruncFOp, arith::CmpFOp>(op) ? 0 : 1;
    return isa<arith::AddIOp, arith::MulIOp, arith::SubIOp>(op) &&
                   !type.isIndex()
               ? 1
               : 0;
  }

  DenseMap<Value, int64_t> known_;
};

/// The launch's grid and block extents, if constant.
std::optional<SmallVector<int64_t>> constantSizes(ValueRange sizes) {
  SmallVector<int64_t> values;
  for (Value size : sizes) {
    std::optional<int64_t> value = foldedValue(size, noLeaf);
    if (!value)
      return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

/// Bytes of the buffers a launch passes, each once: what the kernel reads
/// and writes if it touches each byte once. Nullopt if one has a symbolic
/// shape.
std::optional<double> operandBytes(gpu::LaunchFuncOp launch) {
  double bytes = 0;
  llvm::SmallPtrSet<Value, 8> seen;
  for (Value operand : launch.getKernelOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !seen.insert(operand).second)
      continue;
    if (!type.hasStaticShape())
      return std::nullopt;
    bytes += double(type.getNumElements()) *
             double(std::max<int64_t>(
                 1, type.getElementType().getIntOrFloatBitWidth() / 8));
  }
  return bytes;
}

struct RecordGpuPlacementPass
    : autoglm::impl::RecordGpuPlacementBase<RecordGpuPlacementPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    SmallVector<Attribute> entries;
    SmallVector<NamedAttribute> rating; // what --explain reads, next entry
    auto record = [&](StringRef kind, StringRef name, Location loc,
                      StringAttr reason, StringAttr epilogue = {},
                      StringAttr host = {}) {
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("kind", b.getStringAttr(kind)),
          b.getNamedAttr("name", b.getStringAttr(name)),
          b.getNamedAttr("nodes",
                         b.getStringAttr(autoglm::onnxNodeLabel(loc)))};
      if (reason)
        fields.push_back(b.getNamedAttr("one_thread", reason));
      if (epilogue)
        fields.push_back(b.getNamedAttr("epilogue", epilogue));
      if (host)
        fields.push_back(b.getNamedAttr("host", host));
      fields.append(rating);
      rating.clear();
      entries.push_back(b.getDictionaryAttr(fields));
    };
    auto estimate = [&](StringRef field, std::optional<double> value) {
      if (value)
        rating.push_back(b.getNamedAttr(field, b.getF64FloatAttr(*value)));
    };
    autoglm::walkGpuWork(module, [&](Operation *op, autoglm::GpuWork work) {
      switch (work) {
      case autoglm::GpuWork::Host:
        record("host", "host", op->getLoc(), StringAttr(), StringAttr(),
               op->getAttrOfType<StringAttr>(autoglm::kHostSectionAttrName));
        break;
      case autoglm::GpuWork::Kernel: {
        auto launch = cast<gpu::LaunchFuncOp>(op);
        auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
            launch, launch.getKernel());
        gpu::KernelDim3 g = launch.getGridSizeOperandValues(),
                        t = launch.getBlockSizeOperandValues();
        // A kernel written whole (the attention kernel) says what it
        // computes on an op of its body.
        Operation *rated = nullptr;
        if (kernel)
          kernel.walk([&](Operation *nested) {
            if (!nested->hasAttr(autoglm::kOperandTypeAttrName))
              return WalkResult::advance();
            rated = nested;
            return WalkResult::interrupt();
          });
        auto grid = constantSizes({g.x, g.y, g.z});
        auto block = constantSizes({t.x, t.y, t.z});
        if (grid && block) {
          rating.push_back(
              b.getNamedAttr("grid", b.getDenseI64ArrayAttr(*grid)));
          rating.push_back(
              b.getNamedAttr("block", b.getDenseI64ArrayAttr(*block)));
          std::optional<double> perThread =
              kernel && !kernel.getBody().empty()
                  ? ThreadWork(kernel, launch)
                        .operations(kernel.getBody().front())
                  : std::nullopt;
          if (perThread && !rated)
            estimate("flops", *perThread * double((*grid)[0] * (*grid)[1] *
                                                  (*grid)[2] * (*block)[0] *
                                                  (*block)[1] * (*block)[2]));
        }
        if (rated) {
          if (auto flops =
                  rated->getAttrOfType<FloatAttr>(autoglm::kFlopsAttrName))
            rating.push_back(b.getNamedAttr("flops", flops));
          for (auto [attr, field] :
               {std::pair{autoglm::kOperandTypeAttrName, "operands"},
                std::pair{autoglm::kChoiceAttrName, "choice"}})
            if (auto text = rated->getAttrOfType<StringAttr>(attr))
              rating.push_back(b.getNamedAttr(field, text));
        }
        estimate("bytes", operandBytes(launch));
        bool rows = false;
        if (kernel)
          kernel.walk([&](gpu::AllReduceOp) { rows = true; });
        if (rows)
          rating.push_back(b.getNamedAttr("row_reduction", b.getUnitAttr()));
        record("kernel", launch.getKernelName().getValue(), launch.getLoc(),
               kernel ? oneThreadReason(kernel) : StringAttr());
        break;
      }
      case autoglm::GpuWork::Library:
        for (StringRef field : {"flops", "bytes"})
          if (auto value = op->getAttrOfType<FloatAttr>(
                  field == "flops" ? autoglm::kFlopsAttrName
                                   : autoglm::kBytesAttrName))
            rating.push_back(b.getNamedAttr(field, value));
        for (auto [attr, field] :
             {std::pair{autoglm::kOperandTypeAttrName, "operands"},
              std::pair{autoglm::kChoiceAttrName, "choice"}})
          if (auto text = op->getAttrOfType<StringAttr>(attr))
            rating.push_back(b.getNamedAttr(field, text));
        record("library", cast<func::CallOp>(op).getCallee(), op->getLoc(),
               StringAttr(),
               op->getAttrOfType<StringAttr>(autoglm::kEpilogueAttrName));
        break;
      }
    });
    module->setAttr("autoglm.placement", b.getArrayAttr(entries));
  }
};

} // namespace
