//===- ParallelizeLoops.cpp - large loop nests on the runtime's threads ---===//
//
// A linalg op on buffers with enough work is split along one parallel loop
// (see loopToSplit; never the innermost loop, which stays whole for the
// vector code). The op moves into a body function
// `(ctx, begin, end)` that runs iterations [begin, end) of that loop, each on
// a one-iteration slice of the op, and its place gets the call
// `agl_parallel_for(extent, grain, body, ctx)`. A slice computes its
// elements exactly as the whole op would (reduction loops are never split),
// so results do not depend on the thread count.
//
// Ops below `min-work` iterations stay serial: a call to the pool costs
// microseconds. With symbolic extents the check happens at run time: the
// grain (iterations of the split loop per chunk) holds `min-work`
// iterations, and an op smaller than one grain runs as one chunk on the
// calling thread.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelCalls.h"
#include "passes/ParallelContext.h"
#include "passes/Passes.h"
#include "passes/Tuning.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace autoglm {
#define GEN_PASS_DEF_PARALLELIZELOOPS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

constexpr StringLiteral kParallelFor = "agl_parallel_for";
/// Marks body functions: their ops already run on the pool.
constexpr StringLiteral kBodyAttr = "autoglm.parallel_body";

/// The loop to split: the outermost parallel one with a static extent
/// above one or, failing that, the innermost symbolic one (a sequence
/// rather than a batch, which is often 1). Never the innermost loop.
std::optional<unsigned> loopToSplit(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> symbolic;
  for (unsigned d = 0; d + 1 < ranges.size(); ++d) {
    if (iterators[d] != utils::IteratorType::parallel)
      continue;
    if (ShapedType::isDynamic(ranges[d]))
      symbolic = d;
    else if (ranges[d] > 1)
      return d;
    else if (ranges[d] == 0)
      return std::nullopt;
  }
  return symbolic;
}

/// Whether `e` grows with every loop index it uses: slices of such accesses
/// (`linalg::makeTiledShapes`) span from the value at the first iteration
/// to the value at the last. A transposed convolution's `o - 2 * k` does not.
bool increasing(AffineExpr e) {
  if (isa<AffineDimExpr, AffineConstantExpr>(e))
    return true;
  auto binary = dyn_cast<AffineBinaryOpExpr>(e);
  if (!binary)
    return false;
  auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS());
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return increasing(binary.getLHS()) && increasing(binary.getRHS());
  case AffineExprKind::Mul:
  case AffineExprKind::FloorDiv:
    return constant && constant.getValue() > 0 && increasing(binary.getLHS());
  default:
    return false;
  }
}

/// Whether every operand that loop `loop` indexes can be sliced along it.
bool sliceable(linalg::LinalgOp op, unsigned loop) {
  return llvm::all_of(op.getIndexingMapsArray(), [&](AffineMap map) {
    return !map.isFunctionOfDim(loop) ||
           llvm::all_of(map.getResults(), increasing);
  });
}

/// Constants and globals: cloned into the body rather than passed.
bool clonable(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         isPure(def);
}

/// The extent of every loop of `op`: attributes where static.
SmallVector<OpFoldResult> loopExtents(OpBuilder &b, linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<Range> dynamic;
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    dynamic = op.createLoopRanges(b, op.getLoc());
  SmallVector<OpFoldResult> extents;
  for (auto [d, range] : llvm::enumerate(ranges))
    extents.push_back(ShapedType::isDynamic(range) ? dynamic[d].size
                                                   : b.getIndexAttr(range));
  return extents;
}

class Parallelizer {
public:
  Parallelizer(ModuleOp module, int64_t minWork)
      : module(module), symbols(module), minWork(minWork) {}

