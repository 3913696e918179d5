//===- AttentionToGpu.cpp - flash attention on the tensor cores -----------===//
//
// Each autoglm.attention_buffers becomes one gpu.launch in the style of
// flash attention 2: a block of four warps takes 64 query rows of one head
// and streams the keys and values through shared memory, 32 positions at a
// time, converted to 16 bits (f16 or bf16) as they are staged. Each warp
// keeps its 16 rows of Q and of the output in registers as the tensor
// cores' fragments (nvgpu.mma.sync, m16n8k16, f32 sums): the step's scores
// come out of the products in registers, each lane updates the running
// maximum and sum of its two rows (its group of four lanes combines
// maxima by shuffles), and the probabilities go back into the next
// product as they are, the layout of a product's sums being that of its
// left operand. The Sq x Sk scores never reach memory, and nothing but
// the operands and the output is read or written.
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
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
constexpr int64_t kWarpRows = kFlashFragment; // a warp's query rows
constexpr int64_t kDepth = kFlashFragment;    // k of one mma.sync
constexpr int64_t kColumns = 8;               // n of one mma.sync
constexpr int64_t kWarps = kRows / kWarpRows;
constexpr int64_t kThreads = kWarps * 32;
// Row padding of the staged keys and values, in elements: with it the 8
// rows of 16 bytes an ldmatrix reads at once fall on 32 different banks.
constexpr int64_t kPadding = 8;
// Floats per load of the staged rows (128 bits).
constexpr int64_t kVector = 4;

/// Builds the kernel of one attention_buffers op.
class FlashKernel {
public:
  FlashKernel(AttentionBuffersOp op, Type operand)
      : op(op), b(op), loc(op.getLoc()), operand(operand), f32(b.getF32Type()) {
    auto q = op.getQuery().getType(), k = op.getKey().getType(),
         v = op.getValue().getType();
    headDim = q.getDimSize(3);
    valueDim = v.getDimSize(3);
    group = q.getDimSize(1) / k.getDimSize(1);
    keyStride = headDim + kPadding;
    valueStride = valueDim + kPadding;
  }

