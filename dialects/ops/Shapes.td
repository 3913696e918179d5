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

def AGL_ShapeOp : AGL_InferredOp<"shape", [AGL_SymbolicShapes]> {
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

def AGL_ReshapeOp : AGL_Op<"reshape", [AGL_SymbolicShapes]> {
  let summary = "reinterpret a tensor with another shape";
  let description = [{
    Same elements in row-major order, new shape (the result type). ONNX
    Reshape's shape input, with its `0` and `-1` entries, is resolved at import.
    A result with symbolic (`?`) extents takes them, in order, from `sizes`
    (as `tensor.empty` does); an exporter's shape subgraph
    (Shape, Gather, Concat, ...) becomes that index arithmetic at import.

    ```mlir
    %y = autoglm.reshape %x : (tensor<1x32x256xf32>) -> tensor<1x32x4x64xf32>
    %z = autoglm.reshape %t [%seq] : (tensor<?x256xf32>) -> tensor<?x4x64xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = [{
    $input (`[` $sizes^ `]`)? attr-dict `:` functional-type($input, results)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

class AGL_ReshapeLikeOp<string mnemonic, list<Trait> traits, string what,
                        string example>
    : AGL_InferredOp<mnemonic, traits> {
  let summary = what;
  let description = what # "; a special case of `autoglm.reshape`, to which "
    # "canonicalization rewrites it.\n\n```mlir\n" # example # "\n```";
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def AGL_UnsqueezeOp : AGL_ReshapeLikeOp<"unsqueeze", [AGL_SymbolicShapes],
    "insert extent-1 axes at the given result positions",
    "%y = autoglm.unsqueeze %x {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<1x8xf32>"> {
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$axes);
}

def AGL_SqueezeOp : AGL_ReshapeLikeOp<"squeeze", [AGL_SymbolicShapes],
    "remove the given extent-1 axes",
    "%y = autoglm.squeeze %x {axes = array<i64: 0>} : (tensor<1x8xf32>) -> tensor<8xf32>"> {
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$axes);
}

def AGL_FlattenOp : AGL_ReshapeLikeOp<"flatten", [],
    "collapse axes [0, axis) and [axis, rank) into a 2-D tensor",
    "%y = autoglm.flatten %x {axis = 1 : i64} : (tensor<1x32x1x1xf32>) -> tensor<1x32xf32>"> {
  let arguments = (ins AGL_Tensor:$input, I64Attr:$axis);
}

def AGL_TransposeOp : AGL_InferredOp<"transpose", [AGL_SymbolicShapes]> {
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

def AGL_ConcatOp : AGL_InferredOp<"concat", [AGL_SymbolicShapes]> {
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

def AGL_SliceOp : AGL_InferredOp<"slice", [AGL_SymbolicShapes]> {
  let summary = "strided window of a tensor";
  let description = [{
    Per axis, elements `starts[i], starts[i] + steps[i], ...` while before
    `ends[i]` (after `ends[i]` for negative steps). All three arrays have one
    entry per axis and are already clamped to the input's extents; an `ends`
    entry of -1 with a negative step means "through index 0". A symbolic
    (`?`) input axis is taken whole: start 0, end `?`, step 1.

    Axes listed in `dynamic_axes` have bounds known only at run time: their
    start and end come from `bounds` (start, end per listed axis, already
    normalized and clamped to the axis), their step is 1 and their result
    extent is symbolic.

    ```mlir
    %y = autoglm.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 256>,
                           steps = array<i64: 1, 1>} : (tensor<4x768xf32>) -> tensor<4x256xf32>
    %z = autoglm.slice %m [%from, %to] {dynamic_axes = array<i64: 0>, ...}
        : (tensor<512x512xf32>) -> tensor<?x512xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, Variadic<Index>:$bounds,
                       DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$ends,
                       DenseI64ArrayAttr:$steps,
                       OptionalAttr<DenseI64ArrayAttr>:$dynamic_axes);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = [{
    $input (`[` $bounds^ `]`)? attr-dict `:` functional-type($input, results)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$starts,
                   "::llvm::ArrayRef<int64_t>":$ends,
                   "::llvm::ArrayRef<int64_t>":$steps), [{
      build($_builder, $_state, type, input, ::mlir::ValueRange{},
            $_builder.getDenseI64ArrayAttr(starts),
            $_builder.getDenseI64ArrayAttr(ends),
            $_builder.getDenseI64ArrayAttr(steps), ::mlir::DenseI64ArrayAttr{});
    }]>
  ];
  let hasFolder = 1;
  let hasVerifier = 1;
}

def AGL_GatherOp : AGL_InferredOp<"gather", [AGL_SymbolicShapes]> {
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

def AGL_ExpandOp : AGL_InferredOp<"expand", [AGL_SymbolicShapes]> {
  let summary = "broadcast a tensor to a shape (numpy rules)";
  let description = [{
    The result shape is the broadcast of the input's shape and `shape`. A
    result with symbolic (`?`) extents takes them, in order, from `sizes`
    (an entry of `shape` computed from extents is `?` there).

    ```mlir
    %y = autoglm.expand %x {shape = array<i64: 4, 8>} : (tensor<1x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$shape);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = [{
    $input (`[` $sizes^ `]`)? attr-dict `:` functional-type($input, results)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$shape), [{
      build($_builder, $_state, type, input, ::mlir::ValueRange{},
            $_builder.getDenseI64ArrayAttr(shape));
    }]>
  ];
  let hasFolder = 1;
  let hasVerifier = 1;
}

def AGL_RangeOp : AGL_Op<"range", [AGL_SymbolicShapes]> {
  let summary = "start, start + delta, ... with a run-time element count";
  let description = [{
    `output[i] = start + i * delta` for `i < count`. ONNX Range with constant
    bounds is a constant at import; this op is the Range whose limit is
    computed from symbolic extents (`torch.arange(seq)`, the positions of a
    causal mask): the importer reads the limit as index arithmetic and gives
    `count = max(ceil((limit - start) / delta), 0)`, which is also the
    result's symbolic extent. Integer elements; `start` and `delta` have
    the element type.

    ```mlir
    %r = autoglm.range %seq {start = 0 : i64, delta = 1 : i64} : tensor<?xi64>
    ```
  }];
  let arguments = (ins Index:$count, TypedAttrInterface:$start,
                       TypedAttrInterface:$delta);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$count attr-dict `:` type($output)";
  let hasVerifier = 1;
}

// A string attribute restricted to a few values.
class AGL_StrAttrOf<list<string> values> : ConfinedAttr<StrAttr, [
    AttrConstraint<CPred<"::llvm::is_contained(::llvm::ArrayRef<::llvm::StringRef>{\""
                         # !interleave(values, "\", \"") # "\"}, "
                         # "::llvm::cast<::mlir::StringAttr>($_self).getValue())">,
                   "one of " # !interleave(values, ", ")>]>;

def AGL_PadMode : AGL_StrAttrOf<["constant", "edge", "reflect", "wrap"]>;

def AGL_PadOp : AGL_InferredOp<"pad"> {
  let summary = "padding with a constant, the edge, a reflection or a wrap";
  let description = [{
    Pads (or, with negative amounts, crops) each axis: `pads` holds the begin
    amounts of every axis, then the end amounts. What the new elements are
    depends on `mode`:

    - `constant`: `value`;
    - `edge`: the nearest element of the axis;
    - `reflect`: the input mirrored at its first and last element (not
      repeating them), periodically for pads longer than the axis;
    - `wrap`: the input repeated periodically.

    Negative amounts crop first; the other modes then pad what is left.

    ```mlir
    %y = autoglm.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f64}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
    %r = autoglm.pad %x {pads = array<i64: 0, 0, 2, 2, 0, 0, 2, 2>, mode = "reflect"}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x12x12xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<F64Attr, "0.0">:$value,
                       DefaultValuedStrAttr<AGL_PadMode, "constant">:$mode);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_GatherElementsOp : AGL_InferredOp<"gather_elements"> {
  let summary = "take one element per index along an axis";
  let description = [{
    The result has the shape of `indices`;
    `output[i.., j, k..] = data[i.., indices[i.., j, k..], k..]` where `j` is
    the position along `axis`. Negative indices count from the end. Outside
    `axis`, `indices` may be smaller than `data`.

    ```mlir
    %y = autoglm.gather_elements %x, %i {axis = 1 : i64}
        : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$data, AGL_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def AGL_GatherNDOp : AGL_InferredOp<"gather_nd"> {
  let summary = "take slices addressed by index tuples";
  let description = [{
    `indices` (rank q) holds tuples of `k = indices.shape[-1]` coordinates into
    `data` (rank r), after `batch_dims` leading dimensions that both share.
    The result has shape `indices.shape[:-1] ++ data.shape[batch_dims + k:]`:
    each tuple selects the slice `data[b.., t0, .., tk-1, :..]`. Negative
    coordinates count from the end.

    ```mlir
    %y = autoglm.gather_nd %x, %i {batch_dims = 0 : i64}
        : (tensor<2x2xf32>, tensor<2x1xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$data, AGL_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

// The combination of an existing element with a scattered update.
def AGL_ScatterReduction : AGL_StrAttrOf<["none", "add", "mul", "max", "min"]>;

def AGL_ScatterElementsOp : AGL_InferredOp<"scatter_elements"> {
  let summary = "write updates at per-element indices along an axis";
  let description = [{
    A copy of `data` where, for every position `p` of `updates` (which has
    the shape of `indices`), the element at `p` with its `axis` coordinate
    replaced by `indices[p]` receives `updates[p]`. With a `reduction`
    (`add`, `mul`, `max`, `min`) it is combined with the element instead;
    several updates of one element are applied in row-major order of `p`.
    Negative indices count from the end.

    ```mlir
    %y = autoglm.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"}
        : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$data, AGL_IndexTensor:$indices,
                       AGL_Tensor:$updates, I64Attr:$axis,
                       DefaultValuedStrAttr<AGL_ScatterReduction, "none">:$reduction);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_ScatterNDOp : AGL_InferredOp<"scatter_nd"> {
  let summary = "write slices at positions given by index tuples";
  let description = [{
    A copy of `data` (rank r) where each tuple of `k = indices.shape[-1]`
    coordinates in `indices` receives a slice of `updates`, whose shape is
    `indices.shape[:-1] ++ data.shape[k:]`. With a `reduction` (`add`, `mul`,
    `max`, `min`) the slice is combined with the existing elements; several
    updates of one element are applied in row-major order. Negative
    coordinates count from the end.

    ```mlir
    %y = autoglm.scatter_nd %x, %i, %u {reduction = "none"}
        : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$data, AGL_IndexTensor:$indices,
                       AGL_Tensor:$updates,
                       DefaultValuedStrAttr<AGL_ScatterReduction, "none">:$reduction);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_OneHotOp : AGL_InferredOp<"one_hot"> {
  let summary = "one-hot encoding with runtime off/on values";
  let description = [{
    Inserts an axis of extent `depth` at `axis` of the result:
    `output[.., j, ..] = indices[..] == j ? values[1] : values[0]`, where
    `values` is the pair `[off, on]`. Negative indices count from the end
    (`+ depth`); indices outside `[-depth, depth)` give all-off rows.
    Floating-point indices are truncated to integers.

    ```mlir
    %y = autoglm.one_hot %i, %v {depth = 10 : i64, axis = 1 : i64}
        : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$indices, AGL_Tensor:$values, I64Attr:$depth,
                       I64Attr:$axis);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$indices `,` $values attr-dict `:` functional-type(operands, results)";
}

def AGL_EinsumOp : AGL_InferredOp<"einsum"> {
  let summary = "Einstein summation in explicit form";
  let description = [{
    `equation` is `term,term,...->term`, one letter per axis: every letter is
    a loop; letters missing from the result term are summed over, and a
    letter repeated within one operand walks a diagonal. An operand axis of
    extent 1 broadcasts against the other operands (ONNX ellipses are
    expanded to letters at import). Half-precision floats accumulate in f32.

    ```mlir
    %y = autoglm.einsum %a, %b {equation = "bij,bjk->bik"}
        : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins Variadic<AGL_Tensor>:$inputs, StrAttr:$equation);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The equation as loops: for every operand and for the result, the loop
    /// of each axis; and the extent of each loop.
    struct Loops {
      llvm::SmallVector<llvm::SmallVector<int64_t>> inputs;
      llvm::SmallVector<int64_t> output;
      llvm::SmallVector<int64_t> extents;
    };
    static mlir::FailureOr<Loops>
    parseEquation(llvm::StringRef equation, mlir::TypeRange inputs,
                  std::optional<mlir::Location> loc);
  }];
}

#endif // AUTOGLM_OPS_SHAPES_TD
