#!/usr/bin/env python3
"""Symbolic dimensions (--dim NAME=MIN..MAX): one artifact of the
glm_layer_dynamic example runs at every size its references cover and matches
onnxruntime; sizes outside the ranges, inconsistent inputs and ops without
symbolic-shape support fail cleanly; the arena and the header are sized for
the upper bounds."""

import json
import os
import re
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    ATOL, MODELS_DIR, RTOL, SHARED_MODELS_DIR, E2ETestCase, compile_model,
    describe, model_dims, run_model)

MODEL = os.path.join(MODELS_DIR, "glm_layer_dynamic.onnx")
CASES_DIR = os.path.join(MODELS_DIR, "glm_layer_dynamic")


def dim_options(model_path):
    return [a for d in model_dims(model_path) for a in ("--dim", d)]


class SymbolicShapesTest(E2ETestCase):

    def artifact(self, suffix=".so"):
        return self.compiled(MODEL, suffix, *dim_options(MODEL))

    def run_inputs(self, artifact, x, mask, *extra):
        x_path = self.cache.path("in", f"x_{x.shape}.npy")
        mask_path = self.cache.path("in", f"mask_{mask.shape}.npy")
        np.save(x_path, x)
        np.save(mask_path, mask)
        return run_model(artifact, "-i", f"x={x_path}",
                         "-i", f"attention_mask={mask_path}", *extra)

    def test_every_size_matches_onnxruntime(self):
        artifact = self.artifact()
        cases = sorted(d for d in os.listdir(CASES_DIR)
                       if os.path.isdir(os.path.join(CASES_DIR, d)))
        self.assertGreaterEqual(len(cases), 3)
        for case in cases:
            with self.subTest(case=case):
                folder = os.path.join(CASES_DIR, case)
                result = run_model(
                    artifact, "-i", f"x={folder}/input_0.npy",
                    "-i", f"attention_mask={folder}/input_1.npy",
                    "-e", f"{folder}/output_0.npy",
                    "--rtol", str(RTOL), "--atol", str(ATOL))
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertIn(" OK", result.stdout, describe(result))
                batch, seq = re.match(r"batch(\d+)_seq(\d+)", case).groups()
                self.assertIn(f"batch={batch} seq={seq}", result.stdout)

    def test_out_of_range_and_inconsistent_sizes(self):
        artifact = self.artifact()
        too_long = self.run_inputs(artifact, np.zeros((1, 65, 256), np.float32),
                                   np.zeros((1, 1, 65, 65), np.float32))
        self.assertCleanError(too_long, "autoglm-run", "seq", "65", "64")
        mismatch = self.run_inputs(artifact, np.zeros((2, 8, 256), np.float32),
                                   np.zeros((2, 1, 8, 9), np.float32))
        self.assertCleanError(mismatch, "autoglm-run", "seq")
        wrong_static = self.run_inputs(artifact, np.zeros((2, 8, 128), np.float32),
                                       np.zeros((2, 1, 8, 8), np.float32))
        self.assertCleanError(wrong_static, "autoglm-run", "x")

    def test_arena_and_header_are_sized_for_the_bounds(self):
        obj = self.artifact(".o")
        with open(obj[:-2] + ".h") as f:
            header = f.read()
        self.assertIn('_SYMBOL_1_NAME "seq"', header)
        self.assertRegex(header, r"_SYMBOL_1_MAX 64\b")
        self.assertRegex(header, r"_INPUT_0_SHAPE \{4, 64, 256\}")
        self.assertRegex(header, r"_OUTPUT_0_DIM_SYMBOLS \{-2, -2, -1\}")
        out = self.cache.path("report", "m.mlir")
        result = compile_model(MODEL, out, "--emit=memref", "--report=json",
                               "--verify-memory-plan", *dim_options(MODEL))
        self.assertEqual(result.returncode, 0, describe(result))
        report = json.loads(result.stdout)
        arena = int(re.search(r"_ARENA_SIZE (\d+)u", header).group(1))
        self.assertEqual(report["arena_bytes"], arena)
        # One buffer of the largest activation, [4, 64, 512] float32, must fit.
        self.assertGreaterEqual(arena, 4 * 64 * 512 * 4)
        self.assertLessEqual(report["arena_to_bound"], 1.10)

    def test_a_range_per_symbol_is_required(self):
        out = self.cache.path("norange", "m.so")
        result = compile_model(MODEL, out, "--dim", "batch=1..4")
        self.assertCleanError(result, "autoglm-compile", "seq", "--dim seq=MIN..MAX")
        self.assertFalse(os.path.exists(out))

    def compile_one_node(self, name, node, initializers, *options):
        path = self.cache.path(name, name + ".onnx")
        graph = helper.make_graph(
            [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            initializer=initializers)
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
        out = self.cache.path(name, name + ".so")
        return out, compile_model(path, out, *options)

    def test_ops_without_symbolic_support_are_rejected(self):
        topk = helper.make_node("TopK", ["x", "k"], ["y", "i"], name="topk")
        k = [helper.make_tensor("k", TensorProto.INT64, [1], [2])]
        out, result = self.compile_one_node("topk", topk, k, "--dim", "n=1..8")
        self.assertCleanError(result, "autoglm-compile", "topk", "symbolic shapes",
                              "not supported", "--dim NAME=N")
        self.assertFalse(os.path.exists(out))
        out, pinned = self.compile_one_node("topk", topk, k, "--dim", "n=8")
        self.assertEqual(pinned.returncode, 0, describe(pinned))

    def test_slices_of_symbolic_tensors(self):
        def slice_node():
            return helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"],
                                    ["y"], name="cut")

        def bounds(axis, start, end, step=1):
            return [helper.make_tensor("starts", TensorProto.INT64, [1], [start]),
                    helper.make_tensor("ends", TensorProto.INT64, [1], [end]),
                    helper.make_tensor("axes", TensorProto.INT64, [1], [axis]),
                    helper.make_tensor("steps", TensorProto.INT64, [1], [step])]

        x = np.arange(40, dtype=np.float32).reshape(5, 8)
        # A static axis, and the symbolic axis with bounds clamped at run time
        # (from the end, past the end).
        for name, (axis, start, end), expected in [
                ("static", (1, 2, 5), x[:, 2:5]),
                ("symbolic", (0, 1, 3), x[1:3]),
                ("from_end", (0, -2, 2**62), x[-2:])]:
            with self.subTest(slice=name):
                out, result = self.compile_one_node(name, slice_node(),
                                                    bounds(axis, start, end), "--dim", "n=1..8")
                self.assertEqual(result.returncode, 0, describe(result))
                x_path = self.cache.path(name, "x.npy")
                y_path = self.cache.path(name, "y.npy")
                np.save(x_path, x)
                np.save(y_path, expected)
                ran = run_model(out, "-i", f"x={x_path}", "-e", y_path)
                self.assertEqual(ran.returncode, 0, describe(ran))
                self.assertIn("symbols: n=5", ran.stdout)
        out, backwards = self.compile_one_node("backwards", slice_node(),
                                               bounds(1, 5, 0, -1), "--dim", "n=1..8")
        self.assertCleanError(backwards, "autoglm-compile", "cut",
                              "step other than 1", "not supported")
        self.assertFalse(os.path.exists(out))


