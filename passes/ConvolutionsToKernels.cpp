//===- ConvolutionsToKernels.cpp - convolutions as runtime kernel calls ---===//
//
// The lowering writes an f32 convolution as an im2col gather (every window
// copied out) and a batched matrix product, which the GEMM kernel then packs
// again. The runtime's convolution kernel packs the windows straight from
// the input instead, so this pass replaces each such pair by one call of
// agl_kernel_conv2d, with the filter packed here into the kernel's layout.
// It also folds in what the lowering put around the pair: the zero-padded
// copy of the input (the kernel treats the border as zeros) and the zero or
// bias the output starts from (the kernel's epilogue adds the bias).
//
// It runs before the arena is planned, so the im2col and padding buffers it
// makes unused take no arena memory, and the plan sees the call read its
// input and residual and write its output (through their addresses) where
// the product was. Reading the input there is safe when nothing between
// the first removed op and the product writes memory (checked; otherwise
// the padded copy is kept and read instead).
//
//===----------------------------------------------------------------------===//

#include "dialects/FloatValues.h"
#include "passes/Activations.h"
#include "passes/BufferFacts.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"
#include "passes/Tuning.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "autoglm/kernels.h"

#include <algorithm>
#include <limits>

namespace autoglm {
#define GEN_PASS_DEF_CONVOLUTIONSTOKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using autoglm::canHoistBefore;
using autoglm::deadAfter;
using autoglm::disjoint;
using autoglm::hoistBefore;
using autoglm::isDim;
using autoglm::isZeroFill;
using autoglm::linearCoefficients;
using autoglm::previousEffect;
using autoglm::staticStrides;

namespace {

constexpr StringLiteral kConv = "agl_kernel_conv2d";
constexpr StringLiteral kWinograd = "agl_kernel_conv2d_winograd";
constexpr StringLiteral kWinogradF4 = "agl_kernel_conv2d_winograd_f4";

/// A convolution found in the IR: the ops it replaces and the call's
/// arguments. Geometry is 2-D; a 1-D convolution has unit height.
struct Convolution {
  linalg::GenericOp product, gather;
  Operation *padFill = nullptr, *padCopy = nullptr; // when looked through
  Operation *init = nullptr; // zero fill or bias broadcast of the output
  Value input;               // [n, C, (H,) W], or the gather's [n, g, c, ..]
  bool inputHasGroupAxis = false;
  int64_t batch = 1, groups = 1, channels = 1, height = 1, width = 1;
  int64_t filters = 1, kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
  int64_t dilationH = 1, dilationW = 1, padTop = 0, padLeft = 0;
  int64_t outH = 1, outW = 1;
  memref::GetGlobalOp weights;
  Value output;      // [n, g, f, positions]
  Value wholeOutput; // the buffer `output` reshapes
  Value bias;   // contiguous [g * f], or null
  bool accumulate = true;
  // An elementwise loop that reads the output next: an activation (ReLU,
  // GELU, SiLU) of it, or of it plus a residual (a ResNet block's
  // shortcut), or that sum alone. The kernel writes the loop's result
  // instead, and the output itself is never written.
  linalg::GenericOp activation;
  int act = AGL_ACT_NONE;
  Value residual; // with the result's shape and strides, or null
};

/// A generic whose body yields its only input unchanged.
bool isCopyBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 && yield.getValues().size() == 1 &&
         yield.getValues()[0] == body.getArgument(0);
}

/// The product the lowering builds:
///   out[n, g, f, o] += filter[g, f, r] * col[n, g, r, o]
/// over loops (n, g, f, r, o).
bool isConvolutionProduct(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 5 ||
      !autoglm::isMultiplyAccumulate(op))
    return false;
  auto it = op.getIteratorTypesArray();
  using utils::IteratorType;
  if (it != ArrayRef<IteratorType>{IteratorType::parallel,
                                   IteratorType::parallel,
                                   IteratorType::parallel,
                                   IteratorType::reduction,
                                   IteratorType::parallel})
    return false;
  auto map = [&](ArrayRef<unsigned> dims) {
    return AffineMap::getMultiDimMapWithTargets(5, dims, op.getContext());
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps[0] == map({1, 2, 3}) && maps[1] == map({0, 1, 3, 4}) &&
         maps[2] == map({0, 1, 2, 4});
}

/// The constant global that `buffer` views through reshapes that keep its
/// row-major order, or null.
memref::GetGlobalOp constantBehindReshapes(Value buffer) {
  while (true) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.getLayout().isIdentity())
      return nullptr;
    if (auto get = buffer.getDefiningOp<memref::GetGlobalOp>())
      return get;
    if (auto collapse = buffer.getDefiningOp<memref::CollapseShapeOp>())
      buffer = collapse.getSrc();
    else if (auto expand = buffer.getDefiningOp<memref::ExpandShapeOp>())
      buffer = expand.getSrc();
    else
      return nullptr;
  }
}

