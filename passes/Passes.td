//===- Passes.td - AutoGLM passes ----------------------------*- tablegen -*-===//

#ifndef AUTOGLM_PASSES_TD
#define AUTOGLM_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToLinalg : Pass<"autoglm-lower-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower autoglm ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every `autoglm` op into `linalg.generic` (and a few named linalg
    and tensor ops) on signless tensors. Unsigned integer types become
    signless; the lowering picks signed or unsigned arithmetic from the
    original type. Entry-function arguments are marked non-writable, since
    inputs belong to the caller.

    `autoglm.attention` is spelled again in the primitive ops it stands for
    (MatMul with the transposed K, scale, mask, Softmax, MatMul), or, with
    `attention-kernel`, becomes `autoglm.attention_buffers` on its
    operands' buffers (`bufferization.to_buffer`) and a new output buffer
    (`memref.alloc`, read back with `bufferization.to_tensor`), for the
    runtime's kernel (head sizes up to 4096). With `gpu-attention` (the
    CUDA target's fp16 and bf16 builds) the same happens for the ops that
    `autoglm-attention-to-gpu`'s kernel takes (head sizes multiples of 16
    up to 128, at least 16 query rows known when compiling); the others
    are spelled again.
  }];
  let options = [
    Option<"attentionKernel", "attention-kernel", "bool", "false",
           "Lower autoglm.attention for the runtime's attention kernel">,
    Option<"gpuAttention", "gpu-attention", "bool", "false",
           "Lower autoglm.attention for the GPU's attention kernel">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect",
    "mlir::bufferization::BufferizationDialect", "mlir::memref::MemRefDialect"
  ];
}

def KVCache : Pass<"autoglm-kv-cache", "mlir::ModuleOp"> {
  let summary = "Keep a decoder's past keys and values in a cache updated in place";
  let description = [{
    An exported decoder takes its past keys and values as inputs
    (`[B, H, past, D]`) and returns them with the new positions appended
    (`present = Concat(past, new)` along the `past` axis), so that a caller
    copies the whole cache in and out of every step. This pass turns each
    such input/output pair into model state: a `capacity`-position tensor
    argument marked `autoglm.state` and `bufferization.writable`, into which
    the new positions are inserted at the current length
    (`tensor.insert_slice`, in place after bufferization), and which the
    model reads back up to the new length (`tensor.extract_slice`). One more
    state argument, `tensor<1xi64>`, holds the length; the model reads it
    (clamped to `[0, capacity]`, which bounds every buffer) and writes the
    new length back. The updated states are returned as results marked
    `autoglm.state`, which bufferization folds into the arguments.

    The past inputs and present outputs leave the signature, and so does the
    `past` symbol; the function's `autoglm.kv_cache` attribute records the
    capacity and how many positions a run appends (a constant or the symbol
    of an input extent), which the runtime checks before each run. Every
    pair must share one `past` symbol and append the same number of
    positions; anything else is an error that names the input.

    With `length-in-symbols` (CUDA, whose arena is device memory that host
    code cannot read), the length is no state: the `tensor<1xi64>` argument
    is marked `autoglm.symbol_slot = N` (N: the number of symbols left),
    `autoglm-static-signature` reads it from the symbol values after the
    symbols, the model does not write it, and the runtime, which keeps it,
    advances it after each run; `autoglm.kv_cache` records `length_slot`.
  }];
  let options = [
    Option<"capacity", "capacity", "int64_t", "0",
           "Positions the cache holds (the model's maximum sequence length)">,
    Option<"lengthInSymbols", "length-in-symbols", "bool", "false",
           "Read the length after the symbol values; the runtime advances it">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::tensor::TensorDialect"
  ];
}

def CalibrationOutputs : Pass<"autoglm-calibration-outputs", "mlir::ModuleOp"> {
  let summary = "Return what int8 calibration needs to know of the activations";
  let description = [{
    Calibration for `--precision int8`. For the activation of every
    product that `autoglm-quantize-products` would quantize (the left
    operand of an f32 `autoglm.matmul` by a constant 2-D weight, the input
    of an f32 `autoglm.conv` of one group, with static shapes, by a
    constant filter), each
    distinct value once,
    in the order that pass numbers them, appends to `main`'s results its
    smallest and largest element (`autoglm.calibration.N.min` and `.max`,
    scalars, so any shape works, symbolic ones and KV caches included), or
    with `whole` the operand itself (`autoglm.calibration.N`, for
    percentiles and entropy; static shapes only). The compiler runs the model so
    compiled on the calibration inputs and reads the ranges from these
    outputs.
  }];
  let options = [
    Option<"whole", "whole", "bool", /*default=*/"false",
           "Return the whole operands instead of their extremes">,
    ListOption<"keep", "keep", "std::string",
               "ONNX node names of products that stay float32 (as for "
               "autoglm-quantize-products)">
  ];
}

def QuantizeProducts : Pass<"autoglm-quantize-products", "mlir::ModuleOp"> {
  let summary = "Quantize the products with a constant weight to int8 (QDQ form)";
  let description = [{
    Post-training quantization. For the N-th distinct activation of the
    f32 `autoglm.matmul`s by a constant 2-D weight and the f32
    `autoglm.conv`s of one group by a constant filter (numbered as
    `autoglm-calibration-outputs` numbers them), `ranges` holds its
    calibrated minimum and maximum at 2N and 2N+1. The activation becomes
    `dequantize_linear(quantize_linear(x))` with an asymmetric `ui8`
    per-tensor scale and zero point covering that range (and 0); the weight
    becomes `dequantize_linear` of an `i8` constant with one symmetric scale
    per channel (`max|w| / 127`): per column of a matrix, per output
    channel (axis 0) of a filter. `autoglm-integer-matmuls` then turns each
    such product into an int8 one. Products whose ONNX node is named in
    `keep` stay float32 (and are not numbered). An f32 `autoglm.gemm` by a
    constant 2-D weight, without `transA`, is first rewritten as
    `matmul(a, w)` (a `transB` weight transposed at compile time), times
    `alpha`, plus `beta * c` (`autoglm-calibration-outputs` does the same,
    so that both number the operands alike).

    ```mlir
    %q = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64}
        : (tensor<4x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x64xui8>
    %a = autoglm.dequantize_linear %q, %s, %zp {axis = 1 : i64} : ...
    %w = autoglm.dequantize_linear %wq, %ws, %wzp {axis = 1 : i64}
        : (tensor<64x32xi8>, tensor<32xf32>, tensor<32xi8>) -> tensor<64x32xf32>
    %y = autoglm.matmul %a, %w : ...
    ```
  }];
  let options = [
    ListOption<"ranges", "ranges", "double",
               "Minimum and maximum of each quantized operand, in order">,
    ListOption<"keep", "keep", "std::string",
               "ONNX node names of products that stay float32 "
               "(--keep-fp32); a name that is no such product is an error">
  ];
}

def IntegerMatMuls : Pass<"autoglm-integer-matmuls", "mlir::ModuleOp"> {
  let summary = "Products of dequantized int8 operands as integer products";
  let description = [{
    Rewrites `matmul(dequantize_linear(a), dequantize_linear(b))`, where `a`
    and `b` are 8-bit integer tensors, `a`'s scale and zero point are
    per-tensor, and `b`'s scale is per-tensor or per column (and its zero
    point per-tensor, or per column with equal entries), into
    `autoglm.matmul_integer` of the integer tensors, converted to f32 and
    multiplied by `scale_a * scale_b`. The integer product is exact; the
    result equals the float product up to float rounding. This is how QDQ
    models (and `--precision int8`) run on the int8 GEMM.

    Likewise `conv(dequantize_linear(x), dequantize_linear(w), bias)` with
    one group and static shapes, `x` per tensor and `w`'s scale per tensor or per filter
    (axis 0; its zero point per tensor, or per filter with equal entries),
    becomes `autoglm.conv_integer`, converted to f32, times `scale_x *
    scale_w` (a per-filter scale viewed as [1, F, 1, 1]), plus the bias
    (likewise). Its lowering gathers the input's windows into rows and
    runs the same int8 GEMM.

    First, an int8 `quantize_linear` with a constant zero point that only
    `dequantize_linear`s with the same parameters read becomes `ui8` with
    the zero point plus 128 (both ends alike): the same values, and an
    unsigned left operand, as the int8 GEMM (VNNI) needs.

    With `signed-activations` (the CUDA target: cuBLASLt's integer products
    take int8 operands and no zero points) it goes the other way: a `ui8`
    `quantize_linear` read only as products' left operands or
    convolutions' inputs (dequantized for matmuls and convolutions, or by
    `matmul_integer` and `conv_integer` with the same zero point) becomes
    `i8` with the zero point less 128 (computed so at run time when it is
    not a constant, as `DynamicQuantizeLinear`'s), and
    `matmul_integer(a, w, z, 0)` of an `i8` `a`, a constant 2-D `w` and a
    per-tensor `z` becomes `matmul_integer(a, w, 0, 0)` minus
    `z * sum_k w[k, j]` per column (exact in `i32`; the column sums
    computed here, times a run-time `z` where it is one).

    ```mlir
    %acc = autoglm.matmul_integer %aq, %bq, %azp, %bzp
        : (tensor<4x64xui8>, tensor<64x32xi8>, tensor<ui8>, tensor<i8>) -> tensor<4x32xi32>
    %f = autoglm.cast %acc {to = f32} : (tensor<4x32xi32>) -> tensor<4x32xf32>
    %s = autoglm.mul %sa, %sb : (tensor<f32>, tensor<32xf32>) -> tensor<32xf32>
    %y = autoglm.mul %f, %s : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
    ```
  }];
  let options = [
    Option<"signedActivations", "signed-activations", "bool", "false",
           "int8 activations and products without a lhs zero point "
           "(cuBLASLt's), instead of uint8 ones (the CPU's VNNI GEMM)">
  ];
}

