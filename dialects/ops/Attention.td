//===- Attention.td - Fused attention ------------------------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_ATTENTION_TD
#define AUTOGLM_OPS_ATTENTION_TD

include "dialects/AutoGLMBase.td"

def AGL_F32Tensor4 : 4DTensorOf<[F32]>;

def AGL_AttentionOp : AGL_InferredOp<"attention"> {
  let summary = "scaled dot-product attention: softmax(scale Q Kᵀ + mask) V";
  let description = [{
    `out[b, h, i, :] = sum_j p[b, h, i, j] V[b, h', j, :]` with
    `p[b, h, i, :] = softmax_j(scale * Q[b, h, i, :] · K[b, h', j, :] +
    mask[b, h, i, j])`, for Q `[B, H, Sq, D]`, K `[B, Hkv, Sk, D]` and V
    `[B, Hkv, Sk, Dv]`. Grouped-query attention: H is a multiple of Hkv and
    query head `h` reads K/V head `h' = h / (H / Hkv)`. Batch and sequence
    lengths may be symbolic; heads and head sizes are static. The optional mask is
    added to the scores and broadcasts to `[B, H, Sq, Sk]` (numpy rules,
    `-inf` leaves a key out). With `causal`, key `j` is left out of query row
    `i` when `j > i + Sk - Sq`: the queries are the last Sq positions, as in
    a decode step against a KV cache. A row that sees no key at all is zero.
    `autoglm-recognize-attention` builds it from primitive ops; with the
    runtime kernels it runs as one streaming kernel that never stores the
    `Sq x Sk` scores.

    ```mlir
    %y = autoglm.attention %q, %k, %v {scale = 0.125 : f32, causal = true}
        : (tensor<1x8x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>)
        -> tensor<1x8x128x64xf32>
    ```
  }];
  let arguments = (ins AGL_F32Tensor4:$query, AGL_F32Tensor4:$key,
                       AGL_F32Tensor4:$value,
                       Optional<RankedTensorOf<[F32]>>:$mask, F32Attr:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$causal);
  let results = (outs AGL_F32Tensor4:$output);
  let assemblyFormat = "$query `,` $key `,` $value (`,` $mask^)? attr-dict `:` functional-type(operands, results)";
}

def AGL_AttentionBuffersOp : Op<AutoGLM_Dialect, "attention_buffers"> {
  let summary = "autoglm.attention on buffers, for the runtime's kernel";
  let description = [{
    The same computation as `autoglm.attention`, reading its operands'
    buffers and writing `output` (`[B, H, Sq, Dv]`, identity layout). The
    lowering to linalg emits it when the runtime kernels are on, so that
    the operands' buffers are live at one op during arena planning;
    `autoglm-attention-to-kernels` then makes it a call of
    `agl_kernel_attention`.

    ```mlir
    autoglm.attention_buffers %q, %k, %v into %out {scale = 0.125 : f32, causal = true}
        : memref<1x8x1x64xf32>, memref<1x8x512x64xf32>, memref<1x8x512x64xf32>,
          memref<1x8x1x64xf32>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[F32], [4]>, "", [MemRead]>:$query,
                       Arg<MemRefRankOf<[F32], [4]>, "", [MemRead]>:$key,
                       Arg<MemRefRankOf<[F32], [4]>, "", [MemRead]>:$value,
                       Arg<Optional<MemRefOf<[F32]>>, "", [MemRead]>:$mask,
                       Arg<MemRefRankOf<[F32], [4]>, "", [MemWrite]>:$output,
                       F32Attr:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$causal);
  let assemblyFormat = "$query `,` $key `,` $value (`,` $mask^)? `into` $output attr-dict `:` type(operands)";
  let hasVerifier = 1;
}

#endif // AUTOGLM_OPS_ATTENTION_TD
