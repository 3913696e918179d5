//===- ConvPool.cpp - importers of convolution and pooling ----------------===//

#include "compiler/importer/NodeImporter.h"

using namespace mlir;
using namespace autoglm;

namespace {

/// Window attributes shared by Conv and the pooling operators, with defaults
/// filled in and auto_pad resolved to explicit begin/end paddings.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
};

FailureOr<Window> readWindow(NodeImporter &n, ArrayRef<int64_t> kernel) {
  auto input = n.inputType(0);
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1)
    return n.emitError() << "input must have rank >= 3 (N, C, spatial...)";
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = n.intsAttr("strides");
  w.dilations = n.intsAttr("dilations");
  w.pads = n.intsAttr("pads");
  if (w.strides.empty())
    w.strides.assign(spatial, 1);
  if (w.dilations.empty())
    w.dilations.assign(spatial, 1);
  if (w.pads.empty())
    w.pads.assign(2 * spatial, 0);
  if ((int64_t)w.kernel.size() != spatial ||
      (int64_t)w.strides.size() != spatial ||
      (int64_t)w.dilations.size() != spatial ||
      (int64_t)w.pads.size() != 2 * spatial)
    return n.emitError() << "kernel_shape/strides/dilations need " << spatial
                         << " entries and pads " << 2 * spatial;
  std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.pads.assign(2 * spatial, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = input.getDimSize(i + 2);
      int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      int64_t span = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + span - in);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[i + spatial] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    return n.unsupported("auto_pad '" + autoPad + "'");
  }
  return w;
}

LogicalResult importConv(NodeImporter &n) {
  auto filter = n.inputType(1);
  SmallVector<int64_t> kernel = n.intsAttr("kernel_shape");
  if (kernel.empty())
    kernel.assign(filter.getShape().begin() + std::min<int64_t>(2, filter.getRank()),
                  filter.getShape().end());
  auto w = readWindow(n, kernel);
  if (failed(w))
    return failure();
  auto out = n.create<ConvOp>(n.input(0), n.input(1), n.input(2), w->strides,
                              w->pads, w->dilations, n.intAttr("group", 1));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

template <typename OpTy>
LogicalResult importPool(NodeImporter &n) {
  if (n.outputUsed(1))
    return n.unsupported("MaxPool's Indices output");
  if (n.intAttr("storage_order", 0) != 0)
    return n.unsupported("storage_order=1");
  auto w = readWindow(n, n.intsAttr("kernel_shape"));
  if (failed(w))
    return failure();
  auto out = n.create<OpTy>(n.input(0), w->kernel, w->strides, w->pads,
                            w->dilations, n.intAttr("ceil_mode", 0) != 0,
                            n.intAttr("count_include_pad", 0) != 0);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importGlobalAveragePool(NodeImporter &n) {
  auto out = n.create<GlobalAveragePoolOp>(n.input(0));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

} // namespace

void autoglm::registerConvPoolImporters(OpImporterTable &t) {
  t["Conv"] = {importConv, 2};
  t["MaxPool"] = {importPool<MaxPoolOp>, 1};
  t["AveragePool"] = {importPool<AveragePoolOp>, 1};
  t["GlobalAveragePool"] = {importGlobalAveragePool, 1};
}
