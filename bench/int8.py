#!/usr/bin/env python3
"""int8 against float32 and against ONNX Runtime's int8, side by side in one
run, on the GEMM-heavy workloads of bench/workloads.py and the CNN.

    python3 bench/int8.py [--threads 1,2] [--runs 50] [--rounds 3]
                          [--only gemm2048,mlp,glm_prefill,resnet224]
                          [--sets 4]

For every workload:
  - `--sets` seeded random input sets (the calibration data);
  - AutoGLM float32: `autoglm-compile model.onnx -o fp32.so`;
  - AutoGLM int8: the same with `--precision int8 --calibrate SETS
    --accuracy-report json` (the report's cosine against float32 is shown);
  - ONNX Runtime int8, the model quantized by onnxruntime.quantization on
    the same sets: quantize_static (QDQ, uint8 activations per tensor, int8
    weights per channel; MatMuls, Gemms and Convs) and, for models without
    convolutions, quantize_dynamic (int8 weights; onnxruntime's
    ConvInteger takes only uint8 ones), run with graph optimization level
    all and the same thread count.
Then `--rounds` rounds, each timing every engine in turn (`--runs` timed
runs after a warm-up; autoglm-run --bench, or bench/peers.py's ORT child).
The table shows medians over rounds of each round's median latency, the
int8 speed-up over AutoGLM's float32, the ratio AutoGLM int8 / the
faster ORT int8 (issue targets: >= 2.5x and <= 0.8) and, "by round", the
lowest and highest of that ratio within one round.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.dont_write_bytecode = True
import peers  # noqa: E402
import workloads  # noqa: E402


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"$ {' '.join(cmd)}\n{result.stdout}{result.stderr}")
    return result


def calibration_sets(w, count, folder):
    """`count` seeded random input sets, as autoglm-compile --calibrate and
    onnxruntime's calibration reader take them."""
    rng = np.random.default_rng(11)
    sets = []
    for s in range(count):
        d = os.path.join(folder, f"set_{s}")
        os.makedirs(d, exist_ok=True)
        feeds = {}
        for i in w["inputs"]:
            x = rng.standard_normal(i["shape"]).astype(np.float32)
            np.save(os.path.join(d, f"{i['name']}.npy"), x)
            feeds[i["name"]] = x
        sets.append(feeds)
    return sets


def ort_quantized(w, sets, out_dir):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                          QuantType, quantize_dynamic,
                                          quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter(sets)

        def get_next(self):
            return next(self.items, None)

    static = os.path.join(out_dir, f"{w['name']}_ort_static.onnx")
    quantize_static(w["model"], static, Reader(), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True,
                    op_types_to_quantize=["MatMul", "Gemm", "Conv"])
    models = {"ORT static": static}
    if not any(n.op_type == "Conv" for n in onnx.load(w["model"]).graph.node):
        dynamic = os.path.join(out_dir, f"{w['name']}_ort_dynamic.onnx")
        quantize_dynamic(w["model"], dynamic, weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"])
        models["ORT dynamic"] = dynamic
    return models


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sets", type=int, default=4)
    parser.add_argument("--only", default="gemm2048,mlp,glm_prefill,resnet224")
    parser.add_argument("--autoglm-bin",
                        default=os.path.join(REPO_ROOT, "build", "bin"))
    parser.add_argument("--work-dir", default=workloads.DEFAULT_WORK_DIR)
    args = parser.parse_args()
    compile_tool = os.path.join(args.autoglm_bin, "autoglm-compile")
    run_tool = os.path.join(args.autoglm_bin, "autoglm-run")
    threads = [int(t) for t in args.threads.split(",")]
    out_dir = tempfile.mkdtemp(prefix="autoglm-int8-")
    ort = peers.OnnxRuntime()
    if ort.missing:
        sys.exit(f"onnxruntime: {ort.missing}")

    print(f"{args.rounds} rounds of {args.runs} runs per engine and thread "
          f"count, medians; calibration on {args.sets} random input sets")
    print("| workload | threads | AutoGLM fp32 ms | AutoGLM int8 ms "
          "| int8 speed-up | ORT static ms | ORT dynamic ms "
          "| AutoGLM int8 / ORT int8 | by round | cosine vs fp32 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.only.split(","):
        w = workloads.prepare(name, args.work_dir)
        w["inputs"] = [dict(i, path=os.path.join(w["dir"], i["file"]))
                       for i in w["inputs"]]
        sets_dir = os.path.join(out_dir, f"{name}_sets")
        sets = calibration_sets(w, args.sets, sets_dir)
        fp32 = os.path.join(out_dir, f"{name}_fp32.so")
        int8 = os.path.join(out_dir, f"{name}_int8.so")
        run([compile_tool, w["model"], "-o", fp32])
        report = run([compile_tool, w["model"], "-o", int8, "--precision",
                      "int8", "--calibrate", sets_dir, "--accuracy-report",
                      "json"])
        cosine = min(o["cosine"] for o in json.loads(
            report.stdout.strip().splitlines()[-1])["outputs"])
        ort_models = ort_quantized(w, sets, out_dir)
        inputs = []
        for i in w["inputs"]:
            inputs += ["-i", f"{i['name']}={i['path']}"]
        for t in threads:
            times = {k: [] for k in ["fp32", "int8", *ort_models]}
            for _ in range(args.rounds):
                for key, so in (("fp32", fp32), ("int8", int8)):
                    result = run([run_tool, so, *inputs, "--bench",
                                  str(args.runs), "--threads", str(t),
                                  "--json"])
                    times[key].append(json.loads(
                        result.stdout.strip().splitlines()[-1])
                        ["latency_ms"]["median"])
                for key, model in ort_models.items():
                    spec = dict(w, model=model)
                    m = ort.measure(spec, None, t, 5, args.runs,
                                    os.path.join(out_dir, f"{name}_{key}"))
                    times[key].append(m["median_ms"])
            ms = {k: statistics.median(v) for k, v in times.items()}
            best_ort = min(ms[k] for k in ort_models)
            # Each round's int8 time against that round's faster ORT model:
            # how far the host's load moved the ratio.
            each = [times["int8"][r] / min(times[k][r] for k in ort_models)
                    for r in range(len(times["int8"]))]
            dynamic = (f"{ms['ORT dynamic']:.2f}" if "ORT dynamic" in ms
                       else "—")
            print(f"| {name} | {t} | {ms['fp32']:.2f} | {ms['int8']:.2f} "
                  f"| {ms['fp32'] / ms['int8']:.2f}x "
                  f"| {ms['ORT static']:.2f} | {dynamic} "
                  f"| {ms['int8'] / best_ort:.2f} "
                  f"| {min(each):.2f}-{max(each):.2f} | {cosine:.6f} |",
                  flush=True)


if __name__ == "__main__":
    main()