/// Whether `op` is the gather col[n, g, c, k.., o..] = in[n, g, c,
/// o * stride + k * dilation] that writes all of `cols`; records the
/// geometry it implies.
bool matchGather(Operation *op, Value cols, Convolution &conv) {
  auto gather = dyn_cast<linalg::GenericOp>(op);
  auto type = cast<MemRefType>(cols.getType());
  int64_t rank = type.getRank();
  if (!gather || (rank != 5 && rank != 7) || !type.hasStaticShape() ||
      gather.getNumDpsInputs() != 1 || gather.getNumDpsInits() != 1 ||
      gather.getDpsInits()[0] != cols || gather.getNumLoops() != rank ||
      gather.getNumParallelLoops() != rank || !isCopyBody(gather))
    return false;
  int64_t s = (rank - 3) / 2;
  SmallVector<AffineMap> maps = gather.getIndexingMapsArray();
  AffineMap in = maps[0];
  if (!maps[1].isIdentity() || in.getNumResults() != 3 + s ||
      !isDim(in.getResult(0), 0) || !isDim(in.getResult(1), 1) ||
      !isDim(in.getResult(2), 2))
    return false;
  SmallVector<int64_t> stride(2, 1), dilation(2, 1), kernel(2, 1), out(2, 1);
  for (int64_t i = 0; i < s; ++i) {
    auto coefficients = linearCoefficients(in.getResult(3 + i), rank);
    if (!coefficients)
      return false;
    for (int64_t d = 0; d < rank; ++d)
      if (d != 3 + i && d != 3 + s + i && (*coefficients)[d] != 0)
        return false;
    int64_t axis = 2 - s + i; // 1-D: the width axis
    dilation[axis] = (*coefficients)[3 + i];
    stride[axis] = (*coefficients)[3 + s + i];
    kernel[axis] = type.getDimSize(3 + i);
    out[axis] = type.getDimSize(3 + s + i);
    if (dilation[axis] <= 0 || stride[axis] <= 0)
      return false;
  }
  conv.gather = gather;
  conv.batch = type.getDimSize(0);
  conv.groups = type.getDimSize(1);
  conv.channels = type.getDimSize(2);
  conv.strideH = stride[0];
  conv.strideW = stride[1];
  conv.dilationH = dilation[0];
  conv.dilationW = dilation[1];
  conv.kernelH = kernel[0];
  conv.kernelW = kernel[1];
  conv.outH = out[0];
  conv.outW = out[1];
  return true;
}

/// The gather's input [n, g, c, (H,) W] as the kernel reads it: contiguous
/// rows, groups one after another.
bool matchGatheredInput(Convolution &conv) {
  Value in = conv.gather.getDpsInputs()[0];
  auto type = cast<MemRefType>(in.getType());
  auto strides = staticStrides(in);
  if (!strides || strides->back() != 1 ||
      (conv.groups > 1 && (*strides)[1] != conv.channels * (*strides)[2]))
    return false;
  conv.input = in;
  conv.inputHasGroupAxis = true;
  conv.height = type.getRank() == 5 ? type.getDimSize(3) : 1;
  conv.width = type.getShape().back();
  conv.padTop = conv.padLeft = 0;
  return true;
}

/// The buffer the gather reads through a reshape: where a padded copy of
/// the input would be.
Value paddedBuffer(Convolution &conv) {
  auto expand =
      conv.gather.getDpsInputs()[0].getDefiningOp<memref::ExpandShapeOp>();
  return expand ? expand.getSrc() : Value();
}

