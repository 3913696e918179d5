//===- AutoGLMDialect.td - the autoglm dialect -------------*- tablegen -*-===//
//
// The graph-level dialect: one op per ONNX operator meaning, on ranked
// tensors. Attributes hold what ONNX passes as constant inputs, normalized at
// import (non-negative axes, resolved auto_pad, full-rank slice bounds), so
// passes never re-derive ONNX's many spellings.
//
//===----------------------------------------------------------------------===//

#ifndef AUTOGLM_DIALECT_TD
#define AUTOGLM_DIALECT_TD

include "mlir/IR/OpBase.td"

def AutoGLM_Dialect : Dialect {
  let name = "autoglm";
  let cppNamespace = "::autoglm";
  let summary = "Graph-level operators of the AutoGLM compiler";
  let description = [{
    The `autoglm` dialect holds a model as imported from ONNX: each op is one
    ONNX operator with one meaning across opset versions. Every op carries the
    ONNX node name as its location, so diagnostics name the node. Each op
    infers its result type from its operands and attributes. Extents are
    static, or symbolic (`?`) for inputs declared with a range; the sizes that
    symbolic extents need are plain index arithmetic (`tensor.dim`, `arith`)
    next to the autoglm ops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
}

#endif // AUTOGLM_DIALECT_TD
