#!/usr/bin/env python3
"""Loop nests on the runtime's thread pool (autoglm-parallelize-loops): a
model whose loops are split gives bitwise the same outputs at 1 and 2
threads, static and symbolic; --serial-loops and --no-kernels artifacts do
not call the pool."""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    ATOL, MODELS_DIR, RTOL, E2ETestCase, describe, model_dims, run_model)

PARALLEL_FOR = b"agl_parallel_for"


def dim_options(model_path):
    return [a for d in model_dims(model_path) for a in ("--dim", d)]


class ThreadedLoopsTest(E2ETestCase):

    def outputs_at(self, artifact, threads, args, tag):
        out_dir = self.cache.path(f"out-{tag}-{threads}", "")
        result = run_model(artifact, *args, "--rtol", str(RTOL),
                           "--atol", str(ATOL), "--threads", str(threads),
                           "-o", out_dir)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("OK", result.stdout + result.stderr, describe(result))
        return {name: np.load(os.path.join(out_dir, name))
                for name in sorted(os.listdir(out_dir))}

    def assertSameAtOneAndTwoThreads(self, artifact, args, tag):
        one = self.outputs_at(artifact, 1, args, tag)
        two = self.outputs_at(artifact, 2, args, tag)
        self.assertEqual(one.keys(), two.keys())
        self.assertTrue(one)
        for name in one:
            # Bitwise: the split never reorders any element's arithmetic.
            self.assertEqual(one[name].tobytes(), two[name].tobytes(), name)

    def calls_pool(self, model, *options):
        obj = self.compiled(model, ".o", *options)
        with open(obj, "rb") as f:
            return PARALLEL_FOR in f.read()

    def test_static_model_is_bitwise_stable(self):
        # The GLM layer pinned at batch 3, sequence 64: its [3, 64, 256]
        # elementwise ops and norms are split.
        model = os.path.join(MODELS_DIR, "glm_layer_dynamic.onnx")
        options = ("--dim", "batch=3", "--dim", "seq=64")
        self.assertTrue(self.calls_pool(model, *options))
        folder = os.path.join(MODELS_DIR, "glm_layer_dynamic", "batch3_seq64")
        args = ["-i", f"x={folder}/input_0.npy",
                "-i", f"attention_mask={folder}/input_1.npy",
                "-e", f"{folder}/output_0.npy"]
        self.assertSameAtOneAndTwoThreads(
            self.compiled(model, ".so", *options), args, "static")

    def test_symbolic_model_is_bitwise_stable(self):
        model = os.path.join(MODELS_DIR, "glm_layer_dynamic.onnx")
        options = dim_options(model)
        self.assertTrue(self.calls_pool(model, *options))
        artifact = self.compiled(model, ".so", *options)
        for case in ("batch3_seq64", "batch1_seq32", "batch1_seq1"):
            with self.subTest(case=case):
                folder = os.path.join(MODELS_DIR, "glm_layer_dynamic", case)
                args = ["-i", f"x={folder}/input_0.npy",
                        "-i", f"attention_mask={folder}/input_1.npy",
                        "-e", f"{folder}/output_0.npy"]
                self.assertSameAtOneAndTwoThreads(artifact, args, case)

    def test_serial_artifacts_do_not_call_the_pool(self):
        model = os.path.join(MODELS_DIR, "glm_layer_dynamic.onnx")
        for flag in ("--serial-loops", "--no-kernels"):
            with self.subTest(flag=flag):
                self.assertFalse(self.calls_pool(
                    model, "--dim", "batch=3", "--dim", "seq=64", flag))


if __name__ == "__main__":
    unittest.main()