/// Whether `op` copies the input into the interior of `padded` (a subview
/// with unit strides); records the input and the padding.
bool matchPaddingCopy(Operation *op, Value padded, Convolution &conv) {
  auto copy = dyn_cast<linalg::CopyOp>(op);
  if (!copy || !padded)
    return false;
  auto interior = copy.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
  if (!interior || interior.getSource() != padded ||
      !interior.hasUnitStride())
    return false;
  Value source = copy.getInputs()[0];
  auto strides = staticStrides(source);
  auto type = cast<MemRefType>(source.getType());
  ArrayRef<int64_t> offsets = interior.getStaticOffsets();
  if (!strides || strides->back() != 1 ||
      type.getRank() != cast<MemRefType>(padded.getType()).getRank() ||
      llvm::any_of(offsets, ShapedType::isDynamic) || offsets[0] != 0 ||
      offsets[1] != 0)
    return false;
  conv.padCopy = copy;
  conv.input = source;
  conv.inputHasGroupAxis = false;
  conv.height = type.getRank() == 4 ? type.getDimSize(2) : 1;
  conv.width = type.getShape().back();
  conv.padTop = type.getRank() == 4 ? offsets[2] : 0;
  conv.padLeft = offsets.back();
  return true;
}

/// The output [n, g, f, positions] with contiguous positions, and the
/// buffer it is a reshape of (what the lowering initialized).
bool matchOutput(Convolution &conv) {
  Value out = conv.product.getDpsInits()[0];
  auto strides = staticStrides(out);
  auto type = cast<MemRefType>(out.getType());
  if (!strides || (*strides)[3] != 1 ||
      (conv.groups > 1 &&
       (*strides)[1] != type.getDimSize(2) * (*strides)[2]))
    return false;
  conv.output = out;
  conv.filters = type.getDimSize(2);
  auto collapse = out.getDefiningOp<memref::CollapseShapeOp>();
  conv.wholeOutput = collapse ? collapse.getSrc() : out;
  return true;
}

/// Whether `op` initializes the whole output: a zero fill, or a bias
/// bias[1, g, f, 1..] broadcast over [n, g, f, spatial..]; records it.
bool matchInit(Operation *op, Convolution &conv) {
  Value whole = conv.wholeOutput;
  if (isZeroFill(op, whole) || isZeroFill(op, conv.output)) {
    conv.init = op;
    conv.accumulate = false;
    return true;
  }
  auto broadcast = dyn_cast<linalg::GenericOp>(op);
  if (!broadcast || broadcast.getNumDpsInputs() != 1 ||
      broadcast.getNumDpsInits() != 1 ||
      broadcast.getDpsInits()[0] != whole || !isCopyBody(broadcast) ||
      broadcast.getNumParallelLoops() != broadcast.getNumLoops() ||
      !broadcast.getIndexingMapsArray()[1].isIdentity())
    return false;
  Value bias = broadcast.getDpsInputs()[0];
  auto biasType = cast<MemRefType>(bias.getType());
  auto biasStrides = staticStrides(bias);
  AffineMap map = broadcast.getIndexingMapsArray()[0];
  if (!biasStrides || map.getNumResults() != biasType.getRank() ||
      biasType.getRank() < 3)
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    bool unit = biasType.getDimSize(i) == 1;
    if ((i == 1 || i == 2) ? !isDim(e, i) && !unit : !unit)
      return false;
  }
  if ((conv.filters > 1 && (*biasStrides)[2] != 1) ||
      (conv.groups > 1 && (*biasStrides)[1] != conv.filters) ||
      biasType.getDimSize(1) != conv.groups ||
      biasType.getDimSize(2) != conv.filters)
    return false;
  conv.init = op;
  conv.bias = bias;
  conv.accumulate = false;
  return true;
}

