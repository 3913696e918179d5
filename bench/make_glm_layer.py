#!/usr/bin/env python3
"""Generate a GLM-style decoder layer of any size, with a seeded input and the
onnxruntime reference output, for benchmarks.

The graph is the one of models/glm_layer.onnx (see models/README.md) with the
sizes as parameters: RMSNorm spelled with Pow/ReduceMean/Sqrt, one fused QKV
MatMul split by Slice, per-head Reshape/Transpose, causal Where mask,
Softmax, the head merge through a run-time Shape/Gather/Concat, output
projection and residual, second RMSNorm, SwiGLU MLP and residual. The
graph-building functions come from models/generate.py; nothing in models/ is
written.

For a model NAME (default glm_layer_s<SEQ>_h<HIDDEN>) this writes
  OUT/NAME.onnx             opset 17, IR version 8, float32, weights inline
  OUT/NAME/input_0.npy      seeded random input [1, SEQ, HIDDEN]
  OUT/NAME/output_0.npy     onnxruntime reference (CPU, optimizations off)
  OUT/NAME/inputs.json      ["x"]
  OUT/NAME/outputs.json     ["y"]
the same layout as models/.

Usage: python3 bench/make_glm_layer.py OUT [--seq 128] [--hidden 512]
           [--heads 8] [--ffn 1024] [--name NAME]
"""

import argparse
import math
import os
import sys

import numpy as np
import onnx

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, "models"))
sys.dont_write_bytecode = True  # keep models/ free of __pycache__
from generate import (  # noqa: E402
    GraphBuilder, add_rmsnorm, f32, tensor_info, write_case)


