//===- ContractionsToKernels.cpp - matmuls as runtime GEMM calls ----------===//
//
// The runtime's GEMM (register-tiled, packed, threaded) is far faster than
// the loops a linalg contraction lowers to, so every f32 contraction of the
// form C[b.., m, n] (+)= sum_k A[.., m, k] * B[.., k, n] becomes one call
// of agl_kernel_sgemm on the operands' buffers, strides and all. A constant
// B (a weight) is packed here, at compile time, into the panels the kernel's
// inner loop reads, and the call is agl_kernel_sgemm_packed: the kernel
// then never copies it at run time.
//
//===----------------------------------------------------------------------===//

#include "dialects/FloatValues.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"
#include "passes/Tuning.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include "autoglm/kernels.h"

namespace autoglm {
#define GEN_PASS_DEF_CONTRACTIONSTOKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr StringLiteral kSgemm = "agl_kernel_sgemm";
constexpr StringLiteral kSgemmPacked = "agl_kernel_sgemm_packed";

/// Which loop of the generic each role of the contraction is.
struct ContractionLoops {
  int64_t m, n, k;
  SmallVector<int64_t> batch; // outermost first
};

bool mentions(AffineMap map, int64_t dim) {
  return llvm::any_of(map.getResults(), [&](AffineExpr e) {
    auto d = dyn_cast<AffineDimExpr>(e);
    return d && d.getPosition() == dim;
  });
}

/// The loops of a plain (batched) f32 matmul on memrefs whose output rows
/// are contiguous, or nothing.
std::optional<ContractionLoops> matchContraction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1)
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.getElementType().isF32())
      return std::nullopt;
  }
  if (!autoglm::isMultiplyAccumulate(op))
    return std::nullopt;

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap lhs = maps[0], rhs = maps[1], out = maps[2];
  int64_t loops = op.getNumLoops();
  // The output names every parallel loop once, in order: (batch.., m, n).
  if (out.getNumResults() != loops - 1 || out.getNumResults() < 2 ||
      !out.isProjectedPermutation() ||
      !lhs.isProjectedPermutation(/*allowZeroInResults=*/true) ||
      !rhs.isProjectedPermutation(/*allowZeroInResults=*/true))
    return std::nullopt;
  ContractionLoops c;
  SmallVector<unsigned> outDims;
  for (AffineExpr e : out.getResults())
    outDims.push_back(cast<AffineDimExpr>(e).getPosition());
  if (!llvm::is_sorted(outDims))
    return std::nullopt;
  c.m = outDims[outDims.size() - 2];
  c.n = outDims.back();
  c.batch.assign(outDims.begin(), outDims.end() - 2);
  auto iterators = op.getIteratorTypesArray();
  c.k = llvm::find(iterators, utils::IteratorType::reduction) -
        iterators.begin();
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

/// A buffer as what the kernel takes: the address of its first element and
/// the stride (in elements) of each loop of the contraction.
struct OperandView {
  Value pointer;
  SmallVector<Value> loopStrides;
};

OperandView viewOf(OpBuilder &b, Location loc, Value buffer, AffineMap map,
                   int64_t loops) {
  autoglm::BufferPointer whole = autoglm::pointerTo(b, loc, buffer);
  OperandView view;
  view.pointer = whole.pointer;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  view.loopStrides.assign(loops, zero);
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      view.loopStrides[dim.getPosition()] = whole.strides[i];
  return view;
}

/// `pointer` advanced by `index * stride` f32 elements.
Value advance(OpBuilder &b, Location loc, Value pointer, Value index,
              Value stride) {
  Value elements = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), arith::MulIOp::create(b, loc, index, stride));
  return LLVM::GEPOp::create(b, loc, pointer.getType(), b.getF32Type(),
                             pointer, ValueRange{elements});
}

func::FuncOp declare(ModuleOp module, StringRef name, bool packed) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), i32 = b.getI32Type(),
       ptr = LLVM::LLVMPointerType::get(b.getContext());
  // (batch, m, n, k, a, its batch/row/column strides, b[, its batch/row/
  //  column strides], c, its batch/row strides, accumulate, activation,
  //  blocking)
  SmallVector<Type> args = {i64, i64, i64, i64, ptr, i64, i64, i64, ptr};
  if (!packed)
    args.append({i64, i64, i64});
  args.append({ptr, i64, i64, i32, i32, ptr});
  return autoglm::declareRuntimeFunction(module, name,
                                         b.getFunctionType(args, {}));
}

