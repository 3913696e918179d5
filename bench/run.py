#!/usr/bin/env python3
"""Latency of AutoGLM next to ONNX Runtime (and IREE and TVM where they are
installed and can compile the model), on the workloads of bench/workloads.py,
in one run; prints a table.

    python3 bench/run.py [--threads 1,2] [--runs 30] [--rounds 3]
                         [--only gemm1024,...] [--markdown docs/perf-table.md]

For every workload and thread count T:

  AutoGLM  `autoglm-compile model.onnx --emit so -o model.so` (timed: the
           compile time column), then `autoglm-run model.so -i NAME=FILE...
           -e NAME=ORT_OUTPUT... --rtol R --atol A --bench RUNS --warmup W
           --threads T --json`: the checked run compares AutoGLM's outputs
           with ONNX Runtime's of the same inputs, the timed runs give the
           median.
  ORT      onnxruntime, ORT_ENABLE_ALL, intra_op_num_threads=T,
           inter_op_num_threads=1, W warm-up runs and RUNS timed ones.
  IREE     llvm-cpu, --iree-llvmcpu-target-cpu=host, T task groups.
  TVM      Relax ONNX frontend, llvm target for the host CPU, untuned,
           TVM_NUM_THREADS=T.
  (see bench/peers.py; IREE and TVM are checked against ORT's outputs too,
  and their timed runs are cut to fit --peer-budget seconds when a run is
  slow.)

GFLOP counts the MatMul/Gemm/Conv multiply-adds of the graph (2 per
multiply-add). "% peak" is AutoGLM's GFLOP/s against T times the FMA peak of
one thread that bench/peak_probe.c measures (compiled here with
`cc -O2 -mavx512f -mfma`). For the decode workload it is instead the share of
the bandwidth roofline: the time to read the weights and the KV cache once
at the read bandwidth peak_probe measures with T threads over a buffer of
that size, divided by AutoGLM's latency.

Workloads and compiled peer artifacts are cached under --work-dir by content;
AutoGLM is compiled anew on every run.
"""

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.dont_write_bytecode = True
from machine import cpu_flags, cpu_model  # noqa: E402
import peers  # noqa: E402
import workloads  # noqa: E402

PROBE_SOURCE = os.path.join(BENCH_DIR, "peak_probe.c")
TOOL_RETRIES = 3  # a tool missing, killed by a signal, or failing to load
TOOL_RETRY_WAIT_S = 30


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Machine
# ---------------------------------------------------------------------------

