#!/usr/bin/env python3
"""Runs the ONNX backend node tests through autoglm-compile and autoglm-run.

Every case is compiled to a shared library and run on each of its data sets,
then classified:

  pass         compiled, and every output matched (rtol 1e-3, atol 1e-7, the
               ONNX backend defaults; for float16/bfloat16 outputs rtol is two
               units in the last place of the type, since the reference rounds
               every intermediate step to 16 bits and AutoGLM accumulates in
               float32)

A graph input that the compiler needs as a constant (it says so with a
"--bind NAME=FILE" note) is bound to its test value and the case compiled
again, if that value is the same in every data set and some input is still
fed at run time; such passes are counted and listed separately.
  wrong        compiled and ran, but an output differs from the reference
  unsupported  autoglm-compile refused it with a clean "not supported" error
  error        another clean error (exit code 2) at compile or run time
  crash        killed by a signal, or an unexpected exit code
  timeout      took longer than the limit

Writes results.json into the work folder and, with --markdown, the report
(docs/conformance.md). Exits 1 if any case crashed, timed out, failed with
an error or gave a wrong result, or the pass rate is below --min-pass-rate.
(An error is no refusal: a model that compiles but does not load, say.)
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

import onnx

CATEGORIES = ["pass", "wrong", "unsupported", "error", "crash", "timeout"]
FAILURES = {"wrong", "error", "crash", "timeout"}


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return ""


# Two units in the last place of each 16-bit float type.
HALF_PRECISION_RTOL = {onnx.TensorProto.FLOAT16: 2 * 2.0**-10, onnx.TensorProto.BFLOAT16: 2 * 2.0**-7}


def describe_model(model_path):
    """The first node's op type, the relative tolerance its outputs need, and
    the names of its graph inputs (in the order of the input_N.pb files)."""
    model = onnx.load(model_path, load_external_data=False)
    op = model.graph.node[0].op_type if model.graph.node else "?"
    rtol = 1e-3
    for output in model.graph.output:
        rtol = max(rtol, HALF_PRECISION_RTOL.get(output.type.tensor_type.elem_type, rtol))
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    return op, rtol, inputs


def bind_hints(stderr):
    """Graph inputs the compiler asks to fix at compile time (--bind)."""
    return re.findall(r"--bind (\S+)=FILE", stderr)


def same_in_every_data_set(case_dir, data_sets, index):
    contents = set()
    for data_set in data_sets:
        with open(os.path.join(case_dir, data_set, f"input_{index}.pb"), "rb") as f:
            contents.add(f.read())
    return len(contents) == 1


def classify_exit(rc, stderr):
    if rc == 2:
        return ("unsupported" if "not supported" in stderr else "error"), first_line(stderr)
    if rc < 0:
        return "crash", f"killed by signal {-rc}"
    return "crash", f"exit code {rc}: {first_line(stderr)}"


def run_tool(args, timeout):
    """subprocess.run that waits out a tool being replaced by a rebuild."""
    for attempt in range(5):
        try:
            return subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        except OSError:
            if attempt == 4:
                raise
            time.sleep(2)


def run_case(case_dir, tools, work_dir, timeout):
    name = os.path.basename(case_dir)
    artifact = os.path.join(work_dir, name + ".so")
    started = time.monotonic()
    op, rtol, input_names = describe_model(os.path.join(case_dir, "model.onnx"))
    result = {"case": name, "op": op}
    data_sets = sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))

    def finish(category, reason=""):
        reason = reason.replace(os.path.join(case_dir, ""), "")  # no local paths
        result.update(category=category, reason=reason,
                      seconds=round(time.monotonic() - started, 3))
        for path in (artifact, artifact[:-3] + ".h"):
            if os.path.exists(path):
                os.remove(path)
        return result

    # Inputs that the compiler needs as constants (axes, pads, sizes) are
    # bound to their test value when it is the same in every data set and
    # the model keeps at least one input that is fed at run time.
    bound = {}
    while True:
        command = [tools["compile"], os.path.join(case_dir, "model.onnx"), "-o", artifact,
                   "--verify-memory-plan"]
        for input_name, index in bound.items():
            command += ["--bind", f"{input_name}={os.path.join(case_dir, data_sets[0], f'input_{index}.pb')}"]
        try:
            compiled = run_tool(command, timeout)
        except subprocess.TimeoutExpired:
            return finish("timeout", f"compile took over {timeout}s")
        if compiled.returncode == 0:
            break
        hints = [h for h in bind_hints(compiled.stderr) if h in input_names and h not in bound]
        candidate = dict(bound, **{h: input_names.index(h) for h in hints})
        if (not hints or len(candidate) == len(input_names) or
                not all(same_in_every_data_set(case_dir, data_sets, i) for i in candidate.values())):
            return finish(*classify_exit(compiled.returncode, compiled.stderr))
        bound = candidate
    if bound:
        result["bound"] = sorted(bound)

    for data_set in data_sets:
        folder = os.path.join(case_dir, data_set)
        files = sorted(os.listdir(folder), key=lambda f: (f.split("_")[0], int(f.split("_")[1].split(".")[0])))
        args = [tools["run"], artifact, "--rtol", str(rtol), "--atol", "1e-7"]
        for f in files:
            if f.startswith("input_"):
                index = int(f.split("_")[1].split(".")[0])
                if input_names[index] not in bound:
                    args += ["--input", f"{input_names[index]}={os.path.join(folder, f)}"]
            else:
                args += ["--expect", os.path.join(folder, f)]
        try:
            ran = run_tool(args, timeout)
        except subprocess.TimeoutExpired:
            return finish("timeout", f"run took over {timeout}s")
        if ran.returncode == 1:
            mismatch = [l for l in (ran.stdout + ran.stderr).splitlines() if "MISMATCH" in l or "expected" in l]
            return finish("wrong", first_line("\n".join(mismatch)) or first_line(ran.stdout + ran.stderr))
        if ran.returncode != 0:
            return finish(*classify_exit(ran.returncode, ran.stderr))
    return finish("pass")


def write_markdown(results, path, command):
    totals = collections.Counter(r["category"] for r in results)
    by_op = collections.defaultdict(collections.Counter)
    for r in results:
        by_op[r["op"]][r["category"]] += 1
    n = len(results)
    lines = [
        "# ONNX backend node tests",
        "",
        f"Generated by `{command}` with onnx {onnx.__version__}.",
        "Each case is compiled with `autoglm-compile` and run with `autoglm-run`",
        "(rtol 1e-3, atol 1e-7, the ONNX backend defaults) on every data set.",
        "Outputs of type float16/bfloat16 are compared with rtol of two units in the",
        "last place of their type (1.95e-3 / 1.56e-2): the reference rounds every",
        "intermediate step to 16 bits, AutoGLM accumulates in float32.",
        "",
        "Where the compiler needs an input as a compile-time constant (axes, pads,",
        "sizes, scales, `k`: they fix the result's shape, and the memory plan is",
        "made at compile time), the runner fixes that graph input to its test value",
        "with `autoglm-compile --bind NAME=FILE`, provided it is the same in every",
        "data set and at least one input is still fed at run time. The `bound`",
        "column counts the passing cases compiled that way; the list is at the end.",
        "",
        "| result | cases | share |",
        "|---|---:|---:|",
    ]
    bound = [r for r in results if r["category"] == "pass" and r.get("bound")]
    for c in CATEGORIES:
        lines.append(f"| {c} | {totals[c]} | {100.0 * totals[c] / max(n, 1):.1f}% |")
        if c == "pass":
            lines.append(f"| ... of which with inputs bound | {len(bound)} | "
                         f"{100.0 * len(bound) / max(n, 1):.1f}% |")
    lines += [f"| **total** | **{n}** | |", "", "## Per operator", "",
              "| operator | cases | " + " | ".join(CATEGORIES) + " | bound |",
              "|---|---:|" + "---:|" * (len(CATEGORIES) + 1)]
    for op in sorted(by_op):
        counts = by_op[op]
        lines.append(f"| {op} | {sum(counts.values())} | " +
                     " | ".join(str(counts[c]) for c in CATEGORIES) +
                     f" | {sum(1 for r in bound if r['op'] == op)} |")
    lines += ["", "## Cases that do not pass", "", "| case | result | reason |", "|---|---|---|"]
    for r in sorted(results, key=lambda r: (CATEGORIES.index(r["category"]), r["case"])):
        if r["category"] != "pass":
            reason = r["reason"].replace("|", "\\|")
            lines.append(f"| {r['case']} | {r['category']} | {reason} |")
    lines += ["", "## Passing cases with inputs bound at compile time", "",
              "| case | bound inputs |", "|---|---|"]
    for r in bound:
        lines.append(f"| {r['case']} | {', '.join(r['bound'])} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", required=True, help="folder of node test cases")
    parser.add_argument("--tools", required=True, help="folder with autoglm-compile and autoglm-run")
    parser.add_argument("--work", required=True, help="scratch folder for artifacts and results.json")
    parser.add_argument("--markdown", help="write the report here")
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--min-pass-rate", type=float, default=0.0)
    args = parser.parse_args()

    tools = {"compile": os.path.join(args.tools, "autoglm-compile"),
             "run": os.path.join(args.tools, "autoglm-run")}
    os.makedirs(args.work, exist_ok=True)
    cases = sorted(os.path.join(args.cases, d) for d in os.listdir(args.cases)
                   if args.filter in d and os.path.isfile(os.path.join(args.cases, d, "model.onnx")))
    started = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_case, c, tools, args.work, args.timeout) for c in cases]
        for i, future in enumerate(concurrent.futures.as_completed(futures), 1):
            results.append(future.result())
            if i % 100 == 0:
                print(f"{i}/{len(cases)} cases", flush=True)
    results.sort(key=lambda r: r["case"])
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    if args.markdown:
        write_markdown(results, args.markdown, "scripts/conformance.sh")

    totals = collections.Counter(r["category"] for r in results)
    rate = totals["pass"] / max(len(results), 1)
    bound = sum(1 for r in results if r["category"] == "pass" and r.get("bound"))
    print(f"{len(results)} cases in {time.monotonic() - started:.0f}s: " +
          ", ".join(f"{c} {totals[c]}" for c in CATEGORIES) +
          f" (pass rate {100 * rate:.1f}%; {bound} passes with inputs bound)")
    slowest = sorted(results, key=lambda r: -r["seconds"])[:3]
    print("slowest: " + ", ".join(f"{r['case']} {r['seconds']}s" for r in slowest))
    bad = [r for r in results if r["category"] in FAILURES]
    for r in bad:
        print(f"FAIL {r['case']}: {r['category']}: {r['reason']}")
    return 1 if bad or rate < args.min_pass_rate else 0


if __name__ == "__main__":
    sys.exit(main())
