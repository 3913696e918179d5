#!/usr/bin/env python3
"""Generate the example ONNX models and their onnxruntime reference outputs.

For every model NAME this writes:
  models/NAME.onnx             the model (opset 17, IR version 8, float32)
  models/NAME/input_<i>.npy    seeded random inputs, in graph-input order
  models/NAME/output_<i>.npy   onnxruntime CPU outputs, graph optimizations off
  models/NAME/inputs.json      graph input names, in order
  models/NAME/outputs.json     graph output names, in order

It then writes the malformed/edge-case fixtures in test/e2e/fixtures/ (see
generate_bad_inputs.py). Output is deterministic: running it twice produces
byte-identical files.

Usage: python3 models/generate.py
"""

import json
import math
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

MODELS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(MODELS_DIR)

OPSET = 17  # ReduceMean still takes `axes` as an attribute here (input in 18).
IR_VERSION = 8  # Loadable by older runtimes and ONNX parsers.
PRODUCER = "autoglm-models"


# ---------------------------------------------------------------------------
# Shared helpers (also used by generate_bad_inputs.py)
# ---------------------------------------------------------------------------

class GraphBuilder:
    """Small wrapper around onnx.helper that keeps node/initializer lists and
    hands out unique tensor names."""

    def __init__(self):
        self.nodes = []
        self.initializers = []
        self._counts = {}

    def _fresh(self, hint):
        n = self._counts.get(hint, 0)
        self._counts[hint] = n + 1
        return hint if n == 0 else f"{hint}_{n}"

    def init(self, name, array):
        """Add a constant initializer and return its name."""
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, name, num_outputs=1, **attrs):
        """Add a node named `name`; its outputs are named after the node."""
        outputs = [name if num_outputs == 1 else f"{name}:{i}"
                   for i in range(num_outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outputs,
                                           name=name, **attrs))
        return outputs[0] if num_outputs == 1 else outputs

    def constant(self, name, array):
        """Emit an ONNX `Constant` node (as exporters do for scalars)."""
        tensor = numpy_helper.from_array(np.asarray(array), name + "_value")
        return self.op("Constant", [], name, value=tensor)

    def model(self, graph_name, inputs, outputs, opset=OPSET,
              ir_version=IR_VERSION):
        graph = helper.make_graph(self.nodes, graph_name, inputs, outputs,
                                  initializer=self.initializers)
        return make_model(graph, opset, ir_version)