class Probe:
    """bench/peak_probe.c, compiled into the work directory."""

    def __init__(self, work_dir):
        self.flags = (["-mavx512f", "-mfma"] if "avx512f" in cpu_flags()
                      else ["-mavx2", "-mfma"])
        self.command = ["cc", "-O2", *self.flags, "-pthread"]
        with open(PROBE_SOURCE, "rb") as f:
            key = hashlib.sha256(f.read() + " ".join(self.command).encode())
        self.exe = os.path.join(work_dir, f"peak_probe-{key.hexdigest()[:12]}")
        self.error = None
        if not os.path.isfile(self.exe):
            proc = subprocess.run([*self.command, PROBE_SOURCE, "-o",
                                   self.exe], capture_output=True, text=True)
            if proc.returncode != 0:
                self.error = f"cc failed: {peers._short(proc.stderr)}"

    def _run(self, *args):
        if self.error:
            return None
        proc = subprocess.run([self.exe, *map(str, args)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            self.error = f"probe failed: {peers._short(proc.stderr)}"
            return None
        return json.loads(proc.stdout)

    def fma_gflops(self):
        result = self._run("fma")
        return result and result["fma_gflops"]

    def read_gbs(self, size, threads):
        result = self._run("read", size, threads)
        return result and result["read_gbs"]


# ---------------------------------------------------------------------------
# AutoGLM
# ---------------------------------------------------------------------------

class AutoGLM:
    def __init__(self, bin_dir, flags=()):
        self.flags = list(flags)  # extra autoglm-compile options
        self.compiler = os.path.join(bin_dir, "autoglm-compile")
        self.runner = os.path.join(bin_dir, "autoglm-run")
        # Tools that failed through all their retries once: not retried
        # again in this run.
        self.given_up = set()

    def _call(self, cmd, transient):
        """Runs cmd; retries while the tool is missing, dies from a signal,
        or transient(proc) says the failure looks like a tool being rebuilt
        (e.g. an artifact that does not load)."""
        retries = 0 if cmd[0] in self.given_up else TOOL_RETRIES
        for attempt in range(retries + 1):
            last = attempt == retries
            if last and retries:
                self.given_up.add(cmd[0])
            if not os.path.isfile(cmd[0]):
                if last:
                    return None, f"{os.path.basename(cmd[0])} not found"
            else:
                start = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, text=True)
                seconds = time.perf_counter() - start
                if last or not (proc.returncode < 0 or transient(proc)):
                    return proc, seconds
            log(f"  {os.path.basename(cmd[0])} failed; retrying in "
                f"{TOOL_RETRY_WAIT_S} s")
            time.sleep(TOOL_RETRY_WAIT_S)

    def tool_times(self):
        """Modification times of the tools, to tell a rebuild during a
        run."""
        times = {}
        for tool in (self.compiler, self.runner):
            try:
                times[os.path.basename(tool)] = (
                    datetime.datetime.fromtimestamp(os.path.getmtime(tool),
                                                    datetime.timezone.utc))
            except OSError:
                times[os.path.basename(tool)] = None
        return times

    def compile(self, workload, out_dir):
        """Returns (artifact, compile seconds, error)."""
        os.makedirs(out_dir, exist_ok=True)
        artifact = os.path.join(out_dir, "model.so")
        proc, seconds = self._call(
            [self.compiler, workload["model"], "--emit", "so", "-o",
             artifact, *self.flags], transient=lambda p: False)
        if proc is None:  # `seconds` holds the reason
            return None, None, seconds
        if proc.returncode != 0:
            return None, seconds, _first_error(proc.stderr or proc.stdout)
        return artifact, seconds, None

    def run(self, artifact, workload, references, threads, warmup, runs,
            rtol, atol):
        """Returns autoglm-run's JSON answer (or a dict with "error")."""
        cmd = [self.runner, artifact]
        for i in workload["inputs"]:
            cmd += ["-i", f"{i['name']}={i['path']}"]
        for o, path in zip(workload["outputs"], references):
            cmd += ["-e", f"{o['name']}={path}"]
        cmd += ["--rtol", str(rtol), "--atol", str(atol), "--bench",
                str(runs), "--warmup", str(warmup), "--threads",
                str(threads), "--json"]
        proc, _ = self._call(cmd, transient=lambda p: p.returncode == 2
                             and "cannot open" in p.stdout + p.stderr)
        if proc is None:
            return {"error": "autoglm-run not found"}
        try:
            answer = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return {"error": _first_error(proc.stderr)
                    or f"autoglm-run exited {proc.returncode}"}
        if proc.returncode not in (0, 1) or "latency_ms" not in answer:
            answer.setdefault("error", _first_error(proc.stderr)
                              or f"autoglm-run exited {proc.returncode}")
        return answer


def _first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


# ---------------------------------------------------------------------------
# Checking peers' outputs
# ---------------------------------------------------------------------------

def compare(outputs, references, rtol, atol):
    """Max |a - r| over all outputs and whether every element is within
    atol + rtol*|r|."""
    import numpy as np
    worst, ok = 0.0, True
    for out, ref in zip(outputs, references):
        a, r = np.load(out), np.load(ref)
        if a.shape != r.shape:
            return float("inf"), False
        diff = np.abs(a.astype(np.float64) - r.astype(np.float64))
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
        ok = ok and bool(np.all(diff <= atol + rtol * np.abs(r)))
    return worst, ok


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------

class Notes:
    """Footnotes for table cells: the same text gets the same number."""

    def __init__(self):
        self.texts = []

    def ref(self, text):
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"


def bench_workload(name, args, engines, autoglm, bandwidth):
    log(f"== {name}")
    w = workloads.prepare(name, args.work_dir)
    result = dict(workload=name, description=w["description"],
                  gflop=w["flops"] / 1e9, weight_bytes=w["weight_bytes"],
                  memory_bound=w["memory_bound"], rows=[], peers={})
    run_dir = os.path.join(w["dir"], "run")
    shutil.rmtree(run_dir, ignore_errors=True)

    artifact, seconds, error = autoglm.compile(
        w, os.path.join(run_dir, "autoglm"))
    result.update(compile_s=seconds, compile_error=error)
    log(f"  autoglm-compile: {seconds and round(seconds, 2)} s"
        + (f", error: {error}" if error else ""))

    compiled = {}
    for peer in engines[1:]:
        if peer.missing:
            compiled[peer.key] = (None, peer.missing)
            continue
        try:
            path, secs = peer.compile(w)
            compiled[peer.key] = (path, None)
            result["peers"][peer.key] = {"compile_s": secs}
            log(f"  {peer.name} compile: "
                + (f"{secs:.1f} s" if secs is not None else "cached"))
        except peers.PeerError as e:
            compiled[peer.key] = (None, f"compile: {e}")
            log(f"  {peer.name} compile failed: {e}")

    for threads in args.threads:
        row = dict(threads=threads)
        ort = engines[0]
        try:
            answer = ort.measure(w, None, threads, args.warmup, args.runs,
                                 os.path.join(run_dir, f"ort-t{threads}"))
            row["ort"] = answer
            references = answer["outputs"]
            log(f"  t{threads} ORT {answer['median_ms']:.3f} ms")
        except peers.PeerError as e:
            row["ort"] = {"error": str(e)}
            references = None
            log(f"  t{threads} ORT failed: {e}")

        if artifact and references:
            answer = autoglm.run(artifact, w, references, threads,
                                 args.warmup, args.runs, args.rtol, args.atol)
            row["autoglm"] = answer
            if "error" in answer:
                log(f"  t{threads} AutoGLM error: {answer['error']}")
            else:
                max_abs = max((o.get("max_abs", 0.0)
                               for o in answer["outputs"]), default=0.0)
                answer["max_abs"] = max_abs
                log(f"  t{threads} AutoGLM "
                    f"{answer['latency_ms']['median']:.3f} ms, "
                    f"ok={answer['ok']} max_abs={max_abs:.2e}")
        elif artifact:
            row["autoglm"] = {"error": "no ORT reference to check against"}
        else:
            row["autoglm"] = {"error": f"compile: {error}"}

        for peer in engines[1:]:
            path, note = compiled[peer.key]
            if path is None or references is None:
                row[peer.key] = {"error": note or "no ORT reference"}
                continue
            try:
                answer = peer.measure(w, path, threads, args.warmup,
                                      args.runs, os.path.join(
                                          run_dir, f"{peer.key}-t{threads}"))
                answer["max_abs"], answer["ok"] = compare(
                    answer["outputs"], references, args.rtol, args.atol)
                row[peer.key] = answer
                log(f"  t{threads} {peer.name} {answer['median_ms']:.3f} ms"
                    f" ({answer['runs']} run{'s' * (answer['runs'] > 1)}),"
                    f" ok={answer['ok']}")
            except peers.PeerError as e:
                row[peer.key] = {"error": f"run: {e}"}
                log(f"  t{threads} {peer.name} failed: {e}")

        # More rounds, ORT and AutoGLM in turn, so that load from other
        # processes falls on both alike; the row keeps the median of the
        # rounds' medians.
        if args.rounds > 1 and "median_ms" in row["ort"] and \
                "latency_ms" in row.get("autoglm", {}):
            ort_ms = [row["ort"]["median_ms"]]
            autoglm_ms = [row["autoglm"]["latency_ms"]["median"]]
            for _ in range(args.rounds - 1):
                try:
                    ort_ms.append(ort.measure(
                        w, None, threads, args.warmup, args.runs,
                        os.path.join(run_dir, f"ort-t{threads}"))["median_ms"])
                except peers.PeerError as e:
                    log(f"  t{threads} ORT failed in a later round: {e}")
                    break
                again = autoglm.run(artifact, w, references, threads,
                                    args.warmup, args.runs, args.rtol,
                                    args.atol)
                if "error" in again:
                    log(f"  t{threads} AutoGLM failed in a later round: "
                        f"{again['error']}")
                    break
                autoglm_ms.append(again["latency_ms"]["median"])
            row["ort"]["round_medians_ms"] = ort_ms
            row["ort"]["median_ms"] = median(ort_ms)
            row["autoglm"]["round_medians_ms"] = autoglm_ms
            row["autoglm"]["latency_ms"]["median"] = median(autoglm_ms)
            log(f"  t{threads} {len(ort_ms)} rounds: ORT "
                f"{median(ort_ms):.3f} ms, AutoGLM {median(autoglm_ms):.3f} ms")

        if w["memory_bound"]:
            # Weights and KV cache, read once per step.
            row["bytes_read"] = w["weight_bytes"] + w["input_bytes"]
            row["read_gbs"] = bandwidth(row["bytes_read"], threads)
        result["rows"].append(row)
    return result


def median(values):
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else \
        (ordered[mid - 1] + ordered[mid]) / 2


def round_ratios(ag, ort):
    """The lowest and highest AutoGLM/ORT of the rounds, each round's two
    medians taken minutes apart at most: how far the host's load moved the
    ratio."""
    pairs = list(zip(ag.get("round_medians_ms", []),
                     ort.get("round_medians_ms", [])))
    if len(pairs) < 2:
        return "—"
    each = [a / o for a, o in pairs if o]
    return f"{min(each):.2f}-{max(each):.2f}"


def fmt_ms(ms):
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}" if ms < 1000 else \
        f"{ms:.0f}"


