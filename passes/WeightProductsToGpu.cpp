//===- WeightProductsToGpu.cpp - products with constant weights on a GPU ===//
//
// A decode step reads every weight once, so its time on a GPU is the bytes
// of its weights. Each matrix product whose B is a constant weight (k x n)
// gets the kernel that the GPU's peaks (GpuMachine.h) rate fastest at its
// row count:
//  - a generated GEMV (one gpu.launch): a warp per column of the output
//    streams that column's weights, 16 bytes per lane and step (four steps'
//    loads issued before their arithmetic), turns them into floats in
//    registers and multiplies them with up to kRowsPerBlock rows of A in
//    float32; the lanes' sums meet through gpu.shuffle xor. The
//    elementwise loop right after the product (a bias, a residual, an
//    activation) is computed by the kernel as it stores.
//    Its weights are stored a row per column of B: in 8 or 4 bits with a
//    float scale per column and group of depths (--weight-only: the values
//    of the CPU's quantizer, agl_quantize_b, in agl_quantize_rows' layout),
//    or in the build's precision (f32, f16, bf16);
//  - otherwise the cuBLAS call that autoglm-contractions-to-kernels makes.
//    With quantized weights that call reads a buffer a loop right before it
//    fills with the dequantized weight in 16 bits (the product is marked
//    autoglm.half_operands).
// A quantized product with a symbolic row count that may exceed the largest
// count the GEMV wins at gets both, in an scf.if on the count at run time.
// The comparison is recorded on the kernel or the product
// (autoglm.choice), for the report.
//
//===----------------------------------------------------------------------===//

#include "dialects/FloatValues.h"
#include "passes/BufferFacts.h"
#include "passes/Contractions.h"
#include "passes/GpuMachine.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include "autoglm/kernels_quant.h"

namespace autoglm {
#define GEN_PASS_DEF_WEIGHTPRODUCTSTOGPU
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

constexpr int64_t kWarps = 8;        // columns of the output per block
constexpr int64_t kRowsPerBlock = 8; // rows of A each block multiplies
constexpr int64_t kUnroll = 4;       // steps whose loads go out together
constexpr int64_t kLaneBytes = 16;   // weight bytes a lane loads a step
// The most rows a run-time choice considers for the GEMV.
constexpr int64_t kMaxChoiceRows = 256;
// The fixed cost of a launch the cuBLAS path adds (a conversion or a
// dequantizing loop), in microseconds.
constexpr double kLaunchUs = 2;

/// How a GEMV's weights are stored.
enum class Weights { Int8, Int4, F16, BF16, F32 };

std::optional<Weights> parseWeights(StringRef name) {
  return llvm::StringSwitch<std::optional<Weights>>(name)
      .Case("int8", Weights::Int8)
      .Case("int4", Weights::Int4)
      .Case("f16", Weights::F16)
      .Case("bf16", Weights::BF16)
      .Case("f32", Weights::F32)
      .Default(std::nullopt);
}

int64_t bitsOf(Weights w) {
  switch (w) {
  case Weights::Int8:
    return 8;
  case Weights::Int4:
    return 4;
  case Weights::F16:
  case Weights::BF16:
    return 16;
  case Weights::F32:
    return 32;
  }
  llvm_unreachable("weights");
}

bool quantized(Weights w) { return w == Weights::Int8 || w == Weights::Int4; }

/// The weights' name in --explain's operand column.
StringRef operandName(Weights w) {
  switch (w) {
  case Weights::Int8:
    return "q8";
  case Weights::Int4:
    return "q4";
  case Weights::F16:
    return "gemv-f16";
  case Weights::BF16:
    return "gemv-bf16";
  case Weights::F32:
    return "gemv-f32";
  }
  llvm_unreachable("weights");
}

/// A matrix product (batch.., m, n, k) on memrefs whose second input is a
/// constant weight, read as (k, n) or (n, k), and whose first input's last
/// dimension is k, unit stride.
struct WeightProduct {
  linalg::GenericOp op;
  unsigned m, n, k;
  SmallVector<unsigned> batch;
  memref::GlobalOp weight;
  bool weightRowsAreColumns; // the weight is n x k (B transposed)
  int64_t depth, columns;    // k, n
};

std::optional<unsigned> dimOf(AffineExpr e) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition();
  return std::nullopt;
}

