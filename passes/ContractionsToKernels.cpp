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
// For --target=cuda (`cuda`), the buffers are device memory and a product
// becomes a call of agl_cuda_sgemm, which the runtime runs with cuBLAS on
// the run's stream (no packing, no epilogue); with `cuda-precision` fp16 or
// bf16, agl_cuda_gemm_half on 16-bit copies of both operands. An integer
// product of int8 operands without zero points (autoglm-integer-matmuls'
// form for the GPU) becomes agl_cuda_gemm_int8, cuBLASLt's, its constant
// weight copied column by column.
//
// Integer products (autoglm.matmul_integer of a uint8 lhs and a constant
// int8 weight) become agl_kernel_gemm_u8s8 calls the same way, with the
// weight packed for its dot-product instructions; where their epilogue ends
// in the uint8 quantization of the next product's input,
// agl_kernel_gemm_u8s8_requantize, which writes those bytes.
//
// The elementwise loop that reads the product next (its epilogue) goes into
// the call when it computes act(alpha * product + bias[col]) + residual,
// each part optional, or that times gate_act(gate) in place of the residual
// (a gated linear unit: SwiGLU's silu(gate) * up is the up projection's
// epilogue when the gate projection is computed first, and the gate's, its
// activation silu, the other way round): the kernel applies it to each tile
// of the output
// while the tile is in registers, and writes the loop's result buffer
// instead of the product's. The activation is the one that
// autoglm-mark-activations recorded (Activations.h). Like the convolution
// pass, this runs before the arena is planned (it also works on planned
// buffers) and only removes buffer uses:
// the call stays where the product was, so the buffers the epilogue reads
// and writes must not share bytes with what the product reads, and the
// product's own buffer must not be read afterwards (BufferFacts.h).
//
//===----------------------------------------------------------------------===//

#include "dialects/FloatValues.h"
#include "passes/Activations.h"
#include "passes/BufferFacts.h"
#include "passes/Contractions.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"
#include "passes/SizeBounds.h"
#include "passes/Tuning.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

#include "autoglm/kernels.h"
#include "autoglm/kernels_int8.h"
#include "autoglm/kernels_quant.h"

#include <cmath>
#include <limits>

namespace autoglm {
#define GEN_PASS_DEF_CONTRACTIONSTOKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

using autoglm::ContractionLoops;
using autoglm::matchContraction;
using autoglm::matchContractionLoops;
using autoglm::maxLoopRanges;
using autoglm::mentions;

constexpr StringLiteral kSgemm = "agl_kernel_sgemm";
constexpr StringLiteral kSgemmPacked = "agl_kernel_sgemm_packed";
constexpr StringLiteral kGemmInt8 = "agl_kernel_gemm_u8s8";
constexpr StringLiteral kGemmInt8Requantize = "agl_kernel_gemm_u8s8_requantize";
constexpr StringLiteral kGemmInt8Transposed = "agl_kernel_gemm_u8s8_transposed";
constexpr StringLiteral kCudaSgemm = "agl_cuda_sgemm";
constexpr StringLiteral kCudaGemmHalf = "agl_cuda_gemm_half";
constexpr StringLiteral kCudaGemmEpilogue = "agl_cuda_gemm_epilogue";
constexpr StringLiteral kCudaGemmInt8 = "agl_cuda_gemm_int8";
// The operands' formats of agl_cuda_gemm_half and agl_cuda_gemm_epilogue
// (runtime/src/cuda/blas.h).
constexpr int kCudaHalf = 0, kCudaBf16 = 1, kCudaFloat = 2;

/// The integer product of autoglm.matmul_integer as the int8 kernel takes
/// it: acc + (extui(a) [- extui(a_zero_point)]) * extsi(b), a uint8, b
/// int8 (its zero point 0), the sum int32; the lhs zero point is a scalar
/// third input, or absent when it is 0. Or as cuBLASLt takes it: acc +
/// extsi(a) * extsi(b), both int8, no zero points.
struct IntegerContraction {
  ContractionLoops loops;
  Value lhsZeroPoint;          // a rank-0 buffer, or null...
  int64_t constantZeroPoint = 0; // ...when it is this constant
  bool signedLhs = false;
};

std::optional<IntegerContraction>
matchIntegerContraction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumDpsInputs() < 2 || op.getNumDpsInputs() > 3 ||
      op.getNumReductionLoops() != 1)
    return std::nullopt;
  auto elementOf = [](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type ? type.getElementType() : Type();
  };
  for (Value input : op.getDpsInputs())
    if (Type t = elementOf(input); !t || !t.isInteger(8))
      return std::nullopt;
  if (Type t = elementOf(op.getDpsInits()[0]); !t || !t.isInteger(32))
    return std::nullopt;
  Block *body = op.getBody();
  auto arg = [&](unsigned i) { return body->getArgument(i); };
  auto yield = body->getTerminator()->getOperand(0).getDefiningOp<arith::AddIOp>();
  if (!yield)
    return std::nullopt;
  Value accumulator = arg(op.getNumDpsInputs());
  Value productValue = yield.getLhs() == accumulator ? yield.getRhs()
                       : yield.getRhs() == accumulator ? yield.getLhs()
                                                        : Value();
  auto product = productValue ? productValue.getDefiningOp<arith::MulIOp>()
                              : arith::MulIOp();
  if (!product)
    return std::nullopt;
  auto isExtended = [](Value v, Value from, bool isUnsigned) {
    if (isUnsigned) {
      auto ext = v.getDefiningOp<arith::ExtUIOp>();
      return ext && ext.getIn() == from;
    }
    auto ext = v.getDefiningOp<arith::ExtSIOp>();
    return ext && ext.getIn() == from;
  };
  // The zero point is the third input, or a constant (canonicalization
  // moves scalar constants into the body).
  IntegerContraction ic;
  auto isLhs = [&](Value v) {
    if (isExtended(v, arg(0), /*isUnsigned=*/true))
      return op.getNumDpsInputs() == 2;
    if (isExtended(v, arg(0), /*isUnsigned=*/false)) {
      ic.signedLhs = true;
      return op.getNumDpsInputs() == 2;
    }
    auto sub = v.getDefiningOp<arith::SubIOp>();
    if (!sub || !isExtended(sub.getLhs(), arg(0), true))
      return false;
    if (op.getNumDpsInputs() == 3) {
      ic.lhsZeroPoint = op.getDpsInputs()[2];
      return isExtended(sub.getRhs(), arg(2), true);
    }
    APInt zeroPoint;
    if (!matchPattern(sub.getRhs(), m_ConstantInt(&zeroPoint)))
      return false;
    ic.constantZeroPoint = zeroPoint.getSExtValue();
    return ic.constantZeroPoint >= 0 && ic.constantZeroPoint <= 255;
  };
  auto isRhs = [&](Value v) { return isExtended(v, arg(1), false); };
  if (!((isLhs(product.getLhs()) && isRhs(product.getRhs())) ||
        (isLhs(product.getRhs()) && isRhs(product.getLhs()))))
    return std::nullopt;
  if (op.getNumDpsInputs() == 3 &&
      (cast<MemRefType>(op.getDpsInputs()[2].getType()).getRank() != 0))
    return std::nullopt;
  std::optional<ContractionLoops> loops =
      matchContractionLoops(op, /*allowTransposedOutput=*/true);
  if (!loops)
    return std::nullopt;
  // The kernel reads A's rows contiguously (other strides may be symbolic).
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto [strides, offset] =
      cast<MemRefType>(op.getDpsInputs()[0].getType()).getStridesAndOffset();
  for (auto [i, e] : llvm::enumerate(maps[0].getResults()))
    if (autoglm::isDim(e, loops->k) && strides[i] != 1)
      return std::nullopt;
  ic.loops = *loops;
  return ic;
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

/// `pointer` advanced by `index * stride` elements (f32 unless given).
Value advance(OpBuilder &b, Location loc, Value pointer, Value index,
              Value stride, Type element = {}) {
  Value elements = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), arith::MulIOp::create(b, loc, index, stride));
  return LLVM::GEPOp::create(b, loc, pointer.getType(),
                             element ? element : b.getF32Type(), pointer,
                             ValueRange{elements});
}

/// The extent of each of `op`'s loops, constants where static.
SmallVector<Value> loopExtents(OpBuilder &b, Location loc,
                               linalg::LinalgOp op) {
  return llvm::map_to_vector(op.createLoopRanges(b, loc), [&](Range range) {
    return getValueOrCreateConstantIndexOp(b, loc, range.size);
  });
}

/// A library call's own batch: its count, and each operand's stride along
/// it (1 and zeros without one).
struct CallBatch {
  Value count;
  SmallVector<Value> strides;
};

/// Of the contraction's `batch` loops, those of more than one iteration:
/// the innermost is the call's own batch; the others become scf.for loops
/// around the call: `b` moves into the innermost, and each of `pointers`
/// advances by its view's stride along each loop (its elements of
/// `elements[i]`, f32 if null). A view may be null (no operand).
CallBatch loopOverOuterBatches(OpBuilder &b, Location loc,
                               ArrayRef<int64_t> batch,
                               ArrayRef<Value> extents,
                               ArrayRef<const OperandView *> views,
                               MutableArrayRef<Value> pointers,
                               ArrayRef<Type> elements = {}) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  CallBatch call{one, SmallVector<Value>(views.size(), zero)};
  SmallVector<int64_t> batchLoops;
  for (int64_t loop : batch)
    if (getConstantIntValue(extents[loop]) != 1)
      batchLoops.push_back(loop);
  if (batchLoops.empty())
    return call;
  for (int64_t loop : ArrayRef(batchLoops).drop_back()) {
    auto forOp = scf::ForOp::create(b, loc, zero, extents[loop], one);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    Value iv = forOp.getInductionVar();
    for (auto [i, view] : llvm::enumerate(views))
      if (view)
        pointers[i] = advance(b, loc, pointers[i], iv, view->loopStrides[loop],
                              elements.empty() ? Type() : elements[i]);
  }
  int64_t inner = batchLoops.back();
  call.count = extents[inner];
  for (auto [i, view] : llvm::enumerate(views))
    if (view)
      call.strides[i] = view->loopStrides[inner];
  return call;
}

