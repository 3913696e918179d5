//===- AttentionToGpu.cpp - flash attention on the tensor cores -----------===//
//
// Each autoglm.attention_buffers becomes one gpu.launch in the style of
// flash attention: a block of four warps takes 64 query rows of one head
// and streams the keys and values through shared memory, 32 positions at a
// time, converted to 16 bits as they are staged. Each warp computes its 16
// rows' scores on the tensor cores (gpu.subgroup_mma_*: f16 operands, f32
// sums); two of its lanes per row then update the row's running maximum
// and sum and write the probabilities in 16 bits, and the warp adds those
// times the values to its f32 accumulators, first scaled by how much the
// row's maximum grew. The Sq x Sk scores never reach memory, and nothing
// but the operands and the output is read or written.
//
//===----------------------------------------------------------------------===//

#include "passes/AttentionToGpu.h"
#include "dialects/AutoGLMDialect.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace autoglm {
#define GEN_PASS_DEF_ATTENTIONTOGPU
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

constexpr int64_t kRows = kFlashRowsPerBlock; // query rows per block
constexpr int64_t kKeys = 32;                 // key positions per step
constexpr int64_t kFragment = kFlashFragment; // a tensor-core tile's side
constexpr int64_t kWarps = kRows / kFragment; // one per 16 query rows
constexpr int64_t kThreads = kWarps * 32;
// Row strides of the shared score and probability tiles: multiples of what
// the tensor cores' loads take (4 floats, 8 halves), padded so that the
// threads reading a column of rows hit fewer of the same banks.
constexpr int64_t kScoreStride = kKeys + 4;
constexpr int64_t kProbStride = kKeys + 8;

/// Builds the kernel of one attention_buffers op.
class FlashKernel {
public:
  FlashKernel(AttentionBuffersOp op)
      : op(op), b(op), loc(op.getLoc()), f16(b.getF16Type()),
        f32(b.getF32Type()) {
    auto q = op.getQuery().getType(), k = op.getKey().getType(),
         v = op.getValue().getType();
    headDim = q.getDimSize(3);
    valueDim = v.getDimSize(3);
    group = q.getDimSize(1) / k.getDimSize(1);
  }

  gpu::LaunchOp build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value real(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value lessThan(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value extent(Value buffer, unsigned dim) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.isDynamicDim(dim))
      return index(type.getDimSize(dim));
    return memref::DimOp::create(b, loc, buffer, dim);
  }
  /// A 16x16 fragment type of the tensor cores.
  gpu::MMAMatrixType fragment(Type element, StringRef operand) {
    return gpu::MMAMatrixType::get({kFragment, kFragment}, element, operand);
  }
  Value loadFragment(Value shared, Value offset, int64_t stride, Type element,
                     StringRef operand, bool transpose = false) {
    auto load = gpu::SubgroupMmaLoadMatrixOp::create(
        b, loc, fragment(element, operand), shared, ValueRange{offset},
        b.getIndexAttr(stride), transpose ? b.getUnitAttr() : UnitAttr());
    return load.getResult();
  }
  /// `body` for each of `count` items (a multiple of kThreads), each
  /// taken by every kThreads-th thread, unrolled: the loads of all of a
  /// thread's items are in flight at once.
  template <typename Body> void forEachItem(int64_t count, Body body) {
    assert(count % kThreads == 0 && "items not spread evenly");
    for (int64_t i = 0; i < count / kThreads; ++i)
      body(add(thread, index(i * kThreads)));
  }
  template <typename Body> void ifThen(Value condition, Body body) {
    auto branch = scf::IfOp::create(b, loc, condition);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    body();
  }
  /// Copies `rows` rows of `cols` floats from `load(row, col)` into the
  /// staging buffer at `offset`, row after row, in 16 bits: each thread
  /// loads all of its elements, then stores them.
  void stage(int64_t offset, int64_t rows, int64_t cols,
             function_ref<Value(Value, Value)> load) {
    SmallVector<std::pair<Value, Value>> loaded;
    forEachItem(rows * cols, [&](Value item) {
      Value row = arith::DivUIOp::create(b, loc, item, index(cols));
      Value col = arith::RemUIOp::create(b, loc, item, index(cols));
      loaded.emplace_back(item, load(row, col));
    });
    for (auto [item, value] : loaded)
      memref::StoreOp::create(b, loc,
                              arith::TruncFOp::create(b, loc, f16, value),
                              staging, ValueRange{add(item, index(offset))});
  }
  /// Element `index` of `buffer`, or 0 beyond `limit` (read at the last
  /// valid index instead, so that nothing out of bounds is loaded).
  Value loadOrZero(Value buffer, ArrayRef<Value> indices, unsigned dim,
                   Value limit) {
    SmallVector<Value> clamped(indices);
    Value inBounds = lessThan(indices[dim], limit);
    Value last = arith::SubIOp::create(b, loc, limit, index(1));
    clamped[dim] = arith::MinUIOp::create(b, loc, indices[dim], last);
    Value value = memref::LoadOp::create(b, loc, buffer, clamped);
    return arith::SelectOp::create(b, loc, inBounds, value, real(0));
  }
  void rate(Operation *op);
  Value maskAt(Value row, Value key);
  Value score(Value row, Value rowInTile, Value key, Value keyInTile);
  void updateRowStatistics(Value firstKey);
  void writeFactors(Value row, Value factor);