std::optional<WeightProduct> matchWeightProduct(linalg::GenericOp op,
                                                SymbolTable &symbols) {
  std::optional<ContractionLoops> loops = matchContraction(op);
  if (!loops)
    return std::nullopt;
  WeightProduct p;
  p.op = op;
  p.m = loops->m;
  p.n = loops->n;
  p.k = loops->k;
  p.batch.assign(loops->batch.begin(), loops->batch.end());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap lhs = maps[0], rhs = maps[1];
  // The weight: a constant global read whole as (k, n) or (n, k).
  auto get = op.getDpsInputs()[1].getDefiningOp<memref::GetGlobalOp>();
  if (!get || rhs.getNumResults() != 2)
    return std::nullopt;
  p.weight = symbols.lookup<memref::GlobalOp>(get.getName());
  auto weightType = cast<MemRefType>(get.getType());
  if (!p.weight || !p.weight.getConstant() || !weightType.hasStaticShape() ||
      !weightType.getLayout().isIdentity())
    return std::nullopt;
  std::optional<unsigned> r0 = dimOf(rhs.getResult(0)),
                          r1 = dimOf(rhs.getResult(1));
  if (r0 == p.k && r1 == p.n)
    p.weightRowsAreColumns = false;
  else if (r0 == p.n && r1 == p.k)
    p.weightRowsAreColumns = true;
  else
    return std::nullopt;
  p.depth = weightType.getDimSize(p.weightRowsAreColumns ? 1 : 0);
  p.columns = weightType.getDimSize(p.weightRowsAreColumns ? 0 : 1);
  // A's rows (it reads the batch loops and m): its last dimension is k,
  // contiguous.
  auto lhsType = cast<MemRefType>(op.getDpsInputs()[0].getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (dimOf(lhs.getResults().back()) != std::optional<unsigned>(p.k) ||
      failed(lhsType.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return std::nullopt;
  if (p.depth <= 0 || p.columns <= 0)
    return std::nullopt;
  return p;
}

/// The elementwise loop right after a product that reads the product's
/// output whole, and perhaps a bias (indexed by the column) or a residual
/// (the output's shape), and writes elsewhere (or in place) what its body
/// computes of them: a bias, a residual, an activation (GELU, SiLU, ...).
/// The kernel computes that body as it stores.
struct Epilogue {
  /// An input other than the product: its body argument, its buffer and
  /// its map over the product's loops.
  struct Input {
    unsigned argument;
    Value buffer;
    AffineMap map;
  };
  linalg::GenericOp op;
  unsigned productInput;
  SmallVector<Input> others;
  Value output;
};

/// `map`, over the loops of an elementwise loop on the product's output
/// (loop i its dimension i), as a map over the product's loops.
std::optional<AffineMap> overProductLoops(AffineMap map, WeightProduct &p) {
  AffineMap out = p.op.getIndexingMapsArray()[2];
  SmallVector<AffineExpr> results;
  for (AffineExpr e : map.getResults()) {
    std::optional<unsigned> d = dimOf(e);
    if (d)
      results.push_back(out.getResult(*d));
    else if (isa<AffineConstantExpr>(e) &&
             cast<AffineConstantExpr>(e).getValue() == 0)
      results.push_back(e);
    else
      return std::nullopt;
  }
  return AffineMap::get(p.op.getNumLoops(), 0, results, map.getContext());
}

std::optional<Epilogue> matchEpilogue(WeightProduct &p) {
  Value product = p.op.getDpsInits()[0];
  auto next = dyn_cast_or_null<linalg::GenericOp>(nextEffect(p.op));
  if (!next || !next.hasPureBufferSemantics() || next.getNumDpsInits() != 1 ||
      next.getNumParallelLoops() != next.getNumLoops() ||
      next.getNumLoops() != cast<MemRefType>(product.getType()).getRank() ||
      next.payloadUsesValueFromOperand(next.getDpsInitOperand(0)))
    return std::nullopt;
  // A body of side-effect-free ops without regions that does not ask for
  // its loops' indices: the kernel clones it.
  for (Operation &op : next.getBody()->without_terminator())
    if (op.getNumRegions() || !isMemoryEffectFree(&op) ||
        isa<linalg::IndexOp>(op))
      return std::nullopt;
  SmallVector<AffineMap> maps = next.getIndexingMapsArray();
  Epilogue e;
  e.op = next;
  e.output = next.getDpsInits()[0];
  int productInput = -1;
  for (auto [i, input] : llvm::enumerate(next.getDpsInputs())) {
    if (input == product && productInput < 0 && maps[i].isIdentity()) {
      productInput = i;
      continue;
    }
    std::optional<AffineMap> map = overProductLoops(maps[i], p);
    if (!map || !isa<MemRefType>(input.getType()) ||
        !disjoint(input, product) || !canHoistBefore(input, p.op))
      return std::nullopt;
    e.others.push_back({unsigned(i), input, *map});
  }
  if (productInput < 0 || !maps.back().isIdentity() ||
      cast<MemRefType>(e.output.getType()) !=
          cast<MemRefType>(product.getType()))
    return std::nullopt;
  e.productInput = productInput;
  // The kernel writes the epilogue's output while other blocks read A,
  // and stores only that: nothing may read the product's buffer later.
  Value lhs = p.op.getDpsInputs()[0];
  if (!deadAfter(product, next) || !disjoint(e.output, lhs) ||
      !canHoistBefore(e.output, p.op))
    return std::nullopt;
  return e;
}

/// A weight in the GEMV's layout: its rows (one per column of B) and,
/// quantized, their scales.
struct GpuWeight {
  memref::GlobalOp rows, scales;
};

/// What the GPU's peaks say a product of `rows` rows (per batch) costs,
/// in microseconds: as the GEMV, and as cuBLAS (with what it needs
/// first: the activation in 16 bits, the weight dequantized).
struct ProductCosts {
  double gemvUs, cublasUs;
};

ProductCosts estimateCosts(Weights w, int64_t rows, int64_t depth,
                           int64_t columns, int64_t batch, int64_t groupSize,
                           const GpuMachineModel &gpu) {
  const double m = double(rows), k = double(depth), n = double(columns);
  const double bytesPerUs = gpu.bandwidthGBs * 1e3;
  const double bits = double(bitsOf(w));
  double weightBytes = n * k * bits / 8;
  if (quantized(w))
    weightBytes += n * std::ceil(k / double(groupSize)) * 4;
  const double activations = m * k * 4, outputs = m * n * 4;
  // The GEMV: each block of up to kRowsPerBlock rows streams the weights;
  // per weight, an FMA per row and the instructions that turn it into a
  // float (shift, mask, exponent, subtraction for 8 and 4 bits; a shift or
  // a conversion for 16).
  const double unpack = quantized(w) ? 4 : w == Weights::F32 ? 0 : 1.5;
  const double passes = std::ceil(m / double(kRowsPerBlock));
  const double gemvMemory =
      (passes * weightBytes + activations + outputs) / bytesPerUs;
  const double gemvCompute = n * k * (m + unpack) / (gpu.fp32Gflops / 2 * 1e3);
  // cuBLAS: float32 operands on the CUDA cores, or 16-bit ones on the
  // tensor cores after a conversion of A (and a dequantizing loop).
  const double flops = 2 * m * n * k;
  // Per product of the batch, and the launches it adds once.
  double cublas, launches = 0;
  if (w == Weights::F32) {
    cublas = std::max(flops / (gpu.fp32Gflops * 1e3),
                      (n * k * 4 + activations + outputs) / bytesPerUs);
  } else {
    cublas = std::max(flops / (gpu.tensorGflops * 1e3),
                      (n * k * 2 + m * k * 2 + outputs) / bytesPerUs);
    cublas += m * k * 6 / bytesPerUs; // A in 16 bits
    launches += kLaunchUs;
    if (quantized(w)) // dequantized into half once for the batch
      launches += kLaunchUs + (weightBytes + n * k * 2) / bytesPerUs;
  }
  const double b = double(batch);
  return {b * std::max(gemvMemory, gemvCompute), b * cublas + launches};
}

/// The choice between the two, in words, for the report.
std::string describeChoice(bool gemv, ProductCosts costs, int64_t rows,
                           const GpuMachineModel &gpu) {
  double chosen = gemv ? costs.gemvUs : costs.cublasUs;
  double other = gemv ? costs.cublasUs : costs.gemvUs;
  return llvm::formatv("{0} (est. {1:f2} us) over {2} (est. {3:f2} us) at {4} "
                       "rows on {5}",
                       gemv ? "generated GEMV" : "cuBLAS", chosen,
                       gemv ? "cuBLAS" : "generated GEMV", other, rows,
                       gpu.name)
      .str();
}

/// Builds the decode kernel of one product.
class GemvKernel {
public:
  /// The kernel goes where `at` inserts.
  GemvKernel(WeightProduct &p, GpuWeight q, Weights weights, int64_t groupSize,
             OpBuilder at)
      : p(p), q(q), weights(weights), groupSize(groupSize), b(at),
        loc(p.op.getLoc()) {}

  /// With `epilogue`, the kernel stores what the epilogue computes of each
  /// sum in the epilogue's output.
  /// `choice` is why it was chosen, for the report.
  gpu::LaunchOp build(bool accumulate, int64_t rowsPerBlock, StringRef choice,
                      const std::optional<Epilogue> &epilogue = {});

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value minimum(Value x, Value y) {
    return arith::MinUIOp::create(b, loc, x, y);
  }
  Value less(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  /// The indices of `buffer`, read with `map`, at the loops' `values`.
  SmallVector<Value> indicesAt(AffineMap map, ArrayRef<Value> values) {
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(dimOf(e) ? values[*dimOf(e)] : index(0));
    return indices;
  }
  /// A step's 16 bytes of weights as floats: for 8 and 4 bits (4 x i32,
  /// 16 or 32 depths) their values q before the scale, 32 / bits vectors
  /// of 4, vector j holding the depths j, 32 / bits + j, ... (the words'
  /// j-th fields); for bf16 likewise, two vectors of 4; for f16 and f32
  /// one vector of the depths in order.
  SmallVector<Value> unpack(Value loaded);
  /// The sum of the weights `w` (unpack's) times A's row `a` at the
  /// step's depths.
  Value dot(ArrayRef<Value> w, Value a);

  WeightProduct p;
  GpuWeight q;
  Weights weights;
  int64_t groupSize;
  OpBuilder b;
  Location loc;
};

SmallVector<Value> GemvKernel::unpack(Value loaded) {
  Type i32 = b.getI32Type();
  auto words4 = VectorType::get({4}, i32);
  auto floats4 = VectorType::get({4}, b.getF32Type());
  auto splat = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(words4, b.getIntegerAttr(i32, value)));
  };
  switch (weights) {
  case Weights::F32:
    return {loaded};
  case Weights::F16:
    return {arith::ExtFOp::create(b, loc, VectorType::get({8}, b.getF32Type()),
                                  loaded)};
  case Weights::BF16: {
    // A bf16 is the upper half of the float it stands for.
    Value words = vector::BitCastOp::create(b, loc, words4, loaded);
    Value low = arith::ShLIOp::create(b, loc, words, splat(16));
    Value high = arith::AndIOp::create(b, loc, words, splat(0xFFFF0000));
    return {arith::BitcastOp::create(b, loc, floats4, low),
            arith::BitcastOp::create(b, loc, floats4, high)};
  }
  case Weights::Int8:
  case Weights::Int4:
    break;
  }
  Value words = loaded;
  const int64_t bits = bitsOf(weights);
  // A value v in 0..255 becomes the float 2^23 + v by setting the bits of
  // 2^23 above it (one full-rate integer op, where a conversion
  // instruction is quarter-rate or slower); subtracting 2^23 plus the
  // offset of the offset-binary code leaves q exactly.
  const int64_t offset = bits == 8 ? 128 : 8;
  if (bits == 8) // two's complement bytes -> offset binary
    words = arith::XOrIOp::create(b, loc, words, splat(0x80808080));
  Value exponent = splat(0x4B000000);
  Value bias = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(floats4, b.getF32FloatAttr(8388608.0f + offset)));
  SmallVector<Value> q;
  for (int64_t j = 0; j < 32 / bits; ++j) {
    Value field = arith::AndIOp::create(
        b, loc,
        j ? arith::ShRUIOp::create(b, loc, words, splat(j * bits)).getResult()
          : words,
        splat((1 << bits) - 1));
    q.push_back(arith::SubFOp::create(
        b, loc,
        arith::BitcastOp::create(b, loc, floats4,
                                 arith::OrIOp::create(b, loc, field, exponent)),
        bias));
  }
  return q;
}

Value GemvKernel::dot(ArrayRef<Value> q, Value a) {
  if (q.size() == 1) { // the depths in order: FMAs over 4-wide slices
    const int64_t width = cast<VectorType>(a.getType()).getNumElements();
    auto slice = [&](Value v, int64_t first) -> Value {
      SmallVector<int64_t> lanes;
      for (int64_t l = 0; l < 4; ++l)
        lanes.push_back(first + l);
      return width == 4
                 ? v
                 : vector::ShuffleOp::create(b, loc, v, v, lanes).getResult();
    };
    Value sum;
    for (int64_t first = 0; first < width; first += 4) {
      Value w = slice(q[0], first), x = slice(a, first);
      sum = sum ? vector::FMAOp::create(b, loc, w, x, sum).getResult()
                : arith::MulFOp::create(b, loc, w, x).getResult();
    }
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, sum);
  }
  const int64_t perWord = q.size();
  Value sum;
  for (auto [j, values] : llvm::enumerate(q)) {
    SmallVector<int64_t> lanes;
    for (int64_t w = 0; w < 4; ++w)
      lanes.push_back(w * perWord + int64_t(j));
    Value x = vector::ShuffleOp::create(b, loc, a, a, lanes);
    sum = sum ? vector::FMAOp::create(b, loc, values, x, sum).getResult()
              : arith::MulFOp::create(b, loc, values, x).getResult();
  }
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, sum);
}