  gpu::LaunchOp build();

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value real(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value negInf() { return real(-std::numeric_limits<float>::infinity()); }
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
  /// `v` (a float or a vector of them) in the operand type.
  Value narrow(Value v) {
    Type type = operand;
    if (auto vector = dyn_cast<VectorType>(v.getType()))
      type = vector.clone(operand);
    return arith::TruncFOp::create(b, loc, type, v);
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
  /// A vector of kVector floats loaded from row `row`, columns `col` on.
  struct Loaded {
    Value row, col, value;
  };
  /// Loads `rows` rows of `cols` floats, kVector at a time, from
  /// `load(row, col)`; stored by `storeRows` once every load of the step
  /// is in flight.
  SmallVector<Loaded> loadRows(int64_t rows, int64_t cols,
                               function_ref<Value(Value, Value)> load) {
    SmallVector<Loaded> loaded;
    forEachItem(rows * cols / kVector, [&](Value item) {
      Value row = arith::DivUIOp::create(b, loc, item, index(cols / kVector));
      Value col =
          mul(arith::RemUIOp::create(b, loc, item, index(cols / kVector)),
              index(kVector));
      loaded.push_back({row, col, load(row, col)});
    });
    return loaded;
  }
  /// Stores loaded rows into `shared`, rows `stride` elements apart, in
  /// 16 bits: 4 halves at a multiple of 4, 8-byte aligned in the 16-byte
  /// aligned buffer.
  void storeRows(ArrayRef<Loaded> loaded, Value shared, int64_t stride) {
    for (const Loaded &rows : loaded)
      vector::StoreOp::create(
          b, loc, narrow(rows.value), shared,
          ValueRange{add(mul(rows.row, index(stride)), rows.col)},
          /*nontemporal=*/false, /*alignment=*/llvm::MaybeAlign(8));
  }
  /// `width` elements of `buffer` from `indices` on, along its last
  /// (contiguous) dimension, or zeros where indices[dim] is not below
  /// `limit` (read at the last valid index instead, so that nothing out
  /// of bounds is loaded).
  Value loadOrZero(Value buffer, ArrayRef<Value> indices, unsigned dim,
                   Value limit, int64_t width) {
    SmallVector<Value> clamped(indices);
    Value inBounds = lessThan(indices[dim], limit);
    Value last = arith::SubIOp::create(b, loc, limit, index(1));
    clamped[dim] = arith::MinUIOp::create(b, loc, indices[dim], last);
    auto type = VectorType::get({width}, f32);
    Value value = vector::LoadOp::create(b, loc, type, buffer, clamped);
    Value zeros =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult();
    return arith::SelectOp::create(b, loc, inBounds, value, zeros);
  }
  /// The B fragments (k 16 x n 8) of `count` consecutive k tiles from
  /// `k0` (1 or 2) of the 16-bit `shared` buffer, rows `stride` apart, by
  /// one ldmatrix of 2 x `count` 8x8 matrices: register r of tile t is
  /// matrix 2t + r, whose rows lanes 8(2t + r) to 8(2t + r) + 7 point at
  /// (the others' are not read). Stored [n][k] (the keys: lane row
  /// `n0 + lane % 8` from column `k0 + 8 x matrix`), a lane gets row
  /// `group`, columns 2 x place and the next, as a fragment holds them;
  /// stored [k][n] (the values: lane row `k0 + 8 x matrix + lane % 8` from
  /// column `n0`), transposed, rows 2 x place and the next, column
  /// `group`, the same. Rows start 16-byte aligned, as ldmatrix needs:
  /// strides and columns are multiples of 8 halves.
  SmallVector<Value> loadBFragments(Value shared, int64_t stride, Value n0,
                                    int64_t k0, int64_t count,
                                    bool storedKByN) {
    const int64_t matrices = 2 * count;
    Value lane = arith::RemUIOp::create(b, loc, thread, index(32));
    Value rowInMatrix = arith::RemUIOp::create(b, loc, lane, index(8));
    Value matrix = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, index(8)),
        index(matrices));
    Value matrixOffset = mul(matrix, index(8));
    Value row, col;
    if (storedKByN) {
      row = add(index(k0), add(matrixOffset, rowInMatrix));
      col = n0;
    } else {
      row = add(n0, rowInMatrix);
      col = add(index(k0), matrixOffset);
    }
    Value loaded = nvgpu::LdMatrixOp::create(
        b, loc, VectorType::get({matrices, 2}, operand), shared,
        ValueRange{add(mul(row, index(stride)), col)},
        /*transpose=*/b.getBoolAttr(storedKByN),
        /*numTiles=*/b.getI32IntegerAttr(matrices));
    if (count == 1)
      return {loaded};
    auto fragmentType = VectorType::get({2, 2}, operand);
    SmallVector<Value> fragments;
    for (int64_t t = 0; t < count; ++t) {
      Value fragment =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(fragmentType));
      for (int64_t r = 0; r < 2; ++r)
        fragment = vector::InsertOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, loaded,
                                      ArrayRef<int64_t>{2 * t + r}),
            fragment, ArrayRef<int64_t>{r});
      fragments.push_back(fragment);
    }
    return fragments;
  }
  Value product(Value a, Value bFragment, Value c) {
    return nvgpu::MmaSyncOp::create(
        b, loc, a, bFragment, c,
        ArrayRef<int64_t>{kWarpRows, kColumns, kDepth});
  }
  Value queryFragment(int64_t depthTile);
  void rate(Operation *op);
  Value maskAt(Value row, Value key);
  Value score(Value raw, Value row, Value key);
  /// The sum over the 4 lanes of a group (`isMax`: the maximum).
  Value acrossGroup(Value value, bool isMax);

  AttentionBuffersOp op;
  OpBuilder b;
  Location loc;
  Type operand, f32;
  int64_t headDim, valueDim, group, keyStride, valueStride;
  // In the kernel.
  Value thread, batch, head, kvHead, queryLength, keyLength;
  // The lane's group of 4 in its warp (0-7) and place in it (0-3); the two
  // query rows its fragments hold (the group's, and 8 rows below).
  Value laneGroup, lanePlace, rows[2];
  Value keys, values;
};

/// Q's 16 x 16 tile `depthTile` of the warp's rows as an A fragment,
/// read from device memory (once per block) and narrowed: register r holds
/// row rows[r % 2], columns 2 x place + 8 x (r / 2) and the next.
Value FlashKernel::queryFragment(int64_t depthTile) {
  Value fragment = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(VectorType::get({4, 2}, operand)));
  for (int64_t r = 0; r < 4; ++r) {
    Value col =
        add(mul(lanePlace, index(2)), index(depthTile * kDepth + 8 * (r / 2)));
    Value pair = narrow(loadOrZero(
        op.getQuery(), {batch, head, rows[r % 2], col}, 2, queryLength, 2));
    fragment =
        vector::InsertOp::create(b, loc, pair, fragment, ArrayRef<int64_t>{r});
  }
  return fragment;
}

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
  std::string type;
  llvm::raw_string_ostream(type) << operand;
  loop->setAttr(kOperandTypeAttrName, b.getStringAttr(type));
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

/// The score `raw` of query row `row` against key position `key` scaled
/// and masked, -inf where the key is left out (beyond the keys, a causal
/// limit, a row past the end).
Value FlashKernel::score(Value raw, Value row, Value key) {
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
  return arith::SelectOp::create(b, loc, valid, scaled, negInf());
}

