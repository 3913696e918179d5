//===- RecognizePatterns.cpp - helpers of the recognition passes ----------===//

#include "passes/RecognizePatterns.h"
#include "dialects/FloatValues.h"

using namespace mlir;

std::optional<float> autoglm::scalarConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto values = floatValues(constant.getValue());
  if (!values || values->empty() ||
      llvm::any_of(*values, [&](float v) { return v != values->front(); }))
    return std::nullopt;
  return values->front();
}

Location autoglm::locationOfPattern(PatternRewriter &rewriter, Operation *root,
                                    ArrayRef<Value> inputs) {
  SmallVector<Location> locs;
  SmallVector<Operation *> work = {root};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!seen.insert(op).second || isa<ConstantOp>(op))
      continue;
    locs.push_back(op->getLoc());
    for (Value operand : op->getOperands())
      if (!llvm::is_contained(inputs, operand))
        if (Operation *producer = operand.getDefiningOp())
          work.push_back(producer);
  }
  std::reverse(locs.begin(), locs.end()); // producers first
  return rewriter.getFusedLoc(locs);
}
