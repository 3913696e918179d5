//===- Signal.cpp - importers of the window functions ---------------------===//
//
// HannWindow, HammingWindow and BlackmanWindow depend only on their length,
// which fixes the result shape, so they become constants.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/OpChain.h"
#include "compiler/importer/TensorConversion.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

/// Generalized cosine window a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
struct CosineWindow {
  double a0, a1, a2;
};

LogicalResult importWindow(NodeImporter &n, CosineWindow w) {
  // The length is a scalar input, which fixes the result's shape.
  auto values = n.constantInts(0, "size");
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return n.emitError() << "input 'size' must have one element";
  int64_t size = values->front();
  if (size < 0)
    return n.emitError() << "size " << size << " is negative";
  int32_t dataType = n.intAttr("output_datatype", 1);
  Type element = convertElementType(dataType, n.context());
  if (!element || !isa<FloatType>(element))
    return n.unsupported("a window of data type " + onnxTypeName(dataType));
  double period = n.intAttr("periodic", 1) ? size : size - 1;
  OpChain c(n);
  Value y = c.constant(element, {size}, [&](ArrayRef<int64_t> index) {
    double x = 2 * M_PI * index[0] / period;
    return w.a0 - w.a1 * std::cos(x) + w.a2 * std::cos(2 * x);
  });
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

} // namespace

void autoglm::registerSignalImporters(OpImporterTable &t) {
  t["HannWindow"] = {[](NodeImporter &n) {
                       return importWindow(n, {0.5, 0.5, 0});
                     }, 1};
  t["HammingWindow"] = {[](NodeImporter &n) {
                          return importWindow(n, {25.0 / 46, 21.0 / 46, 0});
                        }, 1};
  t["BlackmanWindow"] = {[](NodeImporter &n) {
                           return importWindow(n, {0.42, 0.5, 0.08});
                         }, 1};
}