func::FuncOp declare(ModuleOp module, StringRef name, bool packed) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), i32 = b.getI32Type(),
       ptr = LLVM::LLVMPointerType::get(b.getContext());
  // (batch, m, n, k, a, its batch/row/column strides, b[, its batch/row/
  //  column strides], c, its batch/row strides, accumulate, alpha, bias,
  //  activation, residual, its batch/row strides, blocking)
  SmallVector<Type> args = {i64, i64, i64, i64, ptr, i64, i64, i64, ptr};
  if (!packed)
    args.append({i64, i64, i64});
  args.append({ptr, i64, i64, i32, b.getF32Type(), ptr, i32, ptr, i64, i64,
               ptr});
  return autoglm::declareRuntimeFunction(module, name,
                                         b.getFunctionType(args, {}));
}

/// Packs constant rhs operands into the kernel's panel layout: for each
/// block of AGL_SGEMM_PACKED_NR columns, k rows of that many floats (columns
/// past n are zero). One packed copy per weight and orientation.
/// A private constant global holding `data` (64-byte aligned) at the end of
/// `module`, named `name` or, on a clash, a variant of it.
memref::GlobalOp addConstantGlobal(ModuleOp module, SymbolTable &symbols,
                                   Location loc, StringRef name,
                                   ElementsAttr data) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto type = cast<ShapedType>(data.getType());
  auto result = memref::GlobalOp::create(
      b, loc, name, b.getStringAttr("private"),
      MemRefType::get(type.getShape(), type.getElementType()), data,
      /*constant=*/true, b.getI64IntegerAttr(64));
  symbols.insert(result); // renames on a clash
  return result;
}

/// Erases the reads of globals that nothing uses, then the constant
/// globals nothing refers to: the weights that a packed or rounded copy
/// replaced.
void eraseUnusedConstants(ModuleOp module) {
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

class WeightPacker {
public:
  WeightPacker(ModuleOp module, bool partialPanels)
      : module(module), symbols(module), partialPanels(partialPanels) {}

  /// The packed global for `rhs`, if it is a constant that every batch of
  /// the contraction shares.
  memref::GlobalOp pack(Value rhs, AffineMap map, const ContractionLoops &c) {
    std::optional<Weight> w = locate(rhs, map, c, "f32");
    // Whole panels only, unless asked: padding would store more than the
    // weight itself.
    if (!w || (w->n % AGL_SGEMM_PACKED_NR != 0 && !partialPanels))
      return nullptr;
    if (auto it = packed.find(w->key); it != packed.end())
      return it->second;
    std::optional<SmallVector<float>> values =
        autoglm::floatValues(w->global.getInitialValueAttr());
    if (!values)
      return nullptr;
    constexpr int64_t nr = AGL_SGEMM_PACKED_NR;
    int64_t panels = (w->n + nr - 1) / nr;
    auto type = RankedTensorType::get({panels * w->k * nr},
                                      Float32Type::get(module.getContext()));
    auto packedValues = autoglm::newConstant<float>(
        type, packedName(*w), [&](MutableArrayRef<float> data) {
          for (int64_t p = 0; p < panels; ++p)
            for (int64_t row = 0; row < w->k; ++row)
              for (int64_t j = 0; j < nr; ++j)
                data[(p * w->k + row) * nr + j] =
                    p * nr + j < w->n ? (*values)[w->element(row, p * nr + j)]
                                      : 0.0f;
        });
    return record(*w, packedValues);
  }

  /// The packed global (autoglm/kernels_int8.h's layout, as bytes) for an
  /// int8 `rhs`, if it is a constant that every batch shares.
  memref::GlobalOp packInt8(Value rhs, AffineMap map,
                            const ContractionLoops &c) {
    return int8Copy(
        rhs, map, c, "s8", "_packed", [&](Weight w, ArrayRef<int8_t> values) {
          auto type =
              RankedTensorType::get({(int64_t)agl_s8_packed_bytes(w.k, w.n)},
                                    IntegerType::get(module.getContext(), 8));
          return autoglm::newConstant<int8_t>(
              type, packedName(w), [&](MutableArrayRef<int8_t> data) {
                agl_pack_b_s8(values.data() + w.offset, w.k, w.n, w.kStride,
                              w.nStride, data.data());
              });
        });
  }

  /// A copy of the constant int8 `rhs` (k x n) stored column by column,
  /// (n, k) row-major, if every batch shares it: cuBLASLt's integer
  /// products read it so.
  memref::GlobalOp columnsInt8(Value rhs, AffineMap map,
                               const ContractionLoops &c) {
    return int8Copy(rhs, map, c, "s8_columns", "_columns",
                    [&](Weight w, ArrayRef<int8_t> values) {
                      auto type = RankedTensorType::get(
                          {w.n, w.k}, IntegerType::get(module.getContext(), 8));
                      return autoglm::newConstant<int8_t>(
                          type, (w.global.getSymName() + "_columns").str(),
                          [&](MutableArrayRef<int8_t> data) {
                            for (int64_t j = 0; j < w.n; ++j)
                              for (int64_t p = 0; p < w.k; ++p)
                                data[j * w.k + p] = values[w.element(p, j)];
                          });
                    });
  }

  /// A constant global of `n` float ones, one per size.
  memref::GlobalOp ones(int64_t n) {
    std::string key = "ones_" + std::to_string(n);
    if (auto it = packed.find(key); it != packed.end())
      return it->second;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto type = RankedTensorType::get({n}, b.getF32Type());
    auto global = memref::GlobalOp::create(
        b, module.getLoc(), "agl_ones", b.getStringAttr("private"),
        MemRefType::get({n}, b.getF32Type()),
        DenseElementsAttr::get(type, 1.0f), /*constant=*/true,
        b.getI64IntegerAttr(64));
    symbols.insert(global); // renames on a clash
    packed[key] = global;
    return global;
  }

  /// Erases the original weights that nothing reads any more.
  void eraseUnused() { eraseUnusedConstants(module); }

private:
  /// A constant k x n weight: element (p, j) of its global's values is at
  /// offset + p * kStride + j * nStride.
  struct Weight {
    memref::GlobalOp global;
    int64_t k = 1, n = 1, kStride = 0, nStride = 0, offset = 0;
    std::string key; // one packed copy per weight, view and format
    int64_t element(int64_t p, int64_t j) const {
      return offset + p * kStride + j * nStride;
    }
  };

  std::optional<Weight> locate(Value rhs, AffineMap map,
                               const ContractionLoops &c, StringRef format) {
    auto get = rhs.getDefiningOp<memref::GetGlobalOp>();
    if (!get)
      return std::nullopt;
    auto type = cast<MemRefType>(rhs.getType());
    auto [strides, offset] = type.getStridesAndOffset();
    Weight w;
    w.offset = offset;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        continue;
      if (dim.getPosition() == c.k) {
        w.k = type.getDimSize(i);
        w.kStride = strides[i];
      } else if (dim.getPosition() == c.n) {
        w.n = type.getDimSize(i);
        w.nStride = strides[i];
      } else if (type.getDimSize(i) != 1) {
        return std::nullopt; // a batch of different weights
      }
    }
    w.global = symbols.lookup<memref::GlobalOp>(get.getName());
    if (!w.global || !w.global.getConstant() ||
        ShapedType::isDynamic(w.offset))
      return std::nullopt;
    w.key = (get.getName() + "_k" + Twine(w.kStride) + "_n" +
             Twine(w.nStride) + "_" + format)
                .str();
    return w;
  }

  /// The copy of the int8 constant `rhs` that `make` lays out from the
  /// weight and its values, one per weight and `format`, named with
  /// `suffix`; null if `rhs` is no such constant.
  memref::GlobalOp
  int8Copy(Value rhs, AffineMap map, const ContractionLoops &c,
           StringRef format, StringRef suffix,
           function_ref<ElementsAttr(Weight, ArrayRef<int8_t>)> make) {
    std::optional<Weight> w = locate(rhs, map, c, format);
    if (!w)
      return nullptr;
    if (auto it = packed.find(w->key); it != packed.end())
      return it->second;
    std::optional<SmallVector<int8_t>> values =
        autoglm::constantValues<int8_t>(w->global.getInitialValueAttr());
    if (!values)
      return nullptr;
    return record(*w, make(*w, *values), suffix);
  }

  static std::string packedName(Weight w) {
    return (w.global.getSymName() + "_packed").str();
  }

  /// The packed copy of `w` as a global (its name `w`'s and `suffix`); the
  /// original's pages, read for it, are released (a large model's weights
  /// stay in its mapped file).
  memref::GlobalOp record(Weight w, ElementsAttr data,
                          StringRef suffix = "_packed") {
    autoglm::releaseConstantPages(w.global.getInitialValueAttr());
    memref::GlobalOp result =
        addConstantGlobal(module, symbols, w.global.getLoc(),
                          (w.global.getSymName() + suffix).str(), data);
    packed[w.key] = result;
    return result;
  }

  ModuleOp module;
  SymbolTable symbols;
  bool partialPanels;
  llvm::StringMap<memref::GlobalOp> packed;
};

/// The elementwise loop after a contraction that the kernel's epilogue
/// computes: output = act(alpha * product + bias[n]) + residual, or
/// with `gated`, act(...) * gateActivation(residual).
struct Epilogue {
  linalg::GenericOp op;
  Value output;   // what the kernel writes: the product's shape
  float alpha = 1.0f;
  Value bias;     // indexed by the column loop only, or null
  int activation = AGL_ACT_NONE;
  Value residual; // the product's shape, or null
  bool gated = false;
  int gateActivation = AGL_ACT_NONE;
  // The residual is the output itself (updated in place): the kernel
  // accumulates into it instead.
  bool accumulateResidual = false;
  // An integer product enters as float(product) * scale: a constant (in
  // alpha), a scalar buffer (computed at run time), or a column vector.
  Value scalarScale, columnScale;
  // An integer product's epilogue may end in the uint8 quantization of the
  // next product's input (constant scale and zero point).
  bool quantize = false;
  float outScale = 1.0f;
  int32_t outZeroPoint = 0;

