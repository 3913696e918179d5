//===- KVCache.cpp - past keys and values as state updated in place -------===//
//
// A decoder exported with a KV cache takes `past` ([B, H, past, D]) and
// returns `present = Concat(past, new)`: every step the caller copies the
// whole cache in and the model copies it out again. Here each such pair
// becomes one state argument of fixed capacity that the model updates in
// place: the new positions are inserted at the current length, and the
// model reads the cache back up to the new length. The length is one more
// state argument, so that the model keeps its own position; on a GPU, whose
// arena host code cannot read, it is read from the symbol values instead
// and the runtime keeps it.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_KVCACHE
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

/// One past input and the concatenation that appends to it.
struct CachePair {
  BlockArgument past;
  ConcatOp concat;
  int64_t axis;
};

/// Extents as affine expressions of the model's symbols, so that the index
/// arithmetic exporters write (`seq * 64 / 64`) simplifies to a symbol.
class ExtentTracer {
public:
  explicit ExtentTracer(func::FuncOp func) : func_(func) {}

  std::optional<AffineExpr> extent(Value tensor, int64_t dim, int depth = 0) {
    auto type = cast<RankedTensorType>(tensor.getType());
    MLIRContext *ctx = tensor.getContext();
    if (!type.isDynamicDim(dim))
      return getAffineConstantExpr(type.getDimSize(dim), ctx);
    if (depth > 64)
      return std::nullopt;
    if (auto arg = dyn_cast<BlockArgument>(tensor)) {
      auto symbols = func_.getArgAttrOfType<DenseI32ArrayAttr>(
          arg.getArgNumber(), "autoglm.dim_symbols");
      if (!symbols || dim >= (int64_t)symbols.size() || symbols[dim] < 0)
        return std::nullopt;
      return getAffineSymbolExpr(symbols[dim], ctx);
    }
    Operation *op = tensor.getDefiningOp();
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      return index(reshape.getSizes()[type.getDynamicDimIndex(dim)], depth + 1);
    if (auto transpose = dyn_cast<TransposeOp>(op))
      return extent(transpose.getInput(), transpose.getPerm()[dim], depth + 1);
    if (auto matmul = dyn_cast<MatMulOp>(op)) {
      auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
      auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
      int64_t rank = type.getRank();
      if (dim == rank - 1 && rhs.getRank() >= 2)
        return extent(matmul.getRhs(), rhs.getRank() - 1, depth + 1);
      if (dim == rank - 2 && lhs.getRank() >= 2)
        return extent(matmul.getLhs(), lhs.getRank() - 2, depth + 1);
      return std::nullopt;
    }
    if (auto concat = dyn_cast<ConcatOp>(op)) {
      if (concat.getAxis() == dim || concat.getAxis() + type.getRank() == dim)
        return std::nullopt;
      return extent(concat.getInputs()[0], dim, depth + 1);
    }
    // A symbolic axis that a slice does not bound is taken whole.
    if (auto slice = dyn_cast<SliceOp>(op)) {
      auto bounded = slice.getDynamicAxes();
      if (bounded && llvm::is_contained(*bounded, dim))
        return std::nullopt;
      return extent(slice.getInput(), dim, depth + 1);
    }
    if (auto gather = dyn_cast<GatherOp>(op)) {
      int64_t axis = gather.getAxis();
      int64_t indexRank =
          cast<RankedTensorType>(gather.getIndices().getType()).getRank();
      if (dim >= axis && dim < axis + indexRank)
        return extent(gather.getIndices(), dim - axis, depth + 1);
      return extent(gather.getData(), dim < axis ? dim : dim - indexRank + 1,
                    depth + 1);
    }
    // Elementwise ops (broadcasting ones too): an operand of the same rank
    // whose extent is symbolic there has the result's extent.
    if (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
        isa<AddOp, SubOp, MulOp, DivOp, CastOp, RMSNormOp, LayerNormOp>(op))
      for (Value operand : op->getOperands()) {
        auto t = dyn_cast<RankedTensorType>(operand.getType());
        if (t && t.getRank() == type.getRank() && t.isDynamicDim(dim))
          return extent(operand, dim, depth + 1);
      }
    return std::nullopt;
  }

