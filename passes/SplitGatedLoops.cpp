//===- SplitGatedLoops.cpp - a gate's factor next to its own product ------===//
//
// A gated linear unit after two int8 products, SwiGLU's
// silu(gate) * up, is one elementwise loop that reads both products' int32
// sums: it dequantizes each, applies the SiLU to one, multiplies them (and
// quantizes the result for the next product). autoglm-contractions-to-kernels
// takes a loop into a product's call only when it is the op right after
// that product and reads no other product's sums, so this loop stays a
// loop. Here the factor computed from the earlier product alone
// (dequantization and SiLU) moves into a loop of its own right after that
// product, writing a float buffer; the loop that is left reads that buffer
// as a gate. Each product is then followed by its own epilogue: the earlier
// one's call dequantizes and applies the SiLU, the later one's multiplies
// by the gate (and requantizes), and no loop reads the sums again.
//
//===----------------------------------------------------------------------===//

#include "passes/Activations.h"
#include "passes/BufferFacts.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace autoglm {
#define GEN_PASS_DEF_SPLITGATEDLOOPS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// A product: a generic with a reduction loop, writing `buffer`.
bool isProductInto(Operation *op, Value buffer) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.getNumReductionLoops() > 0 &&
         generic.getNumDpsInits() == 1 && generic.getDpsInits()[0] == buffer;
}

/// The block arguments that `v` is computed from in `body`, through ops
/// without memory effects (constants aside); nothing when it reads
/// anything else.
std::optional<llvm::SetVector<BlockArgument>> argumentsOf(Value v,
                                                          Block *body) {
  llvm::SetVector<BlockArgument> arguments;
  SmallVector<Value> work = {v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() != body)
        return std::nullopt;
      arguments.insert(arg);
      continue;
    }
    Operation *op = x.getDefiningOp();
    if (op->getBlock() != body)
      continue; // defined outside the loop: a constant
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return std::nullopt;
    llvm::append_range(work, op->getOperands());
  }
  return arguments;
}

/// The product the loop ends with: the yielded value, or the one that a
/// uint8 quantization at its end reads (an int8 product's epilogue
/// quantizing the next one's input).
arith::MulFOp finalProduct(linalg::GenericOp loop) {
  Value y = loop.getBody()->getTerminator()->getOperand(0);
  if (auto quantize = autoglm::matchQuantizeToU8(y))
    y = quantize->input;
  return y.getDefiningOp<arith::MulFOp>();
}