/// Whether `read` views the whole output through reshapes.
bool readsOutput(Value read, const Convolution &conv) {
  while (read != conv.wholeOutput) {
    Operation *def = read.getDefiningOp();
    if (!isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      return false;
    read = def->getOperand(0);
  }
  return true;
}

/// The next op after the product that touches memory, if it is an
/// elementwise loop (identity maps) that computes act(output) or
/// [act](output + residual) (Activations.h) of the whole output into a
/// contiguous buffer of the same size that the kernel may write while it
/// reads its input, bias and residual, and the output is read by nothing
/// else.
void matchActivation(Convolution &conv) {
  if (conv.accumulate)
    return;
  auto loop =
      dyn_cast_or_null<linalg::GenericOp>(autoglm::nextEffect(conv.product));
  if (!loop || loop.getNumDpsInputs() < 1 || loop.getNumDpsInputs() > 2 ||
      loop.getNumDpsInits() != 1 ||
      loop.getNumParallelLoops() != loop.getNumLoops() ||
      !llvm::all_of(loop.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return;
  Block &body = loop.getRegion().front();
  Value yielded = body.getTerminator()->getOperand(0);
  // The input that reads the output, and the value the activation takes:
  // the output, or its sum with the other input, the residual.
  int64_t outputInput = 0;
  Value residual, activated = body.getArgument(0);
  if (loop.getNumDpsInputs() == 2) {
    outputInput = readsOutput(loop.getDpsInputs()[0], conv) ? 0 : 1;
    residual = loop.getDpsInputs()[1 - outputInput];
    Value out = body.getArgument(outputInput),
          res = body.getArgument(1 - outputInput);
    activated = Value();
    for (auto sum : body.getOps<arith::AddFOp>())
      if ((sum.getLhs() == out && sum.getRhs() == res) ||
          (sum.getLhs() == res && sum.getRhs() == out))
        activated = sum.getResult();
    if (!activated)
      return;
  }
  std::optional<int> act = residual && yielded == activated
                               ? std::optional<int>(AGL_ACT_NONE)
                               : autoglm::activationOf(yielded, activated);
  if (!act || !readsOutput(loop.getDpsInputs()[outputInput], conv))
    return;
  Value result = loop.getDpsInits()[0];
  if (!canHoistBefore(result, conv.product) ||
      (residual && !canHoistBefore(residual, conv.product)))
    return;
  auto type = cast<MemRefType>(result.getType());
  auto outType = cast<MemRefType>(conv.wholeOutput.getType());
  if (!type.getLayout().isIdentity() || !type.hasStaticShape() ||
      type.getNumElements() != outType.getNumElements() ||
      type.getRank() < 3 || type.getDimSize(0) != conv.batch ||
      type.getDimSize(1) != conv.groups * conv.filters ||
      !deadAfter(conv.wholeOutput, loop) ||
      !disjoint(result, conv.input) ||
      (conv.bias && !disjoint(result, conv.bias)))
    return;
  // The kernel reads the residual with the result's strides.
  if (residual) {
    auto residualType = cast<MemRefType>(residual.getType());
    if (residualType.getShape() != type.getShape() ||
        staticStrides(residual) != staticStrides(result) ||
        !disjoint(result, residual))
      return;
    conv.residual = residual;
  }
  conv.activation = loop;
  conv.act = *act;
}

/// Matches the product and, walking back from it over the ops that touch
/// memory, the ops it takes over: the gather, the output's initialization
/// (anywhere among them) and, before the gather, the padded copy of the
/// input (copy, then zero fill). The walk stops at the first op with no role, so
/// every op between the earliest taken one and the product is either taken
/// or touches no memory: reading the input and bias at the product reads
/// what the taken ops read.
std::optional<Convolution> matchConvolution(linalg::GenericOp product) {
  if (!isConvolutionProduct(product))
    return std::nullopt;
  Convolution conv;
  conv.product = product;
  conv.weights = constantBehindReshapes(product.getDpsInputs()[0]);
  auto cols =
      product.getDpsInputs()[1].getDefiningOp<memref::CollapseShapeOp>();
  if (!conv.weights || !cols || !matchOutput(conv))
    return std::nullopt;
  Value padded;
  for (Operation *op = previousEffect(product); op; op = previousEffect(op)) {
    if (!conv.gather && matchGather(op, cols.getSrc(), conv)) {
      if (!matchGatheredInput(conv))
        return std::nullopt;
      padded = paddedBuffer(conv);
    } else if (!conv.init && matchInit(op, conv)) {
    } else if (conv.gather && !conv.padCopy &&
               matchPaddingCopy(op, padded, conv)) {
    } else if (conv.padCopy && !conv.padFill && isZeroFill(op, padded)) {
      conv.padFill = op;
    } else {
      break;
    }
    if (conv.gather && conv.init && conv.padFill)
      break;
  }
  if (!conv.gather)
    return std::nullopt;
  // Without the fill before it, the copy does not make the whole padded
  // input: the kernel reads the padded buffer.
  if (conv.padCopy && (!conv.padFill || !deadAfter(padded, product))) {
    conv.padCopy = conv.padFill = nullptr;
    matchGatheredInput(conv);
  }
  if (!deadAfter(cols.getSrc(), product))
    return std::nullopt;
  // The kernel reads the input and bias while it writes the output.
  if (!disjoint(conv.input, conv.output) ||
      (conv.bias && !disjoint(conv.bias, conv.output)))
    return std::nullopt;
  matchActivation(conv);
  return conv;
}

/// Packs filters [g, f, depth] into the kernel's layout: per group, panels
/// of AGL_CONV_PACKED_NR filters (the last one narrower), each depth's
/// weights of a panel together. As many floats as the filters.
class FilterPacker {
public:
  explicit FilterPacker(ModuleOp module) : module(module), symbols(module) {}

  memref::GlobalOp pack(memref::GetGlobalOp get, int64_t groups,
                        int64_t filters, int64_t depth) {
    if (auto it = packed.find(get.getName()); it != packed.end())
      return it->second;
    memref::GlobalOp global;
    std::optional<SmallVector<float>> values =
        constantValues(get, groups * filters * depth, global);
    if (!values)
      return nullptr;
    constexpr int64_t nr = AGL_CONV_PACKED_NR;
    SmallVector<float> data(groups * filters * depth);
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t f = 0; f < filters; ++f) {
        int64_t first = f / nr * nr;
        int64_t width = std::min(nr, filters - first);
        for (int64_t d = 0; d < depth; ++d)
          data[(g * filters + first) * depth + d * width + (f - first)] =
              (*values)[(g * filters + f) * depth + d];
      }
    memref::GlobalOp result =
        addConstant(global, "_conv_packed", ArrayRef<float>(data));
    packed[get.getName()] = result;
    return result;
  }

  /// The filters [f, c, 3, 3] (one group) transformed for Winograd's
  /// F(tile x tile, 3x3), agl_kernel_conv2d_winograd (tile 2) or _f4 (tile
  /// 4): 16 or 36 matrices [f x c] in panels of AGL_CONV_WINOGRAD_PANEL
  /// filters (the GEMM's packed A).
  memref::GlobalOp winograd(memref::GetGlobalOp get, int64_t filters,
                            int64_t channels, int tile) {
    std::string key = (get.getName() + (tile == 4 ? "/f4" : "/f2")).str();
    if (auto it = transformed.find(key); it != transformed.end())
      return it->second;
    memref::GlobalOp global;
    std::optional<SmallVector<float>> values =
        constantValues(get, filters * channels * 9, global);
    if (!values)
      return nullptr;
    SmallVector<float> data;
    if (tile == 4) {
      data.resize(agl_conv_winograd_f4_filters_floats(filters, channels));
      agl_conv_winograd_f4_filters(values->data(), filters, channels,
                                   data.data());
    } else {
      data.resize(agl_conv_winograd_filters_floats(filters, channels));
      agl_conv_winograd_filters(values->data(), filters, channels, data.data());
    }
    memref::GlobalOp result =
        addConstant(global, tile == 4 ? "_winograd_f4" : "_winograd",
                    ArrayRef<float>(data));
    transformed[key] = result;
    return result;
  }

private:
  /// The `size` values of the constant global `get` reads, or nothing.
  std::optional<SmallVector<float>> constantValues(memref::GetGlobalOp get,
                                                   int64_t size,
                                                   memref::GlobalOp &global) {
    global = symbols.lookup<memref::GlobalOp>(get.getName());
    std::optional<SmallVector<float>> values;
    if (global && global.getConstant())
      values = autoglm::floatValues(global.getInitialValueAttr());
    if (!values || (int64_t)values->size() != size)
      return std::nullopt;
    return values;
  }

  memref::GlobalOp addConstant(memref::GlobalOp like, StringRef suffix,
                               ArrayRef<float> data) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto type = MemRefType::get({(int64_t)data.size()}, b.getF32Type());
    auto tensorType =
        RankedTensorType::get({(int64_t)data.size()}, b.getF32Type());
    const std::string name = (like.getSymName() + suffix).str();
    // Large filters in a heap blob, not a dense attribute kept for good.
    auto values = autoglm::newConstant<float>(
        tensorType, name,
        [&](MutableArrayRef<float> out) { llvm::copy(data, out.begin()); });
    autoglm::releaseConstantPages(like.getInitialValueAttr());
    auto result = memref::GlobalOp::create(
        b, like.getLoc(), name, b.getStringAttr("private"), type, values,
        /*constant=*/true, b.getI64IntegerAttr(64));
    symbols.insert(result); // renames on a clash
    return result;
  }

  ModuleOp module;
  SymbolTable symbols;
  llvm::StringMap<memref::GlobalOp> packed, transformed;
};

func::FuncOp declareConv(ModuleOp module) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), i32 = b.getI32Type(),
       ptr = LLVM::LLVMPointerType::get(b.getContext());
  // The order of agl_kernel_conv2d's parameters (kernels.h).
  SmallVector<Type> args = {i64, i64, i64, i64, i64, ptr, i64, i64, i64,
                            i64, i64, i64, i64, i64, i64, i64, i64, i64,
                            ptr, ptr, ptr, i64, i64, i64, i64, i32, i32,
                            ptr, ptr};
  return autoglm::declareRuntimeFunction(module, kConv,
                                         b.getFunctionType(args, {}));
}

