#!/usr/bin/env python3
"""Whole decoder-only language models with a KV cache (models/glm_tiny.onnx,
models/gpt2_tiny.onnx, written by models/export_llm.py): one artifact per
model, compiled with the symbolic ranges of NAME/dims.json (past from 0, so
prefill runs with empty past tensors; batch from 1 to 4), runs the prefill
of a fixed prompt, one decode step against the presents of the prefill and
two sequences (one left-padded) against a random cache, and matches
onnxruntime's logits and presents; the next token is the reference's, and
six greedy steps that feed each step's presents back as the next past give
onnxruntime's tokens."""

import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, E2ETestCase, describe, model_dims, run_model,
    saved_output_name)

MODELS = ["glm_tiny", "gpt2_tiny"]

# The tolerances of models/README.md. Logits (of order 1) are dot products
# over the hidden size after two layers, rounded differently by the
# runtime's GEMM, its polynomial exp/tanh and onnxruntime: about 1.5e-6 off
# at most; presents about 3e-6 on values of order 1 to 3.
RTOL = 1e-4
ATOL = 1e-5


class LlmModelsTest(E2ETestCase):

    def artifact(self, model):
        path = os.path.join(MODELS_DIR, model + ".onnx")
        options = [a for d in model_dims(path) for a in ("--dim", d)]
        return self.compiled(path, ".so", *options)

    def step(self, model, case):
        """Runs `case` (prefill, decode) of `model`; returns the outputs."""
        folder = os.path.join(MODELS_DIR, model)
        with open(os.path.join(folder, "inputs.json")) as f:
            inputs = json.load(f)
        with open(os.path.join(folder, "outputs.json")) as f:
            outputs = json.load(f)
        args = []
        for i, name in enumerate(inputs):
            args += ["-i", f"{name}={folder}/{case}/input_{i}.npy"]
        for i, name in enumerate(outputs):
            args += ["-e", f"{name}={folder}/{case}/output_{i}.npy"]
        out_dir = self.cache.path(model, case, "out", "x")[:-2]
        result = run_model(self.artifact(model), *args, "--rtol", str(RTOL),
                           "--atol", str(ATOL), "--output-dir", out_dir)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual(result.stdout.count(" OK"), len(outputs),
                         describe(result))
        return {name: np.load(os.path.join(out_dir, saved_output_name(name)))
                for name in outputs}

    def test_prefill_and_decode_match_onnxruntime(self):
        for model in MODELS:
            with self.subTest(model=model):
                with open(os.path.join(MODELS_DIR, model, "generate.json")) as f:
                    tokens = json.load(f)["generated"]
                prefill = self.step(model, "prefill")
                # The prompt's next token, then the decode step's.
                self.assertEqual(int(np.argmax(prefill["logits"][0, -1])), tokens[0])
                decode = self.step(model, "decode")
                self.assertEqual(decode["logits"].shape[1], 1)
                self.assertEqual(int(np.argmax(decode["logits"][0, -1])), tokens[1])

    def test_gpt2_blocks_end_in_gemm_epilogues(self):
        """GPT-2's Gemm bias reaches the residual add and the GELU through a
        view (Reshape): each block's four products still take all of it as
        their epilogue, leaving no loop of their own."""
        path = os.path.join(MODELS_DIR, "gpt2_tiny.onnx")
        options = [a for d in model_dims(path) for a in ("--dim", d)]
        _, result = self.cache.compile(path, ".so", *options, "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        gemms = [k["name"].split()[0] for k in json.loads(result.stdout)["kernels"]
                 if k["name"].startswith("sgemm")]
        # Per block: qkv (bias), attention output (bias + residual), MLP up
        # (bias + GELU, tanh form), MLP down (bias + residual); then the
        # tied LM head.
        block = ["sgemm_packed+bias", "sgemm_packed+bias+residual",
                 "sgemm_packed+bias+gelu_tanh", "sgemm_packed+bias+residual"]
        self.assertEqual(gemms, block * 2 + ["sgemm_packed"])

    def test_two_sequences_one_padded(self):
        # Symbolic batch: two rows against a cache, the second left-padded.
        for model in MODELS:
            with self.subTest(model=model):
                out = self.step(model, "batch2")
                self.assertEqual(out["logits"].shape[:2], (2, 3))


    def test_greedy_generation_with_the_cache(self):
        # A few steps of the loop a generator runs: each step's presents are
        # the next step's past, its argmax the next token; the tokens are
        # onnxruntime's (generate.json).
        steps = 6
        for model in MODELS:
            with self.subTest(model=model):
                folder = os.path.join(MODELS_DIR, model)
                with open(os.path.join(folder, "inputs.json")) as f:
                    inputs = json.load(f)
                with open(os.path.join(folder, "outputs.json")) as f:
                    outputs = json.load(f)
                with open(os.path.join(folder, "generate.json")) as f:
                    reference = json.load(f)
                prompt, expected = reference["prompt"], reference["generated"]
                cache = [np.load(f"{folder}/prefill/output_{i}.npy")
                         for i in range(1, len(outputs))]
                tokens = [expected[0]]
                for step in range(steps):
                    past = len(prompt) + step
                    feeds = [np.array([[tokens[-1]]], np.int64),
                             np.ones((1, past + 1), np.int64),
                             np.array([[past]], np.int64)] + cache
                    args = []
                    for name, array in zip(inputs, feeds):
                        path = self.cache.path(model, "gen", f"{step}", saved_output_name(name))
                        np.save(path, array)
                        args += ["-i", f"{name}={path}"]
                    out_dir = self.cache.path(model, "gen", f"{step}", "out", "x")[:-2]
                    result = run_model(self.artifact(model), *args,
                                       "--output-dir", out_dir)
                    self.assertEqual(result.returncode, 0, describe(result))
                    got = [np.load(os.path.join(out_dir, saved_output_name(n)))
                           for n in outputs]
                    self.assertEqual(got[1].shape[2], past + 1)
                    tokens.append(int(np.argmax(got[0][0, -1])))
                    cache = got[1:]
                self.assertEqual(tokens, expected[:steps + 1])


if __name__ == "__main__":
    unittest.main()
