//===- Shapes.cpp - type inference of Shapes ops ------------------------------===//
//
// Inference and verifiers of the ops in ops/Shapes.td that are not in
// AutoGLMOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace autoglm;
using namespace autoglm::inference;

//===----------------------------------------------------------------------===//
// Pad
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  if (getMode() == "constant")
    return success();
  // Edge, reflect and wrap read the input: an axis they pad must keep at
  // least one element after cropping.
  auto input = shapedAs(getInput());
  int64_t rank = input.getRank();
  auto pads = getPads();
  if ((int64_t)pads.size() != 2 * rank)
    return success(); // reported by type inference
  for (int64_t d = 0; d < rank; ++d) {
    int64_t kept = input.getDimSize(d) + std::min<int64_t>(pads[d], 0) +
                   std::min<int64_t>(pads[d + rank], 0);
    if ((pads[d] > 0 || pads[d + rank] > 0) && kept < 1)
      return emitOpError("mode '")
             << getMode() << "' cannot pad axis " << d
             << ", which has no elements";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto data = shapedAs(adaptor.getData());
  auto indices = shapedAs(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, axis, data.getRank())))
    return failure();
  if (indices.getRank() != data.getRank())
    return fail(loc, "gather_elements indices must have the rank of the data (" +
                         Twine(data.getRank()) + "), got " +
                         Twine(indices.getRank()));
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > data.getDimSize(d))
      return fail(loc, "gather_elements indices " +
                           shapeString(indices.getShape()) +
                           " exceed the data " + shapeString(data.getShape()) +
                           " outside axis " + Twine(axis));
  inferred.push_back(data.clone(indices.getShape()));
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto data = shapedAs(adaptor.getData());
  auto indices = shapedAs(adaptor.getIndices());
  int64_t r = data.getRank(), q = indices.getRank();
  int64_t b = adaptor.getBatchDims();
  if (r < 1 || q < 1 || b < 0 || b >= std::min(q, r))
    return fail(loc, "gather_nd needs data and indices of rank >= 1 and "
                     "batch_dims below both ranks");
  int64_t k = indices.getDimSize(q - 1);
  if (k < 1 || k > r - b)
    return fail(loc, "gather_nd index tuples of length " + Twine(k) +
                         " do not fit data of rank " + Twine(r) +
                         " after " + Twine(b) + " batch dimensions");
  if (indices.getShape().take_front(b) != data.getShape().take_front(b))
    return fail(loc, "gather_nd batch dimensions of data " +
                         shapeString(data.getShape()) + " and indices " +
                         shapeString(indices.getShape()) + " differ");
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(b + k));
  inferred.push_back(data.clone(shape));
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  auto data = shapedAs(getData()), indices = shapedAs(getIndices()),
       updates = shapedAs(getUpdates());
  int64_t axis = getAxis();
  if (failed(checkAxis(getLoc(), axis, data.getRank())))
    return failure();
  if (updates.getElementType() != data.getElementType())
    return emitOpError("updates must have the element type of the data");
  if (indices.getShape() != updates.getShape())
    return emitOpError("indices ")
           << shapeString(indices.getShape()) << " and updates "
           << shapeString(updates.getShape()) << " must have the same shape";
  if (indices.getRank() != data.getRank())
    return emitOpError("indices must have the rank of the data");
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > data.getDimSize(d))
      return emitOpError("indices ")
             << shapeString(indices.getShape()) << " exceed the data "
             << shapeString(data.getShape()) << " outside axis " << axis;
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getData().getType());
  return success();
}