  AttentionBuffersOp op;
  OpBuilder b;
  Location loc;
  Type f16, f32;
  int64_t headDim, valueDim, group;
  // In the kernel.
  Value thread, warp, batch, head, kvHead, firstRow, queryLength, keyLength;
  Value staging, scores, probabilities, factors, rowMax, rowSum;
};

/// What --explain rates the kernel by, on an op of its body (which moves
/// with it when it is outlined): the two products' arithmetic (half of it,
/// about, under a causal mask), on the tensor cores in 16 bits.
void FlashKernel::rate(Operation *loop) {
  auto q = op.getQuery().getType(), k = op.getKey().getType();
  if (q.hasStaticShape() && k.hasStaticShape()) {
    double flops = 2.0 *
                   double(q.getDimSize(0) * q.getDimSize(1) * q.getDimSize(2) *
                          k.getDimSize(2)) *
                   double(headDim + valueDim);
    if (op.getCausal())
      flops /= 2;
    loop->setAttr(kFlopsAttrName, b.getF64FloatAttr(flops));
  }
  loop->setAttr(kOperandTypeAttrName, b.getStringAttr("f16"));
}

Value FlashKernel::maskAt(Value row, Value key) {
  // The mask broadcasts to [B, H, Sq, Sk] from the right; an extent of 1
  // (also a symbolic one at run time) is read at 0.
  Value mask = op.getMask();
  auto type = cast<MemRefType>(mask.getType());
  Value full[] = {batch, head, row, key};
  SmallVector<Value> indices;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value at = full[4 - type.getRank() + d];
    if (type.getDimSize(d) == 1) {
      at = index(0);
    } else if (type.isDynamicDim(d)) {
      Value single = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           extent(mask, d), index(1));
      at = arith::SelectOp::create(b, loc, single, index(0), at);
    }
    indices.push_back(at);
  }
  return memref::LoadOp::create(b, loc, mask, indices);
}

/// Score of query row `row` against key position `key`, -inf where the
/// key is left out (beyond the keys, a causal limit, a row past the end).
Value FlashKernel::score(Value row, Value rowInTile, Value key,
                         Value keyInTile) {
  Value at = add(mul(rowInTile, index(kScoreStride)), keyInTile);
  Value raw = memref::LoadOp::create(b, loc, scores, ValueRange{at});
  Value scaled = arith::MulFOp::create(
      b, loc, raw, arith::ConstantOp::create(b, loc, op.getScaleAttr()));
  Value valid = arith::AndIOp::create(b, loc, lessThan(key, keyLength),
                                      lessThan(row, queryLength));
  if (op.getMask()) {
    // Rows and keys out of range read the last ones (the result is
    // dropped).
    Value lastRow = arith::SubIOp::create(b, loc, queryLength, index(1));
    Value lastKey = arith::SubIOp::create(b, loc, keyLength, index(1));
    Value maskValue = maskAt(arith::MinUIOp::create(b, loc, row, lastRow),
                             arith::MinUIOp::create(b, loc, key, lastKey));
    scaled = arith::AddFOp::create(b, loc, scaled, maskValue);
  }
  if (op.getCausal()) {
    // Queries are the last Sq positions: row i sees keys j <= i + Sk - Sq.
    Value limit =
        arith::SubIOp::create(b, loc, add(row, keyLength), queryLength);
    Value seen =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, key, limit);
    valid = arith::AndIOp::create(b, loc, valid, seen);
  }
  return arith::SelectOp::create(b, loc, valid, scaled,
                                 real(-std::numeric_limits<float>::infinity()));
}