  /// The kernel's activation argument (AGL_ACT_GATED for a gate).
  int activationArgument() const {
    return gated ? activation | AGL_ACT_GATED(gateActivation) : activation;
  }

  /// "bias+gelu_erf+residual", "gate_silu" and the like, for reports.
  std::string describe() const {
    SmallVector<std::string> parts;
    if (alpha != 1.0f)
      parts.push_back("scale");
    if (bias)
      parts.push_back("bias");
    if (activation != AGL_ACT_NONE)
      parts.push_back(autoglm::activationName(activation).str());
    if (gated)
      parts.push_back(gateActivation == AGL_ACT_NONE
                          ? std::string("gate")
                          : "gate_" +
                                autoglm::activationName(gateActivation).str());
    else if (residual || accumulateResidual)
      parts.push_back("residual");
    if (quantize)
      parts.push_back("quantize");
    return llvm::join(parts, "+");
  }
};

/// A value of the body that is the block argument of an input read with
/// `map`'s kind; the operand.
OpOperand *inputOf(linalg::GenericOp op, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBody() ||
      arg.getArgNumber() >= op.getNumDpsInputs())
    return nullptr;
  return op.getDpsInputOperand(arg.getArgNumber());
}

/// Whether `operand` is read as a bias along the last loop: every index
/// 0 but the last, which is that loop, with a unit stride.
bool isColumnBias(linalg::GenericOp op, OpOperand *operand) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  auto type = cast<MemRefType>(operand->get().getType());
  auto strides = autoglm::staticStrides(operand->get());
  if (map.getNumResults() == 0 || !strides || strides->back() != 1 ||
      !autoglm::isDim(map.getResults().back(), op.getNumLoops() - 1))
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults().drop_back())) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0 || type.getDimSize(i) != 1)
      return false;
  }
  return true;
}

/// Whether a buffer of the product's shape is read or written with the
/// identity map and contiguous rows.
bool isWholeTile(linalg::GenericOp op, OpOperand *operand) {
  auto type = cast<MemRefType>(operand->get().getType());
  auto [strides, offset] = type.getStridesAndOffset();
  return op.getMatchingIndexingMap(operand).isIdentity() &&
         !strides.empty() && strides.back() == 1;
}

/// A constant f32 operand's value.
std::optional<double> constantOf(Value v) {
  FloatAttr value;
  if (matchPattern(v, m_Constant(&value)) && value.getType().isF32())
    return value.getValueAsDouble();
  return std::nullopt;
}

/// Matches `x = [product * c | product / c] [+ bias]`, recording the scale
/// and the bias; `product` is the contraction's output's block argument.
bool matchPreActivation(linalg::GenericOp op, Value x, Value product,
                        Epilogue &e) {
  if (auto add = x.getDefiningOp<arith::AddFOp>()) {
    for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()),
                            std::pair(add.getRhs(), add.getLhs())}) {
      OpOperand *bias = inputOf(op, rhs);
      if (bias && isColumnBias(op, bias)) {
        e.bias = bias->get();
        x = lhs;
        break;
      }
    }
  }
  if (x == product)
    return true;
  std::optional<double> scale;
  if (auto mul = x.getDefiningOp<arith::MulFOp>()) {
    if (mul.getLhs() == product && (scale = constantOf(mul.getRhs())))
      x = product;
    else if (mul.getRhs() == product && (scale = constantOf(mul.getLhs())))
      x = product;
    if (x == product)
      e.alpha = *scale;
  } else if (auto div = x.getDefiningOp<arith::DivFOp>()) {
    if (div.getLhs() == product && (scale = constantOf(div.getRhs())) &&
        *scale != 0) {
      x = product;
      e.alpha = float(1.0 / *scale);
    }
  }
  return x == product;
}

/// The quantized value of a uint8 QuantizeLinear at the end of an epilogue
/// (matchQuantizeToU8) with a constant positive scale and a constant
/// integral zero point in 0..255, recording them; null otherwise.
Value quantizedValue(Value yielded, Epilogue &e) {
  std::optional<autoglm::QuantizeToU8> q = autoglm::matchQuantizeToU8(yielded);
  if (!q)
    return Value();
  std::optional<double> scale = constantOf(q->scale);
  std::optional<double> zeroPoint = constantOf(q->zeroPoint);
  if (!scale || !zeroPoint || *scale <= 0 || *zeroPoint < 0 ||
      *zeroPoint > 255 || *zeroPoint != std::floor(*zeroPoint))
    return Value();
  e.quantize = true;
  e.outScale = float(*scale);
  e.outZeroPoint = int32_t(*zeroPoint);
  return q->input;
}

/// The epilogue of contraction `op` (whose output holds zeros before it
/// unless `accumulate`): the next op that touches memory, an elementwise
/// generic that reads the product and computes one of the forms above.
/// For an integer product: matches `float(product) * scale` in `next`'s
/// body, recording the scale; the value of the body, or null.
Value dequantizedProduct(linalg::GenericOp next, Value productArg,
                         Epilogue &e) {
  if (!productArg.hasOneUse())
    return Value();
  auto wide = dyn_cast<arith::SIToFPOp>(*productArg.getUsers().begin());
  if (!wide || !wide.getType().isF32() || !wide->hasOneUse())
    return Value();
  auto mul = dyn_cast<arith::MulFOp>(*wide->getUsers().begin());
  if (!mul)
    return Value();
  Value scale = mul.getLhs() == wide ? mul.getRhs() : mul.getLhs();
  FloatAttr constant;
  if (matchPattern(scale, m_Constant(&constant))) {
    e.alpha = constant.getValueAsDouble();
  } else if (OpOperand *input = inputOf(next, scale)) {
    auto type = cast<MemRefType>(input->get().getType());
    if (type.getRank() == 0)
      e.scalarScale = input->get();
    else if (isColumnBias(next, input))
      e.columnScale = input->get();
    else
      return Value();
  } else {
    return Value();
  }
  return mul;
}

std::optional<Epilogue> matchEpilogue(linalg::GenericOp op,
                                      const ContractionLoops &c,
                                      bool accumulate, bool integer = false) {
  Value product = op.getDpsInits()[0];
  auto next = dyn_cast_or_null<linalg::GenericOp>(autoglm::nextEffect(op));
  if (!next || !next.hasPureBufferSemantics() ||
      next.getNumDpsInits() != 1 ||
      next.getNumParallelLoops() != next.getNumLoops() ||
      next.getNumLoops() != int64_t(c.batch.size()) + 2 ||
      next.payloadUsesValueFromOperand(next.getDpsInitOperand(0)) ||
      !isWholeTile(next, next.getDpsInitOperand(0)))
    return std::nullopt;
  // An integer product's epilogue may write uint8 (as i8) for the next one.
  Value init = next.getDpsInits()[0];
  const bool bytesOut =
      integer && cast<MemRefType>(init.getType()).getElementType().isInteger(8);
  for (Value operand : next->getOperands())
    if (!cast<MemRefType>(operand.getType()).getElementType().isF32() &&
        !(integer && operand == product) && !(bytesOut && operand == init))
      return std::nullopt;
  Epilogue e;
  e.op = next;
  e.output = init;
  // The product's block argument (for an integer product, the value it
  // becomes once dequantized).
  Value productArg;
  for (OpOperand *input : next.getDpsInputOperands())
    if (input->get() == product && isWholeTile(next, input))
      productArg = next.getMatchingBlockArgument(input);
  if (productArg && integer)
    productArg = dequantizedProduct(next, productArg, e);
  if (!productArg)
    return std::nullopt;
  // A constant dequantization scale, times the epilogue's own multiply.
  float dequantizationScale = e.alpha;
  e.alpha = 1.0f;

  // yield [quantize(act(x) [+ residual | * gate_act(gate)])]
  Block *body = next.getBody();
  Value y = body->getTerminator()->getOperand(0);
  if (bytesOut && !(y = quantizedValue(y, e)))
    return std::nullopt;
  // y = act(x), x of the form of the pre-activation: the activation's input
  // is the nearest value it is computed from alone that has that form;
  // without one, y is that value.
  auto matchActivated = [&](Value y, Epilogue &e) {
    SmallVector<Value> work = {y};
    llvm::DenseSet<Value> seen;
    for (size_t i = 0; i < work.size(); ++i) {
      Value v = work[i];
      Epilogue trial = e;
      std::optional<int> act;
      if (v != y && (act = autoglm::activationOf(y, v)) &&
          matchPreActivation(next, v, productArg, trial)) {
        e = trial;
        e.activation = *act;
        return true;
      }
      if (Operation *d = v.getDefiningOp(); d && d->getBlock() == body)
        for (Value operand : d->getOperands())
          if (seen.insert(operand).second)
            work.push_back(operand);
    }
    return matchPreActivation(next, y, productArg, e);
  };
  // A residual or gate: a whole tile of another buffer, the gate through
  // an activation of its own or none.
  auto otherTile = [&](Value v) -> OpOperand * {
    OpOperand *input = inputOf(next, v);
    return input && input->get() != product && isWholeTile(next, input)
               ? input
               : nullptr;
  };
  auto gateOf = [&](Value v, int &act) -> OpOperand * {
    act = AGL_ACT_NONE;
    if (OpOperand *input = otherTile(v))
      return input;
    for (OpOperand *input : next.getDpsInputOperands()) {
      std::optional<int> gateAct;
      if (otherTile(next.getMatchingBlockArgument(input)) &&
          (gateAct = autoglm::activationOf(
               v, next.getMatchingBlockArgument(input)))) {
        act = *gateAct;
        return input;
      }
    }
    return nullptr;
  };
  bool matched = false;
  Operation *last = y.getDefiningOp();
  if (isa_and_nonnull<arith::AddFOp, arith::MulFOp>(last)) {
    const bool add = isa<arith::AddFOp>(last);
    for (auto [lhs, rhs] :
         {std::pair(last->getOperand(0), last->getOperand(1)),
          std::pair(last->getOperand(1), last->getOperand(0))}) {
      Epilogue trial = e;
      int gateAct = AGL_ACT_NONE;
      OpOperand *other = add ? otherTile(rhs) : gateOf(rhs, gateAct);
      if (!other)
        continue;
      trial.residual = other->get();
      trial.gated = !add;
      trial.gateActivation = gateAct;
      if (matchActivated(lhs, trial)) {
        e = trial;
        matched = true;
        break;
      }
    }
  }
  if (!matched && !matchActivated(y, e))
    return std::nullopt;
  e.alpha *= dequantizationScale;
  // Every input has its role.
  for (Value input : next.getDpsInputs())
    if (input != product && input != e.bias && input != e.residual &&
        input != e.scalarScale && input != e.columnScale)
      return std::nullopt;
  for (Value v : {e.scalarScale, e.columnScale})
    if (v && !autoglm::canHoistBefore(v, op))
      return std::nullopt;

  // The call at the product's place writes the output and reads the bias
  // and residual there: their views move up, and nothing the product reads
  // may share bytes with the output.
  for (Value v : {e.output, e.bias, e.residual})
    if (v && !autoglm::canHoistBefore(v, op))
      return std::nullopt;
  if (e.residual && e.residual == e.output && e.activation == AGL_ACT_NONE &&
      !e.gated && !accumulate) {
    // In place: output += alpha * product + bias.
    e.residual = Value();
    e.accumulateResidual = true;
  }
  for (Value v : {e.bias, e.residual})
    if (v && !autoglm::disjoint(v, e.output))
      return std::nullopt;
  if (e.output != product) {
    // The product's buffer is no longer written: nothing may read it later,
    // and the kernel does not start from what it held.
    if (accumulate || !autoglm::deadAfter(product, next))
      return std::nullopt;
    for (Value input : op.getDpsInputs())
      if (!autoglm::disjoint(input, e.output))
        return std::nullopt;
  }
  return e;
}

