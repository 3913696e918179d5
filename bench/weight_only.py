#!/usr/bin/env python3
"""Weights in fewer bits (bf16, fp16, weight-only int8, int4) vs float32.

Weights stored in bfloat16, IEEE half, weight-only int8 or int4 against
float32 on the GLM layer workloads of bench/workloads.py: latency
of the same model compiled each way, side by side in one run, and the
GEMMs' share of each.

    python3 bench/weight_only.py [--threads 1,2] [--runs 200] [--rounds 5]
                                 [--only glm_decode,glm_prefill]
                                 [--modes fp32,bf16,fp16,int8,int4]
                                 [--group-size 128]

For every workload: `autoglm-compile model.onnx -o MODE.so` with
`--precision bf16|fp16` (bf16, fp16), `--weight-only int8|int4` (int8,
int4) or nothing (fp32), and the same with `--profile`.
Then, for each thread count, `--rounds` rounds that run every mode once
(`autoglm-run MODE.so -i ... --bench RUNS --threads T --json`, the modes in
turn, so that load from other processes spreads over all of them); the
table shows, per mode, the median over rounds of each round's median
latency, the speed-up over fp32, the error against the fp32 build's
outputs (max abs and cosine similarity), and the share of the time spent
in the matrix-product kernels (from one profiled run of `RUNS` runs: the
sgemm* kernels' total over all kernels').
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.dont_write_bytecode = True
import workloads  # noqa: E402


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"$ {' '.join(cmd)}\n{result.stdout}{result.stderr}")
    return result


def gemm_share(trace_path):
    """The sgemm* kernels' share of the profiled kernel time."""
    with open(trace_path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    total = gemm = 0.0
    for e in events:
        if e.get("ph") != "X":
            continue
        total += e["dur"]
        if e["name"].startswith("sgemm"):
            gemm += e["dur"]
    return gemm / total if total else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="glm_decode,glm_prefill")
    parser.add_argument("--modes", default="fp32,bf16,fp16,int8,int4")
    parser.add_argument("--group-size", type=int, default=128)
    parser.add_argument("--autoglm-bin",
                        default=os.path.join(REPO_ROOT, "build", "bin"))
    parser.add_argument("--work-dir", default=workloads.DEFAULT_WORK_DIR)
    args = parser.parse_args()
    compile_tool = os.path.join(args.autoglm_bin, "autoglm-compile")
    run_tool = os.path.join(args.autoglm_bin, "autoglm-run")
    modes = args.modes.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    out_dir = tempfile.mkdtemp(prefix="autoglm-weight-only-")

    print(f"int8/int4 group size {args.group_size}; {args.rounds} rounds of "
          f"{args.runs} runs per mode and thread count, medians")
    print("| workload | threads | mode | weights MiB | ms | speed-up "
          "| max abs err | cosine | GEMM share |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for name in args.only.split(","):
        w = workloads.prepare(name, args.work_dir)
        inputs = []
        for i in w["inputs"]:
            inputs += ["-i", f"{i['name']}={os.path.join(w['dir'], i['file'])}"]
        artifacts, sizes = {}, {}
        for mode in modes:
            flags = ([] if mode == "fp32" else
                     ["--precision", mode] if mode in ("bf16", "fp16") else
                     ["--weight-only", mode, "--group-size",
                      str(args.group_size)])
            so = os.path.join(out_dir, f"{name}_{mode}.so")
            report = run([compile_tool, w["model"], "-o", so, "--report=json",
                          *flags])
            sizes[mode] = json.loads(report.stdout.strip().splitlines()[-1])
            run([compile_tool, w["model"], "-o",
                 os.path.join(out_dir, f"{name}_{mode}_profile.so"),
                 "--profile", *flags])
            artifacts[mode] = so
        # Outputs of every mode, against fp32's.
        outputs = {}
        for mode in modes:
            d = os.path.join(out_dir, f"{name}_{mode}_out")
            run([run_tool, artifacts[mode], *inputs, "-o", d])
            outputs[mode] = {f: np.load(os.path.join(d, f))
                             for f in sorted(os.listdir(d))}
        for t in threads:
            medians = {mode: [] for mode in modes}
            for _ in range(args.rounds):
                for mode in modes:
                    result = run([run_tool, artifacts[mode], *inputs,
                                  "--bench", str(args.runs), "--threads",
                                  str(t), "--json"])
                    report = json.loads(result.stdout.strip().splitlines()[-1])
                    medians[mode].append(report["latency_ms"]["median"])
            base = statistics.median(medians.get("fp32", [float("nan")]))
            for mode in modes:
                trace = os.path.join(out_dir, f"{name}_{mode}_{t}.json")
                run([run_tool,
                     os.path.join(out_dir, f"{name}_{mode}_profile.so"),
                     *inputs, "--bench", str(args.runs), "--threads", str(t),
                     "--profile", trace])
                ms = statistics.median(medians[mode])
                err, cos = 0.0, 1.0
                if "fp32" in outputs:
                    for f, ref in outputs["fp32"].items():
                        got = outputs[mode][f].astype(np.float64).ravel()
                        ref = ref.astype(np.float64).ravel()
                        err = max(err, float(np.max(np.abs(got - ref))))
                        cos = min(cos, float(got @ ref / (
                            np.linalg.norm(got) * np.linalg.norm(ref))))
                wq = sizes[mode].get("weight_only", {})
                weights = sizes[mode]["weights_bytes"] - wq.get("saved_bytes",
                                                                0)
                print(f"| {name} | {t} | {mode} | {weights / 2**20:.1f} "
                      f"| {ms:.3f} | {base / ms:.2f}x | {err:.3g} "
                      f"| {cos:.6f} | {100 * gemm_share(trace):.0f}% |",
                      flush=True)


if __name__ == "__main__":
    main()