/// Each row's factor repeated along a 16x16 tile per warp, so that the
/// warp's accumulators can be scaled row by row as fragments.
void FlashKernel::writeFactors(Value row, Value factor) {
  for (int64_t col = 0; col < kFragment; ++col)
    memref::StoreOp::create(
        b, loc, factor, factors,
        ValueRange{add(mul(row, index(kFragment)), index(col))});
}

/// The online softmax of one step. Each warp takes its own 16 rows, two
/// lanes per row, each lane 16 of the step's keys (unrolled: the scores stay
/// in registers); the two lanes combine their maxima and sums with a
/// shuffle. Then the new running maximum and sum, the probabilities in 16
/// bits, and the factor that scales the row's accumulators
/// (exp(old max - new max)), each lane writing half of the row's factors.
void FlashKernel::updateRowStatistics(Value firstKey) {
  constexpr int64_t kLanesPerRow = 2;
  constexpr int64_t kColumns = kKeys / kLanesPerRow;
  Value lane = arith::RemUIOp::create(b, loc, thread, index(32));
  Value r = add(mul(warp, index(kFragment)),
                arith::DivUIOp::create(b, loc, lane, index(kLanesPerRow)));
  Value part = arith::RemUIOp::create(b, loc, lane, index(kLanesPerRow));
  Value firstColumn = mul(part, index(kColumns));
  Value row = add(firstRow, r);
  Value negInf = real(-std::numeric_limits<float>::infinity());
  auto withPartner = [&](Value value, bool isMax) -> Value {
    Value other = gpu::ShuffleOp::create(b, loc, value, /*offset=*/1,
                                         /*width=*/32, gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    return isMax ? arith::MaximumFOp::create(b, loc, value, other).getResult()
                 : arith::AddFOp::create(b, loc, value, other).getResult();
  };
  SmallVector<Value> columns, values;
  Value localMax = negInf;
  for (int64_t i = 0; i < kColumns; ++i) {
    Value col = add(firstColumn, index(i));
    columns.push_back(col);
    values.push_back(score(row, r, add(firstKey, col), col));
    localMax = arith::MaximumFOp::create(b, loc, localMax, values.back());
  }
  // Both lanes read the row's old statistics before they exchange values;
  // one lane writes the new ones after.
  Value oldMax = memref::LoadOp::create(b, loc, rowMax, ValueRange{r});
  Value oldSum = memref::LoadOp::create(b, loc, rowSum, ValueRange{r});
  Value newMax =
      arith::MaximumFOp::create(b, loc, oldMax, withPartner(localMax, true));
  // Nothing seen yet (both -inf): the accumulators stay as they are.
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax, negInf);
  Value grow = math::ExpOp::create(
      b, loc, arith::SubFOp::create(b, loc, oldMax, newMax));
  Value factor = arith::SelectOp::create(b, loc, none, real(1), grow);
  Value localSum = real(0);
  for (auto [col, s] : llvm::zip(columns, values)) {
    Value left =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s, negInf);
    Value e =
        math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, s, newMax));
    Value p = arith::SelectOp::create(b, loc, left, real(0), e);
    memref::StoreOp::create(b, loc, arith::TruncFOp::create(b, loc, f16, p),
                            probabilities,
                            ValueRange{add(mul(r, index(kProbStride)), col)});
    localSum = arith::AddFOp::create(b, loc, localSum, p);
  }
  Value sum = withPartner(localSum, false);
  Value newSum = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, oldSum, factor), sum);
  ifThen(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part, index(0)),
      [&] {
        memref::StoreOp::create(b, loc, newSum, rowSum, ValueRange{r});
        memref::StoreOp::create(b, loc, newMax, rowMax, ValueRange{r});
      });
  Value firstFactor = mul(part, index(kFragment / kLanesPerRow));
  for (int64_t i = 0; i < kFragment / kLanesPerRow; ++i)
    memref::StoreOp::create(
        b, loc, factor, factors,
        ValueRange{add(mul(r, index(kFragment)), add(firstFactor, index(i)))});
}

