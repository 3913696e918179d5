//===- Contractions.cpp - matrix products among the linalg loops ----------===//

#include "passes/Contractions.h"
#include "passes/KernelCalls.h"
#include "passes/SizeBounds.h"

using namespace mlir;

bool autoglm::mentions(AffineMap map, int64_t dim) {
  return llvm::any_of(map.getResults(), [&](AffineExpr e) {
    auto d = dyn_cast<AffineDimExpr>(e);
    return d && d.getPosition() == dim;
  });
}

std::optional<autoglm::ContractionLoops>
autoglm::matchContraction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1)
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getElementType().isF32())
      return std::nullopt;
  }
  if (!isMultiplyAccumulate(op))
    return std::nullopt;
  return matchContractionLoops(op);
}

std::optional<autoglm::ContractionLoops>
autoglm::matchContractionLoops(linalg::GenericOp op,
                               bool allowTransposedOutput) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap lhs = maps[0], rhs = maps[1], out = maps.back();
  int64_t loops = op.getNumLoops();
  // The output names every parallel loop once, in order: (batch.., m, n),
  // or where allowed (batch.., n, m).
  if (out.getNumResults() != loops - 1 || out.getNumResults() < 2 ||
      !out.isProjectedPermutation() ||
      !lhs.isProjectedPermutation(/*allowZeroInResults=*/true) ||
      !rhs.isProjectedPermutation(/*allowZeroInResults=*/true))
    return std::nullopt;
  ContractionLoops c;
  SmallVector<unsigned> outDims;
  for (AffineExpr e : out.getResults())
    outDims.push_back(cast<AffineDimExpr>(e).getPosition());
  c.m = outDims[outDims.size() - 2];
  c.n = outDims.back();
  if (allowTransposedOutput && mentions(rhs, c.m) && mentions(lhs, c.n)) {
    std::swap(c.m, c.n);
    c.transposedOutput = true;
  }
  c.batch.assign(outDims.begin(), outDims.end() - 2);
  SmallVector<unsigned> loopOrder(c.batch.begin(), c.batch.end());
  loopOrder.append({unsigned(c.m), unsigned(c.n)});
  if (!llvm::is_sorted(loopOrder))
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  c.k =
      llvm::find(iterators, utils::IteratorType::reduction) - iterators.begin();
  if (!mentions(lhs, c.m) || !mentions(lhs, c.k) || mentions(lhs, c.n) ||
      !mentions(rhs, c.n) || !mentions(rhs, c.k) || mentions(rhs, c.m))
    return std::nullopt;
  // The kernel writes output rows contiguously.
  auto outType = cast<MemRefType>(op.getDpsInits()[0].getType());
  auto [strides, offset] = outType.getStridesAndOffset();
  if (strides.back() != 1)
    return std::nullopt;
  return c;
}

SmallVector<int64_t> autoglm::maxLoopRanges(linalg::GenericOp op) {
  const SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> bounds = ranges;
  for (OpOperand &operand : op->getOpOperands())
    for (auto [i, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || !ShapedType::isDynamic(ranges[dim.getPosition()]))
        continue;
      std::optional<Interval> extent = extentBounds(operand.get(), i);
      int64_t &bound = bounds[dim.getPosition()];
      if (extent && (ShapedType::isDynamic(bound) || extent->hi < bound))
        bound = extent->hi;
    }
  return bounds;
}