  /// Replaces `op` by a parallel call, if it is large enough and everything
  /// it uses can cross into a body function.
  void parallelize(linalg::LinalgOp op) {
    std::optional<unsigned> loop = autoglm::loopSplitAcrossThreads(op, minWork);
    if (!loop)
      return;
    SetVector<Value> used(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    SmallVector<Value> cloned, passed;
    for (Value value : used) {
      if (clonable(value))
        cloned.push_back(value);
      else if (fitsContext(value.getType()))
        passed.push_back(value);
      else
        return;
    }
    // The slices in the body have other shapes: they keep the op's key.
    op->setAttr(kTuningKeyAttrName,
                StringAttr::get(op->getContext(), loopTuningKey(op)));
    func::FuncOp body = createBody(op, *loop, cloned, passed);
    callBody(op, *loop, body, passed);
    op->erase();
  }

private:
  /// `func.func private @<function>_parallel(ctx, begin, end)`, running
  /// iterations [begin, end) of loop `loop` of `op`.
  func::FuncOp createBody(linalg::LinalgOp op, unsigned loop,
                          ArrayRef<Value> cloned, ArrayRef<Value> passed) {
    MLIRContext *ctx = module.getContext();
    Location loc = op.getLoc();
    auto parent = op->getParentOfType<func::FuncOp>();
    OpBuilder b(ctx);
    b.setInsertionPointAfter(parent);
    Type i64 = b.getI64Type();
    auto body = func::FuncOp::create(
        b, loc, (parent.getName() + "_parallel").str(),
        b.getFunctionType({LLVM::LLVMPointerType::get(ctx), i64, i64}, {}));
    symbols.insert(body); // makes the name unique
    body.setPrivate();
    body->setAttr(kBodyAttr, UnitAttr::get(ctx));
    // Each model's object carries its own bodies: no symbol clashes.
    body->setAttr("llvm.linkage",
                  LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    Block *entry = body.addEntryBlock();
    b.setInsertionPointToStart(entry);

    IRMapping mapping;
    for (Value value : cloned)
      if (!mapping.contains(value)) {
        Operation *def = value.getDefiningOp();
        mapping.map(def->getResults(), b.clone(*def)->getResults());
      }
    SmallVector<Type> types = llvm::to_vector(ValueRange(passed).getTypes());
    mapping.map(passed, unpackContext(b, loc, entry->getArgument(0), types));
    auto whole = cast<linalg::LinalgOp>(b.clone(*op, mapping));

    SmallVector<OpFoldResult> extents = loopExtents(b, whole);
    Type index = b.getIndexType();
    Value begin = arith::IndexCastOp::create(b, loc, index, entry->getArgument(1));
    Value end = arith::IndexCastOp::create(b, loc, index, entry->getArgument(2));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto iterations = scf::ForOp::create(b, loc, begin, end, one);
    b.setInsertionPoint(iterations.getBody()->getTerminator());
    unsigned loops = whole.getNumLoops();
    SmallVector<OpFoldResult> tileSizes(loops, b.getIndexAttr(0));
    tileSizes[loop] = b.getIndexAttr(1);
    OpFoldResult iv = iterations.getInductionVar();
    // One iteration of the split loop, every iteration of the others: the
    // slice keeps static shapes, so it vectorizes like the whole op.
    SmallVector<Value> slices = linalg::makeTiledShapes(
        b, loc, whole, whole->getOperands(), {iv}, tileSizes, extents,
        /*omitPartialTileCheck=*/true);
    // By position: one buffer may be two operands with different slices.
    auto slice = cast<linalg::LinalgOp>(b.clone(*whole));
    slice->setOperands(slices);
    SmallVector<OpFoldResult> offsets(loops, b.getIndexAttr(0));
    offsets[loop] = iv;
    linalg::offsetIndices(b, slice, offsets);
    whole->erase();

    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);
    return body;
  }

  /// Packs what the body uses and calls agl_parallel_for in place of `op`.
  void callBody(linalg::LinalgOp op, unsigned loop, func::FuncOp body,
                ArrayRef<Value> passed) {
    MLIRContext *ctx = module.getContext();
    Location loc = op.getLoc();
    Type i64 = IntegerType::get(ctx, 64);
    Type pointer = LLVM::LLVMPointerType::get(ctx);

    // The context lives in the function's entry block: one stack slot per
    // call site, however often the call runs.
    auto parent = op->getParentOfType<func::FuncOp>();
    OpBuilder b = OpBuilder::atBlockBegin(&parent.getBody().front());
    int64_t slots = 0;
    for (Value value : passed)
      slots += contextSlots(value.getType());
    Value count = LLVM::ConstantOp::create(b, loc, i64,
                                           b.getI64IntegerAttr(std::max<int64_t>(slots, 1)));
    Value context = LLVM::AllocaOp::create(b, loc, pointer, i64, count);

    b.setInsertionPoint(op);
    packContext(b, loc, context, passed);
    SmallVector<OpFoldResult> extents = loopExtents(b, op);
    Value extent = getValueOrCreateConstantIndexOp(b, loc, extents[loop]);
    Value grain = grainOf(b, loc, extents, loop);
    Value function = func::ConstantOp::create(b, loc, body.getFunctionType(),
                                              FlatSymbolRefAttr::get(body));
    func::CallOp::create(
        b, loc, declareParallelFor(body.getFunctionType()),
        ValueRange{arith::IndexCastOp::create(b, loc, i64, extent),
                   arith::IndexCastOp::create(b, loc, i64, grain), function,
                   context});
  }

  /// Iterations of loop `loop` per chunk: enough for `minWork` iterations
  /// of the whole nest.
  Value grainOf(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> extents,
                unsigned loop) {
    int64_t inner = 1;
    Value dynamicInner;
    for (auto [d, extent] : llvm::enumerate(extents)) {
      if (d == loop)
        continue;
      if (std::optional<int64_t> known = getConstantIntValue(extent)) {
        inner *= *known;
        continue;
      }
      Value value = cast<Value>(extent);
      dynamicInner = dynamicInner
                         ? arith::MulIOp::create(b, loc, dynamicInner, value)
                         : value;
    }
    if (!dynamicInner)
      return arith::ConstantIndexOp::create(
          b, loc, std::max<int64_t>(1, llvm::divideCeil(minWork, std::max<int64_t>(inner, 1))));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value work = arith::MulIOp::create(
        b, loc, dynamicInner, arith::ConstantIndexOp::create(b, loc, inner));
    work = arith::MaxUIOp::create(b, loc, work, one);
    Value grain = arith::CeilDivUIOp::create(
        b, loc, arith::ConstantIndexOp::create(b, loc, minWork), work);
    return arith::MaxUIOp::create(b, loc, grain, one);
  }

  /// `agl_parallel_for(n, grain, fn, ctx)` of runtime/include/autoglm/kernels.h.
  func::FuncOp declareParallelFor(FunctionType bodyType) {
    OpBuilder b(module.getContext());
    Type i64 = b.getI64Type();
    return autoglm::declareRuntimeFunction(
        module, kParallelFor,
        b.getFunctionType({i64, i64, bodyType,
                           LLVM::LLVMPointerType::get(b.getContext())},
                          {}));
  }

  ModuleOp module;
  SymbolTable symbols;
  int64_t minWork;
};

struct ParallelizeLoopsPass
    : autoglm::impl::ParallelizeLoopsBase<ParallelizeLoopsPass> {
  using ParallelizeLoopsBase::ParallelizeLoopsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> candidates;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function->hasAttr(kBodyAttr))
        function.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
    Parallelizer parallelizer(module, minWork);
    for (linalg::LinalgOp op : candidates)
      parallelizer.parallelize(op);
  }
};

} // namespace

std::optional<unsigned> autoglm::loopSplitAcrossThreads(linalg::LinalgOp op,
                                                        int64_t minWork) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  std::optional<unsigned> loop = loopToSplit(op);
  if (!loop || !sliceable(op, *loop))
    return std::nullopt;
  // A tuning decides for its loop nests; the threshold for the others.
  if (std::optional<bool> parallel = loopParallelism(op))
    return *parallel ? loop : std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::none_of(ranges, ShapedType::isDynamic) &&
      computeProduct(ranges) < minWork)
    return std::nullopt;
  return loop;
}