gpu::LaunchOp GemvKernel::build(bool accumulate, int64_t rowsPerBlock,
                                StringRef choice,
                                const std::optional<Epilogue> &epilogue) {
  linalg::GenericOp op = p.op;
  // The report names both ops' ONNX nodes.
  if (epilogue)
    loc =
        FusedLoc::get(op.getContext(),
                      {op.getLoc(), linalg::GenericOp(epilogue->op).getLoc()});
  Value lhs = op.getDpsInputs()[0], out = op.getDpsInits()[0];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> extents;
  for (Range range :
       cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
    extents.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));
  Value rows = extents[p.m];
  Value batches = index(1);
  for (unsigned loop : p.batch)
    batches = mul(batches, extents[loop]);
  Value rowsGet = memref::GetGlobalOp::create(b, loc, q.rows.getType(),
                                              q.rows.getSymName());
  Value scalesGet =
      q.scales ? memref::GetGlobalOp::create(b, loc, q.scales.getType(),
                                             q.scales.getSymName())
                     .getResult()
               : Value();
  Value gridX = index((p.columns + kWarps - 1) / kWarps);
  Value gridY = arith::CeilDivUIOp::create(b, loc, rows, index(rowsPerBlock));
  Value one = index(1);
  auto launch = gpu::LaunchOp::create(b, loc, gridX, gridY, batches,
                                      index(kWarps * 32), one, one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());

  Value thread = launch.getThreadIds().x;
  Value warp = arith::DivUIOp::create(b, loc, thread, index(32));
  Value lane = arith::RemUIOp::create(b, loc, thread, index(32));
  Value column = add(mul(launch.getBlockIds().x, index(kWarps)), warp);
  // A warp past the last column computes the last one's and stores nothing.
  Value lastColumn = index(p.columns - 1);
  Value readColumn = minimum(column, lastColumn);
  Value firstRow = mul(launch.getBlockIds().y, index(rowsPerBlock));
  Value lastRow = arith::SubIOp::create(b, loc, rows, one);
  // The loops' values at a row: the batch loops from the block's z, the
  // column, the row.
  SmallVector<Value> loopValues(op.getNumLoops(), index(0));
  Value rest = launch.getBlockIds().z;
  for (unsigned loop : llvm::reverse(p.batch)) {
    loopValues[loop] = arith::RemUIOp::create(b, loc, rest, extents[loop]);
    rest = arith::DivUIOp::create(b, loc, rest, extents[loop]);
  }
  loopValues[p.n] = readColumn;
  SmallVector<Value> rowOf;
  for (int64_t r = 0; r < rowsPerBlock; ++r)
    rowOf.push_back(minimum(add(firstRow, index(r)), lastRow));

  const int64_t depthsPerStep = kLaneBytes * 8 / bitsOf(weights);
  const int64_t steps = p.depth / depthsPerStep; // per column
  const int64_t unroll = std::min<int64_t>(kUnroll, (steps + 31) / 32);
  const int64_t iterations = (steps + 32 * unroll - 1) / (32 * unroll);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  // A's rows are 16-byte aligned when A is a whole buffer (its depth is a
  // multiple of 32 floats).
  auto lhsType = cast<MemRefType>(lhs.getType());
  llvm::MaybeAlign lhsAlign;
  if (lhsType.getLayout().isIdentity())
    lhsAlign = llvm::Align(16);

  SmallVector<Value> init(rowsPerBlock, zero);
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(iterations), one, init);
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    Value iteration = loop.getInductionVar();
    SmallVector<Value> sums(loop.getRegionIterArgs());
    Type stored = q.rows.getType().getElementType();
    const int64_t perLoad =
        kLaneBytes * 8 / int64_t(stored.getIntOrFloatBitWidth());
    auto loadType = VectorType::get({perLoad}, stored);
    auto floats = VectorType::get({depthsPerStep}, b.getF32Type());
    // All of the iteration's loads first: they are in flight together.
    SmallVector<Value> words, scales, valid, depths;
    for (int64_t u = 0; u < unroll; ++u) {
      Value step = add(
          mul(add(mul(iteration, index(unroll)), index(u)), index(32)), lane);
      valid.push_back(less(step, index(steps)));
      Value readStep = minimum(step, index(steps - 1));
      Value depth = mul(readStep, index(depthsPerStep));
      depths.push_back(depth);
      words.push_back(vector::LoadOp::create(
          b, loc, loadType, rowsGet,
          ValueRange{readColumn, mul(readStep, index(perLoad))},
          /*nontemporal=*/false, llvm::Align(16)));
      if (scalesGet)
        scales.push_back(memref::LoadOp::create(
            b, loc, scalesGet,
            ValueRange{readColumn, arith::DivUIOp::create(b, loc, depth,
                                                          index(groupSize))}));
    }
    for (int64_t u = 0; u < unroll; ++u) {
      SmallVector<Value> q = unpack(words[u]);
      loopValues[p.k] = depths[u];
      for (int64_t r = 0; r < rowsPerBlock; ++r) {
        loopValues[p.m] = rowOf[r];
        Value a = vector::LoadOp::create(b, loc, floats, lhs,
                                         indicesAt(maps[0], loopValues),
                                         /*nontemporal=*/false, lhsAlign);
        Value scaled = dot(q, a);
        if (scalesGet)
          scaled = arith::MulFOp::create(b, loc, scaled, scales[u]);
        sums[r] = arith::AddFOp::create(
            b, loc, sums[r],
            arith::SelectOp::create(b, loc, valid[u], scaled, zero));
      }
    }
    scf::YieldOp::create(b, loc, sums);
  }
  // The lanes' sums, combined across the warp; lane 0 stores them.
  SmallVector<Value> totals(loop.getResults());
  gpu::ShuffleOp first;
  for (Value &total : totals)
    for (int offset = 16; offset >= 1; offset /= 2) {
      auto shuffle =
          gpu::ShuffleOp::create(b, loc, total, offset,
                                 /*width=*/32, gpu::ShuffleMode::XOR);
      first = first ? first : shuffle;
      total = arith::AddFOp::create(b, loc, total, shuffle.getShuffleResult());
    }
  // What --explain rates the kernel by, on an op that stays (the loop may
  // fold away): its FLOPs and its operands.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!llvm::any_of(ranges, ShapedType::isDynamic)) {
    double flops = 2;
    for (int64_t range : ranges)
      flops *= double(range);
    first->setAttr(kFlopsAttrName, b.getF64FloatAttr(flops));
  }
  first->setAttr(kOperandTypeAttrName, b.getStringAttr(operandName(weights)));
  first->setAttr(kChoiceAttrName, b.getStringAttr(choice));
  Value stores = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0)),
      less(column, index(p.columns)));
  auto ifStores = scf::IfOp::create(b, loc, stores, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard inIf(b);
    b.setInsertionPointToStart(ifStores.thenBlock());
    loopValues[p.n] = column;
    for (int64_t r = 0; r < rowsPerBlock; ++r) {
      Value row = add(firstRow, index(r));
      auto ifRow = scf::IfOp::create(b, loc, less(row, rows),
                                     /*withElseRegion=*/false);
      OpBuilder::InsertionGuard inRow(b);
      b.setInsertionPointToStart(ifRow.thenBlock());
      loopValues[p.m] = row;
      SmallVector<Value> at = indicesAt(maps[2], loopValues);
      Value value = totals[r];
      if (accumulate)
        value = arith::AddFOp::create(
            b, loc, memref::LoadOp::create(b, loc, out, at), value);
      if (epilogue) {
        // The epilogue's body, on this sum and the other inputs' values.
        Block *body = linalg::GenericOp(epilogue->op).getBody();
        IRMapping values;
        values.map(body->getArgument(epilogue->productInput), value);
        for (const Epilogue::Input &input : epilogue->others)
          values.map(body->getArgument(input.argument),
                     memref::LoadOp::create(b, loc, input.buffer,
                                            indicesAt(input.map, loopValues)));
        for (Operation &op : body->without_terminator())
          b.clone(op, values);
        value = values.lookup(body->getTerminator()->getOperand(0));
      }
      memref::StoreOp::create(b, loc, value, epilogue ? epilogue->output : out,
                              at);
    }
  }
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