def table(results, engines, peak1, notes, args):
    """The table as a list of rows of cells (header first), and the geomean
    lines."""
    header = ["workload", "threads", "GFLOP", "AutoGLM ms", "ORT ms",
              "AutoGLM/ORT"]
    if args.rounds > 1:
        header.append("by round")
    header += ["AutoGLM GFLOP/s", "% peak"]
    header += [f"{p.name} ms" for p in engines[1:]]
    header += ["check (max abs diff)", "AutoGLM compile s"]
    rows = [header]
    ratios = {t: [] for t in args.threads}
    for r in results:
        for row in r["rows"]:
            t = row["threads"]
            ag, ort = row["autoglm"], row["ort"]
            ag_ms = None if "error" in ag else ag["latency_ms"]["median"]
            ag_ok = ag_ms is not None and ag["ok"]
            ort_ms = ort.get("median_ms")
            cells = [r["workload"], str(t), f"{r['gflop']:.3f}"]
            if ag_ms is None:
                cells.append("n/a " + notes.ref(f"AutoGLM on {r['workload']}"
                                                f": {ag['error']}"))
            else:
                cells.append(fmt_ms(ag_ms) + ("" if ag_ok else " (wrong)"))
            cells.append(fmt_ms(ort_ms) if ort_ms is not None else
                         "n/a " + notes.ref(f"ORT on {r['workload']}: "
                                            f"{ort['error']}"))
            if ag_ok and ort_ms:
                ratios[t].append(ag_ms / ort_ms)
                cells.append(f"{ag_ms / ort_ms:.2f}")
            else:
                cells.append("—")
            if args.rounds > 1:
                cells.append(round_ratios(ag, ort) if ag_ok else "—")
            if ag_ok:
                gflops = r["gflop"] / (ag_ms / 1e3)
                cells.append(f"{gflops:.1f}")
                if r["memory_bound"]:
                    gbs = row.get("read_gbs")
                    roofline_s = gbs and row["bytes_read"] / (gbs * 1e9)
                    cells.append(f"{roofline_s / (ag_ms / 1e3) * 100:.0f}% "
                                 f"of bw" if gbs else "n/a")
                else:
                    cells.append(f"{gflops / (t * peak1) * 100:.1f}%"
                                 if peak1 else "n/a")
            else:
                cells += ["—", "—"]
            for p in engines[1:]:
                a = row[p.key]
                if "error" in a:
                    if a["error"] in ("not installed",):
                        cells.append(a["error"])
                    else:
                        cells.append("n/a " + notes.ref(
                            f"{p.name} on {r['workload']}: {a['error']}"))
                    continue
                cell = fmt_ms(a["median_ms"])
                if a["runs"] < args.runs:
                    cell += (f" ({a['runs']} runs)" if a["runs"] > 1
                             else " (1 run)")
                if not a["ok"]:
                    cell += " " + notes.ref(
                        f"{p.name} on {r['workload']}: outputs differ from "
                        f"ORT's (max abs diff {a['max_abs']:.2e})")
                cells.append(cell)
            if ag_ms is None:
                cells.append("—")
            else:
                cells.append(("ok " if ag["ok"] else "FAIL ")
                             + f"{ag['max_abs']:.1e}")
            cells.append(f"{r['compile_s']:.2f}" if r.get("compile_s")
                         is not None else "—")
            rows.append(cells)
    geomeans = []
    for t in args.threads:
        vals = ratios[t]
        if vals:
            g = math.exp(sum(math.log(v) for v in vals) / len(vals))
            geomeans.append(f"geometric mean of AutoGLM/ORT at {t} "
                            f"thread{'s' if t > 1 else ''}: {g:.2f} "
                            f"({len(vals)} workload"
                            f"{'s' if len(vals) > 1 else ''})")
        else:
            geomeans.append(f"geometric mean of AutoGLM/ORT at {t} "
                            f"thread{'s' if t > 1 else ''}: n/a")
    return rows, geomeans