func::FuncOp declareWinograd(ModuleOp module, int tile) {
  OpBuilder b(module.getContext());
  Type i64 = b.getI64Type(), i32 = b.getI32Type(),
       ptr = LLVM::LLVMPointerType::get(b.getContext());
  // The order of agl_kernel_conv2d_winograd's and _f4's parameters
  // (kernels.h).
  SmallVector<Type> args = {i64, i64, i64, i64, ptr, i64, i64, i64,
                            i64, i64, i64, ptr, ptr, ptr, i64, i64,
                            i64, i64, i32, i32, ptr, ptr, ptr};
  return autoglm::declareRuntimeFunction(
      module, tile == 4 ? kWinogradF4 : kWinograd, b.getFunctionType(args, {}));
}

/// The tile of the Winograd algorithm that computes this convolution, 0
/// for none: a 3x3 kernel with unit strides and dilations, one group,
/// enough channels and filters (`minChannels`, by default 64) that its
/// products, not its transforms, take the time, and enough tiles, among
/// which each transformed weight is used (read once per call, or once per
/// block of tiles). Without AVX-512 (`narrowVectors`), F(2x2, 3x3) from 32
/// tiles of 2x2: measured with bench/conv_kernel_bench.c on Zen 2, 1.25-1.65x
/// the direct kernel's speed from 64 channels and filters on (resnet224's
/// 56x56 to 14x14 maps); at 48 or fewer, slower at 2 threads; on a 7x7 map
/// (16 tiles) with 512 channels, 0.8x. With AVX-512, whose direct kernel is
/// relatively faster, F(4x4, 3x3) from 32 tiles of 4x4, measured on Zen 5
/// (autoglm-conv-kernel-bench, 1 / 2 threads, against the direct kernel):
/// 56x56 x 64 1.3x / 1.15x, 28x28 x 128 1.4x / 1.5x, where F(2x2) was
/// 0.85-1.0x; on 14x14 x 256 (16 tiles) 0.75x / 0.7-1.2x, on 7x7 x 512
/// 0.25x.
int winogradTile(const Convolution &conv, int64_t minChannels,
                 bool narrowVectors) {
  constexpr int64_t kMinTiles = 32;
  if (conv.groups != 1 || conv.kernelH != 3 || conv.kernelW != 3 ||
      conv.strideH != 1 || conv.strideW != 1 || conv.dilationH != 1 ||
      conv.dilationW != 1 || conv.channels < minChannels ||
      conv.filters < minChannels)
    return 0;
  if (narrowVectors)
    return agl_conv_winograd_tiles(conv.outH, conv.outW) >= kMinTiles ? 2 : 0;
  return agl_conv_winograd_f4_tiles(conv.outH, conv.outW) >= kMinTiles ? 4 : 0;
}