def build_glm_layer(seq, hidden, heads, ffn, past=0, seed=4004):
    """One decoder layer, batch 1; `hidden` must be a multiple of `heads`.

    With `past` > 0 it is a decode step with a KV cache: inputs past_key and
    past_value [1, heads, past, head_dim], outputs present_key/present_value
    with the new positions appended, and queries attending the whole cache.
    """
    if hidden % heads:
        raise ValueError(f"hidden size {hidden} is not a multiple of "
                         f"{heads} heads")
    head_dim = hidden // heads
    rng = np.random.default_rng(seed)

    def weight(*shape):
        # Scaled so that activations stay O(1) whatever the size.
        return f32(rng.standard_normal(shape) / math.sqrt(shape[0]))

    g = GraphBuilder()
    attn_norm_w = g.init("input_layernorm.weight",
                         f32(1.0 + rng.standard_normal(hidden) * 0.1))
    w_qkv = g.init("self_attn.qkv.weight", weight(hidden, 3 * hidden))
    w_o = g.init("self_attn.o_proj.weight", weight(hidden, hidden))
    mlp_norm_w = g.init("post_attention_layernorm.weight",
                        f32(1.0 + rng.standard_normal(hidden) * 0.1))
    w_gate = g.init("mlp.gate_proj.weight", weight(hidden, ffn))
    w_up = g.init("mlp.up_proj.weight", weight(hidden, ffn))
    w_down = g.init("mlp.down_proj.weight", weight(ffn, hidden))

    # --- attention ---------------------------------------------------------
    h = add_rmsnorm(g, "x", attn_norm_w, "input_layernorm", use_reciprocal=True)
    qkv = g.op("MatMul", [h, w_qkv], "self_attn/qkv/MatMul")

    slice_axes = g.init("self_attn.slice_axes", np.array([-1], np.int64))
    heads_shape = g.init("self_attn.heads_shape",
                         np.array([1, seq, heads, head_dim], np.int64))
    proj = {}
    for i, name in enumerate(["q", "k", "v"]):
        start = g.init(f"self_attn.{name}_start",
                       np.array([i * hidden], np.int64))
        end = g.init(f"self_attn.{name}_end",
                     np.array([(i + 1) * hidden], np.int64))
        t = g.op("Slice", [qkv, start, end, slice_axes],
                 f"self_attn/{name}/Slice")
        t = g.op("Reshape", [t, heads_shape], f"self_attn/{name}/Reshape")
        proj[name] = g.op("Transpose", [t], f"self_attn/{name}/Transpose",
                          perm=[0, 2, 1, 3])

    if past:
        for name in ("k", "v"):
            cache = "past_key" if name == "k" else "past_value"
            proj[name] = g.op("Concat", [cache, proj[name]],
                              f"self_attn/{name}/Concat", axis=2)
        g.op("Identity", [proj["k"]], "present_key")
        g.op("Identity", [proj["v"]], "present_value")
    k_t = g.op("Transpose", [proj["k"]], "self_attn/k/Transpose_1",
               perm=[0, 1, 3, 2])
    scores = g.op("MatMul", [proj["q"], k_t], "self_attn/scores/MatMul")
    scale = g.constant("self_attn/scale", f32(1.0 / math.sqrt(head_dim)))
    scores = g.op("Mul", [scores, scale], "self_attn/scores/Mul")

    keys = past + seq
    causal = np.tril(np.ones((seq, keys), dtype=bool), k=past).reshape(
        1, 1, seq, keys)
    mask = g.init("self_attn.causal_mask", causal)
    neg = g.init("self_attn.mask_value", f32(-1e9))
    scores = g.op("Where", [mask, scores, neg], "self_attn/Where")
    probs = g.op("Softmax", [scores], "self_attn/Softmax", axis=-1)
    ctx = g.op("MatMul", [probs, proj["v"]], "self_attn/ctx/MatMul")
    ctx = g.op("Transpose", [ctx], "self_attn/ctx/Transpose",
               perm=[0, 2, 1, 3])

    x_shape = g.op("Shape", ["x"], "self_attn/Shape")
    dims = []
    for i in range(2):
        idx = g.constant(f"self_attn/dim{i}_index", np.array(i, np.int64))
        d = g.op("Gather", [x_shape, idx], f"self_attn/Gather_{i}", axis=0)
        axes0 = g.init(f"self_attn.unsqueeze{i}_axes", np.array([0], np.int64))
        dims.append(g.op("Unsqueeze", [d, axes0], f"self_attn/Unsqueeze_{i}"))
    hidden_dim = g.init("self_attn.hidden_dim", np.array([hidden], np.int64))
    merged_shape = g.op("Concat", dims + [hidden_dim], "self_attn/Concat",
                        axis=0)
    ctx = g.op("Reshape", [ctx, merged_shape], "self_attn/ctx/Reshape")

    attn_out = g.op("MatMul", [ctx, w_o], "self_attn/o_proj/MatMul")
    h1 = g.op("Add", ["x", attn_out], "residual_attn/Add")

    # --- SwiGLU MLP --------------------------------------------------------
    h = add_rmsnorm(g, h1, mlp_norm_w, "post_attention_layernorm",
                    use_reciprocal=False)
    gate = g.op("MatMul", [h, w_gate], "mlp/gate_proj/MatMul")
    up = g.op("MatMul", [h, w_up], "mlp/up_proj/MatMul")
    sig = g.op("Sigmoid", [gate], "mlp/act/Sigmoid")
    act = g.op("Mul", [gate, sig], "mlp/act/Mul")
    act = g.op("Mul", [act, up], "mlp/Mul")
    down = g.op("MatMul", [act, w_down], "mlp/down_proj/MatMul")
    g.op("Add", [h1, down], "y")

    model_inputs = [tensor_info("x", [1, seq, hidden])]
    model_outputs = [tensor_info("y", [1, seq, hidden])]
    inputs = [f32(rng.standard_normal((1, seq, hidden)))]
    if past:
        cache_shape = [1, heads, past, head_dim]
        full_shape = [1, heads, past + seq, head_dim]
        for cache in ("past_key", "past_value"):
            model_inputs.append(tensor_info(cache, cache_shape))
            inputs.append(f32(rng.standard_normal(cache_shape)))
        model_outputs += [tensor_info("present_key", full_shape),
                          tensor_info("present_value", full_shape)]
    model = g.model("glm_layer", model_inputs, model_outputs)
    return model, inputs


def generate(out_dir, seq=128, hidden=512, heads=8, ffn=1024, past=0,
             name=None):
    """Writes the model and its case directory; returns the model's path."""
    name = name or (f"glm_decode_p{past}_h{hidden}" if past
                    else f"glm_layer_s{seq}_h{hidden}")
    model, inputs = build_glm_layer(seq, hidden, heads, ffn, past)
    onnx.checker.check_model(model, full_check=True)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name + ".onnx")
    write_case(model, path, os.path.join(out_dir, name), inputs)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="output directory")
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--ffn", type=int, default=1024,
                        help="MLP inner size (default 1024, twice the hidden "
                             "size as in models/glm_layer.onnx)")
    parser.add_argument("--name", help="model name (default "
                                       "glm_layer_s<SEQ>_h<HIDDEN>)")
    args = parser.parse_args()
    path = generate(args.out, args.seq, args.hidden, args.heads, args.ffn,
                    name=args.name)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
