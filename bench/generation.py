#!/usr/bin/env python3
"""Token generation: AutoGLM against ONNX Runtime on the same exported GLM
decoder, side by side in one run.

For each thread count T, both generate greedily from the same prompt:

- ONNX Runtime (graph optimizations all, T intra-op threads) runs the
  exported model's KV-cache loop: the prompt in one run with an empty past,
  then one token per run, the presents of each run bound as the next run's
  past through IO binding (OrtValues stay in ORT's memory).
- AutoGLM runs `autoglm-generate --threads T` on the model compiled with
  `--max-seq-len` (prompt + new tokens): the cache stays inside the model
  and each token appends to it in place; and with `--last-token logits`,
  so that the prompt's run computes the logits of its last position only
  (all a generator reads).
- For a prefill that does the same work, ONNX Runtime also runs the prompt
  on a copy of the model whose LM head reads the last position only (a
  Slice inserted before the product that gives the logits): the prefill
  speed-up is given against both.

Reported per engine: prefill ms (prompt tokens/s), decode tokens/s (the
tokens after the first, over the time of their runs, each timed from the
run to the chosen token) and the per-token median; AutoGLM/ORT speed
ratios; whether the two greedy sequences agree; and the bandwidth roofline
of a decode token: the bytes of the weights (tables that are only gathered
from, the embeddings, excluded: a token reads one row) plus the KV cache
read at the mean cache length, over the read bandwidth bench/peak_probe.c measures for
that working set with T threads. Each engine generates `--repeats` times;
the best repeat counts (the machine is shared and noisy).

The default model is the benchmark-size GLM of models/export_llm.py
(exported on first use into the work directory; that needs torch and
transformers), or any model with the same inputs given with --model.

Usage: python3 bench/generation.py [--threads 1,2] [--prompt 128]
           [--new-tokens 128] [--model M.onnx] [--markdown PATH]
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnx

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.dont_write_bytecode = True
from machine import cpu_model  # noqa: E402
from run import Probe, log  # noqa: E402

DEFAULT_WORK_DIR = "/tmp/autoglm-llm"


def bench_model(work_dir):
    path = os.path.join(work_dir, "glm_bench.onnx")
    if not os.path.isfile(path):
        log(f"exporting the benchmark GLM into {work_dir} (torch)")
        subprocess.run([sys.executable,
                        os.path.join(REPO_ROOT, "models", "export_llm.py"),
                        "--bench", "--work-dir", work_dir], check=True)
    return path


class Geometry:
    """Names and sizes the generation loops need, read from the graph."""

    def __init__(self, path):
        model = onnx.load(path, load_external_data=False)
        graph = model.graph
        self.past_names = [i.name for i in graph.input
                           if i.name.startswith("past_key_values.")]
        self.output_names = [o.name for o in graph.output]
        dims = graph.input[3].type.tensor_type.shape.dim
        self.kv_heads, self.head_dim = dims[1].dim_value, dims[3].dim_value
        self.vocab = graph.output[0].type.tensor_type.shape.dim[2].dim_value
        # A decode token reads every weight once, except tables that are
        # only gathered from (the embeddings), of which it reads one row.
        consumers = {}
        for node in graph.node:
            for name in node.input:
                consumers.setdefault(name, set()).add(node.op_type)
        self.weight_bytes = self.gathered_bytes = 0
        for t in graph.initializer:
            if t.data_type != onnx.TensorProto.FLOAT:
                continue
            size = int(np.prod(t.dims)) * 4
            if consumers.get(t.name) == {"Gather"}:
                self.gathered_bytes += size
            else:
                self.weight_bytes += size

    def kv_bytes(self, length):
        return len(self.past_names) * self.kv_heads * self.head_dim * 4 * length


def last_token_model(path, work_dir):
    """A copy of the exported model whose logits product reads only the
    last position of its input rows (what --last-token logits computes)."""
    out = os.path.join(work_dir, os.path.basename(path)[:-5] + "_last.onnx")
    if os.path.isfile(out) and os.path.getmtime(out) >= os.path.getmtime(path):
        return out
    model = onnx.load(path)
    graph = model.graph
    logits = graph.output[0].name
    node = next(n for n in graph.node if logits in n.output)
    if node.op_type != "MatMul":
        raise RuntimeError(f"logits come from a {node.op_type}, not a MatMul")
    h = onnx.helper
    graph.initializer.extend([
        onnx.numpy_helper.from_array(np.array([-1], np.int64), "last_start"),
        onnx.numpy_helper.from_array(np.array([2**62], np.int64), "last_end"),
        onnx.numpy_helper.from_array(np.array([-2], np.int64), "last_axis")])
    rows = node.input[0]
    graph.node.insert(list(graph.node).index(node), h.make_node(
        "Slice", [rows, "last_start", "last_end", "last_axis"],
        [rows + "_last"], name="last_token_slice"))
    node.input[0] = rows + "_last"
    graph.output[0].type.tensor_type.shape.dim[1].dim_value = 1
    onnx.save(model, out)
    return out


def ort_generate(path, geometry, prompt, new_tokens, threads):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(path, opts,
                                   providers=["CPUExecutionProvider"])
    empty = np.zeros((1, geometry.kv_heads, 0, geometry.head_dim), np.float32)
    past = [ort.OrtValue.ortvalue_from_numpy(empty)
            for _ in geometry.past_names]
    tokens, length, out, times = list(prompt), 0, [], []
    for _ in range(new_tokens):
        start = time.perf_counter()
        binding = session.io_binding()
        seq = len(tokens)
        binding.bind_cpu_input("input_ids", np.array([tokens], np.int64))
        binding.bind_cpu_input("attention_mask",
                               np.ones((1, length + seq), np.int64))
        binding.bind_cpu_input(
            "position_ids",
            np.arange(length, length + seq, dtype=np.int64)[None, :])
        for name, value in zip(geometry.past_names, past):
            binding.bind_ortvalue_input(name, value)
        for name in geometry.output_names:
            binding.bind_output(name, "cpu")
        session.run_with_iobinding(binding)
        results = binding.get_outputs()
        token = int(np.argmax(results[0].numpy()[0, -1]))
        times.append((time.perf_counter() - start) * 1000)
        past = results[1:]
        length += seq
        tokens = [token]
        out.append(token)
    # The session's threads go before AutoGLM runs next to it.
    del binding, results, past, session
    gc.collect()
    return out, times[0], times[1:]


def autoglm_generate(binary, artifact, prompt, new_tokens, threads):
    proc = subprocess.run(
        [binary, artifact, "--prompt-ids", ",".join(map(str, prompt)),
         "--max-new-tokens", str(new_tokens), "--threads", str(threads),
         "--json"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"autoglm-generate failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def summary(prefill_ms, step_ms):
    steps = np.asarray(step_ms)
    return dict(prefill_ms=prefill_ms,
                decode_tokens_per_s=len(steps) * 1000.0 / steps.sum(),
                step_median_ms=float(np.median(steps)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="exported decoder (default: the "
                                        "benchmark GLM of models/export_llm.py)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--prompt", type=int, default=128,
                        help="prompt tokens (default 128)")
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work-dir", default=DEFAULT_WORK_DIR)
    parser.add_argument("--autoglm-bin",
                        default=os.path.join(REPO_ROOT, "build", "bin"))
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the table as Markdown")
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    path = args.model or bench_model(args.work_dir)
    geometry = Geometry(path)
    rng = np.random.default_rng(11)
    prompt = [int(t) for t in rng.integers(0, geometry.vocab, args.prompt)]
    capacity = args.prompt + args.new_tokens

    artifact = os.path.join(args.work_dir,
                            os.path.basename(path)[:-5] + f"_kv{capacity}.so")
    compile_command = [
        os.path.join(args.autoglm_bin, "autoglm-compile"), path,
        "--dim", "batch=1", "--dim", f"seq=1..{args.prompt}",
        "--dim", f"past=1..{capacity}", "--dim", f"total=1..{capacity}",
        "--max-seq-len", str(capacity), "--last-token", "logits",
        "-o", artifact]
    log("$ " + " ".join(compile_command))
    start = time.perf_counter()
    subprocess.run(compile_command, check=True)
    compile_s = time.perf_counter() - start
    generate_bin = os.path.join(args.autoglm_bin, "autoglm-generate")
    last_path = last_token_model(path, args.work_dir)

    probe = Probe(args.work_dir)
    mean_length = args.prompt + args.new_tokens / 2
    bytes_per_token = geometry.weight_bytes + geometry.kv_bytes(mean_length)
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        ort_best = ag_best = None
        ort_last_ms = None
        for _ in range(args.repeats):
            ort_tokens, prefill, steps = ort_generate(
                path, geometry, prompt, args.new_tokens, threads)
            ort = summary(prefill, steps)
            last_tokens, last_ms, _ = ort_generate(
                last_path, geometry, prompt, 1, threads)
            if last_tokens[0] != ort_tokens[0]:
                raise RuntimeError("the last-token copy picks another token")
            ort_last_ms = min(ort_last_ms or last_ms, last_ms)
            ag = autoglm_generate(generate_bin, artifact, prompt,
                                  args.new_tokens, threads)
            if not ort_best or (ort["decode_tokens_per_s"] >
                                ort_best["decode_tokens_per_s"]):
                ort_best = ort
            if not ag_best or (ag["decode_tokens_per_s"] >
                               ag_best["decode_tokens_per_s"]):
                ag_best = ag
        agree = 0
        while (agree < len(ort_tokens) and agree < len(ag["tokens"])
               and ort_tokens[agree] == ag["tokens"][agree]):
            agree += 1
        gbs = probe.read_gbs(int(bytes_per_token), threads)
        roofline = gbs * 1e9 / bytes_per_token if gbs else None
        rows.append(dict(
            threads=threads, ort=ort_best, autoglm=ag_best,
            decode_ratio=ag_best["decode_tokens_per_s"] /
            ort_best["decode_tokens_per_s"],
            prefill_ratio=ort_best["prefill_ms"] / ag_best["prefill_ms"],
            ort_last_ms=ort_last_ms,
            prefill_last_ratio=ort_last_ms / ag_best["prefill_ms"],
            agree=agree, read_gbs=gbs, roofline_tokens_per_s=roofline))
        log(f"{threads} threads: done")

    header = ("| threads | ORT prefill ms (all logits / last) "
              "| AutoGLM prefill ms | prefill speed-up (vs all / vs last) "
              "| ORT decode tok/s | AutoGLM decode tok/s | decode speed-up "
              "| AutoGLM ms/token | roofline tok/s | % of roofline "
              "| greedy tokens equal |")
    lines = [header, "|" + "---|" * 11]
    for r in rows:
        roof = r["roofline_tokens_per_s"]
        lines.append(
            f"| {r['threads']} | {r['ort']['prefill_ms']:.1f} / "
            f"{r['ort_last_ms']:.1f} "
            f"| {r['autoglm']['prefill_ms']:.1f} | {r['prefill_ratio']:.2f}x / "
            f"{r['prefill_last_ratio']:.2f}x "
            f"| {r['ort']['decode_tokens_per_s']:.1f} "
            f"| {r['autoglm']['decode_tokens_per_s']:.1f} "
            f"| {r['decode_ratio']:.2f}x "
            f"| {r['autoglm']['step_median_ms']:.2f} "
            f"| {roof:.1f} | {100 * r['autoglm']['decode_tokens_per_s'] / roof:.0f}% "
            f"| {r['agree']}/{args.new_tokens} |" if roof else
            f"| {r['threads']} | ... roofline unavailable |")
    facts = [f"model: {os.path.basename(path)}, "
             f"{(geometry.weight_bytes + geometry.gathered_bytes) / 2**20:.0f} "
             f"MiB of weights ({geometry.gathered_bytes / 2**20:.0f} MiB of "
             f"them gathered from); prompt {args.prompt} tokens, {args.new_tokens} new "
             f"tokens, greedy; best of {args.repeats}",
             f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d %H:%M %Z')}",
             f"AutoGLM compile time: {compile_s:.1f} s "
             f"(--max-seq-len {capacity} --last-token logits)",
             f"bytes per decode token: {bytes_per_token / 2**20:.1f} MiB "
             f"(weights read whole + KV cache at {mean_length:.0f} "
             f"positions)",
             "$ python3 bench/generation.py " + " ".join(sys.argv[1:])]
    text = "\n".join(facts + [""] + lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