/// Without a tuning, on a target without AVX-512: whether the GEMM call on
/// the im2col gather beats the kernel even with enough filters. Measured in
/// resnet224 on Zen 2 (AVX2, autoglm-tune and per-kernel profiles at 1 and
/// 2 threads): on its 7x7 maps with 4.7 and 9.4 MB of 3x3 filters the GEMM
/// call takes 5-10% less time at 1 thread and 23-27% less at 2; a 1x1
/// convolution with a stride is a plain subsampling copy and a GEMM, 0-40%
/// faster than the kernel. (On Zen 4, with AVX-512, the kernel won on
/// every resnet224 convolution.)
bool narrowVectorsPreferGemmCall(const Convolution &conv) {
  constexpr int64_t kSmallMap = 64;                   // output positions
  constexpr int64_t kLargeFilters = int64_t(1) << 20; // bytes per group
  const bool pointwise = conv.kernelH == 1 && conv.kernelW == 1;
  if (pointwise && (conv.strideH > 1 || conv.strideW > 1))
    return true;
  const int64_t filterBytes = conv.filters * conv.channels * conv.kernelH *
                              conv.kernelW * int64_t(sizeof(float));
  return conv.outH * conv.outW <= kSmallMap && filterBytes >= kLargeFilters;
}

/// Erases `value`'s defining view ops that nothing uses any more.
void eraseDeadViews(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!op->use_empty() || !isMemoryEffectFree(op) ||
        op->getNumOperands() > 1)
      return;
    value = op->getNumOperands() ? op->getOperand(0) : Value();
    op->erase();
    if (!value)
      return;
  }
}