/// A zero fill that a product's output was found to hold, further back
/// than the op before it, and the call that no longer reads it (null when
/// the call writes another buffer).
struct ZeroSource {
  Operation *fill;
  Operation *call;
};

/// The bookkeeping once `call` stands for product `op` (and its epilogue,
/// if any, whose result the call writes to `output`): the blocking it was
/// given (a CPU kernel's; null for a GPU library call), the zero fill it no
/// longer reads, and the loops it replaces.
void finishKernelCall(func::CallOp call, linalg::GenericOp op,
                      const autoglm::GemmBlocking *blocking, Operation *init,
                      Value output, std::optional<Epilogue> &epilogue,
                      SmallVectorImpl<ZeroSource> &zeroSources) {
  if (blocking)
    autoglm::recordBlocking(call, *blocking);
  if (init && autoglm::isZeroFill(init, op.getDpsInits()[0]))
    zeroSources.push_back(
        {init, output == op.getDpsInits()[0] ? call.getOperation() : nullptr});
  if (epilogue) {
    call->setAttr(autoglm::kEpilogueAttrName,
                  Builder(call.getContext())
                      .getStringAttr(epilogue->describe()));
    epilogue->op->erase();
  }
  op->erase();
}

/// Readies the call at product `op`'s place to compute `epilogue` too: the
/// views of the buffers the epilogue reads and writes move before `op`.
/// Returns the buffer the call writes.
Value takeEpilogue(linalg::GenericOp op,
                   const std::optional<Epilogue> &epilogue) {
  if (!epilogue)
    return op.getDpsInits()[0];
  for (Value v : {epilogue->output, epilogue->bias, epilogue->residual,
                  epilogue->scalarScale, epilogue->columnScale})
    if (v)
      autoglm::hoistBefore(v, op);
  return epilogue->output;
}

/// The location of the call for product `op`: with an epilogue, both ops'.
Location callLocation(linalg::GenericOp op,
                      const std::optional<Epilogue> &epilogue) {
  return epilogue ? FusedLoc::get(op.getContext(),
                                  {op.getLoc(), epilogue->op->getLoc()})
                  : op.getLoc();
}

/// Whether the product's output holds zeros before it, so that its call
/// need not read it; `init` is then the zero fill (or copy of zeros),
/// erased and null when it is the op right before the product.
bool startsFromZeros(linalg::GenericOp op, Operation *&init) {
  if (!autoglm::zeroAt(op.getDpsInits()[0], op, init))
    return false;
  if (init == autoglm::previousEffect(op)) {
    init->erase();
    init = nullptr;
  }
  return true;
}

void replaceWithKernelCall(linalg::GenericOp op, const ContractionLoops &c,
                           WeightPacker *packer,
                           SmallVectorImpl<ZeroSource> &zeroSources) {
  Operation *init = nullptr;
  bool accumulate = !startsFromZeros(op, init);
  std::optional<Epilogue> epilogue = matchEpilogue(op, c, accumulate);
  Value output = takeEpilogue(op, epilogue);
  accumulate |= epilogue && epilogue->accumulateResidual;
  OpBuilder b(op);
  Location loc = callLocation(op, epilogue);
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
  OperandView out = viewOf(b, loc, output, maps[2], loops);
  std::optional<OperandView> residual;
  if (epilogue && epilogue->residual)
    residual = viewOf(b, loc, epilogue->residual, maps[2], loops);
  SmallVector<Value> extents = loopExtents(b, loc, op);

  // The innermost batch loop of more than one iteration is the kernel's
  // own batch; the others become scf.for loops around the call.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  SmallVector<Value> pointers = {
      lhs.pointer, rhs.pointer, out.pointer,
      residual ? residual->pointer
               : LLVM::ZeroOp::create(b, loc, ptrType).getResult()};
  OpBuilder::InsertionGuard guard(b);
  CallBatch calls = loopOverOuterBatches(
      b, loc, c.batch, extents,
      {&lhs, &rhs, &out, residual ? &*residual : nullptr}, pointers);
  Value a = pointers[0], bp = pointers[1], cp = pointers[2], rp = pointers[3];
  auto i64 = [&](Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index)
        .getResult();
  };
  Value batch = calls.count, aBatch = calls.strides[0],
        bBatch = calls.strides[1], cBatch = calls.strides[2],
        rBatch = calls.strides[3];
  Value accumulateFlag = arith::ConstantIntOp::create(b, loc, accumulate, 32);
  Value alpha = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(epilogue ? epilogue->alpha : 1.0f));
  Value bias = epilogue && epilogue->bias
                   ? autoglm::pointerTo(b, loc, epilogue->bias).pointer
                   : LLVM::ZeroOp::create(b, loc, ptrType).getResult();
  Value activation = arith::ConstantIntOp::create(
      b, loc, epilogue ? epilogue->activationArgument() : AGL_ACT_NONE, 32);
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
               alpha, bias, activation, rp, i64(rBatch),
               i64(residual ? residual->loopStrides[c.m] : zero),
               autoglm::blockingArgument(b, loc, module, blocking)});
  auto call = func::CallOp::create(
      b, loc,
      declare(module, packedRhs ? kSgemmPacked : kSgemm,
              /*packed=*/bool(packedRhs)),
      args);
  finishKernelCall(call, op, &blocking, init, output, epilogue, zeroSources);
}

/// What is known when compiling of how each loop of a GPU product steps
/// through one operand: the loops' extents (`ranges`, kDynamic for
/// symbolic ones) and their largest values, and per loop the buffer's
/// stride (kDynamic if it depends on symbolic extents), the position of
/// the buffer's dimension it indexes (-1 if none) and, for a contiguous
/// buffer, the largest value that stride takes.
struct LoopLayout {
  ArrayRef<int64_t> ranges, maxRanges;
  SmallVector<int64_t> strides, positions, maxStrides;
  bool contiguous = false;
};

/// How the loops of a product step through `buffer`, read with `map`;
/// nothing if it has no strided layout.
std::optional<LoopLayout> loopLayout(Value buffer, AffineMap map,
                                     ArrayRef<int64_t> ranges,
                                     ArrayRef<int64_t> maxRanges) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  LoopLayout layout;
  layout.ranges = ranges;
  layout.maxRanges = maxRanges;
  layout.contiguous = type.getLayout().isIdentity();
  // A contiguous buffer's stride is the product of the extents inside it.
  SmallVector<int64_t> maxStrides(strides.size(), ShapedType::kDynamic);
  if (layout.contiguous)
    if (std::optional<SmallVector<int64_t>> shape = autoglm::maxShape(buffer)) {
      std::optional<int64_t> stride = 1;
      for (int64_t i = type.getRank() - 1; i >= 0 && stride; --i) {
        maxStrides[i] = *stride;
        stride = llvm::checkedMul(*stride, std::max<int64_t>((*shape)[i], 1));
      }
    }
  const int64_t loops = ranges.size();
  layout.strides.assign(loops, 0);
  layout.positions.assign(loops, -1);
  layout.maxStrides.assign(loops, 0);
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      layout.strides[dim.getPosition()] = strides[i];
      layout.positions[dim.getPosition()] = i;
      layout.maxStrides[dim.getPosition()] =
          ShapedType::isDynamic(strides[i]) ? maxStrides[i] : strides[i];
    }
  return layout;
}

/// Whether cuBLAS takes the operand that loops `rows` x `cols` read
/// through `layout`, whatever values the symbolic extents take: a unit
/// stride along `inner`, and along `outer` a leading dimension that
/// covers `inner`'s extent (the rule agl_cuda_sgemm applies), with
/// `inner` the columns, or, transposed, the rows.
bool cublasTakes(const LoopLayout &layout, int64_t rows, int64_t cols,
                 bool transposable = true) {
  constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
  auto along = [&](int64_t inner, int64_t outer) {
    if (layout.strides[inner] != 1 && layout.ranges[inner] != 1)
      return false;
    if (layout.ranges[outer] == 1)
      return true;
    const int64_t stride = layout.strides[outer];
    const int64_t maxStride = layout.maxStrides[outer];
    if (ShapedType::isDynamic(maxStride) || maxStride > kMaxInt)
      return false;
    const int64_t extent = ShapedType::isDynamic(layout.ranges[inner])
                               ? layout.maxRanges[inner]
                               : layout.ranges[inner];
    if (!ShapedType::isDynamic(stride) && !ShapedType::isDynamic(extent) &&
        stride >= extent)
      return true;
    // In a contiguous buffer a dimension's stride covers the extent of
    // every dimension inside it.
    return layout.contiguous && layout.positions[outer] >= 0 &&
           layout.positions[outer] < layout.positions[inner];
  };
  return along(cols, rows) || (transposable && along(rows, cols));
}

