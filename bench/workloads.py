#!/usr/bin/env python3
"""The workloads of the performance benchmark (bench/run.py).

Each workload is an ONNX model (opset 17, float32, weights inline, batch 1)
with seeded random inputs:

  gemm1024     MatMul of an input [1024,1024] by a constant weight [1024,1024]
  gemm2048     the same at 2048
  mlp          128 tokens [1,128,768], 768 -> 3072 -> 768 with biases and the
               erf GELU exporters write (Div/Erf/Add/Mul/Mul)
  glm_prefill  one GLM decoder layer (the graph of models/glm_layer.onnx):
               hidden 1024, 16 heads of 64, SwiGLU MLP of 2048, sequence 128
  glm_decode   the same layer decoding one token against a 511-position KV
               cache: inputs x [1,1,1024], past_key/past_value [1,16,511,64];
               outputs y and present_key/present_value [1,16,512,64] (Concat)
  resnet224    a ResNet-style CNN at [1,3,224,224]: 7x7/2 stem conv, BN, ReLU,
               3x3/2 max pool, four stages of one basic block (64, 128, 256,
               512 channels; the last three stride 2 with a 1x1 projection
               skip), global average pool, FC to 1000 logits

The graphs are built with the builders of models/generate.py and
bench/make_glm_layer.py. `prepare` writes a workload into a work directory
under a name that hashes its parameters and the generator sources, so a
second run with unchanged sources reuses the files.

FLOPs are counted from the model's graph after shape inference: 2*M*N*K per
MatMul/Gemm (batched MatMuls times their batch, so the attention matmuls
count), 2*outH*outW*Cout*(Cin/group)*kh*kw per Conv; elementwise ops,
normalizations, pooling and softmax are not counted.

Usage: python3 bench/workloads.py [--work-dir DIR] [NAME...]   (writes them)
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, os.path.join(REPO_ROOT, "models"))
sys.path.insert(0, BENCH_DIR)
sys.dont_write_bytecode = True  # keep models/ and bench/ free of __pycache__
from generate import (  # noqa: E402
    GraphBuilder, add_basic_block, add_batchnorm, add_conv, add_gelu, f32,
    tensor_info)
from make_glm_layer import build_glm_layer  # noqa: E402

DEFAULT_WORK_DIR = "/tmp/autoglm-bench"

# The sources whose content decides the generated files.
GENERATOR_SOURCES = [
    os.path.join(BENCH_DIR, "workloads.py"),
    os.path.join(BENCH_DIR, "make_glm_layer.py"),
    os.path.join(REPO_ROOT, "models", "generate.py"),
]

GLM = dict(hidden=1024, heads=16, ffn=2048)


def _weight(rng, fan_in, *shape):
    # Scaled by 1/sqrt(fan_in) so that outputs stay O(1).
    return f32(rng.standard_normal(shape) / math.sqrt(fan_in))


def build_gemm(n, seed=5005):
    rng = np.random.default_rng(seed + n)
    g = GraphBuilder()
    w = g.init("weight", _weight(rng, n, n, n))
    g.op("MatMul", ["x", w], "y")
    model = g.model(f"gemm{n}", [tensor_info("x", [n, n])],
                    [tensor_info("y", [n, n])])
    return model, [f32(rng.standard_normal((n, n)))]


def build_mlp(tokens=128, hidden=768, inner=3072, seed=6006):
    rng = np.random.default_rng(seed)
    g = GraphBuilder()
    w1 = g.init("fc1.weight", _weight(rng, hidden, hidden, inner))
    b1 = g.init("fc1.bias", f32(rng.standard_normal(inner) * 0.1))
    w2 = g.init("fc2.weight", _weight(rng, inner, inner, hidden))
    b2 = g.init("fc2.bias", f32(rng.standard_normal(hidden) * 0.1))
    h = g.op("MatMul", ["x", w1], "fc1/MatMul")
    h = g.op("Add", [h, b1], "fc1/Add")
    h = add_gelu(g, h, "act")
    h = g.op("MatMul", [h, w2], "fc2/MatMul")
    g.op("Add", [h, b2], "y")
    model = g.model("mlp", [tensor_info("x", [1, tokens, hidden])],
                    [tensor_info("y", [1, tokens, hidden])])
    return model, [f32(rng.standard_normal((1, tokens, hidden)))]


def build_glm_prefill():
    return build_glm_layer(seq=128, **GLM)


def build_glm_decode():
    return build_glm_layer(seq=1, past=511, **GLM)


def build_resnet224(seed=7007):
    rng = np.random.default_rng(seed)
    g = GraphBuilder()
    # Stem: [1,3,224,224] -> conv 7x7/2 -> [1,64,112,112] -> pool -> 56x56
    t = add_conv(g, rng, "x", "stem.conv", 3, 64, 7, stride=2, pad=3)
    t = add_batchnorm(g, rng, t, "stem.bn", 64)
    t = g.op("Relu", [t], "stem/Relu")
    t = g.op("MaxPool", [t], "stem/MaxPool", kernel_shape=[3, 3],
             strides=[2, 2], pads=[1, 1, 1, 1])
    t = add_basic_block(g, rng, t, "stage1", 64)
    cin = 64
    for stage, cout in [(2, 128), (3, 256), (4, 512)]:
        # Downsampling basic block: 56 -> 28 -> 14 -> 7.
        name = f"stage{stage}"
        skip = add_conv(g, rng, t, f"{name}.downsample", cin, cout, 1,
                        stride=2)
        skip = add_batchnorm(g, rng, skip, f"{name}.downsample_bn", cout)
        t = add_conv(g, rng, t, f"{name}.conv1", cin, cout, 3, stride=2,
                     pad=1)
        t = add_batchnorm(g, rng, t, f"{name}.bn1", cout)
        t = g.op("Relu", [t], f"{name}/Relu")
        t = add_conv(g, rng, t, f"{name}.conv2", cout, cout, 3, pad=1)
        t = add_batchnorm(g, rng, t, f"{name}.bn2", cout)
        t = g.op("Add", [t, skip], f"{name}/Add")
        t = g.op("Relu", [t], f"{name}/Relu_1")
        cin = cout
    t = g.op("GlobalAveragePool", [t], "head/GlobalAveragePool")
    t = g.op("Flatten", [t], "head/Flatten", axis=1)
    fc_w = g.init("fc.weight", _weight(rng, cin, 1000, cin))
    fc_b = g.init("fc.bias", f32(rng.standard_normal(1000) * 0.1))
    g.op("Gemm", [t, fc_w, fc_b], "logits", transB=1)
    model = g.model("resnet224", [tensor_info("x", [1, 3, 224, 224])],
                    [tensor_info("logits", [1, 1000])])
    return model, [f32(rng.standard_normal((1, 3, 224, 224)))]


# name -> (builder, one-line description); the order is the table's.
WORKLOADS = {
    "gemm1024": (lambda: build_gemm(1024),
                 "MatMul [1024,1024] x const [1024,1024]"),
    "gemm2048": (lambda: build_gemm(2048),
                 "MatMul [2048,2048] x const [2048,2048]"),
    "mlp": (build_mlp, "128 tokens, 768-3072-768, erf GELU, biases"),
    "glm_prefill": (build_glm_prefill,
                    "GLM layer, hidden 1024, 16 heads, ffn 2048, seq 128"),
    "glm_decode": (build_glm_decode,
                   "GLM layer, 1 token against a 511-position KV cache"),
    "resnet224": (build_resnet224,
                  "ResNet-style CNN, 1x3x224x224, 4 stages, 1000 logits"),
}

# Workloads whose roofline is memory bandwidth: the table shows their
# latency against reading the weights and the KV cache once.
MEMORY_BOUND = {"glm_decode"}


# ---------------------------------------------------------------------------
# Counting
# ---------------------------------------------------------------------------

def _shapes(model):
    """Static shapes of every tensor, after ONNX shape inference with data
    propagation (the GLM layer computes a Reshape target from Shape(x))."""
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    shapes = {}
    for vi in (list(inferred.graph.input) + list(inferred.graph.value_info)
               + list(inferred.graph.output)):
        dims = [d.dim_value if d.HasField("dim_value") else None
                for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    for init in model.graph.initializer:
        shapes[init.name] = list(init.dims)
    return shapes


def count_flops(model):
    """Multiply-adds (as 2 FLOPs) of the MatMul, Gemm and Conv nodes."""
    shapes = _shapes(model)
    total = 0
    for node in model.graph.node:
        if node.op_type not in ("MatMul", "Gemm", "Conv"):
            continue
        out = shapes.get(node.output[0])
        a = shapes.get(node.input[0])
        b = shapes.get(node.input[1])
        if out is None or a is None or b is None or None in out + a + b:
            raise ValueError(f"no static shape for {node.name}")
        if node.op_type == "MatMul":
            k = a[-1]
        elif node.op_type == "Gemm":
            trans_a = next((at.i for at in node.attribute
                            if at.name == "transA"), 0)
            k = a[0] if trans_a else a[1]
        else:  # Conv: weight [Cout, Cin/group, kh, kw]
            k = math.prod(b[1:])
        total += 2 * math.prod(out) * k
    return total


def weight_bytes(model):
    return sum(numpy_helper.to_array(i).nbytes
               for i in model.graph.initializer)


# ---------------------------------------------------------------------------
# Writing workloads
# ---------------------------------------------------------------------------

def _source_hash():
    h = hashlib.sha256()
    for path in GENERATOR_SOURCES:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def prepare(name, work_dir=DEFAULT_WORK_DIR):
    """Writes workload `name` into work_dir (unless the same generator
    sources wrote it already) and returns its description, a dict:
      name, description, dir, model (path), key,
      inputs  [{name, path, shape}], outputs [{name, shape}],
      flops, weight_bytes, input_bytes, memory_bound."""
    key = hashlib.sha256((name + _source_hash()).encode()).hexdigest()[:16]
    case_dir = os.path.join(work_dir, f"{name}-{key}")
    meta_path = os.path.join(case_dir, "workload.json")
    if os.path.isfile(meta_path):
        return load(case_dir)

    build, description = WORKLOADS[name]
    model, inputs = build()
    onnx.checker.check_model(model, full_check=True)
    tmp_dir = case_dir + ".tmp"
    os.makedirs(tmp_dir, exist_ok=True)
    onnx.save_model(model, os.path.join(tmp_dir, "model.onnx"))
    meta = dict(name=name, description=description, key=key,
                flops=count_flops(model), weight_bytes=weight_bytes(model),
                input_bytes=sum(a.nbytes for a in inputs),
                memory_bound=name in MEMORY_BOUND, inputs=[], outputs=[])
    for i, (info, array) in enumerate(zip(model.graph.input, inputs)):
        np.save(os.path.join(tmp_dir, f"input_{i}.npy"), array)
        meta["inputs"].append(dict(name=info.name, file=f"input_{i}.npy",
                                   shape=list(array.shape)))
    for info in model.graph.output:
        meta["outputs"].append(dict(
            name=info.name,
            shape=[d.dim_value for d in info.type.tensor_type.shape.dim]))
    with open(os.path.join(tmp_dir, "workload.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    if os.path.isdir(case_dir):  # a partial earlier write
        shutil.rmtree(case_dir)
    os.rename(tmp_dir, case_dir)
    return load(case_dir)


def load(case_dir):
    with open(os.path.join(case_dir, "workload.json")) as f:
        meta = json.load(f)
    meta["dir"] = case_dir
    meta["model"] = os.path.join(case_dir, "model.onnx")
    for i in meta["inputs"]:
        i["path"] = os.path.join(case_dir, i["file"])
    return meta


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=list(WORKLOADS),
                        help="workloads (default: all)")
    parser.add_argument("--work-dir", default=DEFAULT_WORK_DIR)
    args = parser.parse_args()
    for name in args.names:
        w = prepare(name, args.work_dir)
        print(f"{name:12s} {w['flops'] / 1e9:8.3f} GFLOP  "
              f"{w['weight_bytes'] / 2**20:8.1f} MiB weights  {w['model']}")


if __name__ == "__main__":
    main()