std::string tuningKey(const Convolution &conv) {
  return autoglm::convTuningKey(
      {conv.batch, conv.groups, conv.channels, conv.height, conv.width,
       conv.filters, conv.kernelH, conv.kernelW, conv.strideH, conv.strideW,
       conv.outH, conv.outW});
}

/// Replaces the convolution by a call of agl_kernel_conv2d, or with a
/// Winograd tile (2 or 4, else 0) of agl_kernel_conv2d_winograd or _f4 and
/// its workspace (a buffer the arena plan places).
bool replaceWithKernelCall(Convolution &conv, FilterPacker &packer,
                           int winograd) {
  int64_t depth = conv.channels * conv.kernelH * conv.kernelW;
  memref::GlobalOp packedFilter =
      winograd
          ? packer.winograd(conv.weights, conv.filters, conv.channels, winograd)
          : packer.pack(conv.weights, conv.groups, conv.filters, depth);
  if (!packedFilter)
    return false;
  OpBuilder b(conv.product);
  Location loc = conv.product.getLoc();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  SmallVector<int64_t> inStrides = *staticStrides(conv.input);
  // The output's batch and channel strides; the activation's result is an
  // [n, C, spatial..] buffer, the output an [n, g, f, positions] view.
  Value output =
      conv.activation ? conv.activation.getDpsInits()[0] : conv.output;
  hoistBefore(output, conv.product);
  if (conv.residual)
    hoistBefore(conv.residual, conv.product);
  SmallVector<int64_t> outStrides = *staticStrides(output);
  int64_t outChannelStride =
      conv.activation ? outStrides[1] : outStrides[2];
  // Input strides of (batch, channel, row): with a group axis, the channel
  // axis is the third.
  int64_t channelAxis = conv.inputHasGroupAxis ? 2 : 1;
  int64_t rank = inStrides.size();
  int64_t rowStride = rank - channelAxis == 3 ? inStrides[rank - 2] : 0;
  Value filter = memref::GetGlobalOp::create(b, loc, packedFilter.getType(),
                                             packedFilter.getSymName());
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value null = LLVM::ZeroOp::create(b, loc, ptrType).getResult();
  Value bias = conv.bias ? autoglm::pointerTo(b, loc, conv.bias).pointer : null;
  Value input = autoglm::pointerTo(b, loc, conv.input).pointer;
  Value filterPointer = autoglm::pointerTo(b, loc, filter).pointer;
  Value outputPointer = autoglm::pointerTo(b, loc, output).pointer;
  Value residual =
      conv.residual ? autoglm::pointerTo(b, loc, conv.residual).pointer : null;
  Value accumulate = arith::ConstantIntOp::create(b, loc, conv.accumulate, 32);
  Value act = arith::ConstantIntOp::create(b, loc, conv.act, 32);
  // The two kernels' parameters (kernels.h) differ in the groups and the
  // geometry, which Winograd's fixes, and its workspace.
  SmallVector<Value> args = {constant(conv.batch)};
  if (!winograd)
    args.push_back(constant(conv.groups));
  args.append({constant(conv.channels), constant(conv.height),
               constant(conv.width), input, constant(inStrides[0]),
               constant(inStrides[channelAxis]), constant(rowStride),
               constant(conv.filters)});
  if (!winograd)
    args.append({constant(conv.kernelH), constant(conv.kernelW),
                 constant(conv.strideH), constant(conv.strideW),
                 constant(conv.dilationH), constant(conv.dilationW)});
  args.append({constant(conv.padTop), constant(conv.padLeft), filterPointer,
               bias, outputPointer, constant(conv.outH), constant(conv.outW),
               constant(outStrides[0]), constant(outChannelStride), accumulate,
               act, residual});
  if (winograd) {
    int64_t floats =
        winograd == 4
            ? agl_conv_winograd_f4_workspace_floats(conv.channels, conv.filters,
                                                    conv.outH, conv.outW)
            : agl_conv_winograd_workspace_floats(conv.channels, conv.filters,
                                                 conv.outH, conv.outW);
    Value workspace = memref::AllocOp::create(
        b, loc, MemRefType::get({floats}, b.getF32Type()));
    args.push_back(autoglm::pointerTo(b, loc, workspace).pointer);
  }
  auto module = conv.product->getParentOfType<ModuleOp>();
  autoglm::GemmBlocking blocking =
      autoglm::tunedBlocking(module, tuningKey(conv));
  args.push_back(autoglm::blockingArgument(b, loc, module, blocking));
  auto call = func::CallOp::create(
      b, loc,
      winograd ? declareWinograd(module, winograd) : declareConv(module), args);
  autoglm::recordBlocking(call, blocking);
  Value weights = conv.product.getDpsInputs()[0];
  for (Operation *op : {conv.product.getOperation(),
                        conv.gather.getOperation(), conv.init,
                        conv.padCopy, conv.padFill,
                        conv.activation.getOperation()})
    if (op)
      op->erase();
  eraseDeadViews(weights);
  return true;
}