/// The 16-bit copies of constant weights for half-precision GPU products:
/// one per weight, the float one erased once nothing reads it. And the
/// 16-bit copies of activations: a later product that reads the same
/// activation reads the copy too while nothing has written the activation
/// since (an RMSNorm's output that two projections read is converted once).
class HalfWeights {
public:
  HalfWeights(ModuleOp module, FloatType half)
      : module(module), symbols(module), half(half) {}

  FloatType type() const { return half; }

  /// The 16-bit copy of the constant global `get` reads whole, or null.
  memref::GlobalOp convert(memref::GetGlobalOp get) {
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    auto type = cast<MemRefType>(get.getType());
    if (!global || !global.getConstant() || !type.getLayout().isIdentity() ||
        !type.hasStaticShape())
      return nullptr;
    if (memref::GlobalOp done = converted.lookup(get.getName()))
      return done;
    std::optional<SmallVector<float>> values =
        autoglm::floatValues(global.getInitialValueAttr());
    if (!values)
      return nullptr;
    SmallVector<uint16_t> bits(values->size());
    bool bf16 = half.isBF16();
    for (auto [i, v] : llvm::enumerate(*values))
      bits[i] = bf16 ? agl_bf16_from_float(v) : agl_f16_from_float(v);
    auto tensor = RankedTensorType::get(type.getShape(), half);
    auto data = DenseElementsAttr::getFromRawBuffer(
        tensor, ArrayRef<char>(reinterpret_cast<const char *>(bits.data()),
                               bits.size() * sizeof(uint16_t)));
    memref::GlobalOp result = addConstantGlobal(
        module, symbols, global.getLoc(),
        (global.getSymName() + (bf16 ? "_bf16" : "_f16")).str(), data);
    converted[get.getName()] = result;
    return result;
  }

  /// Erases the float weights that only the products read.
  void eraseUnused() { eraseUnusedConstants(module); }

  /// The 16-bit copy of activation `buffer` that a conversion made for
  /// another product in the block of `product`, when nothing between the
  /// conversion and `product` may write `buffer`; else null. (Products are
  /// replaced last first: a copy made for a later product moves, with its
  /// allocation, right before `product`.)
  Value reusableCopy(Value buffer, Operation *product) const {
    auto it = activationCopies.find(buffer);
    if (it == activationCopies.end())
      return nullptr;
    auto [copy, conversion] = it->second;
    if (conversion->getBlock() != product->getBlock())
      return nullptr;
    const bool later = product->isBeforeInBlock(conversion);
    Operation *first = later ? product : conversion;
    Operation *last = later ? conversion : product;
    for (Operation *op = first->getNextNode(); op != last;
         op = op->getNextNode())
      if (mayWrite(op, buffer))
        return nullptr;
    if (!later)
      return copy;
    Operation *alloc = copy.getDefiningOp();
    auto definedAfter = [&](Value size) {
      Operation *def = size.getDefiningOp();
      return def && def->getBlock() == product->getBlock() &&
             !def->isBeforeInBlock(product);
    };
    if (!alloc || llvm::any_of(alloc->getOperands(), definedAfter))
      return nullptr;
    alloc->moveBefore(product);
    conversion->moveBefore(product);
    return copy;
  }
  void recordCopy(Value buffer, Value copy, Operation *conversion) {
    activationCopies[buffer] = {copy, conversion};
  }
  /// A library call this pass made, which writes `output` only.
  void recordCall(Operation *call, Value output) { callOutputs[call] = output; }

private:
  /// Whether `op` may write bytes of `buffer` (an op whose writes it cannot
  /// tell, or one with regions, may).
  bool mayWrite(Operation *op, Value buffer) const {
    auto overlaps = [&](Value written) {
      return !written || !isa<BaseMemRefType>(written.getType()) ||
             !autoglm::disjoint(written, buffer);
    };
    if (auto it = callOutputs.find(op); it != callOutputs.end())
      return overlaps(it->second);
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return llvm::any_of(linalgOp.getDpsInits(), overlaps);
    if (isMemoryEffectFree(op))
      return false;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || op->getNumRegions() > 0)
      return true;
    SmallVector<MemoryEffects::EffectInstance> writes;
    effects.getEffects<MemoryEffects::Write>(writes);
    return llvm::any_of(writes, [&](MemoryEffects::EffectInstance &write) {
      return overlaps(write.getValue());
    });
  }

  ModuleOp module;
  SymbolTable symbols;
  FloatType half;
  llvm::StringMap<memref::GlobalOp> converted;
  DenseMap<Value, std::pair<Value, Operation *>> activationCopies;
  DenseMap<Operation *, Value> callOutputs;
};

std::optional<Epilogue> cudaEpilogue(linalg::GenericOp op,
                                     const ContractionLoops &c,
                                     bool accumulate);

/// The elementwise generic right before `product` (or before a loop
/// between them that does not touch `buffer`) that writes all of
/// `buffer` (a new allocation, contiguous) as its one output
/// without reading it, when nothing reads `buffer` after the product: it
/// can write the 16-bit copy itself. Null otherwise.
linalg::GenericOp producerToNarrow(Value buffer, Operation *product) {
  // A buffer of its own: every later read of it goes through this value
  // (not a model output, nor a view of a buffer read elsewhere).
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return nullptr;
  Operation *before = autoglm::previousEffect(product);
  // Past the other operand's producer (a loop that neither reads nor
  // writes `buffer`), so that both operands' loops can write 16 bits.
  if (auto other = dyn_cast_or_null<linalg::GenericOp>(before))
    if (other.hasPureBufferSemantics() &&
        llvm::all_of(other->getOperands(), [&](Value v) {
          return !isa<BaseMemRefType>(v.getType()) ||
                 autoglm::disjoint(v, buffer);
        }))
      before = autoglm::previousEffect(other);
  auto producer = dyn_cast_or_null<linalg::GenericOp>(before);
  if (!producer || !producer.hasPureBufferSemantics() ||
      producer.getNumDpsInits() != 1 || producer.getDpsInits()[0] != buffer ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
           .isIdentity() ||
      producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)) ||
      llvm::is_contained(producer.getDpsInputs(), buffer) ||
      !autoglm::deadAfter(buffer, product))
    return nullptr;
  if (!cast<MemRefType>(buffer.getType()).getLayout().isIdentity())
    return nullptr;
  // A loop that the product before it takes as its epilogue (cuBLASLt's,
  // in float32) stays as it is.
  if (auto before = dyn_cast_or_null<linalg::GenericOp>(
          autoglm::previousEffect(producer)))
    if (std::optional<ContractionLoops> loops = matchContraction(before)) {
      Operation *init = nullptr;
      const bool accumulate =
          !autoglm::zeroAt(before.getDpsInits()[0], before, init);
      std::optional<Epilogue> epilogue =
          cudaEpilogue(before, *loops, accumulate);
      if (epilogue && epilogue->op == producer)
        return nullptr;
    }
  return producer;
}

/// `buffer` in 16-bit floats with an identity layout, for a half-precision
/// product: a constant weight converted here; a buffer that the
/// elementwise loop right before the product writes, and only the product
/// reads, written in 16 bits by that loop (its value rounded as it is
/// stored); the copy an earlier product's conversion made, if it still
/// holds the buffer's values; anything else converted by a loop (a kernel
/// of its own) right before the product.
Value halfOperand(OpBuilder &b, Location loc, Value buffer, Operation *product,
                  HalfWeights &weights) {
  if (auto get = buffer.getDefiningOp<memref::GetGlobalOp>())
    if (memref::GlobalOp global = weights.convert(get))
      return memref::GetGlobalOp::create(b, loc, global.getType(),
                                         global.getSymName());
  if (Value copy = weights.reusableCopy(buffer, product))
    return copy;
  auto type = cast<MemRefType>(buffer.getType());
  // Symbolic extents: an allocation's own (they come before the loop that
  // may write the copy), else the buffer's.
  SmallVector<Value> sizes;
  if (auto alloc = buffer.getDefiningOp<memref::AllocOp>())
    sizes.append(alloc.getDynamicSizes().begin(),
                 alloc.getDynamicSizes().end());
  else
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        sizes.push_back(memref::DimOp::create(b, loc, buffer, i));
  Value converted = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), weights.type()), sizes);
  if (linalg::GenericOp producer = producerToNarrow(buffer, product)) {
    // The same loop, writing the 16-bit buffer: its block takes the new
    // element type, and its value is truncated as it is yielded.
    OpBuilder at(producer);
    auto narrowed = linalg::GenericOp::create(
        at, producer.getLoc(), TypeRange{}, producer.getDpsInputs(),
        ValueRange{converted}, producer.getIndexingMapsArray(),
        producer.getIteratorTypesArray());
    IRMapping mapping;
    Block *body = producer.getBody();
    Block *block = at.createBlock(&narrowed.getRegion());
    for (BlockArgument arg : body->getArguments())
      mapping.map(arg, block->addArgument(arg.getArgNumber() <
                                                  producer.getNumDpsInputs()
                                              ? arg.getType()
                                              : Type(weights.type()),
                                          arg.getLoc()));
    for (Operation &op : body->without_terminator())
      at.clone(op, mapping);
    Value yielded = mapping.lookupOrDefault(
        cast<linalg::YieldOp>(body->getTerminator()).getValues()[0]);
    linalg::YieldOp::create(
        at, producer.getLoc(),
        ValueRange{arith::TruncFOp::create(at, producer.getLoc(),
                                           weights.type(), yielded)});
    // The allocation must come before the loop that now writes it.
    converted.getDefiningOp()->moveBefore(narrowed);
    producer->erase();
    return converted;
  }
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto conversion = linalg::GenericOp::create(
      b, loc, ValueRange{buffer}, ValueRange{converted}, maps, iterators,
      [&](OpBuilder &nested, Location at, ValueRange args) {
        linalg::YieldOp::create(nested, at,
                                ValueRange{arith::TruncFOp::create(
                                    nested, at, weights.type(), args[0])});
      });
  weights.recordCopy(buffer, converted, conversion);
  return converted;
}