/// A loop nest (right before the product) that writes the weight's float
/// values, dequantized, into a new buffer of the weight's shape, which the
/// product then reads.
void dequantizeBeforeProduct(WeightProduct &p, GpuWeight q, int bits,
                             int64_t groupSize) {
  OpBuilder b(p.op);
  Location loc = p.op.getLoc();
  auto weightType = cast<MemRefType>(p.op.getDpsInputs()[1].getType());
  Value rows = memref::GetGlobalOp::create(b, loc, q.rows.getType(),
                                           q.rows.getSymName());
  Value scales = memref::GetGlobalOp::create(b, loc, q.scales.getType(),
                                             q.scales.getSymName());
  Value buffer = memref::AllocOp::create(b, loc, weightType);
  // Over the weight's (d0, d1): the column of B and its depth.
  MLIRContext *context = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, context),
             d1 = getAffineDimExpr(1, context);
  AffineExpr column = p.weightRowsAreColumns ? d0 : d1;
  AffineExpr depth = p.weightRowsAreColumns ? d1 : d0;
  const unsigned depthDim = p.weightRowsAreColumns ? 1 : 0;
  const int64_t perWord = 32 / bits;
  SmallVector<AffineMap> maps = {
      AffineMap::get(2, 0, {column, depth.floorDiv(perWord)}, context),
      AffineMap::get(2, 0, {column, depth.floorDiv(groupSize)}, context),
      AffineMap::getMultiDimIdentityMap(2, context)};
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, ValueRange{rows, scales}, ValueRange{buffer}, maps, iterators,
      [&](OpBuilder &nested, Location at, ValueRange args) {
        Type i32 = nested.getI32Type();
        auto word = [&](int64_t v) {
          return arith::ConstantIntOp::create(nested, at, v, 32).getResult();
        };
        // The depth's field of the word: bits (depth % perWord) * bits.
        Value place = arith::IndexCastOp::create(
            nested, at, i32,
            arith::RemUIOp::create(
                nested, at, linalg::IndexOp::create(nested, at, depthDim),
                arith::ConstantIndexOp::create(nested, at, perWord)));
        Value field = arith::ShRUIOp::create(
            nested, at, args[0],
            arith::MulIOp::create(nested, at, place, word(bits)));
        Value q;
        if (bits == 8) {
          q = arith::TruncIOp::create(nested, at, nested.getI8Type(), field);
        } else {
          q = arith::SubIOp::create(
              nested, at, arith::AndIOp::create(nested, at, field, word(15)),
              word(8));
        }
        Value weight = arith::MulFOp::create(
            nested, at,
            arith::SIToFPOp::create(nested, at, nested.getF32Type(), q),
            args[1]);
        linalg::YieldOp::create(nested, at, weight);
      });
  p.op->setOperand(1, buffer);
  p.op->setAttr(kHalfOperandsAttrName, b.getUnitAttr());
}