gpu::LaunchOp FlashKernel::build() {
  Value query = op.getQuery(), key = op.getKey(), value = op.getValue(),
        out = op.getOutput();
  queryLength = extent(query, 2);
  keyLength = extent(key, 2);
  Value gridX = arith::CeilDivUIOp::create(b, loc, queryLength, index(kRows));
  Value one = index(1);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto shared = [&](int64_t size, Type element) {
    return MemRefType::get({size}, element, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  // Q's rows first, then K's and V's, in one staging buffer.
  int64_t stagingSize = std::max(kRows * headDim, kKeys * (headDim + valueDim));
  auto launch = gpu::LaunchOp::create(
      b, loc, gridX, extent(query, 1), extent(query, 0), index(kThreads), one,
      one, /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/ValueRange{},
      TypeRange{shared(stagingSize, f16), shared(kRows * kScoreStride, f32),
                shared(kRows * kProbStride, f16),
                shared(kRows * kFragment, f32), shared(kRows, f32),
                shared(kRows, f32)});
  Block &body = launch.getBody().front();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&body);
  auto memory = launch.getWorkgroupAttributions();
  staging = memory[0];
  scores = memory[1];
  probabilities = memory[2];
  factors = memory[3];
  rowMax = memory[4];
  rowSum = memory[5];
  thread = launch.getThreadIds().x;
  warp = arith::DivUIOp::create(b, loc, thread, index(32));
  batch = launch.getBlockIds().z;
  head = launch.getBlockIds().y;
  kvHead = group == 1
               ? head
               : Value(arith::DivUIOp::create(b, loc, head, index(group)));
  firstRow = mul(launch.getBlockIds().x, index(kRows));
  Value warpRow = mul(warp, index(kFragment)); // the warp's first tile row
  auto barrier = [&] { gpu::BarrierOp::create(b, loc); };

  ifThen(lessThan(thread, index(kRows)), [&] {
    memref::StoreOp::create(b, loc,
                            real(-std::numeric_limits<float>::infinity()),
                            rowMax, ValueRange{thread});
    memref::StoreOp::create(b, loc, real(0), rowSum, ValueRange{thread});
  });
  stage(0, kRows, headDim, [&](Value r, Value col) {
    return loadOrZero(query, {batch, head, add(firstRow, r), col}, 2,
                      queryLength);
  });
  barrier();
  SmallVector<Value> queryTiles;
  for (int64_t k = 0; k < headDim / kFragment; ++k)
    queryTiles.push_back(loadFragment(
        staging, add(mul(warpRow, index(headDim)), index(k * kFragment)),
        headDim, f16, "AOp"));
  barrier();

  // The keys any row of the block may see: with a causal mask, none past
  // the last row's limit.
  Value keyEnd = keyLength;
  if (op.getCausal()) {
    Value limit = arith::SubIOp::create(
        b, loc, add(add(firstRow, index(kRows)), keyLength), queryLength);
    keyEnd = arith::MaxSIOp::create(
        b, loc, index(0), arith::MinSIOp::create(b, loc, keyLength, limit));
  }
  Value steps = arith::CeilDivUIOp::create(b, loc, keyEnd, index(kKeys));
  auto zeroTile = [&] {
    return gpu::SubgroupMmaConstantMatrixOp::create(
               b, loc, fragment(f32, "COp"), real(0))
        .getResult();
  };
  SmallVector<Value> init;
  for (int64_t j = 0; j < valueDim / kFragment; ++j)
    init.push_back(zeroTile());
  auto keyLoop = scf::ForOp::create(b, loc, index(0), steps, one, init);
  rate(keyLoop);
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(keyLoop.getBody());
    Value firstKey = mul(keyLoop.getInductionVar(), index(kKeys));
    const int64_t valueOffset = kKeys * headDim;
    stage(0, kKeys, headDim, [&](Value r, Value col) {
      return loadOrZero(key, {batch, kvHead, add(firstKey, r), col}, 2,
                        keyLength);
    });
    stage(valueOffset, kKeys, valueDim, [&](Value r, Value col) {
      return loadOrZero(value, {batch, kvHead, add(firstKey, r), col}, 2,
                        keyLength);
    });
    barrier();
    // The warp's scores: its 16 rows against the step's keys.
    for (int64_t n = 0; n < kKeys / kFragment; ++n) {
      Value acc = zeroTile();
      for (int64_t k = 0; k < headDim / kFragment; ++k) {
        Value keys = loadFragment(
            staging, index(n * kFragment * headDim + k * kFragment), headDim,
            f16, "BOp", /*transpose=*/true);
        acc = gpu::SubgroupMmaComputeOp::create(
            b, loc, acc.getType(), queryTiles[k], keys, acc,
            /*a_transpose=*/UnitAttr(), /*b_transpose=*/b.getUnitAttr());
      }
      gpu::SubgroupMmaStoreMatrixOp::create(
          b, loc, acc, scores,
          ValueRange{
              add(mul(warpRow, index(kScoreStride)), index(n * kFragment))},
          b.getIndexAttr(kScoreStride), UnitAttr());
    }
    barrier();
    updateRowStatistics(firstKey);
    barrier();
    Value scale = loadFragment(factors, mul(warpRow, index(kFragment)),
                               kFragment, f32, "COp");
    SmallVector<Value> next;
    for (auto [j, acc] : llvm::enumerate(keyLoop.getRegionIterArgs())) {
      Value sum = gpu::SubgroupMmaElementwiseOp::create(
          b, loc, acc.getType(), ValueRange{acc, scale},
          gpu::MMAElementwiseOp::MULF);
      for (int64_t k = 0; k < kKeys / kFragment; ++k) {
        Value p = loadFragment(
            probabilities,
            add(mul(warpRow, index(kProbStride)), index(k * kFragment)),
            kProbStride, f16, "AOp");
        Value v = loadFragment(
            staging,
            index(valueOffset + k * kFragment * valueDim + j * kFragment),
            valueDim, f16, "BOp");
        sum = gpu::SubgroupMmaComputeOp::create(b, loc, sum.getType(), p, v,
                                                sum, UnitAttr(), UnitAttr());
      }
      next.push_back(sum);
    }
    barrier();
    scf::YieldOp::create(b, loc, next);
  }

  // out = accumulators / row sums (0 for a row that saw no key), through
  // the score tile, 16 columns at a time, rows past the end left out.
  ifThen(lessThan(thread, index(kRows)), [&] {
    Value sum = memref::LoadOp::create(b, loc, rowSum, ValueRange{thread});
    Value positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, real(0));
    Value inverse = arith::DivFOp::create(b, loc, real(1), sum);
    writeFactors(thread,
                 arith::SelectOp::create(b, loc, positive, inverse, real(0)));
  });
  barrier();
  Value scale = loadFragment(factors, mul(warpRow, index(kFragment)), kFragment,
                             f32, "COp");
  for (auto [j, acc] : llvm::enumerate(keyLoop.getResults())) {
    Value result = gpu::SubgroupMmaElementwiseOp::create(
        b, loc, acc.getType(), ValueRange{acc, scale},
        gpu::MMAElementwiseOp::MULF);
    gpu::SubgroupMmaStoreMatrixOp::create(
        b, loc, result, scores, ValueRange{mul(warpRow, index(kScoreStride))},
        b.getIndexAttr(kScoreStride), UnitAttr());
    barrier();
    forEachItem(kRows * kFragment, [&](Value item) {
      Value r = arith::DivUIOp::create(b, loc, item, index(kFragment));
      Value col = arith::RemUIOp::create(b, loc, item, index(kFragment));
      Value row = add(firstRow, r);
      ifThen(lessThan(row, queryLength), [&] {
        Value v = memref::LoadOp::create(
            b, loc, scores, ValueRange{add(mul(r, index(kScoreStride)), col)});
        memref::StoreOp::create(
            b, loc, v, out,
            ValueRange{batch, head, row,
                       add(col, index(int64_t(j) * kFragment))});
      });
    });
    barrier();
  }
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