def LastToken : Pass<"autoglm-last-token", "mlir::ModuleOp"> {
  let summary = "Compute the named outputs for the last token only";
  let description = [{
    A decoder returns the logits of every position it ran on, but a
    generator reads only the last one; in a prefill the LM head, often the
    largest product of the model, would compute every other row for
    nothing. For each output named in `outputs`, this pass keeps only the
    last position along the output's second-to-last axis (the tokens of
    `[batch, tokens, vocabulary]`), which becomes 1, and then moves that
    slice up through the ops that compute each position independently:
    products with a weight (the rows of the left operand), RMSNorm and
    LayerNorm, elementwise ops (not through operands that broadcast along
    the axis), softmax-like ops along other axes, transposes, reshapes that
    keep the leading axes, windows along other axes, and attention (its
    query rows and mask rows; the keys and values stay whole). It stops at
    a value that any other user needs whole, so the positions that feed
    keys and values (and the KV cache) are all computed.

    ```mlir
    // --autoglm-last-token="outputs=logits": the LM head runs on one row
    %h = tensor.extract_slice %x[0, %last, 0] [1, 1, 256] [1, 1, 1]
    %logits = autoglm.matmul %h, %w : (tensor<1x1x256xf32>, tensor<256x8192xf32>) -> tensor<1x1x8192xf32>
    ```
  }];
  let options = [
    ListOption<"outputs", "outputs", "std::string",
               "Names of the outputs to compute for the last token only">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::tensor::TensorDialect"
  ];
}