/// Packs constant rhs operands into the kernel's panel layout: for each
/// block of AGL_SGEMM_PACKED_NR columns, k rows of that many floats (columns
/// past n are zero). One packed copy per weight and orientation.
class WeightPacker {
public:
  explicit WeightPacker(ModuleOp module) : module(module), symbols(module) {}

  /// The packed global for `rhs`, if it is a constant that every batch of
  /// the contraction shares.
  memref::GlobalOp pack(Value rhs, AffineMap map, const ContractionLoops &c) {
    auto get = rhs.getDefiningOp<memref::GetGlobalOp>();
    if (!get)
      return nullptr;
    auto type = cast<MemRefType>(rhs.getType());
    auto [strides, offset] = type.getStridesAndOffset();
    int64_t k = 1, n = 1, kStride = 0, nStride = 0;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        continue;
      if (dim.getPosition() == c.k) {
        k = type.getDimSize(i);
        kStride = strides[i];
      } else if (dim.getPosition() == c.n) {
        n = type.getDimSize(i);
        nStride = strides[i];
      } else if (type.getDimSize(i) != 1) {
        return nullptr; // a batch of different weights
      }
    }
    // Whole panels only: padding would store more than the weight itself.
    if (n % AGL_SGEMM_PACKED_NR != 0)
      return nullptr;
    std::string key = (get.getName() + "_k" + Twine(kStride) + "_n" +
                       Twine(nStride)).str();
    if (auto it = packed.find(key); it != packed.end())
      return it->second;
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    std::optional<SmallVector<float>> values;
    if (global && global.getConstant())
      values = autoglm::floatValues(global.getInitialValueAttr());
    if (!values)
      return nullptr;

    constexpr int64_t nr = AGL_SGEMM_PACKED_NR;
    int64_t panels = (n + nr - 1) / nr;
    SmallVector<float> data(panels * k * nr, 0.0f);
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t row = 0; row < k; ++row)
        for (int64_t j = 0; j < nr && p * nr + j < n; ++j)
          data[(p * k + row) * nr + j] =
              (*values)[offset + row * kStride + (p * nr + j) * nStride];

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto packedType = MemRefType::get({(int64_t)data.size()}, b.getF32Type());
    auto tensorType =
        RankedTensorType::get({(int64_t)data.size()}, b.getF32Type());
    auto result = memref::GlobalOp::create(
        b, global.getLoc(), (global.getSymName() + "_packed").str(),
        b.getStringAttr("private"), packedType,
        DenseElementsAttr::get(tensorType, ArrayRef<float>(data)),
        /*constant=*/true, b.getI64IntegerAttr(64));
    symbols.insert(result); // renames on a clash
    packed[key] = result;
    return result;
  }

  /// Erases the original weights that nothing reads any more.
  void eraseUnused() {
    module.walk([](memref::GetGlobalOp get) {
      if (get->use_empty())
        get->erase();
    });
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.getConstant() &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
  }

private:
  ModuleOp module;
  SymbolTable symbols;
  llvm::StringMap<memref::GlobalOp> packed;
};

/// The zero fill that initializes the output right before the contraction,
/// which the kernel makes redundant.
linalg::FillOp zeroFillBefore(linalg::GenericOp op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || fill.getOutputs()[0] != op.getDpsInits()[0])
    return nullptr;
  return matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ? fill : nullptr;
}