Value FlashKernel::acrossGroup(Value value, bool isMax) {
  for (int64_t offset : {1, 2}) {
    Value other = gpu::ShuffleOp::create(b, loc, value, offset, /*width=*/32,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    value = isMax ? arith::MaximumFOp::create(b, loc, value, other).getResult()
                  : arith::AddFOp::create(b, loc, value, other).getResult();
  }
  return value;
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
  auto shared = [&](int64_t size) {
    return MemRefType::get({size}, operand, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  auto launch = gpu::LaunchOp::create(
      b, loc, gridX, extent(query, 1), extent(query, 0), index(kThreads), one,
      one, /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/ValueRange{},
      TypeRange{shared(kKeys * keyStride), shared(kKeys * valueStride)});
  Block &body = launch.getBody().front();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&body);
  keys = launch.getWorkgroupAttributions()[0];
  values = launch.getWorkgroupAttributions()[1];
  thread = launch.getThreadIds().x;
  Value lane = arith::RemUIOp::create(b, loc, thread, index(32));
  Value warp = arith::DivUIOp::create(b, loc, thread, index(32));
  laneGroup = arith::DivUIOp::create(b, loc, lane, index(4));
  lanePlace = arith::RemUIOp::create(b, loc, lane, index(4));
  batch = launch.getBlockIds().z;
  head = launch.getBlockIds().y;
  kvHead = group == 1
               ? head
               : Value(arith::DivUIOp::create(b, loc, head, index(group)));
  Value firstRow = mul(launch.getBlockIds().x, index(kRows));
  rows[0] = add(add(firstRow, mul(warp, index(kWarpRows))), laneGroup);
  rows[1] = add(rows[0], index(8));

  SmallVector<Value> queryTiles;
  for (int64_t t = 0; t < headDim / kDepth; ++t)
    queryTiles.push_back(queryFragment(t));

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
  auto sums = VectorType::get({2, 2}, f32);
  auto zeroSums = [&] {
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(sums)).getResult();
  };
  // Iteration arguments: the output fragments (8 columns each), then each
  // of the lane's two rows' running maximum and its share of the row's sum.
  const int64_t outTiles = valueDim / kColumns;
  SmallVector<Value> init;
  for (int64_t n = 0; n < outTiles; ++n)
    init.push_back(zeroSums());
  init.append({negInf(), negInf(), real(0), real(0)});
  auto keyLoop = scf::ForOp::create(b, loc, index(0), steps, one, init);
  rate(keyLoop);
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(keyLoop.getBody());
    ValueRange carried = keyLoop.getRegionIterArgs();
    Value firstKey = mul(keyLoop.getInductionVar(), index(kKeys));
    // Every load of the step's keys and values, then the stores.
    SmallVector<Loaded> stepKeys =
        loadRows(kKeys, headDim, [&](Value r, Value col) {
          return loadOrZero(key, {batch, kvHead, add(firstKey, r), col}, 2,
                            keyLength, kVector);
        });
    SmallVector<Loaded> stepValues =
        loadRows(kKeys, valueDim, [&](Value r, Value col) {
          return loadOrZero(value, {batch, kvHead, add(firstKey, r), col}, 2,
                            keyLength, kVector);
        });
    storeRows(stepKeys, keys, keyStride);
    storeRows(stepValues, values, valueStride);
    gpu::BarrierOp::create(b, loc);

    // The warp's scores, 8 keys per fragment: Q x Kᵀ, the keys (n) by
    // dims (k) as staged.
    Value pairOffset = mul(lanePlace, index(2));
    SmallVector<Value> scoreTiles;
    for (int64_t n = 0; n < kKeys / kColumns; ++n) {
      Value acc = zeroSums();
      // Two depth tiles' fragments per ldmatrix (one for an odd last).
      const int64_t depthTiles = headDim / kDepth;
      for (int64_t t = 0; t < depthTiles; t += 2) {
        int64_t count = std::min<int64_t>(2, depthTiles - t);
        SmallVector<Value> kFragments =
            loadBFragments(keys, keyStride, index(n * kColumns), t * kDepth,
                           count, /*storedKByN=*/false);
        for (int64_t i = 0; i < count; ++i)
          acc = product(queryTiles[t + i], kFragments[i], acc);
      }
      scoreTiles.push_back(acc);
    }
    // The online softmax of the lane's two rows over its 8 of the step's
    // keys (element [i][e] of fragment n: row i, key 8n + 2 x place + e).
    Value newMax[2], factor[2], newSum[2];
    SmallVector<Value> probabilities[2]; // [row][n * 2 + e]
    SmallVector<Value> scaled[2];
    for (int64_t i = 0; i < 2; ++i) {
      Value localMax = negInf();
      for (int64_t n = 0; n < kKeys / kColumns; ++n)
        for (int64_t e = 0; e < 2; ++e) {
          Value raw = vector::ExtractOp::create(b, loc, scoreTiles[n],
                                                ArrayRef<int64_t>{i, e});
          Value position =
              add(firstKey, add(pairOffset, index(n * kColumns + e)));
          scaled[i].push_back(score(raw, rows[i], position));
          localMax =
              arith::MaximumFOp::create(b, loc, localMax, scaled[i].back());
        }
      Value oldMax = carried[outTiles + i];
      newMax[i] = arith::MaximumFOp::create(b, loc, oldMax,
                                            acrossGroup(localMax, true));
      // Nothing seen yet (both -inf): the accumulators stay as they are.
      Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         newMax[i], negInf());
      Value grow = math::ExpOp::create(
          b, loc, arith::SubFOp::create(b, loc, oldMax, newMax[i]));
      factor[i] = arith::SelectOp::create(b, loc, none, real(1), grow);
      Value sum =
          arith::MulFOp::create(b, loc, carried[outTiles + 2 + i], factor[i]);
      for (Value s : scaled[i]) {
        Value left = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s,
                                           negInf());
        Value e = math::ExpOp::create(
            b, loc, arith::SubFOp::create(b, loc, s, newMax[i]));
        Value p = arith::SelectOp::create(b, loc, left, real(0), e);
        probabilities[i].push_back(p);
        sum = arith::AddFOp::create(b, loc, sum, p);
      }
      newSum[i] = sum;
    }
    // The probabilities as A fragments, 16 keys each: the sums' layout
    // (fragment 2kt then 2kt + 1, rows i = 0, 1) is the A operand's.
    SmallVector<Value> probabilityTiles;
    for (int64_t kt = 0; kt < kKeys / kDepth; ++kt) {
      SmallVector<Value> elements;
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t e = 0; e < 2; ++e)
            elements.push_back(
                narrow(probabilities[i][(2 * kt + half) * 2 + e]));
      probabilityTiles.push_back(vector::FromElementsOp::create(
          b, loc, VectorType::get({4, 2}, operand), elements));
    }
    // The output rows scaled by how much their maximum grew, plus
    // probabilities x values, the keys (k) by dims (n) as staged.
    Value rowFactors = vector::FromElementsOp::create(
        b, loc, sums, ValueRange{factor[0], factor[0], factor[1], factor[1]});
    SmallVector<Value> next;
    for (int64_t n = 0; n < outTiles; ++n) {
      Value acc = arith::MulFOp::create(b, loc, carried[n], rowFactors);
      // The step's 32 keys: both k tiles by one ldmatrix.
      SmallVector<Value> vFragments =
          loadBFragments(values, valueStride, index(n * kColumns), 0,
                         kKeys / kDepth, /*storedKByN=*/true);
      for (int64_t kt = 0; kt < kKeys / kDepth; ++kt)
        acc = product(probabilityTiles[kt], vFragments[kt], acc);
      next.push_back(acc);
    }
    next.append({newMax[0], newMax[1], newSum[0], newSum[1]});
    // Before the next step's keys and values overwrite these.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, next);
  }

  // out = output rows / row sums (0 for a row that saw no key), rows past
  // the end left out: each lane writes its two columns of each fragment.
  Value inverse[2];
  for (int64_t i = 0; i < 2; ++i) {
    Value sum = acrossGroup(keyLoop.getResult(outTiles + 2 + i), false);
    Value positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, real(0));
    inverse[i] = arith::SelectOp::create(
        b, loc, positive, arith::DivFOp::create(b, loc, real(1), sum), real(0));
  }
  for (int64_t i = 0; i < 2; ++i)
    ifThen(lessThan(rows[i], queryLength), [&] {
      for (int64_t n = 0; n < outTiles; ++n)
        for (int64_t e = 0; e < 2; ++e) {
          Value v = vector::ExtractOp::create(b, loc, keyLoop.getResult(n),
                                              ArrayRef<int64_t>{i, e});
          Value col = add(mul(lanePlace, index(2)), index(n * kColumns + e));
          memref::StoreOp::create(b, loc,
                                  arith::MulFOp::create(b, loc, v, inverse[i]),
                                  out, ValueRange{batch, head, rows[i], col});
        }
    });
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

struct AttentionToGpuPass
    : autoglm::impl::AttentionToGpuBase<AttentionToGpuPass> {
  using AttentionToGpuBase::AttentionToGpuBase;
  void runOnOperation() override {
    Builder builder(&getContext());
    Type operand;
    if (operandType == "f16")
      operand = builder.getF16Type();
    else if (operandType == "bf16")
      operand = builder.getBF16Type();
    else {
      getOperation().emitError("autoglm-attention-to-gpu: operand-type must "
                               "be f16 or bf16, not '")
          << operandType << "'";
      return signalPassFailure();
    }
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
      gpu::LaunchOp launch = FlashKernel(op, operand).build();
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
