#!/usr/bin/env python3
"""Transposes (ONNX Transpose of float32 tensors) against ONNX Runtime,
side by side in one run: NHWC -> NCHW and back on a ResNet stem's map, and
an attention-sized transpose of the last two dimensions.

    python3 bench/transpose.py [--threads 1,2] [--runs 100] [--rounds 3]

For every case the model (one Transpose node) is written to a temporary
folder and compiled with `autoglm-compile model.onnx -o model.so`; then,
per thread count, `--rounds` rounds run ONNX Runtime (intra-op threads as
given, ORT_ENABLE_ALL; `--runs` timed runs after 10 warm-up ones) and
`autoglm-run model.so --bench RUNS --threads T --json` in turn. The table
shows the median over rounds of each round's median latency and the
ratio. Both engines' outputs are compared exactly first.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(REPO_ROOT, "build", "bin")

CASES = [
    ("nhwc_to_nchw", [1, 112, 112, 64], [0, 3, 1, 2]),
    ("nchw_to_nhwc", [1, 64, 112, 112], [0, 2, 3, 1]),
    ("keys_transposed", [1, 16, 128, 64], [0, 1, 3, 2]),
]


def build(folder, name, shape, perm):
    out = [shape[p] for p in perm]
    graph = helper.make_graph(
        [helper.make_node("Transpose", ["x"], ["y"], perm=perm)], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)])
    path = os.path.join(folder, name + ".onnx")
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    np.save(os.path.join(folder, name + "_x.npy"), x)
    np.save(os.path.join(folder, name + "_y.npy"), np.transpose(x, perm))
    return path


def ort_median(session, x, runs):
    for _ in range(10):
        session.run(None, {"x": x})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, {"x": x})
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def autoglm_median(artifact, x_path, runs, threads, expect=None):
    cmd = [os.path.join(BIN, "autoglm-run"), artifact, "-i", f"x={x_path}",
           "--bench", str(runs), "--threads", str(threads), "--json"]
    if expect:
        cmd += ["-e", f"y={expect}", "--rtol", "0", "--atol", "0"]
    result = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(result.stdout)["latency_ms"]["median"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    print(f"command: python3 bench/transpose.py {' '.join(sys.argv[1:])}")
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"ORT {ort.__version__}")
    print("| case | shape | perm | threads | AutoGLM ms | ORT ms | ratio |")
    print("|---|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="autoglm-transpose-") as folder:
        for name, shape, perm in CASES:
            model = build(folder, name, shape, perm)
            artifact = os.path.join(folder, name + ".so")
            subprocess.run([os.path.join(BIN, "autoglm-compile"), model, "-o",
                            artifact], check=True)
            x_path = os.path.join(folder, name + "_x.npy")
            x = np.load(x_path)
            # Both exact before any timing.
            autoglm_median(artifact, x_path, 1, 1,
                           os.path.join(folder, name + "_y.npy"))
            for t in threads:
                options = ort.SessionOptions()
                options.intra_op_num_threads = t
                options.graph_optimization_level = \
                    ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                session = ort.InferenceSession(
                    model, options, providers=["CPUExecutionProvider"])
                if not np.array_equal(session.run(None, {"x": x})[0],
                                      np.transpose(x, perm)):
                    sys.exit(f"{name}: ORT's output differs")
                ours, theirs = [], []
                for _ in range(args.rounds):
                    theirs.append(ort_median(session, x, args.runs))
                    ours.append(autoglm_median(artifact, x_path, args.runs, t))
                a, r = statistics.median(ours), statistics.median(theirs)
                print(f"| {name} | {'x'.join(map(str, shape))} | {perm} | {t} "
                      f"| {a:.3f} | {r:.3f} | {a / r:.2f} |")


if __name__ == "__main__":
    main()
