#!/usr/bin/env python3
"""ONNX Runtime on the shapes of autoglm-kernel-bench, for comparison: one
MatMul node (B transposed in the model where the kernel bench passes B^T, so
that ORT does the same work), median of repeated runs after warm-up, at
intra_op_num_threads 1 and 2 with ORT_ENABLE_ALL.

    python3 bench/ort_matmul_bench.py [--threads 1,2] [--only SUBSTRING]
"""
import argparse
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

SHAPES = [
    ("gemm-1024", 1, 1024, 1024, 1024, False),
    ("gemm-2048", 1, 2048, 2048, 2048, False),
    ("mlp-up 128x768x3072", 1, 128, 768, 3072, False),
    ("mlp-down 128x3072x768", 1, 128, 3072, 768, False),
    ("proj 128x1024x1024", 1, 128, 1024, 1024, False),
    ("proj-Bt 128x1024x1024", 1, 128, 1024, 1024, True),
    ("attn-QK^T 16x128x128x64", 16, 128, 128, 64, True),
    ("attn-PV 16x128x64x128", 16, 128, 64, 128, False),
    ("decode-attn 16x1x512x64", 16, 1, 512, 64, True),
    ("decode-mlp 1x3072x1024", 1, 1, 3072, 1024, False),
    ("decode-mlp-Bt 1x3072x1024", 1, 1, 3072, 1024, True),
]


def model(batch, m, n, k, b_transposed):
    lead = [batch] if batch > 1 else []
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, lead + [m, k])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, lead + [m, n])
    if b_transposed:
        b = helper.make_tensor_value_info("b", TensorProto.FLOAT, lead + [n, k])
        perm = [0, 2, 1] if lead else [1, 0]
        nodes = [helper.make_node("Transpose", ["b"], ["bt"], perm=perm),
                 helper.make_node("MatMul", ["a", "bt"], ["c"])]
    else:
        b = helper.make_tensor_value_info("b", TensorProto.FLOAT, lead + [k, n])
        nodes = [helper.make_node("MatMul", ["a", "b"], ["c"])]
    graph = helper.make_graph(nodes, "mm", [a, b], [c])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--only")
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    for threads in [int(t) for t in args.threads.split(",")]:
        for name, batch, m, n, k, bt in SHAPES:
            if args.only and args.only not in name:
                continue
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = ort.InferenceSession(
                model(batch, m, n, k, bt).SerializeToString(), options,
                providers=["CPUExecutionProvider"])
            lead = (batch,) if batch > 1 else ()
            rng = np.random.default_rng(0)
            a = rng.random(lead + (m, k), dtype=np.float32) - 0.5
            b = rng.random(lead + ((n, k) if bt else (k, n)), dtype=np.float32) - 0.5
            feeds = {"a": a, "b": b}
            start = time.perf_counter()
            warm = 0
            while warm < 3 or time.perf_counter() - start < 0.2:
                session.run(None, feeds)
                warm += 1
            per_call = (time.perf_counter() - start) / warm
            runs = max(args.reps, int(0.5 / per_call) + 1)
            times = []
            for _ in range(min(runs, 20000)):
                t0 = time.perf_counter()
                session.run(None, feeds)
                times.append(time.perf_counter() - t0)
            median = sorted(times)[len(times) // 2]
            gflops = 2.0 * batch * m * n * k / median / 1e9
            print(f"{name:<28} {threads} thr  {median * 1e6:9.1f} us  "
                  f"{gflops:7.1f} GFLOP/s", flush=True)


if __name__ == "__main__":
    main()