struct AttentionToGpuPass
    : autoglm::impl::AttentionToGpuBase<AttentionToGpuPass> {
  void runOnOperation() override {
    SmallVector<AttentionBuffersOp> ops;
    getOperation().walk([&](AttentionBuffersOp op) { ops.push_back(op); });
    for (AttentionBuffersOp op : ops) {
      if (!fitsFlashAttention(op.getQuery().getType(), op.getKey().getType(),
                              op.getValue().getType())) {
        op.emitOpError("does not fit the GPU's attention kernel (head sizes "
                       "multiples of ")
            << kFlashFragment << " up to " << kFlashMaxHeadDim << ", at least "
            << kFlashFragment << " query rows known when compiling)";
        return signalPassFailure();
      }
      gpu::LaunchOp launch = FlashKernel(op).build();
      op.erase();
      // exp as the rest of the pipeline computes it: a polynomial, no
      // libdevice call.
      RewritePatternSet patterns(&getContext());
      populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
        return name == math::ExpOp::getOperationName();
      });
      // Without folding, which would hoist constants out of the launch
      // (each one then a kernel parameter).
      GreedyRewriteConfig config;
      config.enableFolding(false).enableConstantCSE(false);
      if (failed(applyPatternsGreedily(launch, std::move(patterns), config)))
        return signalPassFailure();
    }
  }
};

} // namespace