  std::optional<AffineExpr> index(Value value, int depth) {
    MLIRContext *ctx = value.getContext();
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return getAffineConstantExpr(constant.getSExtValue(), ctx);
    Operation *op = value.getDefiningOp();
    if (!op || depth > 64)
      return std::nullopt;
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      auto at = dim.getConstantIndex();
      return at ? extent(dim.getSource(), *at, depth + 1) : std::nullopt;
    }
    if (isa<arith::IndexCastOp>(op))
      return index(op->getOperand(0), depth + 1);
    if (op->getNumOperands() != 2)
      return std::nullopt;
    auto a = index(op->getOperand(0), depth + 1);
    auto b = a ? index(op->getOperand(1), depth + 1) : std::nullopt;
    if (!a || !b)
      return std::nullopt;
    // Extents are non-negative, so signed division is floor division.
    if (isa<arith::AddIOp>(op))
      return *a + *b;
    if (isa<arith::SubIOp>(op))
      return *a - *b;
    if (isa<arith::MulIOp>(op) &&
        (isa<AffineConstantExpr>(*a) || isa<AffineConstantExpr>(*b)))
      return *a * *b;
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(op) &&
        isa<AffineConstantExpr>(*b))
      return a->floorDiv(*b);
    return std::nullopt;
  }

private:
  func::FuncOp func_;
};

struct KVCachePass : autoglm::impl::KVCacheBase<KVCachePass> {
  using KVCacheBase::KVCacheBase;