/// What becomes of one product.
struct Plan {
  enum Kind { Gemv, Cublas, RunTimeChoice } kind = Cublas;
  std::optional<int64_t> rows; // its largest row count, if bounded
  int64_t gemvMaxRows = 0;     // RunTimeChoice: the GEMV up to this many
  std::string choice;          // why, for the report
};

struct WeightProductsToGpuPass
    : autoglm::impl::WeightProductsToGpuBase<WeightProductsToGpuPass> {
  using WeightProductsToGpuBase::WeightProductsToGpuBase;

  void runOnOperation() override;

private:
  Plan plan(const WeightProduct &p, Weights format,
            const GpuMachineModel &gpu) const;
};

Plan WeightProductsToGpuPass::plan(const WeightProduct &p, Weights format,
                                   const GpuMachineModel &gpu) const {
  SmallVector<int64_t> ranges = maxLoopRanges(p.op);
  int64_t batch = 1;
  for (unsigned loop : p.batch)
    if (!ShapedType::isDynamic(ranges[loop]))
      batch *= ranges[loop];
  auto costs = [&](int64_t rows) {
    return estimateCosts(format, rows, p.depth, p.columns, batch, groupSize,
                         gpu);
  };
  const bool symbolic =
      ShapedType::isDynamic(linalg::GenericOp(p.op).getStaticLoopRanges()[p.m]);
  Plan plan;
  if (!ShapedType::isDynamic(ranges[p.m]))
    plan.rows = ranges[p.m];
  // The most rows the GEMV takes: given, or the most up to which the
  // estimates rate it faster at every count.
  int64_t limit = maxGemvRows;
  if (limit < 0) {
    limit = 0;
    const int64_t last =
        plan.rows && !symbolic
            ? *plan.rows
            : std::min(plan.rows.value_or(kMaxChoiceRows), kMaxChoiceRows);
    if (!symbolic) { // one count
      ProductCosts c = costs(last);
      limit = c.gemvUs <= c.cublasUs ? last : 0;
    } else {
      while (limit < last) {
        ProductCosts c = costs(limit + 1);
        if (c.gemvUs > c.cublasUs)
          break;
        ++limit;
      }
    }
  }
  const std::string given =
      maxGemvRows >= 0
          ? llvm::formatv(" (max-gemv-rows={0})", int64_t(maxGemvRows)).str()
          : "";
  // A symbolic count that may exceed the limit: with a quantized weight,
  // which the GEMV and the dequantizing loop both read, both ways, chosen
  // at run time; a float one would be held twice (the GEMV's rows and
  // cuBLAS's copy): cuBLAS.
  if (plan.rows && *plan.rows <= limit) {
    plan.kind = Plan::Gemv;
  } else if (symbolic && quantized(format) && limit > 0) {
    plan.kind = Plan::RunTimeChoice;
    plan.gemvMaxRows = limit;
    plan.choice = llvm::formatv("generated GEMV up to {0} rows, cuBLAS above "
                                "(chosen at run time){1}",
                                limit, given)
                      .str();
    return plan;
  }
  if (!plan.rows) {
    plan.choice = "cuBLAS: no bound on the row count when compiling";
  } else if (maxGemvRows >= 0) {
    plan.choice =
        (plan.kind == Plan::Gemv ? "generated GEMV" : "cuBLAS") + given;
  } else {
    plan.choice = describeChoice(plan.kind == Plan::Gemv, costs(*plan.rows),
                                 *plan.rows, gpu);
  }
  return plan;
}