/// Splits `loop` when it has the form above; whether it did.
bool splitGate(linalg::GenericOp loop) {
  if (!loop.hasPureBufferSemantics() || loop.getNumDpsInits() != 1 ||
      loop.getNumParallelLoops() != loop.getNumLoops() ||
      loop.payloadUsesValueFromOperand(loop.getDpsInitOperand(0)))
    return false;
  arith::MulFOp product = finalProduct(loop);
  if (!product)
    return false;
  Block *body = loop.getBody();
  // The later product is the op right before the loop.
  Operation *later = autoglm::previousEffect(loop);
  for (auto [factor, other] : {std::pair(product.getLhs(), product.getRhs()),
                               std::pair(product.getRhs(), product.getLhs())}) {
    auto factorArgs = argumentsOf(factor, body);
    auto otherArgs = argumentsOf(other, body);
    if (!factorArgs || !otherArgs || isa<BlockArgument>(factor))
      continue;
    // The factor reads one earlier product's int32 sums and, besides,
    // nothing the other factor reads; the other reads the later one's.
    Operation *earlier = nullptr;
    Value sums;
    bool separate = true;
    for (BlockArgument arg : *factorArgs) {
      if (arg.getArgNumber() >= loop.getNumDpsInputs() ||
          otherArgs->contains(arg)) {
        separate = false;
        break;
      }
      OpOperand *input = loop.getDpsInputOperand(arg.getArgNumber());
      auto type = cast<MemRefType>(input->get().getType());
      if (!type.getElementType().isInteger(32))
        continue;
      if (earlier || !loop.getMatchingIndexingMap(input).isIdentity() ||
          !type.hasStaticShape())
        return false;
      // Its writer: the last op before the loop that touches the sums.
      for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
        if (isa<linalg::LinalgOp>(op) &&
            llvm::any_of(cast<linalg::LinalgOp>(op).getDpsInits(),
                         [&](Value init) {
                           return !autoglm::disjoint(init, input->get());
                         })) {
          earlier = op;
          break;
        }
      if (!isProductInto(earlier, input->get()))
        return false;
      sums = input->get();
    }
    if (!separate || !earlier || !later || later == earlier ||
        !llvm::any_of(*otherArgs, [&](BlockArgument arg) {
          return arg.getArgNumber() < loop.getNumDpsInputs() &&
                 isProductInto(later, loop.getDpsInputs()[arg.getArgNumber()]);
        }))
      continue;
    // What the factor reads is defined before the earlier product and not
    // written after it: the ops in between are linalg ops on other bytes,
    // allocations or touch no memory.
    for (BlockArgument arg : *factorArgs) {
      Value buffer = loop.getDpsInputs()[arg.getArgNumber()];
      if (Operation *def = buffer.getDefiningOp();
          def && def->getBlock() == earlier->getBlock() &&
          !def->isBeforeInBlock(earlier))
        return false;
      for (Operation *op = earlier->getNextNode(); op != loop;
           op = op->getNextNode()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        if (!linalgOp) {
          if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
            return false;
          continue;
        }
        for (Value init : linalgOp.getDpsInits())
          if (!autoglm::disjoint(init, buffer))
            return false;
      }
    }

    // The ops the factor is computed with, in order; the values they take
    // from outside the loop (constants) are there after the earlier product.
    llvm::SetVector<Operation *> slice;
    {
      SmallVector<Value> work = {factor};
      while (!work.empty()) {
        Operation *op = work.pop_back_val().getDefiningOp();
        if (op && op->getBlock() == body && slice.insert(op))
          llvm::append_range(work, op->getOperands());
      }
    }
    SmallVector<Operation *> ordered;
    for (Operation &op : body->without_terminator())
      if (slice.contains(&op))
        ordered.push_back(&op);
    for (Operation *op : ordered)
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == earlier->getBlock() &&
            !def->isBeforeInBlock(earlier))
          return false;

    // The factor's loop, right after the earlier product.
    OpBuilder b(earlier->getContext());
    b.setInsertionPointAfter(earlier);
    Location loc = loop.getLoc();
    auto gateType = MemRefType::get(
        cast<MemRefType>(sums.getType()).getShape(), b.getF32Type());
    Value gate = memref::AllocOp::create(b, loc, gateType,
                                         b.getI64IntegerAttr(64));
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (BlockArgument arg : *factorArgs) {
      inputs.push_back(loop.getDpsInputs()[arg.getArgNumber()]);
      maps.push_back(loop.getMatchingIndexingMap(
          loop.getDpsInputOperand(arg.getArgNumber())));
    }
    maps.push_back(b.getMultiDimIdentityMap(loop.getNumLoops()));
    linalg::GenericOp::create(
        b, loc, TypeRange{}, inputs, ValueRange{gate}, maps,
        loop.getIteratorTypesArray(),
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          IRMapping mapping;
          for (auto [i, arg] : llvm::enumerate(*factorArgs))
            mapping.map(arg, args[i]);
          for (Operation *op : ordered)
            nb.clone(*op, mapping);
          linalg::YieldOp::create(nb, nloc, mapping.lookup(factor));
        });

    // The loop that is left reads the gate in the factor's place.
    const unsigned numInputs = loop.getNumDpsInputs();
    BlockArgument gateArg =
        body->insertArgument(numInputs, b.getF32Type(), loc);
    factor.replaceAllUsesWith(gateArg);
    for (Operation *op : llvm::reverse(ordered))
      if (op->use_empty())
        op->erase();
    SmallVector<Value> kept;
    SmallVector<AffineMap> keptMaps;
    for (unsigned i = 0; i < numInputs; ++i)
      if (!body->getArgument(i).use_empty()) {
        kept.push_back(loop.getDpsInputs()[i]);
        keptMaps.push_back(
            loop.getMatchingIndexingMap(loop.getDpsInputOperand(i)));
      }
    kept.push_back(gate);
    keptMaps.push_back(b.getMultiDimIdentityMap(loop.getNumLoops()));
    keptMaps.push_back(
        loop.getMatchingIndexingMap(loop.getDpsInitOperand(0)));
    b.setInsertionPoint(loop);
    auto rest = linalg::GenericOp::create(
        b, loc, TypeRange{}, kept, loop.getDpsInits(), keptMaps,
        loop.getIteratorTypesArray());
    rest.getRegion().takeBody(loop.getRegion());
    for (int i = int(numInputs) - 1; i >= 0; --i)
      if (body->getArgument(i).use_empty())
        body->eraseArgument(i);
    loop.erase();
    return true;
  }
  return false;
}

struct SplitGatedLoopsPass
    : autoglm::impl::SplitGatedLoopsBase<SplitGatedLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> loops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() == 0)
        loops.push_back(op);
    });
    for (linalg::GenericOp loop : loops)
      splitGate(loop);
  }
};

} // namespace