class SymbolicRealModelsTest(E2ETestCase):
    """Transformer exports made by other projects' exporters (../shared/models):
    GPT-2 with a KV cache (symbolic batch, sequence and past lengths) and a
    BERT (symbolic batch and sequence), each compiled once and checked
    against onnxruntime at four sizes."""

    SIZES = [(1, 1, 1), (2, 5, 3), (1, 32, 16), (2, 17, 8)]  # batch, past, seq

    def check(self, name, dims, feeds_for, sizes=None):
        import onnxruntime as ort
        model = os.path.join(SHARED_MODELS_DIR, name + ".onnx")
        if not os.path.isfile(model):
            self.skipTest(f"{model} not found")
        artifact = self.compiled(model, ".so", *[a for d in dims for a in ("--dim", d)])
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(7)
        for size in sizes or self.SIZES:
            with self.subTest(model=name, size=size):
                feeds = feeds_for(rng, *size)
                args = []
                for key, value in feeds.items():
                    path = self.cache.path(name, f"{size}", f"in_{key}.npy")
                    np.save(path, value)
                    args += ["-i", f"{key}={path}"]
                for i, value in enumerate(session.run(None, feeds)):
                    path = self.cache.path(name, f"{size}", f"out_{i}.npy")
                    np.save(path, value)
                    args += ["-e", path]
                result = run_model(artifact, "--rtol", str(RTOL), "--atol", str(ATOL),
                                   *args)
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertEqual(result.stdout.count(" OK"), 2, describe(result))

    def test_gpt2_attention_with_past(self):
        def feeds(rng, batch, past, seq):
            return {"input": rng.standard_normal((batch, seq, 768)).astype(np.float32),
                    "weight": (0.05 * rng.standard_normal((768, 2304))).astype(np.float32),
                    "bias": (0.05 * rng.standard_normal(2304)).astype(np.float32),
                    "past": rng.standard_normal((2, batch, 12, past, 64)).astype(np.float32)}
        self.check("gpt2_attn_past",
                   ["batch=1..2", "past_sequence_length=1..32", "seq_len=1..16"], feeds)

    def test_gpt2_megatron_layer_with_past(self):
        def feeds(rng, batch, past, seq):
            positions = np.tile(np.arange(past, past + seq) % 10, (batch, 1))
            return {"input_ids": rng.integers(0, 10, (batch, seq)).astype(np.int64),
                    "position_ids": positions.astype(np.int64),
                    "attention_mask": np.ones((batch, 1, 64, 64), np.float32),
                    "past_0": rng.standard_normal((2, batch, 2, past, 4)).astype(np.float32)}
        self.check("gpt2_megatron_1layer",
                   ["batch_size=1..2", "past_seq_len=1..32", "seq_len=1..16"], feeds)


    def test_bert(self):
        def feeds(rng, batch, _, seq):
            return {"input_ids": rng.integers(0, 20, (batch, seq)).astype(np.int64),
                    "token_type_ids": rng.integers(0, 2, (batch, seq)).astype(np.int64),
                    "input_mask": np.ones((batch, seq), np.int64)}
        self.check("bert_toy", ["batch=1..4", "max_seq_len_in_batch=1..64"], feeds,
                   [(1, 0, 1), (2, 0, 7), (3, 0, 64), (4, 0, 33)])


if __name__ == "__main__":
    unittest.main()
