#!/usr/bin/env python3
"""Compiles a GLM-style model with over 1 GiB of fp32 weights and reports the
compiler's peak resident memory and time against the weights' size.

The model is a stack of SwiGLU MLP blocks (hidden 2048, intermediate 8192,
RMSNorm, residual) whose weights are ONNX external data, as large exports
store them. autoglm-compile picks the weights-file mode above 1 GiB: the
weights are packed (heap blobs, the mapped originals' pages released as each
is packed) and streamed into model.weights, never into the object. Targets:
peak RSS <= 1.5 x weights, <= 60 s. With --weight-only or --precision the
file holds the quantized or rounded weights; the output is then checked
within 1% of the reference's largest magnitude (5% for int4).

    python3 bench/large_model.py [--layers 6] [--work /tmp/autoglm-large]
                                 [--weight-only int8|int4]
                                 [--precision bf16|fp16]
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN, INTERMEDIATE, SEQ = 2048, 8192, 4


def build_model(layers, folder):
    rng = np.random.default_rng(0)
    nodes, inits = [], []

    def weight(name, shape):
        array = (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float32)
        inits.append(numpy_helper.from_array(array, name))
        return name

    def const(name, value):
        inits.append(numpy_helper.from_array(np.array(value, dtype=np.float32), name))
        return name

    x = "x"
    eps, two = const("eps", 1e-5), const("two", 2.0)
    for i in range(layers):
        p = f"l{i}_"
        nodes += [
            helper.make_node("Pow", [x, two], [p + "sq"]),
            helper.make_node("ReduceMean", [p + "sq"], [p + "ms"], axes=[-1], keepdims=1),
            helper.make_node("Add", [p + "ms", eps], [p + "mse"]),
            helper.make_node("Sqrt", [p + "mse"], [p + "rms"]),
            helper.make_node("Div", [x, p + "rms"], [p + "xn"]),
            helper.make_node("Mul", [p + "xn", weight(p + "norm", [HIDDEN])], [p + "h"]),
            helper.make_node("MatMul", [p + "h", weight(p + "gate", [HIDDEN, INTERMEDIATE])], [p + "g"]),
            helper.make_node("MatMul", [p + "h", weight(p + "up", [HIDDEN, INTERMEDIATE])], [p + "u"]),
            helper.make_node("Sigmoid", [p + "g"], [p + "sg"]),
            helper.make_node("Mul", [p + "g", p + "sg"], [p + "silu"]),
            helper.make_node("Mul", [p + "silu", p + "u"], [p + "act"]),
            helper.make_node("MatMul", [p + "act", weight(p + "down", [INTERMEDIATE, HIDDEN])], [p + "d"]),
            helper.make_node("Add", [x, p + "d"], [p + "out"]),
        ]
        x = p + "out"
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    graph = helper.make_graph(
        nodes, "large_glm_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, SEQ, HIDDEN])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, SEQ, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(folder, "large.onnx")
    data = "large.onnx.data"
    if os.path.exists(os.path.join(folder, data)):
        os.remove(os.path.join(folder, data))
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data, size_threshold=1024)
    weights = sum(np.prod(t.dims) * 4 for t in inits)
    return path, weights


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--work", default="/tmp/autoglm-large")
    parser.add_argument("--tools", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin"))
    parser.add_argument("--weight-only", choices=["int8", "int4"])
    parser.add_argument("--precision", choices=["bf16", "fp16"])
    args = parser.parse_args()
    options = []
    if args.weight_only:
        options += ["--weight-only", args.weight_only]
    if args.precision:
        options += ["--precision", args.precision]
    os.makedirs(args.work, exist_ok=True)
    path, weights = build_model(args.layers, args.work)
    out = os.path.join(args.work, "large.so")
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", os.path.join(args.tools, "autoglm-compile"), path, "-o", out,
         *options],
        capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stderr)
        return 1
    seconds, rss_kib = result.stderr.strip().splitlines()[-1].split()
    rss = int(rss_kib) * 1024
    weights_file = os.path.join(args.work, "large.weights")
    print(f"weights: {weights / 2**30:.2f} GiB in {args.layers} layers; "
          f"weights file {os.path.getsize(weights_file) / 2**30:.2f} GiB, "
          f"object {os.path.getsize(out) / 2**10:.0f} KiB")
    print(f"compile: {float(seconds):.1f} s, peak RSS {rss / 2**30:.2f} GiB = "
          f"{rss / weights:.2f} x weights (targets: <= 60 s, <= 1.5 x)")
    x = np.random.default_rng(1).standard_normal((1, SEQ, HIDDEN), dtype=np.float32)
    np.save(os.path.join(args.work, "x.npy"), x)
    import onnxruntime
    reference = onnxruntime.InferenceSession(path).run(None, {"x": x})[0]
    np.save(os.path.join(args.work, "y.npy"), reference)
    tolerance = []
    if options:  # quantized or rounded weights: within a share of the output
        share = 0.05 if args.weight_only == "int4" else 0.01
        tolerance = ["--atol", str(share * float(np.abs(reference).max())),
                     "--rtol", "0"]
    ran = subprocess.run([os.path.join(args.tools, "autoglm-run"), out, "--input",
                          os.path.join(args.work, "x.npy"), "--expect",
                          os.path.join(args.work, "y.npy"), "--bench", "3",
                          *tolerance],
                         capture_output=True, text=True)
    print(ran.stdout.strip() or ran.stderr.strip())
    ok = ran.returncode == 0 and float(seconds) <= 60 and rss <= 1.5 * weights
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