struct ConvolutionsToKernelsPass
    : autoglm::impl::ConvolutionsToKernelsBase<ConvolutionsToKernelsPass> {
  using ConvolutionsToKernelsBase::ConvolutionsToKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::GenericOp> products;
    module.walk([&](linalg::GenericOp op) {
      if (isConvolutionProduct(op))
        products.push_back(op);
    });
    if (products.empty())
      return;
    FilterPacker packer(module);
    for (linalg::GenericOp product : products)
      if (std::optional<Convolution> conv = matchConvolution(product)) {
        // Gather and product stay for a GEMM call later when the tuning
        // says so, or, without one, when the filters are too few.
        DictionaryAttr knobs = autoglm::tuningFor(module, tuningKey(*conv));
        std::optional<StringRef> strategy =
            autoglm::stringKnob(knobs, "strategy");
        // `winograd` where no Winograd tile fits takes the kernel.
        int tile = winogradTile(*conv, winogradMinChannels, narrowVectors);
        int winograd =
            (strategy ? *strategy == "winograd" : this->winograd) ? tile : 0;
        bool kernel =
            strategy
                ? *strategy != "im2col"
                : winograd ||
                      (conv->filters >= minFilters &&
                       !(narrowVectors && narrowVectorsPreferGemmCall(*conv)));
        if (kernel)
          replaceWithKernelCall(*conv, packer, winograd);
        else // reports and tuners find the convolution by its gather
          conv->gather->setAttr(
              autoglm::kTuningKeyAttrName,
              StringAttr::get(module.getContext(), tuningKey(*conv)));
      }
    // The filters now live packed; drop the originals nothing reads.
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.getConstant() &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
  }
};

} // namespace
