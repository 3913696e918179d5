#!/usr/bin/env python3
"""Tuned against untuned AutoGLM on the bench workloads, in one run.

    python3 bench/tune.py [--only mlp,glm_prefill] [--budget 120] \
        [--threads 1,2] [--runs 30] [--tuning bench-tuning.json]

For every workload, `autoglm-tune` searches its kernels' knobs (with
--budget seconds, at the default thread count) and adds what it finds to one
tuning file (--tuning; keys are shapes, so workloads share it). Then, per
workload and thread count, the build with the cost model's choices and the
build with the tuning file are timed side by side: `autoglm-run --bench RUNS`
alternately, ROUNDS times each, both checked against ONNX Runtime's outputs;
the table shows the medians of the rounds' medians and the gain.
"""

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.dont_write_bytecode = True
from machine import cpu_model  # noqa: E402
import peers  # noqa: E402
import workloads  # noqa: E402
from run import AutoGLM, log  # noqa: E402

DEFAULT_WORKLOADS = ["gemm1024", "mlp", "glm_prefill", "resnet224"]


def tune(bin_dir, w, tuning, budget, log_path):
    cmd = [os.path.join(bin_dir, "autoglm-tune"), w["model"], "-o", tuning,
           "--budget", f"{budget}s"]
    for i in w["inputs"]:
        cmd += ["-i", f"{i['name']}={i['path']}"]
    log("  $ " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    with open(log_path, "w") as f:
        f.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        return None, (proc.stderr.strip().splitlines() or ["failed"])[-1]
    return proc.stdout, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(DEFAULT_WORKLOADS))
    parser.add_argument("--budget", type=float, default=120,
                        help="autoglm-tune --budget per workload, seconds")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating timings of each build")
    parser.add_argument("--tuning", default=None,
                        help="tuning file to write (default: in the work "
                             "folder)")
    parser.add_argument("--work-dir", default=workloads.DEFAULT_WORK_DIR)
    parser.add_argument("--autoglm-bin",
                        default=os.path.join(REPO_ROOT, "build", "bin"))
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    args = parser.parse_args()
    names = args.only.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    tuning = args.tuning or os.path.join(args.work_dir, "bench-tuning.json")
    if os.path.exists(tuning):
        os.remove(tuning)  # found by this run alone
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()

    ort = peers.OnnxRuntime()
    default = AutoGLM(args.autoglm_bin)
    tuned = AutoGLM(args.autoglm_bin, ["--tuning", tuning])
    prepared, summaries = {}, {}
    for name in names:
        log(f"== {name}: tuning")
        w = workloads.prepare(name, args.work_dir)
        prepared[name] = w
        out, error = tune(args.autoglm_bin, w, tuning, args.budget,
                          os.path.join(w["dir"], "autoglm-tune.log"))
        summaries[name] = out if out else f"autoglm-tune failed: {error}"
        log(summaries[name])

    rows = []
    for name in names:
        w = prepared[name]
        run_dir = os.path.join(w["dir"], "tune-run")
        builds = {}
        for label, tool in (("default", default), ("tuned", tuned)):
            artifact, _, error = tool.compile(
                w, os.path.join(run_dir, label))
            builds[label] = (tool, artifact, error)
        for t in threads:
            answer = ort.measure(w, None, t, args.warmup, args.runs,
                                 os.path.join(run_dir, f"ort-t{t}"))
            references = answer["outputs"]
            medians = {"default": [], "tuned": []}
            problems = []
            for _ in range(args.rounds):
                for label, (tool, artifact, error) in builds.items():
                    if not artifact:
                        problems.append(f"{label}: {error}")
                        continue
                    result = tool.run(artifact, w, references, t,
                                      args.warmup, args.runs, args.rtol,
                                      args.atol)
                    if "error" in result or not result.get("ok"):
                        problems.append(f"{label}: "
                                        f"{result.get('error', 'mismatch')}")
                        continue
                    medians[label].append(result["latency_ms"]["median"])
            d = statistics.median(medians["default"]) \
                if medians["default"] else None
            u = statistics.median(medians["tuned"]) \
                if medians["tuned"] else None
            rows.append((name, t, d, u, answer["median_ms"],
                         sorted(set(problems))))
            log(f"  t{t} default {d} ms, tuned {u} ms, ORT "
                f"{answer['median_ms']:.3f} ms")

    load_after = os.getloadavg()
    print()
    print(f"command: python3 bench/tune.py {' '.join(sys.argv[1:])}")
    print(f"date: {started:%Y-%m-%d %H:%M} UTC; CPU: {cpu_model()}, "
          f"{os.cpu_count()} logical CPUs; {platform.system()} "
          f"{platform.release()}")
    print(f"load average (1 min) before / after: {load_before[0]:.2f} / "
          f"{load_after[0]:.2f}")
    print(f"tuning: autoglm-tune --budget {args.budget:g}s per workload, "
          f"file {tuning}")
    print()
    print("| workload | threads | default ms | tuned ms | tuned gain | "
          "ORT ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, t, d, u, o, problems in rows:
        gain = f"{100 * (d / u - 1):+.1f}%" if d and u else "n/a"
        print(f"| {name} | {t} | {d and f'{d:.3f}'} | {u and f'{u:.3f}'} | "
              f"{gain} | {o:.3f} |" + (f" {'; '.join(problems)}"
                                       if problems else ""))
    print()
    for name in names:
        print(f"### {name}")
        text = summaries[name]
        print("\n".join(line for line in text.splitlines()
                        if not re.match(r"(wrote|variants' files)", line)))
        print()


if __name__ == "__main__":
    main()