LogicalResult ScatterNDOp::verify() {
  auto data = shapedAs(getData()), indices = shapedAs(getIndices()),
       updates = shapedAs(getUpdates());
  if (updates.getElementType() != data.getElementType())
    return emitOpError("updates must have the element type of the data");
  int64_t q = indices.getRank();
  int64_t k = q > 0 ? indices.getDimSize(q - 1) : 0;
  if (data.getRank() < 1 || k < 1 || k > data.getRank())
    return emitOpError("index tuples of length ")
           << k << " do not fit data of rank " << data.getRank();
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(k));
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("updates must have shape ")
           << shapeString(expected) << ", got "
           << shapeString(updates.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// OneHot
//===----------------------------------------------------------------------===//

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto indices = shapedAs(adaptor.getIndices());
  auto values = shapedAs(adaptor.getValues());
  int64_t axis = adaptor.getAxis(), depth = adaptor.getDepth();
  if (failed(checkAxis(loc, axis, indices.getRank() + 1)))
    return failure();
  if (depth < 1)
    return fail(loc, "one_hot depth must be positive, got " + Twine(depth));
  if (values.getRank() != 1 || values.getDimSize(0) != 2)
    return fail(loc, "one_hot values must be the pair [off, on], got shape " +
                         shapeString(values.getShape()));
  SmallVector<int64_t> shape(indices.getShape());
  shape.insert(shape.begin() + axis, depth);
  inferred.push_back(values.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

FailureOr<EinsumOp::Loops>
EinsumOp::parseEquation(StringRef equation, TypeRange inputs,
                        std::optional<Location> loc) {
  auto [lhs, rhs] = equation.split("->");
  if (!equation.contains("->") || rhs.contains("->") ||
      !llvm::all_of(equation, [](char c) {
        return llvm::isAlpha(c) || c == ',' || c == '-' || c == '>';
      })) {
    (void)fail(loc, "einsum equation '" + equation +
                        "' must have the explicit form 'ab,bc->ac'");
    return failure();
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != inputs.size()) {
    (void)fail(loc, "einsum equation '" + equation + "' has " +
                        Twine(terms.size()) + " operand terms for " +
                        Twine(inputs.size()) + " operands");
    return failure();
  }
  // Loops are numbered result letters first, then the summed ones.
  Loops loops;
  SmallVector<char> letters;
  auto loopOf = [&](char c) -> int64_t {
    auto it = llvm::find(letters, c);
    if (it != letters.end())
      return it - letters.begin();
    letters.push_back(c);
    loops.extents.push_back(1);
    return letters.size() - 1;
  };
  for (char c : rhs) {
    if (llvm::is_contained(letters, c)) {
      (void)fail(loc, "einsum result term '" + rhs + "' repeats a letter");
      return failure();
    }
    loops.output.push_back(loopOf(c));
  }
  SmallVector<bool> seen(rhs.size(), false);
  for (auto [term, type] : llvm::zip(terms, inputs)) {
    auto shape = cast<RankedTensorType>(type).getShape();
    if (term.size() != shape.size()) {
      (void)fail(loc, "einsum term '" + term +
                          "' does not match an operand of rank " +
                          Twine(shape.size()));
      return failure();
    }
    auto &dims = loops.inputs.emplace_back();
    for (auto [c, extent] : llvm::zip(term, shape)) {
      int64_t loop = loopOf(c);
      dims.push_back(loop);
      if (loop < (int64_t)seen.size())
        seen[loop] = true;
      int64_t &known = loops.extents[loop];
      if (extent != 1 && known != 1 && extent != known) {
        (void)fail(loc, "einsum letter '" + Twine(c) + "' has extents " +
                            Twine(known) + " and " + Twine(extent));
        return failure();
      }
      if (extent != 1)
        known = extent;
    }
  }
  if (llvm::is_contained(seen, false)) {
    (void)fail(loc, "einsum result term '" + rhs +
                        "' has a letter that no operand has");
    return failure();
  }
  return loops;
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (adaptor.getInputs().empty())
    return fail(loc, "einsum needs at least one operand");
  Type element = shapedAs(adaptor.getInputs().front()).getElementType();
  for (Value v : adaptor.getInputs())
    if (shapedAs(v).getElementType() != element)
      return fail(loc, "einsum operands must have the same element type");
  auto loops = parseEquation(adaptor.getEquation(),
                             adaptor.getInputs().getTypes(), loc);
  if (failed(loops))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t loop : loops->output)
    shape.push_back(loops->extents[loop]);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

//===----------------------------------------------------------------------===//
// Range
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() != 1 || !type.isDynamicDim(0))
    return emitOpError("result must be a 1-D tensor of symbolic extent");
  Type element = type.getElementType();
  if (!isa<IntegerType>(element))
    return emitOpError("result elements must be integers");
  if (getStart().getType() != element || getDelta().getType() != element)
    return emitOpError("start and delta must have the result's element type ")
           << element;
  if (cast<IntegerAttr>(getDelta()).getValue().isZero())
    return emitOpError("delta must be a non-zero number");
  return success();
}