def make_model(graph, opset=OPSET, ir_version=IR_VERSION):
    model = helper.make_model(
        graph, producer_name=PRODUCER,
        opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    return model


def tensor_info(name, shape, elem_type=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem_type, shape)


def ort_reference(model_path, inputs):
    """Run onnxruntime on CPU with every graph optimization disabled, so the
    reference reflects the plain per-op semantics. One thread keeps the
    results bit-reproducible."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model_path, sess_options=opts,
                                providers=["CPUExecutionProvider"])
    feeds = {i.name: a for i, a in zip(sess.get_inputs(), inputs)}
    return sess.run(None, feeds)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def write_case(model, model_path, case_dir, inputs):
    """Save `model` to `model_path`, then store its inputs, the ORT reference
    outputs and the input/output name lists in `case_dir`."""
    onnx.save_model(model, model_path)
    write_reference(model_path, case_dir, inputs,
                    [i.name for i in model.graph.input],
                    [o.name for o in model.graph.output])


def write_reference(model_path, case_dir, inputs, input_names, output_names):
    os.makedirs(case_dir, exist_ok=True)
    outputs = ort_reference(model_path, inputs)
    for i, a in enumerate(inputs):
        np.save(os.path.join(case_dir, f"input_{i}.npy"), a)
    for i, a in enumerate(outputs):
        np.save(os.path.join(case_dir, f"output_{i}.npy"), a)
    write_json(os.path.join(case_dir, "inputs.json"), input_names)
    write_json(os.path.join(case_dir, "outputs.json"), output_names)


def f32(a):
    return np.asarray(a, dtype=np.float32)


# ---------------------------------------------------------------------------
# a) mlp
# ---------------------------------------------------------------------------

def add_gelu(g, x, prefix):
    """Exact (erf) GELU spelled with primitive ops, as torch exports it:
    0.5 * x * (1 + Erf(x / sqrt(2)))."""
    sqrt2 = g.init(f"{prefix}.sqrt2", f32(math.sqrt(2.0)))
    one = g.init(f"{prefix}.one", f32(1.0))
    half = g.init(f"{prefix}.half", f32(0.5))
    t = g.op("Div", [x, sqrt2], f"{prefix}/Div")
    t = g.op("Erf", [t], f"{prefix}/Erf")
    t = g.op("Add", [t, one], f"{prefix}/Add")
    t = g.op("Mul", [x, t], f"{prefix}/Mul")
    return g.op("Mul", [t, half], f"{prefix}/Mul_1")


def build_mlp():
    rng = np.random.default_rng(1001)
    g = GraphBuilder()
    w1 = g.init("fc1.weight", f32(rng.standard_normal((64, 128)) * 0.1))
    b1 = g.init("fc1.bias", f32(rng.standard_normal(128) * 0.1))
    w2 = g.init("fc2.weight", f32(rng.standard_normal((128, 32)) * 0.1))
    b2 = g.init("fc2.bias", f32(rng.standard_normal(32) * 0.1))

    h = g.op("MatMul", ["x", w1], "fc1/MatMul")
    h = g.op("Add", [h, b1], "fc1/Add")
    h = add_gelu(g, h, "act")
    h = g.op("MatMul", [h, w2], "fc2/MatMul")
    g.op("Add", [h, b2], "y")

    model = g.model("mlp", [tensor_info("x", [4, 64])],
                    [tensor_info("y", [4, 32])])
    inputs = [f32(rng.standard_normal((4, 64)))]
    return model, inputs


# ---------------------------------------------------------------------------
# b) glm_layer
# ---------------------------------------------------------------------------

HIDDEN, HEADS, HEAD_DIM, SEQ, FFN = 256, 4, 64, 32, 512


def add_rmsnorm(g, x, weight, prefix, use_reciprocal):
    """RMSNorm as exporters emit it: x * rsqrt(mean(x^2) + eps) * weight.
    The two norms in the layer spell rsqrt differently (Reciprocal+Mul vs Div)
    so both patterns are covered."""
    two = g.init(f"{prefix}.two", f32(2.0))
    eps = g.constant(f"{prefix}/eps", f32(1e-5))
    t = g.op("Pow", [x, two], f"{prefix}/Pow")
    t = g.op("ReduceMean", [t], f"{prefix}/ReduceMean", axes=[-1], keepdims=1)
    t = g.op("Add", [t, eps], f"{prefix}/Add")
    t = g.op("Sqrt", [t], f"{prefix}/Sqrt")
    if use_reciprocal:
        t = g.op("Reciprocal", [t], f"{prefix}/Reciprocal")
        t = g.op("Mul", [x, t], f"{prefix}/Mul")
    else:
        t = g.op("Div", [x, t], f"{prefix}/Div")
    return g.op("Mul", [t, weight], f"{prefix}/Mul_weight")


def add_swiglu_mlp(g, h1, norm_w, w_gate, w_up, w_down):
    """The second half of the layer: RMSNorm, SwiGLU MLP, residual Add into
    the graph output "y"."""
    h = add_rmsnorm(g, h1, norm_w, "post_attention_layernorm",
                    use_reciprocal=False)
    gate = g.op("MatMul", [h, w_gate], "mlp/gate_proj/MatMul")
    up = g.op("MatMul", [h, w_up], "mlp/up_proj/MatMul")
    sig = g.op("Sigmoid", [gate], "mlp/act/Sigmoid")
    act = g.op("Mul", [gate, sig], "mlp/act/Mul")
    act = g.op("Mul", [act, up], "mlp/Mul")
    down = g.op("MatMul", [act, w_down], "mlp/down_proj/MatMul")
    g.op("Add", [h1, down], "y")


def build_glm_layer():
    rng = np.random.default_rng(2002)

    def weight(*shape):
        return f32(rng.standard_normal(shape) * 0.05)

    g = GraphBuilder()
    attn_norm_w = g.init("input_layernorm.weight",
                         f32(1.0 + rng.standard_normal(HIDDEN) * 0.1))
    w_qkv = g.init("self_attn.qkv.weight", weight(HIDDEN, 3 * HIDDEN))
    w_o = g.init("self_attn.o_proj.weight", weight(HIDDEN, HIDDEN))
    mlp_norm_w = g.init("post_attention_layernorm.weight",
                        f32(1.0 + rng.standard_normal(HIDDEN) * 0.1))
    w_gate = g.init("mlp.gate_proj.weight", weight(HIDDEN, FFN))
    w_up = g.init("mlp.up_proj.weight", weight(HIDDEN, FFN))
    w_down = g.init("mlp.down_proj.weight", weight(FFN, HIDDEN))

    # --- attention ---------------------------------------------------------
    h = add_rmsnorm(g, "x", attn_norm_w, "input_layernorm", use_reciprocal=True)
    qkv = g.op("MatMul", [h, w_qkv], "self_attn/qkv/MatMul")

    # One fused projection split into Q, K, V with Slice on the last axis.
    slice_axes = g.init("self_attn.slice_axes", np.array([-1], np.int64))
    heads_shape = g.init("self_attn.heads_shape",
                         np.array([1, SEQ, HEADS, HEAD_DIM], np.int64))
    proj = {}
    for i, name in enumerate(["q", "k", "v"]):
        start = g.init(f"self_attn.{name}_start",
                       np.array([i * HIDDEN], np.int64))
        end = g.init(f"self_attn.{name}_end",
                     np.array([(i + 1) * HIDDEN], np.int64))
        t = g.op("Slice", [qkv, start, end, slice_axes], f"self_attn/{name}/Slice")
        t = g.op("Reshape", [t, heads_shape], f"self_attn/{name}/Reshape")
        # [1, seq, heads, dim] -> [1, heads, seq, dim]
        proj[name] = g.op("Transpose", [t], f"self_attn/{name}/Transpose",
                          perm=[0, 2, 1, 3])

    k_t = g.op("Transpose", [proj["k"]], "self_attn/k/Transpose_1",
               perm=[0, 1, 3, 2])
    scores = g.op("MatMul", [proj["q"], k_t], "self_attn/scores/MatMul")
    scale = g.constant("self_attn/scale", f32(1.0 / math.sqrt(HEAD_DIM)))
    scores = g.op("Mul", [scores, scale], "self_attn/scores/Mul")

    # Causal mask: keep j <= i, replace the rest with a large negative value.
    causal = np.tril(np.ones((SEQ, SEQ), dtype=bool)).reshape(1, 1, SEQ, SEQ)
    mask = g.init("self_attn.causal_mask", causal)
    neg = g.init("self_attn.mask_value", f32(-1e9))
    scores = g.op("Where", [mask, scores, neg], "self_attn/Where")
    probs = g.op("Softmax", [scores], "self_attn/Softmax", axis=-1)
    ctx = g.op("MatMul", [probs, proj["v"]], "self_attn/ctx/MatMul")
    ctx = g.op("Transpose", [ctx], "self_attn/ctx/Transpose", perm=[0, 2, 1, 3])

    # Merge heads with a target shape computed from the runtime shape of x,
    # the way torch exports `view(b, s, -1)`-style code.
    x_shape = g.op("Shape", ["x"], "self_attn/Shape")
    dims = []
    for i in range(2):
        idx = g.constant(f"self_attn/dim{i}_index", np.array(i, np.int64))
        d = g.op("Gather", [x_shape, idx], f"self_attn/Gather_{i}", axis=0)
        axes0 = g.init(f"self_attn.unsqueeze{i}_axes", np.array([0], np.int64))
        dims.append(g.op("Unsqueeze", [d, axes0], f"self_attn/Unsqueeze_{i}"))
    hidden_dim = g.init("self_attn.hidden_dim", np.array([HIDDEN], np.int64))
    merged_shape = g.op("Concat", dims + [hidden_dim], "self_attn/Concat", axis=0)
    ctx = g.op("Reshape", [ctx, merged_shape], "self_attn/ctx/Reshape")

    attn_out = g.op("MatMul", [ctx, w_o], "self_attn/o_proj/MatMul")
    h1 = g.op("Add", ["x", attn_out], "residual_attn/Add")

    # --- SwiGLU MLP --------------------------------------------------------
    add_swiglu_mlp(g, h1, mlp_norm_w, w_gate, w_up, w_down)

    model = g.model("glm_layer", [tensor_info("x", [1, SEQ, HIDDEN])],
                    [tensor_info("y", [1, SEQ, HIDDEN])])
    inputs = [f32(rng.standard_normal((1, SEQ, HIDDEN)))]
    return model, inputs


# Sizes at which the symbolic-shape layer is checked: (batch, seq).
DYNAMIC_SIZES = [(1, 1), (2, 7), (1, 32), (3, 64)]
DYNAMIC_RANGES = {"batch": (1, 4), "seq": (1, 64)}


def build_glm_layer_dynamic():
    """The GLM layer with symbolic `batch` and `seq`, as torch exports it
    with dynamic axes: every shape operand is computed from Shape(x), Q, K
    and V have their own projections, and causality comes in as an additive
    `attention_mask` [batch, 1, seq, seq] input."""
    rng = np.random.default_rng(2003)

    def weight(*shape):
        return f32(rng.standard_normal(shape) * 0.05)

    g = GraphBuilder()
    attn_norm_w = g.init("input_layernorm.weight",
                         f32(1.0 + rng.standard_normal(HIDDEN) * 0.1))
    w_proj = {n: g.init(f"self_attn.{n}_proj.weight", weight(HIDDEN, HIDDEN))
              for n in "qkvo"}
    mlp_norm_w = g.init("post_attention_layernorm.weight",
                        f32(1.0 + rng.standard_normal(HIDDEN) * 0.1))
    w_gate = g.init("mlp.gate_proj.weight", weight(HIDDEN, FFN))
    w_up = g.init("mlp.up_proj.weight", weight(HIDDEN, FFN))
    w_down = g.init("mlp.down_proj.weight", weight(FFN, HIDDEN))

    x_shape = g.op("Shape", ["x"], "Shape")
    dims = []
    for i in range(2):
        idx = g.constant(f"dim{i}_index", np.array(i, np.int64))
        d = g.op("Gather", [x_shape, idx], f"Gather_{i}", axis=0)
        axes0 = g.init(f"unsqueeze{i}_axes", np.array([0], np.int64))
        dims.append(g.op("Unsqueeze", [d, axes0], f"Unsqueeze_{i}"))
    heads = g.init("heads_dims", np.array([HEADS, -1], np.int64))
    heads_shape = g.op("Concat", dims + [heads], "heads_shape", axis=0)
    hidden = g.init("hidden_dim", np.array([HIDDEN], np.int64))
    merged_shape = g.op("Concat", dims + [hidden], "merged_shape", axis=0)

    h = add_rmsnorm(g, "x", attn_norm_w, "input_layernorm", use_reciprocal=True)
    proj = {}
    for name in "qkv":
        t = g.op("MatMul", [h, w_proj[name]], f"self_attn/{name}/MatMul")
        t = g.op("Reshape", [t, heads_shape], f"self_attn/{name}/Reshape")
        proj[name] = g.op("Transpose", [t], f"self_attn/{name}/Transpose",
                          perm=[0, 2, 1, 3])
    k_t = g.op("Transpose", [proj["k"]], "self_attn/k/Transpose_1",
               perm=[0, 1, 3, 2])
    scores = g.op("MatMul", [proj["q"], k_t], "self_attn/scores/MatMul")
    scale = g.constant("self_attn/scale", f32(1.0 / math.sqrt(HEAD_DIM)))
    scores = g.op("Mul", [scores, scale], "self_attn/scores/Mul")
    scores = g.op("Add", [scores, "attention_mask"], "self_attn/mask/Add")
    probs = g.op("Softmax", [scores], "self_attn/Softmax", axis=-1)
    ctx = g.op("MatMul", [probs, proj["v"]], "self_attn/ctx/MatMul")
    ctx = g.op("Transpose", [ctx], "self_attn/ctx/Transpose", perm=[0, 2, 1, 3])
    ctx = g.op("Reshape", [ctx, merged_shape], "self_attn/ctx/Reshape")
    attn_out = g.op("MatMul", [ctx, w_proj["o"]], "self_attn/o_proj/MatMul")
    h1 = g.op("Add", ["x", attn_out], "residual_attn/Add")

    add_swiglu_mlp(g, h1, mlp_norm_w, w_gate, w_up, w_down)

    model = g.model(
        "glm_layer_dynamic",
        [tensor_info("x", ["batch", "seq", HIDDEN]),
         tensor_info("attention_mask", ["batch", 1, "seq", "seq"])],
        [tensor_info("y", ["batch", "seq", HIDDEN])])
    cases = {}
    for batch, seq in DYNAMIC_SIZES:
        causal = np.triu(np.full((seq, seq), -1e9, np.float32), k=1)
        cases[f"batch{batch}_seq{seq}"] = [
            f32(rng.standard_normal((batch, seq, HIDDEN))),
            np.broadcast_to(causal, (batch, 1, seq, seq)).copy()]
    return model, cases


# ---------------------------------------------------------------------------
# c) resnet_cnn
# ---------------------------------------------------------------------------

def add_conv(g, rng, x, name, cin, cout, k, stride=1, pad=0, bias=False):
    """A square Conv with He-initialized weights (keeps activations O(1)
    through a deep network) and, optionally, a bias."""
    w = f32(rng.standard_normal((cout, cin, k, k)) * math.sqrt(2.0 / (cin * k * k)))
    ins = [x, g.init(f"{name}.weight", w)]
    if bias:
        ins.append(g.init(f"{name}.bias", f32(rng.standard_normal(cout) * 0.1)))
    return g.op("Conv", ins, f"{name}/Conv", kernel_shape=[k, k],
                strides=[stride, stride], pads=[pad] * 4)


def add_batchnorm(g, rng, x, name, c):
    """Inference-mode BatchNormalization with random statistics."""
    scale = g.init(f"{name}.weight", f32(rng.uniform(0.5, 1.5, c)))
    bias = g.init(f"{name}.bias", f32(rng.standard_normal(c) * 0.1))
    mean = g.init(f"{name}.running_mean", f32(rng.standard_normal(c) * 0.1))
    var = g.init(f"{name}.running_var", f32(rng.uniform(0.5, 1.5, c)))
    return g.op("BatchNormalization", [x, scale, bias, mean, var],
                f"{name}/BatchNormalization", epsilon=1e-5)


def add_basic_block(g, rng, x, name, c):
    """ResNet basic block with an identity skip: conv3x3-BN-ReLU-conv3x3-BN,
    residual Add, ReLU; `c` channels in and out."""
    t = add_conv(g, rng, x, f"{name}.conv1", c, c, 3, pad=1)
    t = add_batchnorm(g, rng, t, f"{name}.bn1", c)
    t = g.op("Relu", [t], f"{name}/Relu")
    t = add_conv(g, rng, t, f"{name}.conv2", c, c, 3, pad=1)
    t = add_batchnorm(g, rng, t, f"{name}.bn2", c)
    t = g.op("Add", [t, x], f"{name}/Add")
    return g.op("Relu", [t], f"{name}/Relu_1")


def build_resnet_cnn():
    rng = np.random.default_rng(3003)
    g = GraphBuilder()

    def conv(x, name, cin, cout, k, stride=1, pad=0, bias=False):
        return add_conv(g, rng, x, name, cin, cout, k, stride, pad, bias)

    def bn(x, name, c):
        return add_batchnorm(g, rng, x, name, c)

    # Stem: [1,3,32,32] -> [1,16,16,16]
    t = conv("x", "stem.conv", 3, 16, 3, pad=1, bias=True)
    t = bn(t, "stem.bn", 16)
    t = g.op("Relu", [t], "stem/Relu")
    t = g.op("MaxPool", [t], "stem/MaxPool", kernel_shape=[2, 2], strides=[2, 2])

    # Basic residual block with identity skip: [1,16,16,16]
    t = add_basic_block(g, rng, t, "block1", 16)

    # Downsampling block with a 1x1 stride-2 projection skip: -> [1,32,8,8]
    skip = conv(t, "block2.downsample", 16, 32, 1, stride=2)
    t = conv(t, "block2.conv1", 16, 32, 3, stride=2, pad=1)
    t = bn(t, "block2.bn1", 32)
    t = g.op("Add", [t, skip], "block2/Add")
    t = g.op("Relu", [t], "block2/Relu")

    # Head: [1,32,8,8] -> AvgPool -> [1,32,7,7] -> GAP -> [1,32] -> [1,10]
    t = g.op("AveragePool", [t], "head/AveragePool", kernel_shape=[2, 2],
             strides=[1, 1])
    t = g.op("GlobalAveragePool", [t], "head/GlobalAveragePool")
    t = g.op("Flatten", [t], "head/Flatten", axis=1)
    fc_w = g.init("fc.weight", f32(rng.standard_normal((10, 32)) * 0.2))
    fc_b = g.init("fc.bias", f32(rng.standard_normal(10) * 0.1))
    t = g.op("Gemm", [t, fc_w, fc_b], "fc/Gemm", transB=1)
    g.op("Softmax", [t], "probs", axis=-1)

    model = g.model("resnet_cnn", [tensor_info("x", [1, 3, 32, 32])],
                    [tensor_info("probs", [1, 10])])
    inputs = [f32(rng.standard_normal((1, 3, 32, 32)))]
    return model, inputs


MODELS = {
    "mlp": build_mlp,
    "glm_layer": build_glm_layer,
    "resnet_cnn": build_resnet_cnn,
}

# Models with symbolic dimensions (ranges in DYNAMIC_RANGES).
SYMBOLIC_MODELS = {
    "glm_layer_dynamic": build_glm_layer_dynamic,
}


def generate_models():
    for name, build in MODELS.items():
        model, inputs = build()
        onnx.checker.check_model(model, full_check=True)
        write_case(model, os.path.join(MODELS_DIR, f"{name}.onnx"),
                   os.path.join(MODELS_DIR, name), inputs)
        print(f"wrote models/{name}.onnx")
    # Symbolic shapes: one case folder per size.
    for name, build in SYMBOLIC_MODELS.items():
        model, cases = build()
        onnx.checker.check_model(model, full_check=True)
        path = os.path.join(MODELS_DIR, f"{name}.onnx")
        onnx.save_model(model, path)
        for case, inputs in cases.items():
            write_reference(path, os.path.join(MODELS_DIR, name, case), inputs,
                            [i.name for i in model.graph.input],
                            [o.name for o in model.graph.output])
        write_json(os.path.join(MODELS_DIR, name, "dims.json"),
                   {k: list(v) for k, v in DYNAMIC_RANGES.items()})
        print(f"wrote models/{name}.onnx ({len(cases)} sizes)")


def main():
    generate_models()
    # The fixtures derive from models/mlp.onnx, so they are generated after it.
    sys.path.insert(0, MODELS_DIR)
    sys.dont_write_bytecode = True  # keep models/ free of __pycache__
    import generate_bad_inputs
    generate_bad_inputs.main()


if __name__ == "__main__":
    main()
