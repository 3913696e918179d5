//===- LinearAlgebra.td - Linear algebra -----------------------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_LINEARALGEBRA_TD
#define AUTOGLM_OPS_LINEARALGEBRA_TD

include "dialects/AutoGLMBase.td"

def AGL_MatMulOp : AGL_InferredOp<"matmul", [AGL_SymbolicShapes]> {
  let summary = "numpy-style matrix product";
  let description = [{
    Matrix product over the last two dimensions with the batch dimensions
    broadcast (numpy `matmul`); a 1-D operand is a vector.

    ```mlir
    %c = autoglm.matmul %a, %b
        : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$lhs, AGL_Tensor:$rhs);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def AGL_GemmOp : AGL_InferredOp<"gemm", [AGL_SymbolicShapes]> {
  let summary = "general matrix multiply: alpha * op(A) * op(B) + beta * C";
  let description = [{
    2-D product with optional transposition of either operand and an optional
    bias `c` broadcast to the result. Integer operands need integral `alpha`
    and `beta` and compute modulo their width.

    ```mlir
    %y = autoglm.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32,
                                  transA = false, transB = true}
        : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$a, AGL_Tensor:$b,
                       Optional<AGL_Tensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$transA,
                       DefaultValuedAttr<BoolAttr, "false">:$transB);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // AUTOGLM_OPS_LINEARALGEBRA_TD
