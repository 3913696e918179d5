//===- Shapes.td - Data movement and shapes --------------------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_SHAPES_TD
#define AUTOGLM_OPS_SHAPES_TD

include "dialects/AutoGLMBase.td"

def AGL_ConstantOp : AGL_InferredOp<"constant", [ConstantLike]> {
  let summary = "a constant tensor (weights live in resource blobs)";
  let description = [{
    Large values are `dense_resource` blobs, so weights are not copied into
    the IR and IR dumps elide them.

    ```mlir
    %w = autoglm.constant dense_resource<w1> : tensor<256x256xf32>
    %s = autoglm.constant dense<[1, 32, 256]> : tensor<3xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def AGL_ShapeOp : AGL_InferredOp<"shape"> {
  let summary = "the extents of a tensor as a 1-D i64 tensor";
  let description = [{
    Dimensions `start..end` of the input's shape. Folds to a constant when the
    shape is static.

    ```mlir
    %s = autoglm.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<1x32x256xf32>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, I64Attr:$start, I64Attr:$end);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_ReshapeOp : AGL_Op<"reshape"> {
  let summary = "reinterpret a tensor with another static shape";
  let description = [{
    Same elements in row-major order, new shape (the result type). ONNX
    Reshape's shape input, with its `0` and `-1` entries, is resolved at import.

    ```mlir
    %y = autoglm.reshape %x : (tensor<1x32x256xf32>) -> tensor<1x32x4x64xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

class AGL_ReshapeLikeOp<string mnemonic, string what, string example>
    : AGL_InferredOp<mnemonic> {
  let summary = what;
  let description = what # "; a special case of `autoglm.reshape`, to which "
    # "canonicalization rewrites it.\n\n```mlir\n" # example # "\n```";
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def AGL_UnsqueezeOp : AGL_ReshapeLikeOp<"unsqueeze",
    "insert extent-1 axes at the given result positions",
    "%y = autoglm.unsqueeze %x {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<1x8xf32>"> {
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$axes);
}

def AGL_SqueezeOp : AGL_ReshapeLikeOp<"squeeze",
    "remove the given extent-1 axes",
    "%y = autoglm.squeeze %x {axes = array<i64: 0>} : (tensor<1x8xf32>) -> tensor<8xf32>"> {
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$axes);
}

def AGL_FlattenOp : AGL_ReshapeLikeOp<"flatten",
    "collapse axes [0, axis) and [axis, rank) into a 2-D tensor",
    "%y = autoglm.flatten %x {axis = 1 : i64} : (tensor<1x32x1x1xf32>) -> tensor<1x32xf32>"> {
  let arguments = (ins AGL_Tensor:$input, I64Attr:$axis);
}

def AGL_TransposeOp : AGL_InferredOp<"transpose"> {
  let summary = "permute the axes";
  let description = [{
    Result axis `i` is input axis `perm[i]`.

    ```mlir
    %y = autoglm.transpose %x {perm = array<i64: 0, 2, 1, 3>}
        : (tensor<1x32x4x64xf32>) -> tensor<1x4x32x64xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_ConcatOp : AGL_InferredOp<"concat"> {
  let summary = "join tensors along one axis";
  let description = [{
    ```mlir
    %y = autoglm.concat %a, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Variadic<AGL_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_SliceOp : AGL_InferredOp<"slice"> {
  let summary = "strided window of a tensor";
  let description = [{
    Per axis, elements `starts[i], starts[i] + steps[i], ...` while before
    `ends[i]` (after `ends[i]` for negative steps). All three arrays have one
    entry per axis and are already clamped to the input's extents; an `ends`
    entry of -1 with a negative step means "through index 0".

    ```mlir
    %y = autoglm.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 256>,
                           steps = array<i64: 1, 1>} : (tensor<4x768xf32>) -> tensor<4x256xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_GatherOp : AGL_InferredOp<"gather"> {
  let summary = "take entries along one axis by index";
  let description = [{
    `output[i.., j.., k..] = data[i.., indices[j..], k..]` along `axis`;
    negative indices count from the end.

    ```mlir
    %e = autoglm.gather %table, %ids {axis = 0 : i64}
        : (tensor<1000x64xf32>, tensor<1x8xi64>) -> tensor<1x8x64xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$data, AGL_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_ExpandOp : AGL_InferredOp<"expand"> {
  let summary = "broadcast a tensor to a shape (numpy rules)";
  let description = [{
    The result shape is the broadcast of the input's shape and `shape`.

    ```mlir
    %y = autoglm.expand %x {shape = array<i64: 4, 8>} : (tensor<1x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_PadOp : AGL_InferredOp<"pad"> {
  let summary = "constant padding";
  let description = [{
    Pads (or, with negative amounts, crops) each axis: `pads` holds the begin
    amounts of every axis, then the end amounts; new elements are `value`.

    ```mlir
    %y = autoglm.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f64}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // AUTOGLM_OPS_SHAPES_TD