/// The epilogue of a product on the GPU, when its call can compute it:
/// cuBLAS's alpha and accumulation, or cuBLASLt's epilogues (a bias along
/// the columns, then ReLU or tanh-GELU; or a residual with no activation).
/// The output and residual need layouts cuBLAS takes.
std::optional<Epilogue>
cudaEpilogue(linalg::GenericOp op, const ContractionLoops &c, bool accumulate) {
  std::optional<Epilogue> e = matchEpilogue(op, c, accumulate);
  if (!e || e->gated || e->quantize || e->scalarScale || e->columnScale ||
      (e->activation != AGL_ACT_NONE && e->activation != AGL_ACT_RELU &&
       e->activation != AGL_ACT_GELU_TANH) ||
      (e->residual && (e->activation != AGL_ACT_NONE || accumulate)))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> maxRanges = maxLoopRanges(op);
  AffineMap map = op.getIndexingMapsArray()[2];
  for (Value tile : {e->output, e->residual}) {
    if (!tile)
      continue;
    std::optional<LoopLayout> layout = loopLayout(tile, map, ranges, maxRanges);
    if (!layout || !cublasTakes(*layout, c.m, c.n, /*transposable=*/false))
      return std::nullopt;
  }
  return e;
}

/// Whether cuBLAS's own call does the epilogue (an alpha, an in-place
/// residual): there is nothing for cuBLASLt to add.
bool plainCublasDoes(const Epilogue &e) {
  return !e.bias && e.activation == AGL_ACT_NONE && !e.residual;
}

/// Below this many FLOPs per byte of its float32 operands, a product is
/// bound by memory on every GPU the CUDA target supports (their float32
/// ridge points are 10 to 100 FLOP/B).
constexpr double kMemoryBoundFlopsPerByte = 8;

/// Whether a half-precision build keeps a product in float32: both
/// operands are activations (no weight rounded at compile time) and the
/// product is bound by memory at its largest extents, as a decode step's
/// attention over its cache is. Converting them would read each, write
/// half of it and read that again, for a product that only reads.
bool keepsFloatOperands(linalg::GenericOp op, ArrayRef<int64_t> maxRanges) {
  if (llvm::any_of(op.getDpsInputs(), [](Value input) {
        return input.getDefiningOp<memref::GetGlobalOp>() != nullptr;
      }))
    return false;
  if (llvm::any_of(maxRanges, ShapedType::isDynamic))
    return false;
  double flops = 2, bytes = 0;
  for (int64_t range : maxRanges)
    flops *= double(range);
  for (AffineMap map : op.getIndexingMapsArray()) {
    double elements = 1;
    for (unsigned d = 0; d < map.getNumDims(); ++d)
      if (map.isFunctionOfDim(d))
        elements *= double(maxRanges[d]);
    bytes += 4 * elements;
  }
  return flops < kMemoryBoundFlopsPerByte * bytes;
}

/// The work of one library call for product `c`, for --explain and
/// --profile: its FLOPs (2 m n k for each entry of its own batch, the
/// innermost batch loop of more than one iteration; the outer batches are
/// loops around the call) and
/// how many times each operand is read; nothing with symbolic extents.
struct CallWork {
  double flops = 2, batch = 1, m = 0, n = 0, k = 0;
  /// An operand with batch stride 0 is read once for the whole batch.
  double perBatch(Value stride) const {
    return isConstantIntValue(stride, 0) ? 1.0 : batch;
  }
};
std::optional<CallWork> callWork(ArrayRef<int64_t> ranges,
                                 const ContractionLoops &c) {
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  // The batch loops of more than one iteration: the innermost is the
  // call's own, the others repeat the call.
  SmallVector<int64_t> batchLoops = llvm::filter_to_vector(
      c.batch, [&](int64_t loop) { return ranges[loop] != 1; });
  CallWork work;
  for (auto [loop, range] : llvm::enumerate(ranges))
    if (batchLoops.empty() || !llvm::is_contained(batchLoops, loop) ||
        int64_t(loop) == batchLoops.back())
      work.flops *= double(range);
  work.batch = batchLoops.empty() ? 1 : double(ranges[batchLoops.back()]);
  work.m = double(ranges[c.m]);
  work.n = double(ranges[c.n]);
  work.k = double(ranges[c.k]);
  return work;
}

/// A call of agl_cuda_sgemm (cuBLAS, on device buffers) for a product whose
/// extents and strides are constants that cuBLAS takes; other products keep
/// their loops. With `half`, both operands go to 16-bit floats first
/// (contiguous copies) and the call is agl_cuda_gemm_half (float32 sums and
/// output), unless the product keeps float operands
/// (keepsFloatOperands). The elementwise loop after the product goes into the
/// call when cuBLAS or cuBLASLt can do it (cudaEpilogue): then the call is
/// agl_cuda_gemm_epilogue if it needs cuBLASLt's epilogue.
void replaceWithCudaCall(linalg::GenericOp op, const ContractionLoops &c,
                         HalfWeights *half,
                         SmallVectorImpl<ZeroSource> &zeroSources) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> maxRanges = maxLoopRanges(op);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t loops = op.getNumLoops();
  auto layoutOf = [&](Value buffer, AffineMap map) {
    return loopLayout(buffer, map, ranges, maxRanges);
  };
  // Records the call's output, even for a float32 product, so that later
  // products know what it writes.
  HalfWeights *halfCopies = half;
  // (A weight dequantized at run time is written in 16 bits at no cost.)
  if (half && !op->hasAttr(autoglm::kHalfOperandsAttrName) &&
      keepsFloatOperands(op, maxRanges))
    half = nullptr;
  std::optional<LoopLayout> lhs = layoutOf(op.getDpsInputs()[0], maps[0]);
  std::optional<LoopLayout> rhs = layoutOf(op.getDpsInputs()[1], maps[1]);
  std::optional<LoopLayout> out = layoutOf(op.getDpsInits()[0], maps[2]);
  constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
  // Half operands are contiguous copies, which cuBLAS always takes.
  if (!lhs || !rhs || !out ||
      llvm::any_of(
          maxRanges,
          [&](int64_t r) { return ShapedType::isDynamic(r) || r > kMaxInt; }) ||
      (!half && !cublasTakes(*lhs, c.m, c.k)) ||
      (!half && !cublasTakes(*rhs, c.k, c.n)) ||
      !cublasTakes(*out, c.m, c.n, /*transposable=*/false))
    return;

  Operation *init = nullptr;
  bool accumulate = !startsFromZeros(op, init);
  std::optional<Epilogue> epilogue = cudaEpilogue(op, c, accumulate);
  const bool lt = epilogue && !plainCublasDoes(*epilogue);
  Value output = takeEpilogue(op, epilogue);
  accumulate |= epilogue && epilogue->accumulateResidual;
  OpBuilder b(op);
  Location loc = callLocation(op, epilogue);
  Value lhsBuffer = op.getDpsInputs()[0], rhsBuffer = op.getDpsInputs()[1];
  Type element = b.getF32Type();
  if (half) {
    const bool same = lhsBuffer == rhsBuffer;
    lhsBuffer = halfOperand(b, loc, lhsBuffer, op, *half);
    rhsBuffer = same ? lhsBuffer : halfOperand(b, loc, rhsBuffer, op, *half);
    element = half->type();
  }
  OperandView a = viewOf(b, loc, lhsBuffer, maps[0], loops);
  OperandView bv = viewOf(b, loc, rhsBuffer, maps[1], loops);
  OperandView cv = viewOf(b, loc, output, maps[2], loops);
  std::optional<OperandView> residual;
  if (epilogue && epilogue->residual)
    residual = viewOf(b, loc, epilogue->residual, maps[2], loops);
  SmallVector<Value> extents = loopExtents(b, loc, op);
  // As for the CPU kernel: the innermost batch loop of more than one
  // iteration is cuBLAS's batch, the others scf.for loops around the call.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  SmallVector<Value> pointers = {
      a.pointer, bv.pointer, cv.pointer,
      residual ? residual->pointer
               : LLVM::ZeroOp::create(b, loc, ptrType).getResult()};
  OpBuilder::InsertionGuard guard(b);
  CallBatch calls =
      loopOverOuterBatches(b, loc, c.batch, extents,
                           {&a, &bv, &cv, residual ? &*residual : nullptr},
                           pointers, {element, element, Type(), Type()});
  Value ap = pointers[0], bp = pointers[1], cp = pointers[2], rp = pointers[3];
  Value batchCount = calls.count, aBatch = calls.strides[0],
        bBatch = calls.strides[1], cBatch = calls.strides[2],
        rBatch = calls.strides[3];
  auto i64 = [&](Value index) { return autoglm::asI64(b, loc, index); };
  auto i32 = [&](int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 32).getResult();
  };
  // (batch, m, n, k, a, its batch/row/column strides, b, its batch/row/
  //  column strides, c, its batch/row strides, accumulate, alpha[, the
  //  operands' format][, bias, activation, residual, its batch/row
  //  strides])
  SmallVector<Value> args = {
      i64(batchCount),
      i64(extents[c.m]),
      i64(extents[c.n]),
      i64(extents[c.k]),
      ap,
      i64(aBatch),
      i64(a.loopStrides[c.m]),
      i64(a.loopStrides[c.k]),
      bp,
      i64(bBatch),
      i64(bv.loopStrides[c.k]),
      i64(bv.loopStrides[c.n]),
      cp,
      i64(cBatch),
      i64(cv.loopStrides[c.m]),
      i32(accumulate),
      arith::ConstantOp::create(
          b, loc, b.getF32FloatAttr(epilogue ? epilogue->alpha : 1.0f))};
  const int format = !half              ? kCudaFloat
                     : element.isBF16() ? kCudaBf16
                                        : kCudaHalf;
  if (half || lt)
    args.push_back(i32(format));
  if (lt)
    args.append({epilogue->bias
                     ? autoglm::pointerTo(b, loc, epilogue->bias).pointer
                     : LLVM::ZeroOp::create(b, loc, ptrType).getResult(),
                 i32(epilogue->activation), rp, i64(rBatch),
                 i64(residual ? residual->loopStrides[c.m] : zero)});
  SmallVector<Type> types =
      llvm::map_to_vector(args, [](Value v) { return v.getType(); });
  func::FuncOp callee =
      autoglm::declareRuntimeFunction(op->getParentOfType<ModuleOp>(),
                                      lt     ? kCudaGemmEpilogue
                                      : half ? kCudaGemmHalf
                                             : kCudaSgemm,
                                      b.getFunctionType(types, {}));
  callee->setAttr(autoglm::kDeviceLibraryAttrName, b.getUnitAttr());
  auto call = func::CallOp::create(b, loc, callee, args);
  if (halfCopies)
    halfCopies->recordCall(call, output);
  if (Attribute choice = op->getAttr(autoglm::kChoiceAttrName))
    call->setAttr(autoglm::kChoiceAttrName, choice);
  call->setAttr(autoglm::kOperandTypeAttrName,
                b.getStringAttr(!half              ? "f32"
                                : element.isBF16() ? "bf16"
                                                   : "f16"));
  if (std::optional<CallWork> work = callWork(ranges, c)) {
    call->setAttr(autoglm::kFlopsAttrName, b.getF64FloatAttr(work->flops));
    const double m = work->m, n = work->n, k = work->k;
    const double operandBytes = half ? 2 : 4;
    double bytes = m * k * operandBytes * work->perBatch(aBatch) +
                   k * n * operandBytes * work->perBatch(bBatch) +
                   m * n * 4 * work->batch * (accumulate ? 2 : 1);
    if (epilogue && epilogue->bias)
      bytes += n * 4;
    if (residual)
      bytes += m * n * 4 * work->perBatch(rBatch);
    call->setAttr(autoglm::kBytesAttrName, b.getF64FloatAttr(bytes));
  }
  finishKernelCall(call, op, /*blocking=*/nullptr, init, output, epilogue,
                   zeroSources);
}

