#!/usr/bin/env python3
"""Kernel profiles: models compiled with --profile, run with
`autoglm-run --profile trace.json`, give a valid Chrome trace with one event
per kernel and run, and a top-kernels table; the outputs stay correct."""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, E2ETestCase, compile_model, describe, run_model)

MODELS = ["mlp", "glm_layer", "resnet_cnn"]
RUNS = 5


def model_files(model):
    return (os.path.join(MODELS_DIR, model + ".onnx"),
            os.path.join(MODELS_DIR, model, "input_0.npy"),
            os.path.join(MODELS_DIR, model, "output_0.npy"))


class ProfileTest(E2ETestCase):

    def kernels_in_plan(self, model):
        """How many kernels the instrumented plan brackets, read from the
        memref stage: one agl_profile_end call each."""
        onnx_path, _, _ = model_files(model)
        out = self.cache.path("plans", model + ".mlir")
        result = compile_model(onnx_path, out, "--emit=memref", "--profile")
        self.assertEqual(result.returncode, 0, describe(result))
        with open(out) as f:
            return len(re.findall(r"call @agl_profile_end\(", f.read()))

    def test_trace_has_every_kernel_of_every_run(self):
        for model in MODELS:
            with self.subTest(model=model):
                onnx_path, x, y = model_files(model)
                artifact = self.compiled(onnx_path, ".so", "--profile")
                trace_path = self.cache.path("traces", model + ".json")
                result = run_model(artifact, "-i", x, "-e", y,
                                   "--bench", str(RUNS), "--warmup", "1",
                                   "--profile", trace_path, "--top", "3")
                self.assertEqual(result.returncode, 0, describe(result))
                with open(trace_path) as f:
                    trace = json.load(f)
                kernels = trace["otherData"]["kernels"]
                self.assertEqual(len(kernels), self.kernels_in_plan(model))
                events = trace["traceEvents"]
                # The timed runs only: each kernel once per run, in order.
                self.assertEqual(len(events), RUNS * len(kernels))
                for i, event in enumerate(events):
                    self.assertEqual(event["ph"], "X")
                    self.assertEqual(event["args"]["kernel"], i % len(kernels))
                    self.assertEqual(event["name"], kernels[i % len(kernels)])
                    self.assertGreaterEqual(event["dur"], 0)
                    self.assertIsInstance(event["tid"], int)
                    if i:
                        previous = events[i - 1]
                        self.assertGreaterEqual(
                            event["ts"] + 1e-3, previous["ts"] + previous["dur"])
                # Names say what runs and where it came from.
                self.assertTrue(any(re.match(r"(sgemm|conv2d)", k) and
                                    re.search(r"/(MatMul|Conv)\b", k)
                                    for k in kernels), kernels)
                # The table: the three heaviest kernels (the MLP has two:
                # each GEMM with its bias, the first with its GELU, in the
                # epilogue), the heaviest first.
                rows = re.findall(r"^ *([\d.]+) +([\d.]+)% +(\d+) +[\d.]+ .*$",
                                  result.stdout, re.M)
                self.assertEqual(len(rows), min(3, len(kernels)),
                                 result.stdout)
                times = [float(r[0]) for r in rows]
                self.assertEqual(times, sorted(times, reverse=True))
                self.assertTrue(all(int(r[2]) == RUNS for r in rows))
                self.assertRegex(result.stdout, r"in \d+ kernels; peak [\d.]+ GFLOP/s")

    def test_table_rates_follow_from_the_trace(self):
        # Each row's GFLOP/s is the kernel's FLOPs over its median call in
        # the trace, and % peak compares it with the peak given (1 thread).
        onnx_path, x, _ = model_files("glm_layer")
        artifact = self.compiled(onnx_path, ".so", "--profile")
        trace_path = self.cache.path("rate.json")
        result = run_model(artifact, "-i", x, "--bench", "21", "--threads", "1",
                           "--profile", trace_path, "--top", "100",
                           "--peak-gflops", "50")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("peak 50.0 GFLOP/s", result.stdout)
        with open(trace_path) as f:
            events = json.load(f)["traceEvents"]
        rows = re.findall(r"^ *[\d.]+ +[\d.]+% +21 +([\d.]+) +([\d.]+) +"
                          r"([\d.]+)%  ((?:sgemm\S*|attention) .*)$",
                          result.stdout, re.M)
        # The layer's five GEMMs and its fused attention.
        self.assertEqual(len(rows), 6, result.stdout)
        for median_text, rate_text, share_text, name in rows:
            calls = sorted(e["dur"] for e in events if e["name"] == name)
            self.assertEqual(len(calls), 21, name)
            median_us = calls[10]
            self.assertAlmostEqual(float(median_text), median_us, delta=0.01)
            flops = next(e["args"]["flops"] for e in events if e["name"] == name)
            self.assertGreater(flops, 0, name)
            rate = flops / (median_us * 1e3)
            self.assertAlmostEqual(float(rate_text), rate, delta=0.05 + rate * 1e-3)
            self.assertAlmostEqual(float(share_text), 100 * float(rate_text) / 50,
                                   delta=0.11)

    def test_profiling_keeps_results_and_code(self):
        # Without a trace the profiled artifact runs correctly, and a plain
        # compile has no hooks at all.
        onnx_path, x, y = model_files("resnet_cnn")
        profiled = self.compiled(onnx_path, ".so", "--profile")
        result = run_model(profiled, "-i", x, "-e", y)
        self.assertEqual(result.returncode, 0, describe(result))
        plain = self.compiled(onnx_path, ".ll")
        with open(plain) as f:
            self.assertNotIn("agl_profile_", f.read())

    def test_explain_lists_every_kernel(self):
        # --explain describes the same kernels that --profile times, each
        # with its nodes and strategy, and a roofline estimate that follows
        # from its FLOPs and bytes and the machine model given.
        for model in ["glm_layer", "resnet_cnn"]:
            with self.subTest(model=model):
                onnx_path, _, _ = model_files(model)
                out = self.cache.path("explain", model + ".so")
                result = compile_model(onnx_path, out, "--explain",
                                       "--peak-gflops", "100",
                                       "--bandwidth-gbs", "20")
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertTrue(os.path.isfile(out))
                threads = int(re.search(r"(\d+) threads,",
                                        result.stdout).group(1))
                rows = re.findall(
                    r"^ *(\d+)  (\S+) +(\d+) +([\d.]+) +([\d.]+) +\S+ +"
                    r"(compute|memory) +([\d.]+)  (.*)\n +(.*)$",
                    result.stdout, re.M)
                self.assertEqual(len(rows), self.kernels_in_plan(model),
                                 result.stdout)
                self.assertEqual([int(r[0]) for r in rows],
                                 list(range(len(rows))))
                products = [r for r in rows if re.match(r"(sgemm|conv2d)", r[1])]
                self.assertTrue(products)
                for (_, kind, used, mflop, kib, bound, estimate, nodes,
                     how) in rows:
                    compute_us = float(mflop) * 1e6 / (100e3 * int(used))
                    memory_us = float(kib) * 1024 / 20e3
                    self.assertAlmostEqual(float(estimate),
                                           max(compute_us, memory_us),
                                           delta=0.01 + 1e-3 * float(estimate))
                    # (The table's figures are rounded: near-ties may go
                    # either way.)
                    if abs(compute_us - memory_us) > 0.05 * max(compute_us,
                                                                memory_us):
                        self.assertEqual(bound, "compute" if compute_us > memory_us
                                         else "memory")
                    if kind.startswith("sgemm"):
                        self.assertEqual(int(used), threads)
                        self.assertRegex(how, r"^GEMM m\d+ n\d+ k\d+")
                        self.assertRegex(nodes, r"/(MatMul|Conv|Gemm)\b")
                    elif kind == "conv2d":
                        self.assertEqual(int(used), threads)
                        self.assertGreater(float(mflop), 0)
                        self.assertRegex(how, r"^implicit-GEMM convolution "
                                              r"\d+x\d+x\d+ -> \d+x\d+x\d+")
                        self.assertIn("/Conv", nodes)
                    elif kind == "maxpool2d":
                        self.assertRegex(how, r"^max-pooling kernel "
                                              r"\d+x\d+x\d+ -> \d+x\d+")
                        self.assertIn("/MaxPool", nodes)
                    elif kind == "attention":
                        self.assertEqual(int(used), threads)
                        self.assertGreater(float(mflop), 0)
                        self.assertRegex(how, r"^fused attention \d+ heads")
                        self.assertIn("/Softmax", nodes)
                    elif kind == "loop":
                        self.assertRegex(how, r"(\d+-lane vectors|scalar loops) over")
                    # Loop nests on the pool say along which loop.
                    if kind.split("+")[0] not in ("sgemm", "sgemm_packed",
                                                  "conv2d", "attention"):
                        self.assertEqual(int(used) > 1, "split across the pool" in how,
                                         how)
                self.assertRegex(result.stdout,
                                 r"\d+ kernels, [\d.]+ MFLOP, roofline estimate")

    def test_model_compiled_without_profile(self):
        onnx_path, x, _ = model_files("mlp")
        artifact = self.compiled(onnx_path, ".so")
        trace_path = self.cache.path("none", "trace.json")
        result = run_model(artifact, "-i", x, "--profile", trace_path)
        self.assertCleanError(result, "autoglm-run", "without --profile")
        self.assertFalse(os.path.exists(trace_path))

    def test_trace_path_not_writable(self):
        onnx_path, x, _ = model_files("mlp")
        artifact = self.compiled(onnx_path, ".so", "--profile")
        trace_path = self.cache.path("no-such-dir-parent") + "/missing/t.json"
        result = run_model(artifact, "-i", x, "--profile", trace_path)
        self.assertCleanError(result, "autoglm-run", trace_path)
        self.assertFalse(os.path.exists(trace_path))


if __name__ == "__main__":
    unittest.main(verbosity=2)