def render_text(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("  ".join(c.rjust(w) if n and i > 0 else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(rows):
    lines = ["| " + " | ".join(rows[0]) + " |",
             "|" + "|".join(["---"] * 2 + ["---:"] * (len(rows[0]) - 2)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,2",
                        help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--runs", type=int, default=30,
                        help="timed runs per engine and row (default 30)")
    parser.add_argument("--warmup", type=int, default=5,
                        help="untimed runs before them (default 5)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="ORT and AutoGLM measured this many times in "
                             "turn, the median of the rounds' medians kept "
                             "(default 3: a shared machine's load moves "
                             "single rows by up to 2x)")
    parser.add_argument("--only", help="comma-separated workloads, of: "
                        + ",".join(workloads.WORKLOADS))
    parser.add_argument("--peers", default="iree,tvm",
                        help="peers besides ORT to try (default iree,tvm; "
                             "'' for none)")
    parser.add_argument("--peer-budget", type=float, default=30.0,
                        help="seconds an IREE or TVM measurement may take; "
                             "slower ones run fewer timed runs, at least 3 "
                             "(default 30)")
    parser.add_argument("--work-dir", default=workloads.DEFAULT_WORK_DIR)
    parser.add_argument("--autoglm-bin",
                        default=os.path.join(REPO_ROOT, "build", "bin"),
                        help="folder of autoglm-compile and autoglm-run "
                             "(default build/bin in the repository)")
    parser.add_argument("--autoglm-flags", default="", metavar="FLAGS",
                        help="extra autoglm-compile options, e.g. "
                             "--autoglm-flags=--no-kernels")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the table and the set-up as "
                             "markdown")
    parser.add_argument("--json", metavar="PATH",
                        help="also write every measurement as JSON")
    args = parser.parse_args(argv)
    args.threads = [int(t) for t in args.threads.split(",") if t]
    if not args.threads or min(args.threads) < 1:
        parser.error("--threads needs positive counts")
    if args.runs < 30:
        log(f"note: --runs {args.runs} is below the 30 timed runs a "
            f"published table uses")
    names = (args.only.split(",") if args.only else list(workloads.WORKLOADS))
    unknown = [n for n in names if n not in workloads.WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: "
                     + ", ".join(workloads.WORKLOADS))
    args.names = names
    args.peers = [p for p in args.peers.split(",") if p]
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    os.makedirs(args.work_dir, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()

    engines = [peers.OnnxRuntime()]
    if engines[0].missing:
        sys.exit("bench/run.py needs onnxruntime (pip install onnxruntime)")
    for cls in peers.PEERS[1:]:
        if cls.key in args.peers:
            peer = cls()
            peer.budget_s = args.peer_budget
            engines.append(peer)
            log(f"{peer.name}: {peer.missing or peer.version}")

    probe = Probe(args.work_dir)
    peak1 = probe.fma_gflops()
    log(f"peak probe: {peak1} GFLOP/s on one thread"
        + (f" ({probe.error})" if probe.error else ""))
    bandwidths = {}

    def bandwidth(size, threads):
        if (size, threads) not in bandwidths:
            bandwidths[size, threads] = probe.read_gbs(size, threads)
            log(f"read bandwidth over {size / 2**20:.1f} MiB, {threads} "
                f"threads: {bandwidths[size, threads]} GB/s")
        return bandwidths[size, threads]

    if not os.path.isdir(args.autoglm_bin):
        sys.exit(f"bench/run.py: no folder {args.autoglm_bin}; build AutoGLM "
                 f"or point --autoglm-bin at its tools")
    autoglm = AutoGLM(args.autoglm_bin, shlex.split(args.autoglm_flags))
    tools_before = autoglm.tool_times()
    results = [bench_workload(name, args, engines, autoglm, bandwidth)
               for name in args.names]

    notes = Notes()
    rows, geomeans = table(results, engines, peak1, notes, args)
    load_after = os.getloadavg()
    command = "python3 bench/run.py" + "".join(
        " " + shlex.quote(a) for a in argv)
    setup = [
        f"command: {command}",
        f"date: {started:%Y-%m-%d %H:%M} UTC",
        f"CPU: {cpu_model()}, {os.cpu_count()} logical CPUs; "
        f"{platform.system()} {platform.release()}",
        f"threads: {', '.join(map(str, args.threads))}; "
        f"{args.warmup} warm-up and {args.runs} timed runs per engine and "
        f"row, median shown" + (
            f"; ORT and AutoGLM in {args.rounds} rounds in turn, the median "
            f"of the rounds' medians" if args.rounds > 1 else ""),
        f"peak: {peak1:.1f} GFLOP/s float32 FMA on one thread "
        f"(bench/peak_probe.c, {' '.join(probe.command)}); % peak = "
        f"GFLOP/s / (threads x peak)" if peak1 else
        f"peak: not measured ({probe.error})",
    ]
    for (size, t), gbs in sorted(bandwidths.items()):
        setup.append(f"read bandwidth over {size / 2**20:.1f} MiB "
                     f"(weights + KV cache of glm_decode), {t} thread"
                     f"{'s' if t > 1 else ''}: "
                     + (f"{gbs:.1f} GB/s" if gbs else "n/a"))
    setup.append("engines: AutoGLM (" + args.autoglm_bin
                 + (f", autoglm-compile {args.autoglm_flags}"
                    if args.autoglm_flags else "") + "), "
                 + ", ".join(f"{p.name} " + (p.version or p.missing)
                             for p in engines))
    tools_after = autoglm.tool_times()
    setup.append("AutoGLM tools built: " + ", ".join(
        f"{tool} {t:%Y-%m-%d %H:%M} UTC" if t else f"{tool} missing"
        for tool, t in tools_before.items())
        + ("" if tools_after == tools_before else
           "; REBUILT DURING THE RUN, rows may mix builds"))
    setup.append(f"check: every output of AutoGLM, IREE and TVM against "
                 f"ORT's, |a - r| <= {args.atol:g} + {args.rtol:g}*|r|")
    setup.append(f"load average (1 min) before / after: "
                 f"{load_before[0]:.2f} / {load_after[0]:.2f}")

    text = render_text(rows)
    print()
    print("\n".join(setup))
    print()
    print(text)
    print()
    print("\n".join(geomeans))
    for i, n in enumerate(notes.texts, 1):
        print(f"[{i}] {n}")

    if args.markdown:
        md = ["# AutoGLM against ONNX Runtime, IREE and TVM", ""]
        md += [f"- {line}" for line in setup]
        md += ["", render_markdown(rows), ""]
        md += [f"- {g}" for g in geomeans]
        if notes.texts:
            md.append("")
            md += [f"[{i}] {n.replace('|', '/')}  "
                   for i, n in enumerate(notes.texts, 1)]
        with open(args.markdown, "w") as f:
            f.write("\n".join(md).rstrip() + "\n")
        log(f"wrote {args.markdown}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(setup=setup, peak_gflops_1t=peak1,
                           bandwidth=[dict(bytes=s, threads=t, gbs=g)
                                      for (s, t), g in bandwidths.items()],
                           results=results), f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