void replaceWithKernelCall(linalg::GenericOp op, const ContractionLoops &c,
                           WeightPacker *packer) {
  bool accumulate = true;
  if (linalg::FillOp fill = zeroFillBefore(op)) {
    fill->erase();
    accumulate = false;
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t loops = op.getNumLoops();
  OperandView lhs = viewOf(b, loc, op.getDpsInputs()[0], maps[0], loops);
  memref::GlobalOp packedRhs =
      packer ? packer->pack(op.getDpsInputs()[1], maps[1], c) : nullptr;
  Value rhsBuffer = op.getDpsInputs()[1];
  if (packedRhs)
    rhsBuffer = memref::GetGlobalOp::create(b, loc, packedRhs.getType(),
                                            packedRhs.getSymName());
  OperandView rhs = viewOf(b, loc, rhsBuffer, maps[1], loops);
  OperandView out = viewOf(b, loc, op.getDpsInits()[0], maps[2], loops);
  SmallVector<Value> extents;
  for (Range range : cast<linalg::LinalgOp>(op.getOperation())
                         .createLoopRanges(b, loc))
    extents.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));

  // The innermost batch loop of more than one iteration is the kernel's
  // own batch; the others become scf.for loops around the call.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value a = lhs.pointer, bp = rhs.pointer, cp = out.pointer;
  SmallVector<int64_t> batchLoops;
  for (int64_t loop : c.batch)
    if (getConstantIntValue(extents[loop]) != 1)
      batchLoops.push_back(loop);
  ArrayRef<int64_t> outer = ArrayRef<int64_t>(batchLoops).drop_back(
      batchLoops.empty() ? 0 : 1);
  OpBuilder::InsertionGuard guard(b);
  for (int64_t loop : outer) {
    auto forOp = scf::ForOp::create(b, loc, zero, extents[loop], one);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    Value iv = forOp.getInductionVar();
    a = advance(b, loc, a, iv, lhs.loopStrides[loop]);
    bp = advance(b, loc, bp, iv, rhs.loopStrides[loop]);
    cp = advance(b, loc, cp, iv, out.loopStrides[loop]);
  }
  auto i64 = [&](Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index)
        .getResult();
  };
  Value batch = one, aBatch = zero, bBatch = zero, cBatch = zero;
  if (!batchLoops.empty()) {
    int64_t inner = batchLoops.back();
    batch = extents[inner];
    aBatch = lhs.loopStrides[inner];
    bBatch = rhs.loopStrides[inner];
    cBatch = out.loopStrides[inner];
  }
  Value accumulateFlag = arith::ConstantIntOp::create(b, loc, accumulate, 32);
  Value activation = arith::ConstantIntOp::create(b, loc, 0, 32);
  SmallVector<Value> args = {i64(batch),
                             i64(extents[c.m]),
                             i64(extents[c.n]),
                             i64(extents[c.k]),
                             a,
                             i64(aBatch),
                             i64(lhs.loopStrides[c.m]),
                             i64(lhs.loopStrides[c.k]),
                             bp};
  if (!packedRhs)
    args.append({i64(bBatch), i64(rhs.loopStrides[c.k]),
                 i64(rhs.loopStrides[c.n])});
  auto module = op->getParentOfType<ModuleOp>();
  auto staticExtent = [&](Value extent) {
    return getConstantIntValue(extent).value_or(ShapedType::kDynamic);
  };
  std::string key = autoglm::gemmTuningKey(
      staticExtent(batch), staticExtent(extents[c.m]),
      staticExtent(extents[c.n]), staticExtent(extents[c.k]));
  autoglm::GemmBlocking blocking = autoglm::tunedBlocking(op, key);
  args.append({cp, i64(cBatch), i64(out.loopStrides[c.m]), accumulateFlag,
               activation,
               autoglm::blockingArgument(b, loc, module, blocking)});
  auto call = func::CallOp::create(
      b, loc,
      declare(module, packedRhs ? kSgemmPacked : kSgemm,
              /*packed=*/bool(packedRhs)),
      args);
  autoglm::recordBlocking(call, blocking);
  op->erase();
}

struct ContractionsToKernelsPass
    : autoglm::impl::ContractionsToKernelsBase<ContractionsToKernelsPass> {
  using ContractionsToKernelsBase::ContractionsToKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::GenericOp, ContractionLoops>> contractions;
    module.walk([&](linalg::GenericOp op) {
      if (auto loops = matchContraction(op))
        contractions.emplace_back(op, *loops);
    });
    if (contractions.empty())
      return;
    std::optional<WeightPacker> packer;
    if (packWeights)
      packer.emplace(module);
    for (auto &[op, loops] : contractions)
      replaceWithKernelCall(op, loops, packer ? &*packer : nullptr);
    if (packer)
      packer->eraseUnused();
  }
};

} // namespace