/// A call of agl_cuda_gemm_int8 (cuBLASLt's integer product on the tensor
/// cores) for a product of int8 operands without zero points, when its
/// layouts are what cuBLASLt takes for one (agl_cuda_int8_takes): A's rows
/// and B's columns contiguous along k (a constant B is copied so, column by
/// column), C's rows contiguous, n, k and the leading dimensions multiples
/// of 4, the operands' offsets too. A product whose C is stored transposed
/// (a convolution's sums, [F, positions]) is C^T = B^T A^T, the weight's
/// copy cuBLASLt's A. Others keep their loops.
void replaceWithCudaInt8Call(linalg::GenericOp op, const IntegerContraction &ic,
                             WeightPacker &packer,
                             SmallVectorImpl<ZeroSource> &zeroSources) {
  const ContractionLoops &c = ic.loops;
  if (!ic.signedLhs || ic.lhsZeroPoint || ic.constantZeroPoint != 0)
    return;
  // The call's rows and columns: the product's, or with C stored
  // transposed (a convolution's [F, positions]), C^T = B^T A^T: rows along
  // n, the operands swapped.
  const int64_t rowLoop = c.transposedOutput ? c.n : c.m;
  const int64_t columnLoop = c.transposedOutput ? c.m : c.n;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> maxRanges = maxLoopRanges(op);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
  if (llvm::any_of(maxRanges, [&](int64_t r) {
        return ShapedType::isDynamic(r) || r > kMaxInt;
      }))
    return;
  if (ShapedType::isDynamic(ranges[columnLoop]) ||
      ranges[columnLoop] % 4 != 0 || ShapedType::isDynamic(ranges[c.k]) ||
      ranges[c.k] % 4 != 0)
    return;
  // Offsets and strides that keep every row 4-byte aligned: multiples of
  // 4 (a loop of one iteration has no stride). A symbolic stride of a
  // contiguous buffer is one when the static extents inside it multiply
  // to one.
  auto aligned = [&](Value buffer, AffineMap map, ArrayRef<int64_t> loops) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) || offset % 4 != 0)
      return false;
    auto multipleOf4 = [&](unsigned dim) {
      if (!ShapedType::isDynamic(strides[dim]))
        return strides[dim] % 4 == 0;
      if (!type.getLayout().isIdentity())
        return false;
      int64_t inside = 1;
      for (int64_t extent : type.getShape().drop_front(dim + 1))
        if (!ShapedType::isDynamic(extent))
          inside *= extent;
      return inside % 4 == 0;
    };
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || !llvm::is_contained(loops, int64_t(dim.getPosition())) ||
          ranges[dim.getPosition()] == 1)
        continue;
      if (!multipleOf4(i))
        return false;
    }
    return true;
  };
  auto unitStride = [&](Value buffer, AffineMap map, int64_t loop) {
    std::optional<LoopLayout> layout =
        loopLayout(buffer, map, ranges, maxRanges);
    return layout && layout->strides[loop] == 1;
  };
  SmallVector<int64_t> outer(c.batch.begin(), c.batch.end());
  SmallVector<int64_t> lhsLoops = outer, cLoops = outer;
  lhsLoops.push_back(c.m);
  cLoops.push_back(rowLoop);
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  if (!unitStride(lhs, maps[0], c.k) || !aligned(lhs, maps[0], lhsLoops) ||
      !unitStride(out, maps[2], columnLoop) || !aligned(out, maps[2], cLoops))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  // B: a constant copied column by column, (n, k); else as it is, if
  // cuBLASLt can read it.
  Value rhsBuffer = rhs;
  AffineMap rhsMap = maps[1];
  if (memref::GlobalOp columns = packer.columnsInt8(rhs, maps[1], c)) {
    rhsBuffer = memref::GetGlobalOp::create(b, loc, columns.getType(),
                                            columns.getSymName());
    rhsMap = AffineMap::get(op.getNumLoops(), 0,
                            {b.getAffineDimExpr(c.n), b.getAffineDimExpr(c.k)},
                            b.getContext());
  } else {
    SmallVector<int64_t> bLoops = outer;
    bLoops.push_back(c.n);
    if (!unitStride(rhs, maps[1], c.k) || !aligned(rhs, maps[1], bLoops))
      return;
  }

  Operation *init = nullptr;
  const bool accumulate = !startsFromZeros(op, init);
  const int64_t loops = op.getNumLoops();
  OperandView a = c.transposedOutput ? viewOf(b, loc, rhsBuffer, rhsMap, loops)
                                     : viewOf(b, loc, lhs, maps[0], loops);
  OperandView bv = c.transposedOutput
                       ? viewOf(b, loc, lhs, maps[0], loops)
                       : viewOf(b, loc, rhsBuffer, rhsMap, loops);
  OperandView cv = viewOf(b, loc, out, maps[2], loops);
  SmallVector<Value> extents = loopExtents(b, loc, op);
  SmallVector<Value> pointers = {a.pointer, bv.pointer, cv.pointer};
  OpBuilder::InsertionGuard guard(b);
  CallBatch calls = loopOverOuterBatches(
      b, loc, c.batch, extents, {&a, &bv, &cv}, pointers,
      {b.getI8Type(), b.getI8Type(), b.getI32Type()});
  auto i64 = [&](Value index) { return autoglm::asI64(b, loc, index); };
  // (batch, m, n, k, a, its batch/row/column strides, b, its batch/row/
  //  column strides, c, its batch/row strides, accumulate)
  SmallVector<Value> args = {
      i64(calls.count),
      i64(extents[rowLoop]),
      i64(extents[columnLoop]),
      i64(extents[c.k]),
      pointers[0],
      i64(calls.strides[0]),
      i64(a.loopStrides[rowLoop]),
      i64(a.loopStrides[c.k]),
      pointers[1],
      i64(calls.strides[1]),
      i64(bv.loopStrides[c.k]),
      i64(bv.loopStrides[columnLoop]),
      pointers[2],
      i64(calls.strides[2]),
      i64(cv.loopStrides[rowLoop]),
      arith::ConstantIntOp::create(b, loc, accumulate, 32)};
  SmallVector<Type> types =
      llvm::map_to_vector(args, [](Value v) { return v.getType(); });
  func::FuncOp callee = autoglm::declareRuntimeFunction(
      op->getParentOfType<ModuleOp>(), kCudaGemmInt8,
      b.getFunctionType(types, {}));
  callee->setAttr(autoglm::kDeviceLibraryAttrName, b.getUnitAttr());
  auto call = func::CallOp::create(b, loc, callee, args);
  call->setAttr(autoglm::kOperandTypeAttrName, b.getStringAttr("i8"));
  if (std::optional<CallWork> work = callWork(ranges, c)) {
    call->setAttr(autoglm::kFlopsAttrName, b.getF64FloatAttr(work->flops));
    // (The lhs and the weight, whichever of A and B each is.)
    const Value lhsBatch = calls.strides[c.transposedOutput ? 1 : 0];
    const Value rhsBatch = calls.strides[c.transposedOutput ? 0 : 1];
    const double m = work->m, n = work->n, k = work->k;
    call->setAttr(
        autoglm::kBytesAttrName,
        b.getF64FloatAttr(m * k * work->perBatch(lhsBatch) +
                          k * n * work->perBatch(rhsBatch) +
                          m * n * 4 * work->batch * (accumulate ? 2 : 1)));
  }
  std::optional<Epilogue> none;
  finishKernelCall(call, op, /*blocking=*/nullptr, init, out, none,
                   zeroSources);
}

/// A constant buffer of `n` (static) float ones: the column scale of an
/// int8 call whose scale is one number.
Value onesOf(OpBuilder &b, Location loc, WeightPacker &packer, Value n) {
  memref::GlobalOp global = packer.ones(*getConstantIntValue(n));
  return memref::GetGlobalOp::create(b, loc, global.getType(),
                                     global.getSymName());
}