  void runOnOperation() override {
    if (capacity <= 0)
      return;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && func.isPublic() && failed(rewrite(func)))
        return signalPassFailure();
  }

  /// The past inputs of `func`: arguments whose only use appends to them
  /// along a symbolic axis, with the result returned.
  LogicalResult findPairs(func::FuncOp func,
                          SmallVectorImpl<CachePair> &pairs) {
    Operation *ret = func.getBody().front().getTerminator();
    for (BlockArgument arg : func.getArguments()) {
      // One append; any other use reads only the length (shape arithmetic).
      ConcatOp concat;
      for (Operation *user : arg.getUsers())
        if (!isa<tensor::DimOp>(user))
          concat = concat ? ConcatOp() : dyn_cast<ConcatOp>(user);
      if (!concat || concat.getInputs().size() != 2 ||
          concat.getInputs()[0] != arg ||
          !llvm::is_contained(ret->getOperands(), concat.getResult()))
        continue;
      auto type = cast<RankedTensorType>(arg.getType());
      int64_t axis = concat.getAxis();
      if (axis < 0)
        axis += type.getRank();
      if (!type.isDynamicDim(axis))
        continue;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (d != axis && type.isDynamicDim(d))
          return func.emitError("cache input '")
                 << name(func, arg) << "' has a symbolic extent in dimension "
                 << d << "; a KV cache needs static extents except along "
                 << "the sequence axis (pin them with --dim)";
      pairs.push_back({arg, concat, axis});
    }
    if (pairs.empty())
      return func.emitError(
          "--max-seq-len: found no KV cache in this model: no input is "
          "concatenated with new positions along a symbolic axis and "
          "returned as an output (past/present pairs)");
    return success();
  }

  static StringRef name(func::FuncOp func, BlockArgument arg) {
    auto attr =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "autoglm.name");
    return attr ? attr.getValue() : "?";
  }

  static std::string symbolName(ArrayAttr symbols, int64_t k) {
    return cast<DictionaryAttr>(symbols[k]).getAs<StringAttr>("name").str();
  }

  /// The symbol of the caches' length: one for every cache, the extent of
  /// no other input.
  FailureOr<int32_t> pastSymbol(func::FuncOp func,
                                MutableArrayRef<CachePair> pairs,
                                ArrayAttr symbols) {
    int64_t numSymbols = symbols ? symbols.size() : 0;
    auto dimSymbol = [&](BlockArgument arg, int64_t dim) -> int32_t {
      auto dims = func.getArgAttrOfType<DenseI32ArrayAttr>(
          arg.getArgNumber(), "autoglm.dim_symbols");
      return dims && dim < (int64_t)dims.size() ? dims[dim] : -1;
    };
    int32_t past = dimSymbol(pairs[0].past, pairs[0].axis);
    if (past < 0 || past >= numSymbols)
      return func.emitError("cache input '")
             << name(func, pairs[0].past)
             << "' has no declared symbol for its length";
    for (CachePair &pair : pairs)
      if (dimSymbol(pair.past, pair.axis) != past)
        return func.emitError("cache inputs '")
               << name(func, pairs[0].past) << "' and '"
               << name(func, pair.past)
               << "' have lengths of different symbols";
    for (BlockArgument arg : func.getArguments()) {
      if (llvm::any_of(pairs,
                       [&](const CachePair &p) { return p.past == arg; }))
        continue;
      auto dims = func.getArgAttrOfType<DenseI32ArrayAttr>(
          arg.getArgNumber(), "autoglm.dim_symbols");
      if (dims && llvm::is_contained(dims.asArrayRef(), past))
        return func.emitError("input '")
               << name(func, arg) << "' has an extent of the cache length '"
               << symbolName(symbols, past)
               << "', which the cache keeps itself; it cannot be an input";
    }
    return past;
  }

  /// How many positions a run appends, the same for every cache: a
  /// constant or an input extent (a symbol), no more than the capacity.
  FailureOr<AffineExpr> appendedPositions(func::FuncOp func,
                                          MutableArrayRef<CachePair> pairs,
                                          ArrayAttr symbols) {
    int64_t numSymbols = symbols ? symbols.size() : 0;
    ExtentTracer tracer(func);
    std::optional<AffineExpr> step;
    for (CachePair &pair : pairs) {
      Value appended = pair.concat.getInputs()[1];
      auto traced = tracer.extent(appended, pair.axis);
      if (traced)
        traced = simplifyAffineExpr(*traced, 0, numSymbols);
      if (!traced || !isa<AffineConstantExpr, AffineSymbolExpr>(*traced))
        return pair.concat.emitError("cannot tell how many positions a run "
                                     "appends to cache '")
               << name(func, pair.past)
               << "': the appended extent is not a constant or an input "
                  "extent";
      if (step && *step != *traced)
        return pair.concat.emitError("cache '")
               << name(func, pair.past)
               << "' grows by another number of positions than '"
               << name(func, pairs[0].past) << "'";
      step = traced;
    }
    int64_t maxStep = 0;
    if (auto c = dyn_cast<AffineConstantExpr>(*step))
      maxStep = c.getValue();
    else
      maxStep = cast<DictionaryAttr>(
                    symbols[cast<AffineSymbolExpr>(*step).getPosition()])
                    .getAs<IntegerAttr>("max")
                    .getInt();
    if (maxStep > capacity)
      return func.emitError("a run appends up to ")
             << maxStep << " positions, more than the " << capacity.getValue()
             << " the cache holds (--max-seq-len)";
    return *step;
  }

  LogicalResult rewrite(func::FuncOp func) {
    SmallVector<CachePair> pairs;
    if (failed(findPairs(func, pairs)))
      return failure();
    auto symbols = func->getAttrOfType<ArrayAttr>("autoglm.symbols");
    int64_t numSymbols = symbols ? symbols.size() : 0;
    FailureOr<int32_t> past = pastSymbol(func, pairs, symbols);
    if (failed(past))
      return failure();
    FailureOr<AffineExpr> step = appendedPositions(func, pairs, symbols);
    if (failed(step))
      return failure();

    OpBuilder b(func.getContext());
    Location loc = func.getLoc();
    Block &body = func.getBody().front();
    Operation *ret = body.getTerminator();
    auto writable = [&](StringRef stateName, StringRef kind) {
      return b.getDictionaryAttr(
          {b.getNamedAttr("autoglm.name", b.getStringAttr(stateName)),
           b.getNamedAttr("autoglm.state", b.getStringAttr(kind)),
           b.getNamedAttr("bufferization.writable", b.getBoolAttr(true))});
    };

    // The length: read first (clamped, which bounds every buffer sized by
    // it; the runtime keeps it in range), written back last, unless it is
    // read from the symbol values (the slot after the symbols left).
    unsigned at = func.getNumArguments();
    auto lengthType = RankedTensorType::get({1}, b.getI64Type());
    int64_t lengthSlot = numSymbols - 1;
    DictionaryAttr lengthAttrs =
        lengthInSymbols
            ? b.getDictionaryAttr(
                  {b.getNamedAttr("autoglm.name",
                                  b.getStringAttr("kv_cache_length")),
                   b.getNamedAttr("autoglm.symbol_slot",
                                  b.getI64IntegerAttr(lengthSlot))})
            : writable("kv_cache_length", "length");
    if (failed(func.insertArgument(at, lengthType, lengthAttrs, loc)))
      return failure();
    Value lengthArg = func.getArgument(at);
    b.setInsertionPointToStart(&body);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value cap = arith::ConstantIndexOp::create(b, loc, capacity);
    Value stored = tensor::ExtractOp::create(b, loc, lengthArg, zero);
    Value length = arith::IndexCastOp::create(b, loc, b.getIndexType(), stored);
    length = arith::MaxSIOp::create(
        b, loc, arith::MinSIOp::create(b, loc, length, cap), zero);

    SmallVector<Value> states;
    SmallVector<Attribute> cacheNames;
    Value newLength;
    for (CachePair &pair : pairs) {
      auto pastType = cast<RankedTensorType>(pair.past.getType());
      SmallVector<int64_t> shape(pastType.getShape());
      shape[pair.axis] = capacity;
      at = func.getNumArguments();
      StringRef pastName = name(func, pair.past);
      if (failed(func.insertArgument(
              at, RankedTensorType::get(shape, pastType.getElementType()),
              writable(pastName, "cache"), pair.past.getLoc())))
        return failure();
      Value cache = func.getArgument(at);
      cacheNames.push_back(b.getStringAttr(pastName));

      b.setInsertionPoint(pair.concat);
      Location here = pair.concat.getLoc();
      Value appended = pair.concat.getInputs()[1];
      auto appendedType = cast<RankedTensorType>(appended.getType());
      SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(shape.size(), b.getIndexAttr(1));
      for (int64_t d = 0; d < appendedType.getRank(); ++d)
        sizes.push_back(
            appendedType.isDynamicDim(d)
                ? OpFoldResult(
                      tensor::DimOp::create(b, here, appended, d).getResult())
                : OpFoldResult(b.getIndexAttr(appendedType.getDimSize(d))));
      offsets[pair.axis] = length;
      Value count = getValueOrCreateConstantIndexOp(b, here, sizes[pair.axis]);
      Value updated = tensor::InsertSliceOp::create(b, here, appended, cache,
                                                    offsets, sizes, strides);
      Value grown = arith::AddIOp::create(b, here, length, count);
      if (!newLength)
        newLength = grown;
      Value total = arith::MinSIOp::create(b, here, grown, cap);
      SmallVector<OpFoldResult> readSizes = sizes;
      readSizes[pair.axis] = total;
      Value readBack = tensor::ExtractSliceOp::create(
          b, here, cast<RankedTensorType>(pair.concat.getType()), updated,
          SmallVector<OpFoldResult>(shape.size(), b.getIndexAttr(0)), readSizes,
          strides);
      pair.concat.getResult().replaceAllUsesWith(readBack);
      pair.concat.erase();
      states.push_back(updated);
    }

    // Present outputs leave the signature; the updated states are returned
    // (bufferization folds them into their arguments).
    llvm::BitVector dropResults(func.getNumResults());
    for (OpOperand &operand : ret->getOpOperands())
      if (auto slice = operand.get().getDefiningOp<tensor::ExtractSliceOp>())
        if (llvm::is_contained(states, slice.getSource()))
          dropResults.set(operand.getOperandNumber());
    b.setInsertionPoint(ret);
    Value lengthOut;
    if (!lengthInSymbols) {
      lengthOut = tensor::InsertOp::create(
          b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), newLength),
          lengthArg, ValueRange{zero});
      states.insert(states.begin(), lengthOut);
    }
    SmallVector<Value> results;
    for (OpOperand &operand : ret->getOpOperands())
      if (!dropResults.test(operand.getOperandNumber()))
        results.push_back(operand.get());
    if (failed(func.eraseResults(dropResults)))
      return failure();
    for (Value state : states) {
      unsigned index = func.getNumResults();
      auto source =
          state == lengthOut
              ? lengthArg
              : state.getDefiningOp<tensor::InsertSliceOp>().getDest();
      if (failed(func.insertResult(
              index, state.getType(),
              b.getDictionaryAttr({b.getNamedAttr(
                  "autoglm.state",
                  b.getI64IntegerAttr(
                      cast<BlockArgument>(source).getArgNumber()))}))))
        return failure();
      results.push_back(state);
    }
    ret->setOperands(results);

    // The past inputs and their symbol go.
    llvm::BitVector dropArgs(func.getNumArguments());
    for (CachePair &pair : pairs) {
      // Shape arithmetic on a past input reads the length instead.
      for (Operation *user : llvm::make_early_inc_range(pair.past.getUsers())) {
        auto dim = dyn_cast<tensor::DimOp>(user);
        auto index = dim ? dim.getConstantIndex() : std::nullopt;
        if (!index || *index != pair.axis)
          return user->emitError("cache input '")
                 << name(func, pair.past) << "' is also read here";
        dim.getResult().replaceAllUsesWith(length);
        dim.erase();
      }
      dropArgs.set(pair.past.getArgNumber());
    }
    if (failed(func.eraseArguments(dropArgs)))
      return failure();
    // Result attributes name state arguments by number: renumber them.
    for (unsigned r = 0; r < func.getNumResults(); ++r)
      if (auto source =
              func.getResultAttrOfType<IntegerAttr>(r, "autoglm.state")) {
        int64_t shift = 0;
        for (unsigned i = 0; i < source.getInt(); ++i)
          shift += dropArgs.test(i);
        func.setResultAttr(r, "autoglm.state",
                           b.getI64IntegerAttr(source.getInt() - shift));
      }

    SmallVector<Attribute> kept;
    for (int64_t k = 0; k < numSymbols; ++k)
      if (k != *past)
        kept.push_back(symbols[k]);
    func->setAttr("autoglm.symbols", b.getArrayAttr(kept));
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto dims = func.getArgAttrOfType<DenseI32ArrayAttr>(
              i, "autoglm.dim_symbols")) {
        SmallVector<int32_t> renumbered(dims.asArrayRef());
        for (int32_t &s : renumbered)
          if (s > *past)
            --s;
        func.setArgAttr(i, "autoglm.dim_symbols",
                        b.getDenseI32ArrayAttr(renumbered));
      }

    NamedAttribute growth =
        isa<AffineConstantExpr>(*step)
            ? b.getNamedAttr("step",
                             b.getI64IntegerAttr(
                                 cast<AffineConstantExpr>(*step).getValue()))
            : b.getNamedAttr("step_symbol",
                             b.getI64IntegerAttr(
                                 cast<AffineSymbolExpr>(*step).getPosition() -
                                 (cast<AffineSymbolExpr>(*step).getPosition() >
                                  (unsigned)*past)));
    SmallVector<NamedAttribute> record = {
        b.getNamedAttr("capacity", b.getI64IntegerAttr(capacity)), growth,
        b.getNamedAttr("caches", b.getArrayAttr(cacheNames))};
    if (lengthInSymbols)
      record.push_back(
          b.getNamedAttr("length_slot", b.getI64IntegerAttr(lengthSlot)));
    func->setAttr("autoglm.kv_cache", b.getDictionaryAttr(record));
    return success();
  }
};

} // namespace