def FuseElementwise : Pass<"autoglm-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse chains of elementwise linalg.generic ops";
  let description = [{
    Fuses a producer `linalg.generic` into its consumer when the consumer is
    elementwise (all loops parallel), so chains such as bias + GELU become one
    loop nest. A computing producer is never fused into a reduction or
    contraction: there it would be recomputed for every iteration of the
    reduced loops (for a matmul, once per output column). A transpose is the
    exception: fused into a contraction (`linalg.transpose` is generalized
    for it) it becomes a permuted indexing map, and the matmul reads the
    untransposed buffer with strides instead of a transposed copy.

    A view between two elementwise generics does not keep them apart: when
    a consumer reads the `tensor.expand_shape` of an elementwise producer's
    result (each used once), as a residual add reads a Gemm's biased result
    through a view that adds a unit dimension, the consumer runs over the
    view's source dimensions instead (upstream's
    `populateFoldReshapeOpsByCollapsingPatterns`: its other operands
    collapsed, its result expanded), and then fuses with the producer; the
    product after which that loop comes can take it all as its epilogue
    (`bias+residual`, `bias+gelu_tanh` in GPT-2's blocks).

    A Reshape of symbolic extents arrives as a `tensor.collapse_shape` to
    one dimension and a `tensor.expand_shape` to the new shape, which no
    loop sees through. Where the extents of both sides pair up in order
    into groups of equal element counts (a symbolic extent alone, proven
    equal to its counterpart by value bounds; constants with equal
    products), the pair becomes a collapse and an expand along those
    groups: identities fold away, and attention's split and merge of heads
    become reshapes that the loops and the transposes fuse through, as with
    constant extents.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def MarkActivations : Pass<"autoglm-mark-activations", "mlir::ModuleOp"> {
  let summary = "Record which activation an elementwise loop computes";
  let description = [{
    Finds, in every elementwise `linalg.generic`, a value that is ReLU,
    GELU (erf or tanh form) or SiLU of one other value, in whichever way
    the exporter spelled it, and marks its defining op with
    `autoglm.activation` (`"relu"`, `"gelu_erf"`, `"gelu_tanh"`, `"silu"`).
    The candidates are the yielded value and the two sides of a sum or a
    product it ends with (an activation followed by a residual add, or
    either factor of a gated unit such as SwiGLU's `silu(gate) * up`); in a
    loop that
    ends in a uint8 QuantizeLinear (`fptoui(min(max(roundeven(v / s) + z,
    0), 255))`, an int8 product's epilogue quantizing the next one's
    input), v and the sides of its sum. A value `y`
    computed from a single value `x` (and constants) is evaluated, in
    double, at sample points from -9 to 9 and compared with each
    activation (relative error 1e-5); the nearest such `x` is taken.

    It runs before `autoglm-approximate-math`, which turns `erf`, `tanh`
    and `exp` into polynomials that no structural match would recognize;
    the marked op (the product or quotient that ends the activation) is
    not rewritten, and the mark survives bufferization.
    `autoglm-contractions-to-kernels` reads it to run the activation in
    the GEMM's epilogue (the CPU kernel's, or cuBLASLt's with
    `--target=cuda`), checking again that `y` is computed from `x`
    alone. The mark changes nothing else: unfused, the loop computes what
    it did.
  }];
}

def ApproximateMath : Pass<"autoglm-approximate-math", "mlir::ModuleOp"> {
  let summary = "Polynomial f32 exp, tanh and erf, which vectorize";
  let description = [{
    Rewrites f32 `math.exp`, `math.tanh` and `math.erf` into the upstream
    polynomial approximations (a few ulp of error). libm's scalar calls
    would keep the loops around them (Softmax, SiLU, GELU) from
    vectorizing. Other element types keep the math ops.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::vector::VectorDialect"
  ];
}

def Bufferize : Pass<"autoglm-bufferize", "mlir::ModuleOp"> {
  let summary = "One-shot bufferization of a whole model";
  let description = [{
    Runs upstream One-Shot Module Bufferization with the settings a compiled
    model needs: function boundaries bufferized to identity-layout memrefs
    (bare pointers at the ABI), 64-byte-aligned buffers, and copies emitted
    as `linalg.copy` so that they lower to plain loops with no runtime
    library call. Results then become output arguments that the caller
    provides; results computed into their own buffer are computed directly
    into the output argument (no copy). Results marked `autoglm.state N`
    (model state, see `autoglm-kv-cache`) must have been updated in place
    in argument N (an error otherwise) and are dropped. Each op that writes
    a `tensor.empty` gets one of its own (CSE merges identical ones), and
    each writer of a zero-filled new tensor its own fill: which buffers
    share memory is left to `autoglm-plan-arena`.
  }];
  let dependentDialects = [
    "mlir::bufferization::BufferizationDialect", "mlir::linalg::LinalgDialect",
    "mlir::memref::MemRefDialect"
  ];
}

def StaticSignature : Pass<"autoglm-static-signature", "mlir::func::FuncOp"> {
  let summary = "Give a bufferized model function the static signature of the ABI";
  let description = [{
    Callers pass every input and output as one plain pointer. An argument
    with symbolic extents (from `--dim NAME=MIN..MAX`) becomes a flat
    `memref<N x T>`, N its largest element count, viewed with its actual
    extents through `memref.reinterpret_cast`. Two arguments are appended:
    `autoglm.symbol_values` (`memref<S x i64>`, the value of each
    symbol, read where an input extent is needed) and `autoglm.output_dims`
    (`memref<D x i64>`, where the function writes every extent of every
    output, in order). The largest shape of each output is recorded as
    `autoglm.output_max_shapes`. Outputs are the arguments marked
    `bufferize.result`. A symbolic output is written by one copy of the
    result; when the result is an arena view of its own that nothing
    touches after the copy, the result is computed in a view of the output
    instead and the copy goes (as a static result's buffer is the output).
    An argument marked `autoglm.symbol_slot = N` (a `memref<1xi64>`, the
    KV cache length of a GPU model) goes: its loads read element N of the
    symbol values, which then hold at least N + 1 values.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def RecognizeNorms : Pass<"autoglm-recognize-norms", "mlir::ModuleOp"> {
  let summary = "Recognize RMSNorm and LayerNorm written out in primitive ops";
  let description = [{
    On f32 tensors, rewrites
    `x / sqrt(mean(x^2) + eps) * scale` into `autoglm.rms_norm`, and
    `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * scale + bias` into
    `autoglm.layer_norm`, where the means run over the trailing axes (kept
    as extent 1, and static; leading axes such as a decoder's token axis may
    be symbolic), `eps` is a constant, the square is `Pow` by 2 or a
    self-`Mul`, the division is `Div`, or `Mul` by `Reciprocal` or by
    `1 / sqrt`, and scale and bias apply per element of the normalized axes.
    The new op's location fuses those of every op it replaces. Ops the
    pattern reads that have other users stay for them.
  }];
}

def RecognizeAttention : Pass<"autoglm-recognize-attention", "mlir::ModuleOp"> {
  let summary = "Recognize scaled dot-product attention written out in primitive ops";
  let description = [{
    On f32 tensors, rewrites
    `MatMul(Softmax(mask(scale * MatMul(Q, Transpose(K)))), V)` into
    `autoglm.attention`. Heads and head sizes must be static; batch and
    sequence lengths may be symbolic (a decoder compiled for any prompt and
    cache length, whose K and V are views of its KV cache). The transpose swaps the last two axes of a 4-D K;
    the scale is a constant `Mul` or `Div` of the scores, or of Q and K
    (any of them, multiplied together); the softmax runs over the keys (the
    last axis). The mask is either an `Add` of an f32 tensor broadcasting to
    the scores (a constant, or computed when the model runs from an
    attention-mask input), or `Where(keep, scores, fill)` with a constant boolean `keep`
    and a constant `fill` of -1e4 or below: such a Where becomes the causal
    flag when `keep` is the causal pattern (`j <= i + Sk - Sq`), nothing when
    it keeps every key, and else a constant 0 / -inf mask; it is not
    recognized when a row keeps no key. K and V heads repeated for
    grouped-query attention (Reshape to `[B, Hkv, 1, S, D]`, Expand, Reshape
    to `[B, H, S, D]`) are read unrepeated. A
    `Where(max(mask) == -inf, 0, probabilities)` after the softmax (the
    ONNX Attention importer zeroes the rows its mask leaves with no key) is
    taken in too: `autoglm.attention` gives such rows zeros. The new op's
    location fuses those of every op it replaces.
  }];
}

def AttentionToKernels : Pass<"autoglm-attention-to-kernels", "mlir::ModuleOp"> {
  let summary = "Run autoglm.attention_buffers with the runtime's attention kernel";
  let description = [{
    Replaces every `autoglm.attention_buffers` by a call of
    `agl_kernel_attention` on the addresses and strides of its buffers; the
    mask's dimensions of extent 1 (and those it lacks) get stride 0, so that
    the kernel broadcasts them. A `linalg.transpose` that keeps the last
    dimension and only fills an operand's new buffer (the `[B, S, H, D]` to
    `[B, H, S, D]` of exported attention), or only copies the output on, is
    folded into the strides: the kernel reads the transpose's input, or
    writes its destination, in place; the copy and its buffer go. That
    holds only while nothing between the two ops writes the input (or
    touches the destination). A decode step's `present = Concat(past, new)`
    joins the call too: when K's and V's first rows are filled by
    `linalg.copy`s from past buffers (into views that start at row 0 and
    span every other dimension whole), both over the same rows (the same
    extent, or symbolic extents of one symbol of the model's inputs), and
    nothing between a copy and the op reads those rows or writes the past,
    the
    copies go and the call is `agl_kernel_attention_with_past`, which
    reads the past rows where they are and writes them into K and V itself
    (the past read once, not copied and read back). Runs before the arena
    is planned, like the other kernel-call passes: the plan then keeps the
    buffers live at the call, where it uses their addresses.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect"
  ];
}

def InstrumentKernels : Pass<"autoglm-instrument-kernels", "mlir::ModuleOp"> {
  let summary = "Time every kernel of the plan (autoglm-compile --profile)";
  let description = [{
    Brackets each kernel of every function body with calls of the runtime's
    profiling hooks: `%t = call @agl_profile_begin()` before it and
    `call @agl_profile_end(%id, %t)` after it. A kernel is an op at the top
    level of the body that does work: a call of a runtime kernel
    (`agl_kernel_*`), a `linalg` op, a `memref.copy`, or an `scf.for` (the
    batch loop around a kernel call). Kernel `%id` is entry `id` of the
    module's `autoglm.kernels` attribute, `{name, flops, bytes}`: the name
    is what runs (the kernel called, `loop` for a generic, else the op) then
    the ONNX nodes of the op's location, joined with `+`. FLOPs: 2·m·n·k per
    batch entry of a GEMM call; for a loop nest, its trip count times the
    float arith/math ops of its body (an fma counts two); 0 where an extent
    is not static. Bytes: the sizes of the operands (the GEMM's three
    matrices).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::func::FuncDialect"];
}

def PoolingToKernels : Pass<"autoglm-pooling-to-kernels", "mlir::ModuleOp"> {
  let summary = "Run f32 max pooling with the runtime's pooling kernel";
  let description = [{
    Finds the window loops that the lowering writes for an f32 MaxPool
    (`out[n, c, oy, ox] = maximumf(out, in[n, c, oy * sh + ki * dh, ox * sw +
    kj * dw])` over loops (n, c, ki, kj, oy, ox)) after a -inf fill of the
    output, and replaces the loop and the fill by one call of
    `agl_kernel_maxpool2d`, which clips each window to the image and
    vectorizes along output rows (the loop's strided reads stay scalar).
    Walking back from the loop over the ops that touch memory, the call
    also takes over the padding: when the loop reads a -inf-filled buffer
    into which the input was copied, the kernel reads the input itself, and
    the fill and copy go (unless the padded buffer is read again later).
    Runs before arena planning (it also works on planned buffers); only
    removes buffer uses.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ExpandBFloat16 : Pass<"autoglm-expand-bfloat16", "mlir::ModuleOp"> {
  let summary = "Write bfloat16 conversions as integer arithmetic";
  let description = [{
    Rewrites `arith.truncf` from f32 to bf16 and `arith.extf` from bf16 to
    f32 (scalars and vectors) as integer arithmetic on their bits (upstream's
    arith expansion: round to nearest even, NaN kept quiet), which
    vectorizes. Without it, LLVM calls the compiler runtime's
    `__truncsfbf2` (which `libautoglm_rt` provides) for every element
    truncated on a CPU without bfloat16 conversion instructions
    (AVX512_BF16, AVX-NE-CONVERT). `autoglm-compile` runs it for such
    targets, before the conversion to the LLVM dialect.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TransposesToKernels : Pass<"autoglm-transposes-to-kernels", "mlir::ModuleOp"> {
  let summary = "Run transposes of 4-byte elements with the runtime's transpose kernel";
  let description = [{
    Replaces a `linalg.transpose`, or a `linalg.generic` that only copies
    its input through a permutation map, of 4-byte elements (f32, i32)
    whose innermost output dimension is not contiguous in the input (NHWC
    -> NCHW, a matrix transposed) by one call of `agl_kernel_transpose32`,
    which moves 8 x 8 tiles through registers (the loop's innermost reads
    are strided, so it stays scalar). The output dimension that is
    contiguous in the input becomes the kernel's rows, the output's
    innermost dimension its columns, and the others its planes, folded
    where both buffers hold them as one run of strides. Permutations that
    keep the innermost dimension (row copies, which vectorize), buffers
    without static strides, overlapping buffers and those with more than
    two plane dimensions after folding are left as they are. Runs before
    arena planning (it also works on planned buffers); only removes buffer
    uses.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ConvolutionsToKernels : Pass<"autoglm-convolutions-to-kernels", "mlir::ModuleOp"> {
  let summary = "Run f32 convolutions with the runtime's convolution kernel";
  let description = [{
    Finds the f32 convolutions that the lowering wrote as an im2col gather
    (`col[n, g, c, k.., o..] = in[n, g, c, o * stride + k * dilation]`, one or
    two spatial axes) followed by a batched matrix product with a constant
    filter, and replaces the pair by one call of `agl_kernel_conv2d`, which
    packs the windows straight from the input: the gathered copy is no longer
    written or read. The filter is packed at compile time into the kernel's
    layout (panels of `AGL_CONV_PACKED_NR` filters, no padding). Walking
    back from the product over the ops that touch memory, the call also
    takes over
    - the padding: when the gather reads a zero-filled buffer into which the
      input was copied, the kernel reads the input itself and treats the
      border as zeros, and the fill and copy go (unless the padded buffer
      is read again later);
    - the initial output: a zero fill or a per-filter bias broadcast into the
      output becomes `accumulate = 0` and the kernel's bias;
    and, forward, an elementwise loop that reads the whole output next: an
    activation of it (a ReLU, `maximumf(x, 0)`, or a GELU or SiLU that
    `autoglm-mark-activations` marked), or of its sum with a residual of
    the same shape and strides (a ResNet block's `relu(conv + shortcut)`),
    or that sum alone: the kernel writes the loop's buffer with the
    residual added and the activation applied, and the loop goes.
    The pass runs before `autoglm-plan-arena` (the im2col and padding
    buffers it leaves unused then take no arena memory; it also works on
    planned buffers): it requires that the input, bias and written output
    share no bytes and that nothing reads what the removed gather would
    have written; a fused loop's buffer must not overlap the input, bias or
    residual either.
    Products whose filter is not a constant, or whose operands have other
    layouts, are left for `autoglm-contractions-to-kernels`.

    Tuning (the module attribute `autoglm.tuning`, see docs/tuning.md): a
    convolution whose key (`conv2d n.. g.. c.. HxW f.. kKHxKW sSHxSW
    oOHxOW`) has `strategy = "im2col"` is left as gather and product; its
    `kc`/`nc`/`mc` become the call's blocking argument (a constant
    `agl_gemm_blocking`, null without them), recorded on the call as
    `autoglm.blocking`.

    Cost model: a convolution with fewer than `min-filters` filters per group
    stays as gather and product: the kernel puts the filters on its
    micro-kernel's 32 columns, which would go partly unused, while the GEMM
    call puts them on its rows (for the small convolutions of
    models/resnet_cnn.onnx, 16 filters on 16x16 maps, that is about 15%
    faster per convolution). With `narrow-vectors` (a target without
    AVX-512), so do a 1x1 convolution with a stride (its gather is a plain
    subsampling copy) and one with at most 64 output positions per image
    and at least 1 MiB of filters per group (a ResNet's last 7x7 stage):
    there, on Zen 2, the GEMM call was 5-40% faster; on an AVX-512 CPU the
    kernel's direct ways beat im2col on every ResNet convolution. 3x3
    convolutions with unit strides and dilations, one group and at least
    `winograd-min-channels` channels and filters call a Winograd kernel
    instead: with AVX-512, `agl_kernel_conv2d_winograd_f4` (F(4x4, 3x3),
    36 products per tile where the direct convolution takes 144) from 32
    tiles of 4x4 outputs; with `narrow-vectors`,
    `agl_kernel_conv2d_winograd` (F(2x2, 3x3), 16 products for 36) from 32
    tiles of 2x2. The filters are transformed here (16 or 36 matrices
    [filters x channels] packed as the GEMM packs its A, in panels of 14
    filters, which the AVX-512 micro-kernel reads in place), and a
    workspace buffer for the transformed input and the products is
    allocated before the call, for the arena plan to place. A tuning's
    `strategy` decides instead, either way: `implicit-gemm` the kernel,
    `winograd` Winograd where it fits (else the kernel), `im2col` the GEMM
    call. A convolution left as gather and product keeps its key
    on the gather (`autoglm.tuning_key`), where reports and tuners find it.
  }];
  let options = [
    Option<"minFilters", "min-filters", "int64_t", "32",
           "Filters per group below which a convolution keeps im2col">,
    Option<"winograd", "winograd", "bool", "true",
           "Compute 3x3 convolutions with unit strides and one group by "
           "Winograd's F(4x4, 3x3) (F(2x2, 3x3) with narrow-vectors)">,
    Option<"narrowVectors", "narrow-vectors", "bool", "false",
           "The target has 256-bit vectors at most (AVX2): strided 1x1 "
           "convolutions and small maps with large filters keep im2col">,
    Option<"winogradMinChannels", "winograd-min-channels", "int64_t", "64",
           "Channels and filters below which a 3x3 convolution is not run "
           "by Winograd's algorithm">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect"
  ];
}

def SplitGatedLoops : Pass<"autoglm-split-gated-loops", "mlir::ModuleOp"> {
  let summary = "Move a gate's factor next to the int8 product it reads";
  let description = [{
    A gated linear unit after two int8 products (SwiGLU's
    `silu(gate) * up`) is one elementwise loop that reads both products'
    int32 sums; `autoglm-contractions-to-kernels` takes a loop into a
    product's call only when it is the op right after that product, and
    reads no other product's sums. When an elementwise loop (on buffers)
    ends in a product of two factors (or in the uint8 quantization of one)
    where one factor is computed from one earlier product's int32 sums and
    inputs the other factor does not read, and the op right before the
    loop is the product the other factor reads, this pass moves the first
    factor (its dequantization and activation) into a loop of its own right
    after the earlier product, writing a new float buffer (`memref.alloc`,
    64-byte aligned; the arena planner places it), and the loop that is left
    reads that buffer in the factor's place. The earlier product is then
    followed by its dequantization and SiLU, the later one by a gated
    epilogue (`gate`), and each goes into its call. Nothing the factor reads
    may be written between the two places (the ops in between must be
    linalg ops on other bytes, or touch no memory); sums of a static shape
    only. Float products need no split: their loop reads the other
    product's float output, a gate as it is.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

def ContractionsToKernels : Pass<"autoglm-contractions-to-kernels", "mlir::ModuleOp"> {
  let summary = "Run f32 matrix multiplications with the runtime's GEMM kernel";
  let description = [{
    Every f32 `linalg.generic` on buffers that computes
    `C[b.., m, n] += A[.., m, k] * B[.., k, n]` (any operand strides, batch
    loops broadcast or not, output rows contiguous) becomes a call of
    `agl_kernel_sgemm`, the runtime's packed, register-tiled and threaded
    GEMM, on the operands' addresses and strides. When the output holds
    zeros before the product (a zero fill of it, or a copy into it of a
    zero-filled buffer, with only ops on other bytes in between) the call
    does not read it (`accumulate = 0`), and that fill or copy goes if it
    is the op right before; otherwise the call accumulates into what the
    output holds (a bias the lowering copied there). Batch loops beyond the
    innermost become `scf.for` loops around the call. Contractions of other
    element types, or with a strided output row, keep their loops.

    **Epilogues.** When the next op that touches memory is an elementwise
    `linalg.generic` that reads the product (identity map) and computes
    `act(alpha * product + bias) + residual`, each part optional, the call
    computes it instead (the kernel applies it to each tile in registers)
    and writes the generic's output buffer; the generic goes, and the call
    carries `autoglm.epilogue` ("bias+gelu_erf") and both ops' locations.
    `alpha` is a constant (a multiplication or division by it), `bias` a
    buffer read along the column loop only (`[n]`, `[1, n]`, unit stride),
    `act` the op marked by `autoglm-mark-activations` (checked to depend on
    the pre-activation value alone), `residual` a buffer of the output's
    shape with contiguous rows. A residual that is the output itself, with
    no activation, makes the call accumulate into it. A loop that ends in
    `act(...) * gate_act(gate)` instead (`gate` a buffer of the output's
    shape other than the product, `gate_act` a marked activation of it or
    none) is a gated epilogue: the call's activation argument is `act |
    AGL_ACT_GATED(gate_act)` and the gate its residual operand
    (`"gate_silu"`). SwiGLU's `silu(gate) * up` is the epilogue of the
    later of the two projections (the loop is the next op only of that
    one): `gate_silu` when the gate projection runs first, `silu+gate` the
    other way round. An int8 product's loop reads the other product's int32
    sums, not a float buffer, and keeps its loop.
    The pass checks the buffers (planned ones too): the output
    must not share bytes with the bias or residual, nor, when it is not the
    product's buffer, with the product's operands; the product's buffer
    must then not be read after the generic (it is no longer written), nor
    accumulated into; the views of the output, bias and residual move
    before the call. Otherwise the generic stays a loop nest.

    With `pack-weights`, a B that is a constant shared by every batch entry
    (a weight) with a multiple of `AGL_SGEMM_PACKED_NR` columns is packed at compile time into the layout of the kernel's
    inner loop (panels of `AGL_SGEMM_PACKED_NR` columns, each `k` rows
    deep, zero-padded) and the call is `agl_kernel_sgemm_packed`; weights
    nothing else reads are dropped, so the model carries one copy. With
    `partial-panels`, weights of any number of columns are packed, the last
    panel zero past `n` (for `autoglm-quantize-weights` in `bf16` and
    `fp16`, whose layout pads the same way at half the bytes; alone it
    would store up to 31 zero columns per weight).

    **Integer products** (a uint8 lhs, widened with `extui`, minus a
    constant or scalar zero point, times a constant int8 weight, summed in
    i32 after a zero fill) become `agl_kernel_gemm_u8s8` calls, the weight
    packed for its dot-product instructions. Their epilogue starts with the
    dequantization `sitofp(product) * scale` (a constant, a scalar buffer or
    a column vector) and may go on as above; where it then ends in the
    uint8 QuantizeLinear of the next product's input,
    `fptoui(min(max(roundeven(y / s) + z, 0), 255))` with constant `s > 0`
    and integral `z` in 0..255, the call is
    `agl_kernel_gemm_u8s8_requantize`, which writes those bytes (epilogue
    "...+quantize"; `s` and `z` its arguments before the blocking). An
    integer product whose output map swaps its last two loops (batch.., n,
    m), as a quantized convolution writes its NCHW sums, becomes
    `agl_kernel_gemm_u8s8_transposed` (C's batch and column strides, no
    epilogue).

    The last argument is the call's cache blocking: a pointer to a constant
    `agl_gemm_blocking` when the module attribute `autoglm.tuning` gives the
    product's key (`sgemm bB mM nN kK`) `kc`, `nc` or `mc` knobs (recorded
    on the call as `autoglm.blocking`), else null (the runtime's cost
    model).

    **`cuda`** (for `--target=cuda`): the buffers are device memory and the
    product becomes a call of `agl_cuda_sgemm`, which the runtime runs with
    cuBLAS on the run's stream: no packing, no integer products. The
    epilogue goes into the call, under the conditions above, only where
    cuBLAS or cuBLASLt computes it: a scale alone, or a residual updated in
    place, is cuBLAS's alpha and accumulation (`agl_cuda_sgemm`, epilogue
    "scale" or "residual"); a bias along the columns, then ReLU or GELU in
    its tanh form, or a residual with no activation (another buffer, its
    strides static, rows contiguous, and no accumulation) make the call
    `agl_cuda_gemm_epilogue` (cuBLASLt; its arguments after the scale: the
    operands' format, 2 for float32, then the bias, the activation, the
    residual and its batch and row strides). Other loops after a product
    (GELU in its erf form, SiLU, a gate, a residual after an activation,
    which cuBLASLt would add before it) stay generated kernels. Only
    products whose extents and strides are constants that cuBLAS can take
    (each operand with unit stride along its rows or its columns, and a
    leading dimension that covers the other extent) become calls; the
    others keep their loops. With `cuda-precision=fp16` (or `bf16`), both
    operands of each call are 16-bit floats: a constant weight converted
    here (round to nearest even; the float copy goes when nothing else
    reads it); an activation that the elementwise loop right before the
    product writes into a buffer of its own that nothing reads after the
    product, by that loop itself (it writes the 16-bit buffer, rounding as
    it stores); any other operand by an elementwise loop into a new buffer
    right before the call; the call is `agl_cuda_gemm_half` (float32 sums
    and output, its last argument 0 for IEEE half, 1 for bfloat16), or
    `agl_cuda_gemm_epilogue` with that format. A product marked
    `autoglm.half_operands` (a weight dequantized at run time by
    `autoglm-weight-products-to-gpu`) takes IEEE half operands so in any
    build.

    With `cuda`, an integer product of int8 operands without zero points
    (`acc + extsi(a) * extsi(b)`, what `autoglm-integer-matmuls` makes
    with `signed-activations`) becomes `agl_cuda_gemm_int8` (cuBLASLt's
    integer product, int32 sums; arguments as `agl_cuda_sgemm`'s up to
    `accumulate`) when cuBLASLt can take it: n and k multiples of 4, A's
    rows and C's rows contiguous, their strides and offsets multiples of 4.
    A constant B is copied column by column, `(n, k)` row-major (the "TN"
    layout cuBLASLt's integer products read); another B must already be
    so. The others keep their loops.
  }];
  let options = [
    Option<"packWeights", "pack-weights", "bool", "true",
           "Pack constant B operands at compile time">,
    Option<"partialPanels", "partial-panels", "bool", "false",
           "Also pack weights whose columns do not fill whole panels">,
    Option<"cuda", "cuda", "bool", "false",
           "Call agl_cuda_sgemm (cuBLAS on device buffers) or "
           "agl_cuda_gemm_epilogue (cuBLASLt) instead of the CPU kernels">,
    Option<"cudaPrecision", "cuda-precision", "std::string", "\"fp32\"",
           "With cuda: the products' operands in fp32, fp16 or bf16">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def QuantizeWeights : Pass<"autoglm-quantize-weights", "mlir::ModuleOp"> {
  let summary = "Store the weights of GEMM calls in fewer bits: int8, int4 (weight-only quantization), bf16 or fp16";
  let description = [{
    Runs after `autoglm-contractions-to-kernels`. Every call of
    `agl_kernel_sgemm_packed` whose packed B is a constant global (a weight
    packed at compile time) and whose `n` and `k` are constants becomes a
    call of `agl_kernel_sgemm_q8` (`format=int8`), `agl_kernel_sgemm_q4`
    (`format=int4`), `agl_kernel_sgemm_bf16` (`format=bf16`) or
    `agl_kernel_sgemm_f16` (`format=fp16`) on the same A and C.

    With `int8` and `int4` (`n` a multiple of 32), B is quantized at
    compile time:
    symmetric, one float scale per group of `group-size` depths (along the
    reduction) and per column, int8 values, or int4 values two to a byte,
    in panels of 32 columns (the layout of `autoglm/kernels_quant.h`; see
    [runtime.md](runtime.md)). The call's arguments are those of the packed
    call with the quantized weight's address and the group size in place of
    the packed B. A weight shared by several products is quantized once;
    the float weights nothing reads any more are dropped. The quantized
    kernels take the packed call's epilogue (accumulate, the scale `alpha`,
    the bias, the activation, the residual and its strides) in the same
    order, so calls with an epilogue are rewritten too, their epilogue
    operands passed through unchanged (a call in the short form without
    epilogue arguments gets `alpha` 1 and no bias or residual).

    With `bf16` or `fp16` (any `n`), each weight is rounded to bfloat16 or
    to IEEE half (binary16) (to nearest, ties to even) in the packed
    layout's panels, 16 bits per weight (one layout for both, that of
    `autoglm/kernels_quant.h`); the call's arguments are the packed call's,
    the 16-bit weight's address in place of the packed B, and the kernel
    widens the weights to float32 in registers. Half's range ends at
    65504: finite weights beyond it saturate to +-65504 (their count is
    recorded as `saturated`); infinities and NaN stay.

    The module attribute `autoglm.weight_only` records what was done:
    the `format`, `bits` per weight, `group_size` (int8 and int4),
    `saturated` (fp16), the
    number of `products` rewritten, and the bytes of the float weights
    replaced (`float_bytes`) and of their new form (`quantized_bytes`), for
    `--report`.

    The kernels dequantize (or widen) inside their inner loops and
    accumulate in float32; results differ from the float model by the
    rounding of the weights (int8: about 0.4% of a weight's group maximum
    at most, int4: about 7%, bf16: 2^-8 of each weight at most, fp16:
    2^-11 of each weight from 2^-14 to 65504, 2^-25 below).
  }];
  let options = [
    Option<"format", "format", "std::string", "\"int8\"",
           "Stored weight format: int8, int4 (one scale per group-size "
           "depths and column), bf16 or fp16">,
    Option<"groupSize", "group-size", "int64_t", "128",
           "int8 and int4: depths per scale, a positive multiple of 32">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect"
  ];
}

def ParallelizeLoops : Pass<"autoglm-parallelize-loops", "mlir::ModuleOp"> {
  let summary = "Run large linalg loop nests on the runtime's thread pool";
  let description = [{
    Each linalg op on buffers with at least `min-work` iterations is split
    along its outermost parallel loop with a static extent above one or,
    failing that, its innermost symbolic parallel loop (a sequence rather
    than a batch); never along the innermost loop, which stays whole for the
    vector code. The op moves
    into a private function `(!llvm.ptr ctx, i64 begin, i64 end)` that runs
    iterations [begin, end) of that loop, each on a one-iteration slice of
    the op (`linalg::makeTiledShapes`), and is replaced by a call of the
    runtime's `agl_parallel_for(extent, grain, body, ctx)`. The values the
    op uses travel in `ctx`, an i64 array on the caller's stack: memrefs as
    their aligned pointer and dynamic offset, sizes and strides, rebuilt as
    LLVM descriptors in the body; constants and globals are cloned into it.

    Reduction loops are never split, so every element is computed as in the
    serial op and results do not depend on the thread count. With symbolic
    extents the threshold applies at run time: the grain holds `min-work`
    iterations, and a smaller op runs as one chunk on the calling thread.

    Where the module attribute `autoglm.tuning` gives an op's key (`loop`
    or the named op, its loop ranges and iterator kinds, e.g. `loop 128x768
    ppp`) a `parallel` knob, that decides instead of the threshold. An op
    moved into a body keeps its key in `autoglm.tuning_key`.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", "32768",
           "Iterations below which an op stays serial">
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"
  ];
}

def VectorizeLoops : Pass<"autoglm-vectorize-loops", "mlir::ModuleOp"> {
  let summary = "Elementwise and reduction generics as explicit vector code";
  let description = [{
    Each `linalg.generic` on buffers whose innermost loop has a static range
    (outer loops may have symbolic ones, such as a sequence length) and
    walks every operand it indexes contiguously (unit stride along the
    last dimension, possibly plus a window offset such as a convolution
    gather's `o + k`) and has a multiple of `width` iterations (or, failing
    that, of a half, quarter... of it, down to 4) is tiled to that many
    iterations of that loop (scalar loops outside, static views of
    each tile, unit dimensions dropped) and vectorized with the upstream
    linalg vectorizer. Where none of those widths divides the extent, the
    one that leaves the fewest vector plus scalar iterations (4 for 14 or
    7) takes the whole vectors, and a second innermost loop runs the rest
    one iteration at a time (the generic on one element). Reductions along the innermost loop become
    `vector.multi_reduction`. LLVM would otherwise have to prove that views
    of the one arena do not alias, and may not reassociate float sums.

    `linalg.fill`, `linalg.copy` and `linalg.map` are generalized first (a
    scalar input is broadcast to every lane). An all-parallel generic whose
    innermost extent takes no full `width` vector, over whole contiguous
    buffers all indexed in loop order, has its loops folded into one
    (upstream `collapseOpIterationDims`) before the width is chosen.

    A `vector_width` knob for the op's key in the module attribute
    `autoglm.tuning` replaces `width` for it (1: scalar loops); ops keep
    their key (`autoglm.tuning_key`) through generalization and folding.
  }];
  let options = [
    Option<"width", "width", "int64_t", "16",
           "Lanes per vector (16 f32 lanes fill an AVX-512 register)">
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect"
  ];
}

def ContiguousReshapes : Pass<"autoglm-contiguous-reshapes", "mlir::func::FuncOp"> {
  let summary = "Reshapes of contiguous buffers with symbolic extents as reinterpret_cast";
  let description = [{
    A `memref.expand_shape` or `memref.collapse_shape` whose source and
    result have the identity layout only renames the extents of one
    contiguous buffer, so it becomes a `memref.reinterpret_cast` with
    row-major strides. Applied to reshapes with symbolic extents, where it
    also avoids the strided-metadata expansion of groups with several
    symbolic extents.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def PlanArena : Pass<"autoglm-plan-arena", "mlir::func::FuncOp"> {
  let summary = "Place every intermediate buffer in one arena argument";
  let description = [{
    Replaces each statically shaped `memref.alloc` of a bufferized function by
    a `memref.view` into a new trailing argument `memref<N x i8>` and records
    N as `autoglm.arena_size`. After this pass the function allocates
    nothing; its caller provides the arena once.

    A buffer is live from the first to the last top-level op that uses it
    (through views too, and through its address: a kernel call made before
    planning uses the buffers whose addresses it takes). Buffers that are never live at the same time share
    memory: placement is greedy, each buffer taking the smallest gap (best
    fit) among the buffers it is live with, in three orders (largest first,
    largest size x lifetime first, program order), of which the smallest
    arena is kept; offsets are multiples of `alignment`. The largest total size live at one op, a
    lower bound for any placement, is recorded as
    `autoglm.arena_lower_bound`, and every buffer's size, offset, live range
    and producing op as `autoglm.arena_buffers`. With `verify`, the pass
    checks that no two simultaneously live buffers overlap and that every
    buffer lies inside the arena.

    Arguments marked `autoglm.state` (a KV cache and its length, see
    `autoglm-kv-cache`) become views at the start of the arena, ahead of
    every buffer of a run, so that they persist from run to run; they leave
    the signature, and their offsets are recorded as
    `autoglm.state_offsets`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64",
           "Byte alignment of every buffer in the arena">,
    Option<"verify", "verify", "bool", "false",
           "Check the plan: live buffers never overlap, all fit the arena">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def FlattenConstants : Pass<"autoglm-flatten-constants", "mlir::ModuleOp"> {
  let summary = "Store multi-dimensional constant globals as flat arrays";
  let description = [{
    Every constant `memref.global` of rank 2 or more with a static,
    identity-layout type and a dense (or resource) value becomes
    one-dimensional, and each `memref.get_global` of it a read of the flat
    global expanded back (`memref.expand_shape`) to the shape its users
    see. LLVM's translation makes one constant per innermost row of a
    multi-dimensional array (786432 arrays of 3 floats for a [512, 512, 3,
    3] filter), which took seconds to emit; the flat global is one array of
    the same bytes.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def ExternalizeWeights : Pass<"autoglm-externalize-weights", "mlir::ModuleOp"> {
  let summary = "Move constant buffers out of the code into a weights file";
  let description = [{
    For models whose weights should not be embedded in the object (large
    ones), every constant `memref.global` of at least `min-bytes` bytes is
    laid out in one weights blob at 64-byte-aligned offsets, in module
    order. Each `memref.get_global` of it becomes a `memref.view` into a new
    trailing function argument `memref<W x i8> {autoglm.weights}`, which the
    runtime points at the memory-mapped weights file. The globals are erased;
    their values and offsets are kept in the module attribute
    `autoglm.external_weights` for the emitter, which writes the file
    without copying them.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", "0",
           "Constants smaller than this stay in the code">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def AccumulateInRegisters
    : Pass<"autoglm-accumulate-in-registers", "mlir::func::FuncOp"> {
  let summary = "Carry reduction accumulators in loop values instead of memory";
  let description = [{
    `convert-linalg-to-parallel-loops` lowers a reduction to an `scf.for`
    that loads the accumulator from the output buffer, combines and stores
    it back in every iteration. Where the load and the store use the same
    loop-invariant address in the loop's body and every other access in
    the loop provably touches other bytes (another function argument, or
    another byte range of the arena), the accumulator becomes an iteration
    argument: one load before the loop, one store after it. Nested loops
    are handled from the inside out. On a GPU this takes a round trip
    through global memory off every iteration's critical path, and it is
    the form in which `autoglm-map-loops-to-gpu` recognizes row reductions.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"];
}

def FoldAttentionTransposes : Pass<"autoglm-fold-attention-transposes", "mlir::func::FuncOp"> {
  let summary = "Read and write the transposes around autoglm.attention_buffers in place";
  let description = [{
    For the GPU's attention kernel (`autoglm-attention-to-gpu`), which reads
    and writes through any strides with contiguous rows, before the arena is
    planned: a `linalg.transpose` that keeps the last dimension and only
    fills an operand's new buffer (the `[B, S, H, D]` to `[B, H, S, D]` of
    exported attention) goes, and the op reads a `memref.transpose` view of
    the transpose's input; a transpose that only copies the output on goes
    too, and the op writes through a `memref.transpose` view of its
    destination (hoisted before the op). The conditions are those of
    `autoglm-attention-to-kernels`: nothing between the two ops writes the
    input (or touches the destination), and the destination does not
    overlap the inputs.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def AttentionToGpu : Pass<"autoglm-attention-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Run autoglm.attention_buffers as a flash-attention kernel on the tensor cores";
  let description = [{
    In the GPU stage, before `autoglm-map-loops-to-gpu`: every
    `autoglm.attention_buffers` (kept by `autoglm-lower-to-linalg{gpu-attention}`
    for `--target=cuda --precision fp16|bf16`) becomes one `gpu.launch` in
    the style of flash attention 2, which never stores the `Sq x Sk`
    scores. A block of 128 threads (4 warps) takes 64 query rows of one
    head (grid: query tiles x heads x batch; grouped-query heads read their
    K/V head); each warp keeps its 16 rows of Q, narrowed to the 16-bit
    `operand-type`, and of the output (f32) in registers as the tensor
    cores' fragments (`nvgpu.mma.sync`, m16n8k16). Then, 32 key positions
    per step, up to the last one any of its rows may see (a causal limit
    ends the loop early), the block stages the keys and values
    (`[key][dim]`) in shared memory in 16 bits (every load of a step issued
    before its stores; `vector.load`s of 4 floats, which NVPTX splits into
    32-bit loads where it cannot prove 16-byte alignment; stored 4 halves
    at a time), rows padded by 8 elements so that an `ldmatrix`'s 8 rows
    hit 32 banks; each warp reads the products' B fragments with
    `nvgpu.ldmatrix` (four 8x8 matrices, two fragments; the values'
    transposed), computes
    its rows' scores into registers, each lane updates the running
    maximum (combined over its group of 4 lanes by `gpu.shuffle xor`) and
    its share of the sum of its two rows (scale, mask, causal limit, keys
    and rows past the end as `-inf`), scales its output fragments by
    `exp(old max - new max)` and adds probabilities times values, the
    probabilities narrowed in place (a product's sums are laid out as its
    left operand). At the end the lanes of a group add up their rows' sums,
    each row is divided by its sum (a row that saw no key is 0, as the op
    defines), and each lane writes its elements, rows past the end left
    out. Barriers separate the staging from the products.

    Head sizes must be multiples of 16 up to 128 (the staged keys and
    values then take at most 17 KiB of shared memory) and the query
    length at least 16, known when compiling (a decode step would have each
    block stream the whole cache for one row); anything else is an error,
    since the lowering keeps only ops that fit (`fitsFlashAttention`). The
    kernel carries its FLOPs and its operand type for `--explain`
    (`autoglm.flops`, `autoglm.operand_type` on its key loop); `exp` is the
    polynomial the other kernels use.
  }];
  let options = [
    Option<"operandType", "operand-type", "std::string", "\"f16\"",
           "The products' 16-bit operand type: f16 or bf16">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::math::MathDialect", "mlir::memref::MemRefDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect"
  ];
}

def WeightProductsToGpu : Pass<"autoglm-weight-products-to-gpu", "mlir::ModuleOp"> {
  let summary = "Give each GPU matrix product with a constant weight a generated GEMV or cuBLAS, by estimate; read weights in 8 or 4 bits (--weight-only)";
  let description = [{
    In the memref stage of `--target=cuda` (and `cuda-emulated`) builds,
    before `autoglm-contractions-to-kernels{cuda}`. Takes each f32 matrix
    product (a `linalg.generic` that multiplies and accumulates, loops
    `(batch.., m, n, k)`) whose second input is a constant global read
    whole as `(k, n)` or `(n, k)`, and whose first input's last dimension is
    `k` with unit stride; `k` a multiple of 32 for `int8`/`int4` weights, of
    8 for `f16`/`bf16`, of 4 for `f32`.

    `weights` is how the generated kernel reads the weight: `int8`/`int4`
    (`--weight-only`): per column and group of `group-size` depths one float
    scale and 8- or 4-bit values, as the CPU's `agl_quantize_b` computes
    them, stored in the GPU's row layout (`agl_quantize_rows`: a row of
    `i32` words per column of B, 4 bits two depths to a byte; a row of
    scales per column); `f16`/`bf16`/`f32` (the build's precision): a row
    of that type per column of B (a float32 weight stored `(n, k)` is read
    as it is).

    The kernel, a generated GEMV, is one `gpu.launch`: 8 warps per block, a
    warp per output column (grid: column groups x row groups of up to 8 x
    batch), each lane loading 16 bytes of weights per step (four steps'
    loads before their arithmetic), turning them into floats in registers
    and multiplying them with the block's rows of A in float32 (`vector`
    ops), the lanes' sums combined by `gpu.shuffle xor` and stored (added to
    the output unless it holds zeros) by lane 0; an elementwise loop right
    after the product that reads the product's output whole, perhaps other
    buffers indexed by the product's loops (a bias by the column, a
    residual), and writes another buffer, with a body of side-effect-free
    ops that does not read its indices (a bias, a residual, GELU, SiLU),
    goes into the kernel: lane 0 computes that body on its sum and stores
    the result there (when nothing reads the product's own buffer later).
    Its first shuffle carries `autoglm.flops`,
    `autoglm.operand_type` (`q8`, `q4`, `gemv-f16`, `gemv-bf16`,
    `gemv-f32`) and `autoglm.choice` for `--explain`.

    Which products get it: the peaks of `gpu-arch`'s reference GPU
    (`passes/GpuMachine.h`) rate the GEMV (its weight bytes once per 8 rows,
    or its FMAs and conversions on the CUDA cores) against cuBLAS (its
    product on the tensor cores with 16-bit operands, or on the CUDA cores
    in f32; plus, for 16-bit operands, converting A, and for quantized
    weights, a loop that dequantizes them; 2 us per such launch) at the
    product's largest row count; the cheaper wins. A product left to cuBLAS
    carries `autoglm.choice` too, which the call keeps. With quantized
    weights that product reads a new buffer that a loop right before it
    fills with the dequantized weight, and is marked
    `autoglm.half_operands`: the CUDA products then run it with 16-bit
    operands. A row count without a bound: with quantized weights, both,
    chosen at run time by an `scf.if` on the count (the GEMV up to the
    largest count it wins at; the product then adds to its output's zero
    fill); with float weights, cuBLAS. A float weight goes to the GEMV only
    if every product that reads it does (one copy of each weight). The
    float weight goes when nothing else reads it; with quantized weights
    the module's `autoglm.weight_only` says how many products and bytes.
  }];
  let options = [
    Option<"weightFormat", "weights", "std::string", "\"int8\"",
           "How the GEMV reads weights: int8, int4, f16, bf16 or f32">,
    Option<"groupSize", "group-size", "int64_t", "128",
           "Depths per scale of int8/int4 weights, a positive multiple of 32">,
    Option<"gpuArch", "gpu-arch", "std::string", "\"sm_90\"",
           "The GPU whose peaks decide between the GEMV and cuBLAS">,
    Option<"maxGemvRows", "max-gemv-rows", "int64_t", "-1",
           "The GEMV for products of at most this many rows, cuBLAS above, "
           "instead of the estimates (-1)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect"
  ];
}

def MapLoopsToGpu : Pass<"autoglm-map-loops-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Map the top-level parallel loops of a planned model to GPU blocks and threads";
  let description = [{
    Runs on a bufferized, arena-planned function whose linalg ops have
    become `scf.parallel` nests (`convert-linalg-to-parallel-loops`), before
    `convert-parallel-loops-to-gpu`; a `gpu.launch` already there (the
    attention kernel) stays as it is. Every top-level `scf.parallel` is tiled
    along its innermost loop by `block-size` (the tile loop is guarded, not
    clamped, so its extent is a constant); the tile's innermost loop goes to
    thread x, the tiles' innermost three loops to blocks x, y and z (y and
    z only for constant extents of at most 65535, CUDA's limit), and any
    other loop runs sequentially inside the kernel. An `scf.if` on host
    values around GPU work (a weight-only product with symbolic rows picks
    its kernel or cuBLAS so) stays host code, and each of its branches is
    mapped as the function's body is.

    A row reduction (the nest's body one `scf.for` whose iteration
    arguments are accumulators combined by `+`, `*`, max or min with values
    read along the rows' unit stride, at least 32 iterations, 32- or 64-bit
    values, at most three row dimensions, no reductions of the nest
    itself) is mapped instead to a block per row: a thread loop of
    about a quarter of the row's length (32 to 1024) in which each thread
    strides through the row from the neutral value, `gpu.all_reduce`
    (uniform) combines the partial results, and the first thread combines
    the total with the accumulator's value before and runs what follows
    the loop (the store). Symbolic extents are compared by value, each
    `memref.dim` of a view or allocation taken for the size it was made
    with, and the row extents of blocks y and z must be bounded by 65535
    over the symbols' ranges. The top-level nests right before and after a row
    reduction over the same rows (same extents, from 0 by 1) join its
    kernel, with no other memory access in between: nests of one iteration
    per row without loops (fills, arithmetic on per-row values; the first
    thread runs them), other row reductions, and nests with one more loop
    along the row and no loops inside (each thread takes every block-size-th
    element). Per-row values that are temporaries (a buffer of one element
    per row, first written in the kernel by a fill or a reduction, not used
    after it: a normalization's statistics, softmax's maximum and sum) stay
    in registers, computed by every thread alike: their loads take the
    value last stored, their stores go. Other per-row results are stored by
    the first thread. A `gpu.barrier` separates two steps when a thread's
    loads or stores since the last one may meet another thread's store or
    load. A nest joins only if every load and store that may touch bytes
    written in the kernel (in memory) indexes its row by the row's loop
    indices and every row of those buffers lies in the same bytes (reshapes
    of one contiguous buffer, a row-major `memref.reinterpret_cast` of one
    included, or views at the same byte, as many elements per row); within
    one nest they must touch the same element. Runs grow
    forward then backward from the reduction, and backward then forward;
    the longer is kept.

    First, a scalar that the host computes (from constants, extents and
    the symbol values) and stores at the top level into a one-element
    buffer of the arena (or an allocation) that is otherwise only loaded
    from, at the same indices and after the store, is forwarded: the loads
    take the value (a kernel gets it as an argument) and the store goes.
    Exporters write shapes into tensors so (`Shape` of a symbolic input),
    which would otherwise take a kernel of one thread per run. Not when
    another view of its bytes is read after the store: by a library call's
    pointer before the last load, or by a host section's copy at all (the
    section's ops read the buffer when the arena was planned).

    Any other top-level ops that read or write tensor data (a loop nest
    with no parallel loop, such as a full reduction to a scalar, lone
    `memref.load`/`memref.store` ops and the scalar arithmetic between
    them) are moved, each run of them between two parallel loops (or
    library calls, also those in loops) together, into a one-iteration
    `scf.parallel`, so that
    they run as one one-thread kernel (the first of them gets an
    `autoglm.one_thread` attribute saying why, for the placement report):
    kernels cannot touch host memory, and the function's tensor buffers are
    device memory. Ops that compute nothing from tensor data (constants,
    the output extents the host writes) stay on the host. Only the run's
    host-side arguments (`autoglm.symbol_values`, `autoglm.output_dims`)
    stay on the host. A value from tensor data that is used after the
    kernel, or stored to host memory, cannot be moved into a kernel; as
    does a host global (`memref.get_global`, left when weights are not
    externalized), it is an error that names the ONNX node. A host section
    (an op marked `autoglm.host`, see `autoglm-place-on-host`) stays host
    code, between two such runs.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "128",
           "Threads per block along the innermost loop">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::gpu::GPUDialect"];
}

def FoldTransposes : Pass<"autoglm-fold-transposes", "mlir::func::FuncOp"> {
  let summary = "Let the ops that write a buffer write its transposed copy instead";
  let description = [{
    On buffers, before the arena is planned (the CUDA target's memref
    stage): a `linalg.transpose` of an allocated buffer `src` into an
    allocated `dst`, where every other use of `src` is as the init of a
    linalg op before the copy (a fill, a product accumulating into it) and
    nothing uses `dst` before the copy, goes: those ops write `dst` through
    a `memref.reinterpret_cast` of it with its sizes and strides permuted
    back (a view-like op, which the passes that follow buffers through
    views see through), and `src` goes if nothing else uses it. Attention's context, a product per head
    transposed to tokens by heads, is then written in place by the product
    (the GPU's cuBLAS call takes the view's strides). Symbolic extents: the
    two buffers' sizes must be the same values, those of `dst` known before
    the first write, and the view's strides are computed from them.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def EmulateGpuLibraries : Pass<"autoglm-emulate-gpu-libraries", "mlir::ModuleOp"> {
  let summary = "Call the host versions of the CUDA library functions (for tests)";
  let description = [{
    For `--target=cuda-emulated`: every function declaration marked
    `autoglm.device_library` (the runtime's cuBLAS and cuBLASLt calls,
    `agl_cuda_X`) becomes `agl_emulated_X`, the runtime's host version of
    it (same arguments, the products computed as cuBLAS and cuBLASLt
    compute them), and loses the mark. One that is not an `agl_cuda_`
    function is an error.
  }];
}

def EmulateGpuLaunches : Pass<"autoglm-emulate-gpu-launches", "mlir::func::FuncOp"> {
  let summary = "Turn gpu.launch kernels into loops over blocks and threads, on the CPU (for tests)";
  let description = [{
    For `--target=cuda-emulated`, before `autoglm-emulate-gpu-threads`: a
    kernel written as a `gpu.launch` (the attention kernel of
    `autoglm-attention-to-gpu`) becomes an `scf.parallel` over its blocks
    whose body allocates its workgroup memory (`memref.alloca`, aligned to
    16 bytes as on the GPU, in an
    `memref.alloca_scope`, so one block's buffers go when it ends) and runs
    an `scf.parallel` over its threads (block sizes y and z must be 1),
    whose barriers, shuffles and warp-level loads and products
    `autoglm-emulate-gpu-threads` then runs; an `nvgpu.ldmatrix`, which
    takes workgroup memory only, reads its buffer through a
    `memref.memory_space_cast` to the workgroup space.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def EmulateGpuThreads : Pass<"autoglm-emulate-gpu-threads", "mlir::func::FuncOp"> {
  let summary = "Run the threads of GPU blocks one after another, on the CPU (for tests)";
  let description = [{
    For tests of the GPU kernels on machines without a GPU: every
    one-dimensional `scf.parallel` (a block's thread loop) that holds
    `gpu.barrier`, `gpu.all_reduce`, `gpu.shuffle`, `nvgpu.ldmatrix` or
    `nvgpu.mma.sync` ops,
    at its top level or in
    `scf.for` loops that every thread runs alike, becomes the same
    computation in sequence. Its body is cut at each of them into steps;
    each step is an `scf.for` over the threads; a value that a later step
    uses is kept per thread in a `memref.alloca` buffer (made at the
    function's entry, which every block reuses), and an `all_reduce` (of a
    predefined operation) combines the threads' values in thread order into
    one value that the later steps read; a shuffle (of a constant offset and
    width) gives each thread the value of the lane it names; an `ldmatrix`
    (of a buffer defined outside the loop, or its view in the workgroup
    space) gives each lane its elements of the 8x8 matrices whose rows its
    warp's lanes point at (transposed if asked); an `mma.sync`
    (m16n8k16, 16-bit operands, f32 sums) gives each lane its share of the
    warp's product, computed in f32 from the fragments all 32 lanes hold,
    laid out as the PTX ISA lays out `mma.m16n8k16` (the thread count must
    be whole warps); in these thread loops `gpu.lane_id` is the thread's
    index modulo 32. A loop that
    holds barriers runs
    its steps in each iteration: its bounds are thread 0's, its iteration
    arguments and results are kept per thread. Barriers are dropped: the
    steps run in order; the workgroup views that only `ldmatrix` ops read
    go. The result lowers with the CPU pipeline
    (`convert-scf-to-cf` runs the other parallel loops in sequence). A
    barrier or all_reduce anywhere else (under an `scf.if`, say), an
    all_reduce with a body, or a thread loop without constant bounds is an
    error.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect"];
}

def PlaceOnHost : Pass<"autoglm-place-on-host", "mlir::ModuleOp"> {
  let summary = "Run chosen op families of a CUDA model on the host";
  let description = [{
    For `autoglm-compile --target=cuda --device-hint FAMILY=host`, first in
    the GPU stage: every top-level op on buffers whose family is in
    `families` (`matmul`: a contraction; `reduction`: any other op with a
    reduction loop, as normalizations and softmax have; `elementwise`: an
    op with parallel loops only, copies and stores of one element (a shape's
    extent the host computed) too; `all`) runs on the host. Each
    run of such ops (other ops that touch no memory, as views, may lie
    between them) becomes a host section: an `scf.if` marked
    `autoglm.host` (the reason, e.g. `--device-hint reduction=host`) that
    runs when `agl_cuda_host_staging(N)` returns the instance's staging
    memory, N bytes being what the largest section needs. In it, the
    device bytes the ops touch (their operands, and the buffers their
    bodies load from by index, as a broadcast over symbolic extents does)
    are copied into the staging memory (`agl_cuda_copy_to_host`; a byte
    range per view of the arena or the weights, overlapping ones merged,
    whole inputs and outputs), the ops
    run as loops on views of the copies, and the ranges they write are
    copied back (`agl_cuda_copy_to_device`). Symbol values and output
    extents are host memory already. `autoglm-map-loops-to-gpu` leaves the
    sections on the host; `autoglm-record-gpu-placement` lists them.

    An op whose operands' device bytes are not known statically (a view
    with a dynamic offset) is an error, as is an unknown family.
  }];
  let options = [
    ListOption<"families", "families", "std::string",
               "Op families to run on the host: matmul, reduction, "
               "elementwise, all">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def RecordGpuPlacement
    : Pass<"autoglm-record-gpu-placement", "mlir::ModuleOp"> {
  let summary = "List the GPU kernels and library calls a CUDA model runs";
  let description = [{
    After the kernels are outlined and named, records in the module
    attribute `autoglm.placement`, in program order, one entry per
    `gpu.launch_func` (`kind = "kernel"`, the kernel's name, its ONNX
    nodes, and `one_thread` with the reason when
    `autoglm-map-loops-to-gpu` put its work in one thread) and per call of
    a runtime function marked `autoglm.device_library` (`kind =
    "library"`, e.g. a cuBLAS product, and `epilogue` with the
    `autoglm.epilogue` the call computes, if any) and per host section
    (`kind = "host"`, `host` its reason, see `autoglm-place-on-host`).
    `autoglm-compile --report` prints it as the model's placement.

    For `--explain`, a kernel's entry also has its `grid` and `block`
    (when the launch's are constant), `row_reduction` when its blocks
    combine values across threads (`gpu.all_reduce`), `bytes` (the buffers
    it is passed, each once, when their shapes are static) and `flops` (the
    arithmetic on floats and on non-index integers one thread runs, loops
    counted by their trip counts from the launch's constants and from 0
    where a thread strides through a row, times the threads launched); a
    call's entry has the `flops`, `bytes` and `operands` type
    `autoglm-contractions-to-kernels` put on it.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def ProfileGpuLaunches
    : Pass<"autoglm-profile-gpu-launches", "mlir::ModuleOp"> {
  let summary = "Time each kernel launch, library call and host section of a CUDA model";
  let description = [{
    For `autoglm-compile --target=cuda --profile`, after
    `autoglm-record-gpu-placement` and in the same order: each
    `gpu.launch_func`, each call of a function marked
    `autoglm.device_library` and each host section is bracketed by calls
    of the runtime's `agl_cuda_profile_begin` (before; it returns a token)
    and `agl_cuda_profile_end(kernel index, token)` (after), which record a
    pair of CUDA events on the run's stream while the instance profiles.
    The module attribute `autoglm.kernels` lists them (`name`: the kernel,
    the library function or `host`, then its ONNX nodes; `flops` and
    `bytes` the estimates of the `autoglm.placement` entry at the same
    position, 0 where it has none), as `autoglm-instrument-kernels` does
    for the CPU; it becomes the artifact's kernel table.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def AlignWorkgroupMemory : Pass<"autoglm-align-workgroup-memory", "mlir::ModuleOp"> {
  let summary = "Align the workgroup buffers of outlined GPU kernels to 16 bytes";
  let description = [{
    After `gpu-kernel-outlining`: every workgroup attribution of a
    `gpu.func` without an alignment gets `llvm.align = 16`, which the NVVM
    lowering puts on its shared-memory array. Shared arrays are otherwise
    aligned to their element type only, and the attention kernel loads its
    fragments' pairs of 16-bit values 32 bits at a time (`vector.load` with
    `alignment = 4`, at even offsets); 16 bytes leave room for 128-bit
    loads.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::LLVM::LLVMDialect"];
}

def Bf16MmaToNvvm : Pass<"autoglm-bf16-mma-to-nvvm"> {
  let summary = "Lower nvgpu.mma.sync with bf16 operands to nvvm.mma.sync";
  let description = [{
    In the CUDA stage, before `convert-nvgpu-to-nvvm`, whose lowering of
    `nvgpu.mma.sync` (MLIR 22) knows f16 but not bf16 operands: an
    m16n8k16 product of bf16 fragments with f32 sums (the attention
    kernel's in `--precision bf16` builds) becomes `nvvm.mma.sync` with
    its operands as PTX takes them, each register of a fragment
    (`vector<2xbf16>`) bitcast to `i32`, the four sums extracted from the
    result struct into a `vector<2x2xf32>` again. Other products are left
    as they are.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::vector::VectorDialect"];
}

def NameGpuKernels : Pass<"autoglm-name-gpu-kernels", "mlir::ModuleOp"> {
  let summary = "Name each outlined GPU kernel after its launch and ONNX node";
  let description = [{
    After `gpu-kernel-outlining`, which names kernels after their function
    (`main_kernel`, `main_kernel_0`, ...), renames each `gpu.module` and
    its kernel to `k<N>_<node>`: N counts the launches in order, and node is
    the first ONNX node of the launch's location (in identifier
    characters; just `k<N>` when it has none). Profilers and `cuobjdump`
    show these names.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

#endif // AUTOGLM_PASSES_TD