/// agl_kernel_gemm_u8s8 for an integer product whose weight is a constant
/// (packed here) and whose output starts from zeros; other integer
/// products stay loops. The int32 sums go to the product's buffer.
void replaceWithInt8KernelCall(linalg::GenericOp op,
                               const IntegerContraction &ic,
                               WeightPacker *packer,
                               SmallVectorImpl<ZeroSource> &zeroSources) {
  const ContractionLoops &c = ic.loops;
  Operation *init = nullptr;
  if (!packer || !autoglm::zeroAt(op.getDpsInits()[0], op, init))
    return;
  // One batch loop at most: the kernel's own.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> batchLoops;
  for (int64_t loop : c.batch)
    if (ranges[loop] != 1)
      batchLoops.push_back(loop);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  memref::GlobalOp packed =
      batchLoops.size() <= 1 ? packer->packInt8(op.getDpsInputs()[1], maps[1], c)
                             : nullptr;
  if (!packed)
    return;
  // The dequantization that follows, with its epilogue, goes into the
  // call (not when the residual is the output: the kernel may keep partial
  // sums in the output between blocks of depths).
  // (A transposed C takes no epilogue: the kernel stores its sums only.)
  std::optional<Epilogue> epilogue =
      c.transposedOutput
          ? std::nullopt
          : matchEpilogue(op, c, /*accumulate=*/false, /*integer=*/true);
  if (epilogue && epilogue->accumulateResidual)
    epilogue.reset();
  Value output = takeEpilogue(op, epilogue);
  OpBuilder b(op);
  Location loc = callLocation(op, epilogue);
  SmallVector<Value> extents = loopExtents(b, loc, op);
  if (init == autoglm::previousEffect(op)) {
    init->erase();
    init = nullptr;
  }
  int64_t loops = op.getNumLoops();
  OperandView lhs = viewOf(b, loc, op.getDpsInputs()[0], maps[0], loops);
  OperandView out = viewOf(b, loc, output, maps.back(), loops);
  std::optional<OperandView> residual;
  if (epilogue && epilogue->residual)
    residual = viewOf(b, loc, epilogue->residual, maps.back(), loops);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value batch = one, aBatch = zero, cBatch = zero, rBatch = zero;
  if (!batchLoops.empty()) {
    batch = extents[batchLoops.back()];
    aBatch = lhs.loopStrides[batchLoops.back()];
    cBatch = out.loopStrides[batchLoops.back()];
    if (residual)
      rBatch = residual->loopStrides[batchLoops.back()];
  }
  auto i64 = [&](Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index)
        .getResult();
  };
  Value zeroPoint =
      arith::ConstantIntOp::create(b, loc, ic.constantZeroPoint, 32);
  if (ic.lhsZeroPoint)
    zeroPoint = arith::ExtUIOp::create(
        b, loc, b.getI32Type(),
        memref::LoadOp::create(b, loc, ic.lhsZeroPoint, ValueRange{}));
  Value weights = memref::GetGlobalOp::create(b, loc, packed.getType(),
                                              packed.getSymName());
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value null = LLVM::ZeroOp::create(b, loc, ptrType);
  auto module = op->getParentOfType<ModuleOp>();
  auto staticExtent = [&](Value extent) {
    return getConstantIntValue(extent).value_or(ShapedType::kDynamic);
  };
  std::string key = autoglm::gemmTuningKey(
      staticExtent(batch), staticExtent(extents[c.m]),
      staticExtent(extents[c.n]), staticExtent(extents[c.k]));
  autoglm::GemmBlocking blocking = autoglm::tunedBlocking(op, key);
  // The float epilogue: act(alpha * scale[col] * sum + bias[col]) +
  // residual, where a scalar or constant scale goes into alpha and the
  // column scale is then 1.
  Value alpha = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(epilogue ? epilogue->alpha : 1.0f));
  Value scale = null, bias = null, rp = null;
  int activation = AGL_ACT_NONE;
  if (epilogue) {
    if (epilogue->scalarScale)
      alpha = arith::MulFOp::create(
          b, loc, alpha,
          memref::LoadOp::create(b, loc, epilogue->scalarScale, ValueRange{}));
    scale = epilogue->columnScale
                ? autoglm::pointerTo(b, loc, epilogue->columnScale).pointer
                : autoglm::pointerTo(b, loc,
                                     onesOf(b, loc, *packer, extents[c.n]))
                      .pointer;
    if (epilogue->bias)
      bias = autoglm::pointerTo(b, loc, epilogue->bias).pointer;
    if (residual)
      rp = residual->pointer;
    activation = epilogue->activationArgument();
  }
  // (batch, m, n, k, a, its batch/row strides, a's zero point, packed b,
  //  c, its batch/row strides, alpha, scale, bias, activation, residual,
  //  its batch/row strides, [the output's scale and zero point,] blocking);
  //  no scale: int32 sums. A transposed C: its batch/column strides, then
  //  the blocking.
  SmallVector<Value> args = {
      i64(batch),
      i64(extents[c.m]),
      i64(extents[c.n]),
      i64(extents[c.k]),
      lhs.pointer,
      i64(aBatch),
      i64(lhs.loopStrides[c.m]),
      zeroPoint,
      autoglm::pointerTo(b, loc, weights).pointer,
      out.pointer,
      i64(cBatch),
      i64(out.loopStrides[c.transposedOutput ? c.n : c.m])};
  if (!c.transposedOutput)
    args.append({alpha, scale, bias,
                 arith::ConstantIntOp::create(b, loc, activation, 32), rp,
                 i64(rBatch),
                 i64(residual ? residual->loopStrides[c.m] : zero)});
  const bool quantize = epilogue && epilogue->quantize;
  if (quantize) {
    args.push_back(arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(epilogue->outScale)));
    args.push_back(
        arith::ConstantIntOp::create(b, loc, epilogue->outZeroPoint, 32));
  }
  args.push_back(autoglm::blockingArgument(b, loc, module, blocking));
  SmallVector<Type> types = llvm::map_to_vector(
      args, [](Value v) { return v.getType(); });
  auto call = func::CallOp::create(
      b, loc,
      autoglm::declareRuntimeFunction(module,
                                      c.transposedOutput ? kGemmInt8Transposed
                                      : quantize         ? kGemmInt8Requantize
                                                         : kGemmInt8,
                                      b.getFunctionType(types, {})),
      args);
  finishKernelCall(call, op, &blocking, init, output, epilogue, zeroSources);
}

struct ContractionsToKernelsPass
    : autoglm::impl::ContractionsToKernelsBase<ContractionsToKernelsPass> {
  using ContractionsToKernelsBase::ContractionsToKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    struct Contraction {
      linalg::GenericOp op;
      ContractionLoops loops;
      std::optional<IntegerContraction> integer;
    };
    SmallVector<Contraction> contractions;
    module.walk([&](linalg::GenericOp op) {
      if (auto loops = matchContraction(op))
        contractions.push_back({op, *loops, std::nullopt});
      else if (auto integer = matchIntegerContraction(op))
        contractions.push_back({op, integer->loops, integer});
    });
    if (contractions.empty())
      return;
    std::optional<WeightPacker> packer;
    // (The CUDA target's int8 products read their weights column by
    // column: the packer makes those copies.)
    if (packWeights || cuda)
      packer.emplace(module, partialPanels);
    // Last first: looking back for the zeros an output holds passes over
    // the earlier products while they are still linalg ops.
    SmallVector<ZeroSource> zeroSources;
    std::optional<HalfWeights> half;
    // Products over a weight dequantized at run time
    // (autoglm-weight-products-to-gpu) take 16-bit operands in any build.
    const bool halfMarked =
        llvm::any_of(contractions, [](const Contraction &c) {
          return c.op->hasAttr(autoglm::kHalfOperandsAttrName);
        });
    if (cuda && (cudaPrecision != "fp32" || halfMarked)) {
      if (cudaPrecision != "fp32" && cudaPrecision != "fp16" &&
          cudaPrecision != "bf16") {
        module.emitError("cuda-precision must be fp32, fp16 or bf16, not '")
            << cudaPrecision << "'";
        return signalPassFailure();
      }
      Builder b(module.getContext());
      half.emplace(module, cudaPrecision == "bf16" ? FloatType(b.getBF16Type())
                                                   : FloatType(b.getF16Type()));
    }
    for (Contraction &c : llvm::reverse(contractions)) {
      if (cuda) {
        HalfWeights *halfOperands =
            half && (cudaPrecision != "fp32" ||
                     c.op->hasAttr(autoglm::kHalfOperandsAttrName))
                ? &*half
                : nullptr;
        if (!c.integer)
          replaceWithCudaCall(c.op, c.loops, halfOperands, zeroSources);
        else if (c.integer->signedLhs)
          replaceWithCudaInt8Call(c.op, *c.integer, *packer, zeroSources);
      } else if (c.integer) {
        // (Signed activations are the CUDA target's.)
        if (!c.integer->signedLhs)
          replaceWithInt8KernelCall(c.op, *c.integer,
                                    packer ? &*packer : nullptr, zeroSources);
      } else {
        replaceWithKernelCall(c.op, c.loops, packer ? &*packer : nullptr,
                              zeroSources);
      }
    }
    // Zero fills that only the products read (before they were calls)
    // are dead now. Earlier fills first: one may feed a later one's copy.
    SmallVector<Operation *> overwriters;
    for (const ZeroSource &source : zeroSources)
      if (source.call)
        overwriters.push_back(source.call);
    llvm::SmallPtrSet<Operation *, 8> erased;
    for (const ZeroSource &source : llvm::reverse(zeroSources)) {
      Operation *fill = source.fill;
      Value buffer = cast<linalg::LinalgOp>(fill).getDpsInits()[0];
      if (!erased.contains(fill) &&
          autoglm::deadAfter(buffer, fill, overwriters)) {
        erased.insert(fill);
        fill->erase();
      }
    }
    if (packer)
      packer->eraseUnused();
    if (half)
      half->eraseUnused();
  }
};

} // namespace