void WeightProductsToGpuPass::runOnOperation() {
  ModuleOp module = getOperation();
  std::optional<Weights> format = parseWeights(weightFormat);
  if (!format || groupSize <= 0 || groupSize % 32 != 0) {
    module.emitError("autoglm-weight-products-to-gpu: weights must be int8, "
                     "int4, f16, bf16 or f32 and group-size a positive "
                     "multiple of 32, not ")
        << weightFormat << " and " << static_cast<int64_t>(groupSize);
    return signalPassFailure();
  }
  const int64_t bits = bitsOf(*format);
  const GpuMachineModel gpu = referenceGpu(gpuArch);
  SymbolTable symbols(module);
  SmallVector<WeightProduct> products;
  module.walk([&](linalg::GenericOp op) {
    std::optional<WeightProduct> p = matchWeightProduct(op, symbols);
    // Each lane's step of depths lies in one group (group sizes are
    // multiples of 32); the weight's rows are 16-byte aligned.
    if (p && p->depth % (quantized(*format) ? 32 : 128 / bits) == 0)
      products.push_back(*p);
  });
  if (products.empty())
    return;

  SmallVector<Plan> plans;
  for (WeightProduct &p : products)
    plans.push_back(plan(p, *format, gpu));
  // A float weight goes to the GEMV's layout only if every reader of it
  // does (or the GEMV reads it as it is): else the model would hold it
  // twice.
  if (!quantized(*format)) {
    llvm::StringMap<int64_t> gemvReaders, readers;
    for (auto [p, plan] : llvm::zip(products, plans))
      gemvReaders[p.weight.getSymName()] += plan.kind == Plan::Gemv;
    module.walk([&](memref::GetGlobalOp get) {
      readers[get.getName()] += llvm::range_size(get->getUsers());
    });
    for (auto [p, plan] : llvm::zip(products, plans)) {
      const bool inPlace = *format == Weights::F32 && p.weightRowsAreColumns;
      if (plan.kind != Plan::Gemv || inPlace ||
          readers[p.weight.getSymName()] == gemvReaders[p.weight.getSymName()])
        continue;
      plan.kind = Plan::Cublas;
      plan.choice = "cuBLAS: other products that cuBLAS runs read the same "
                    "weight (one copy of it)";
    }
  }

  OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
  llvm::StringMap<GpuWeight> converted;
  int64_t floatBytes = 0, quantizedBytes = 0;
  auto global = [&](Location loc, StringRef symbol, RankedTensorType type,
                    ElementsAttr data) {
    auto op = memref::GlobalOp::create(
        top, loc, symbol, top.getStringAttr("private"),
        MemRefType::get(type.getShape(), type.getElementType()), data,
        /*constant=*/true, top.getI64IntegerAttr(64));
    symbols.insert(op); // renames on a clash
    return op;
  };
  // The weight in the GEMV's layout, made once; nothing if its values
  // cannot be read.
  auto convert = [&](WeightProduct &p) -> std::optional<GpuWeight> {
    if (auto it = converted.find(p.weight.getSymName()); it != converted.end())
      return it->second;
    const int64_t k = p.depth, n = p.columns;
    // A float32 weight stored a row per column is the GEMV's already.
    if (*format == Weights::F32 && p.weightRowsAreColumns)
      return converted[p.weight.getSymName()] = GpuWeight{p.weight, nullptr};
    std::optional<SmallVector<float>> values =
        floatValues(p.weight.getInitialValueAttr());
    if (!values)
      return std::nullopt;
    // The weight's element (p, j) of B, whichever way it is stored.
    const int64_t rs = p.weightRowsAreColumns ? 1 : n;
    const int64_t cs = p.weightRowsAreColumns ? k : 1;
    GpuWeight &q = converted[p.weight.getSymName()];
    Location loc = p.weight.getLoc();
    if (!quantized(*format)) {
      Type element = *format == Weights::F16    ? Type(top.getF16Type())
                     : *format == Weights::BF16 ? Type(top.getBF16Type())
                                                : Type(top.getF32Type());
      auto type = RankedTensorType::get({n, k}, element);
      const std::string name =
          (p.weight.getSymName() + "_rows_" + weightFormat).str();
      auto fill = [&](auto out, auto convertValue) {
        parallelFor(&getContext(), 0, n, [&](size_t j) {
          for (int64_t d = 0; d < k; ++d)
            out[j * k + d] = convertValue((*values)[d * rs + j * cs]);
        });
      };
      ElementsAttr data =
          *format == Weights::F32
              ? newConstant<float>(type, name,
                                   [&](MutableArrayRef<float> out) {
                                     fill(out, [](float v) { return v; });
                                   })
              : newConstant<uint16_t>(type, name,
                                      [&](MutableArrayRef<uint16_t> out) {
                                        if (*format == Weights::F16)
                                          fill(out, agl_f16_from_float);
                                        else
                                          fill(out, agl_bf16_from_float);
                                      });
      q.rows = global(loc, name, type, data);
      return q;
    }
    const int64_t groups = (k + groupSize - 1) / groupSize;
    const int64_t rowBytes = bits == 8 ? k : k / 2;
    // Rows of 32-bit words: the kernel loads four at a time and takes
    // their bytes (or nibbles) apart in order, little-endian.
    const int64_t rowWords = rowBytes / 4;
    auto rowsType = RankedTensorType::get({n, rowWords}, top.getI32Type());
    auto scalesType = RankedTensorType::get({n, groups}, top.getF32Type());
    std::vector<float> scaleValues(n * groups);
    const std::string name =
        (p.weight.getSymName() + (bits == 8 ? "_q8" : "_q4")).str();
    auto rowsData =
        newConstant<int32_t>(rowsType, name, [&](MutableArrayRef<int32_t> out) {
          // Columns in parallel: each writes its own rows and scales.
          const int64_t chunk = 64;
          parallelFor(&getContext(), 0, (n + chunk - 1) / chunk, [&](size_t c) {
            int64_t first = c * chunk;
            int64_t count = std::min(chunk, n - first);
            agl_quantize_rows(values->data() + first * cs, k, count, rs, cs,
                              bits, groupSize, out.data() + first * rowWords,
                              scaleValues.data() + first * groups);
          });
        });
    auto scalesData = newConstant<float>(scalesType, name + "_scales",
                                         [&](MutableArrayRef<float> out) {
                                           llvm::copy(scaleValues, out.begin());
                                         });
    q.rows = global(loc, name, rowsType, rowsData);
    q.scales = global(loc, name + "_scales", scalesType, scalesData);
    floatBytes += k * n * 4;
    quantizedBytes += n * rowBytes + n * groups * 4;
    return q;
  };

  int64_t quantizedProducts = 0;
  for (auto [p, plan] : llvm::zip(products, plans)) {
    if (plan.kind == Plan::Cublas && !quantized(*format)) {
      p.op->setAttr(kChoiceAttrName, top.getStringAttr(plan.choice));
      continue;
    }
    std::optional<GpuWeight> weight = convert(p);
    if (!weight)
      continue;
    GpuWeight q = *weight;
    quantizedProducts += quantized(*format);
    if (plan.kind == Plan::Cublas) {
      dequantizeBeforeProduct(p, q, bits, groupSize);
      p.op->setAttr(kChoiceAttrName, top.getStringAttr(plan.choice));
      continue;
    }
    Operation *init = nullptr;
    const bool accumulate = !zeroAt(p.op.getDpsInits()[0], p.op, init);
    if (plan.kind == Plan::Gemv) {
      const int64_t rowsPerBlock = std::min(kRowsPerBlock, *plan.rows);
      if (init && init == previousEffect(p.op))
        init->erase();
      std::optional<Epilogue> epilogue = matchEpilogue(p);
      if (epilogue) {
        hoistBefore(epilogue->output, p.op);
        for (const Epilogue::Input &input : epilogue->others)
          hoistBefore(input.buffer, p.op);
      }
      GemvKernel(p, q, *format, groupSize, OpBuilder(p.op))
          .build(accumulate, rowsPerBlock, plan.choice, epilogue);
      if (epilogue)
        epilogue->op->erase();
      p.op->erase();
      continue;
    }
    // Symbolic rows that may be many: the choice at run time. (The
    // output's zero fill stays for the product, which adds to it.)
    OpBuilder b(p.op);
    Location loc = p.op.getLoc();
    Value rowCount = getValueOrCreateConstantIndexOp(
        b, loc,
        cast<linalg::LinalgOp>(p.op.getOperation())
            .createLoopRanges(b, loc)[p.m]
            .size);
    Value few = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule, rowCount,
        arith::ConstantIndexOp::create(b, loc, plan.gemvMaxRows));
    auto choice = scf::IfOp::create(b, loc, few, /*withElseRegion=*/true);
    GemvKernel(p, q, *format, groupSize,
               OpBuilder::atBlockTerminator(choice.thenBlock()))
        .build(accumulate, kRowsPerBlock, plan.choice);
    p.op->moveBefore(choice.elseBlock()->getTerminator());
    dequantizeBeforeProduct(p, q, bits, groupSize);
    p.op->setAttr(kChoiceAttrName, top.getStringAttr(plan.choice));
  }
  // The float weights nothing reads any more.
  module.walk([&](memref::GetGlobalOp get) {
    if (get->use_empty() && converted.count(get.getName()))
      get->erase();
  });
  for (auto global :
       llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
    if (converted.count(global.getSymName()) &&
        SymbolTable::symbolKnownUseEmpty(global, module)) {
      dropOwnedBlob(global.getInitialValueAttr());
      global.erase();
    }
  if (quantizedProducts == 0)
    return;
  Builder attrs(&getContext());
  module->setAttr(
      "autoglm.weight_only",
      attrs.getDictionaryAttr(
          {attrs.getNamedAttr("format", attrs.getStringAttr(weightFormat)),
           attrs.getNamedAttr("bits", attrs.getI64IntegerAttr(bits)),
           attrs.getNamedAttr("products",
                              attrs.getI64IntegerAttr(quantizedProducts)),
           attrs.getNamedAttr("float_bytes",
                              attrs.getI64IntegerAttr(floatBytes)),
           attrs.getNamedAttr("quantized_bytes",
                              attrs.getI64IntegerAttr(quantizedBytes)),
           attrs.getNamedAttr("group_size",
                              attrs.getI64IntegerAttr(groupSize))}));
}

} // namespace
