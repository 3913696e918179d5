#!/usr/bin/env python3
"""Generation with the KV cache inside the model: models/glm_tiny.onnx and
models/gpt2_tiny.onnx compiled with --max-seq-len run their prompt through
autoglm-run with onnxruntime's prefill logits, and autoglm-generate
continues it greedily with onnxruntime's tokens (NAME/generate.json, written
by models/export_llm.py from an onnxruntime KV-cache loop). Top-p sampling
is reproducible from its seed; a model without a cache, a prompt longer than
the `seq` range, a generation longer than the cache and malformed ids are
clean errors. Compiled with --last-token logits, the prefill returns the
last row of onnxruntime's logits and generation gives the same tokens.
All of it again for the GPU's code compiled for this CPU
(--target=cuda-emulated)."""

import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, TOOLS_DIR, E2ETestCase, compile_model, describe, run,
    run_model)

GENERATE = os.path.join(TOOLS_DIR, "autoglm-generate")
MODELS = ["glm_tiny", "gpt2_tiny"]
CAPACITY = 96
# As test_llm_models.py: logits of order 1 summed over the vocabulary.
RTOL, ATOL = 1e-4, 1e-4


class GenerateTest(E2ETestCase):
    TARGET = ()  # options that pick the target

    def artifact(self, model, *options):
        return self.compiled(
            os.path.join(MODELS_DIR, model + ".onnx"), ".so", *self.TARGET,
            "--dim", "batch=1", "--dim", "seq=1..32", "--dim",
            f"past=0..{CAPACITY}", "--dim", f"total=1..{CAPACITY}",
            "--max-seq-len", str(CAPACITY), *options)

    def reference(self, model):
        with open(os.path.join(MODELS_DIR, model, "generate.json")) as f:
            return json.load(f)

    def generate(self, artifact, *options):
        return run([GENERATE, artifact, *options])

    def test_prefill_logits_match_onnxruntime(self):
        for model in MODELS:
            with self.subTest(model=model):
                folder = os.path.join(MODELS_DIR, model, "prefill")
                # The cache is state now: only the first three inputs remain.
                args = []
                for i, name in enumerate(["input_ids", "attention_mask",
                                          "position_ids"]):
                    args += ["-i", f"{name}={folder}/input_{i}.npy"]
                result = run_model(self.artifact(model), *args, "-e",
                                   f"logits={folder}/output_0.npy", "--rtol",
                                   str(RTOL), "--atol", str(ATOL))
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertIn("OK", result.stdout, describe(result))

    def test_greedy_tokens_equal_onnxruntime(self):
        for model in MODELS:
            with self.subTest(model=model):
                ref = self.reference(model)
                result = self.generate(
                    self.artifact(model), "--prompt-ids",
                    ",".join(map(str, ref["prompt"])), "--max-new-tokens",
                    str(len(ref["generated"])), "--json")
                self.assertEqual(result.returncode, 0, describe(result))
                report = json.loads(result.stdout)
                self.assertEqual(report["tokens"], ref["generated"])
                self.assertEqual(report["decode_steps"],
                                 len(ref["generated"]) - 1)
                self.assertGreater(report["decode_tokens_per_s"], 0)
                # A cold start (no warm-up run) gives the same tokens: the
                # warm-up leaves an empty cache behind.
                cold = self.generate(
                    self.artifact(model), "--prompt-ids",
                    ",".join(map(str, ref["prompt"])), "--max-new-tokens",
                    "8", "--no-warmup", "--json")
                self.assertEqual(cold.returncode, 0, describe(cold))
                self.assertEqual(json.loads(cold.stdout)["tokens"],
                                 ref["generated"][:8])

    def test_last_token_logits(self):
        # --last-token logits: the prefill returns the prompt's last row of
        # logits (onnxruntime's), and generation gives the same tokens.
        for model in MODELS:
            with self.subTest(model=model):
                artifact = self.artifact(model, "--last-token", "logits")
                folder = os.path.join(MODELS_DIR, model, "prefill")
                expected = np.load(f"{folder}/output_0.npy")[:, -1:]
                last = self.cache.path(model, "last_logits.npy")
                np.save(last, expected)
                args = []
                for i, name in enumerate(["input_ids", "attention_mask",
                                          "position_ids"]):
                    args += ["-i", f"{name}={folder}/input_{i}.npy"]
                result = run_model(artifact, *args, "-e", f"logits={last}",
                                   "--rtol", str(RTOL), "--atol", str(ATOL))
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertIn("OK", result.stdout, describe(result))

                ref = self.reference(model)
                result = self.generate(
                    artifact, "--prompt-ids", ",".join(map(str, ref["prompt"])),
                    "--max-new-tokens", str(len(ref["generated"])), "--json")
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertEqual(json.loads(result.stdout)["tokens"],
                                 ref["generated"])

    def test_last_token_of_a_missing_output_is_an_error(self):
        out = self.cache.path("missing.so")
        result = compile_model(os.path.join(MODELS_DIR, "glm_tiny.onnx"), out,
                               "--dim", "batch=1", "--dim", "seq=1..8",
                               "--dim", "past=0..16", "--dim", "total=1..16",
                               "--last-token", "scores")
        self.assertCleanError(result, "autoglm-compile",
                              "--last-token: the model has no output 'scores'",
                              one_line=False)
        self.assertFalse(os.path.exists(out))

    def test_top_p_is_reproducible_from_the_seed(self):
        artifact = self.artifact("glm_tiny")
        runs = [self.generate(artifact, "--prompt-ids", "1,2,3",
                              "--max-new-tokens", "12", "--sampling", "top-p",
                              "--top-p", "0.9", "--temperature", "1.5",
                              "--seed", "5", "--json") for _ in range(2)]
        for result in runs:
            self.assertEqual(result.returncode, 0, describe(result))
        first, second = (json.loads(r.stdout)["tokens"] for r in runs)
        self.assertEqual(first, second)
        self.assertEqual(len(first), 12)

    def test_errors_are_clean(self):
        artifact = self.artifact("glm_tiny")
        without_cache = self.compiled(
            os.path.join(MODELS_DIR, "mlp.onnx"), ".so")
        cases = [
            ([without_cache, "--prompt-ids", "1"], "keeps no KV cache"),
            ([artifact, "--prompt-ids", ",".join(["1"] * 33)],
             "at most 32 tokens"),
            ([artifact, "--prompt-ids", "1,2", "--max-new-tokens", "200"],
             f"keeps {CAPACITY} positions"),
            ([artifact, "--prompt-ids", "1,x"], "'x' is not a token id"),
            ([artifact, "--prompt-ids", "999999"], "outside the vocabulary"),
        ]
        for args, message in cases:
            with self.subTest(message=message):
                result = self.generate(*args)
                self.assertEqual(result.returncode, 2, describe(result))
                self.assertIn("autoglm-generate: error:", result.stderr)
                self.assertIn(message, result.stderr, describe(result))
                self.assertEqual(result.stdout, "")


class EmulatedGpuGenerateTest(GenerateTest):
    """The GPU's code compiled for this CPU (--target=cuda-emulated): the
    cache in the arena, its length kept by the runtime after the symbol
    values; the same tokens."""
    TARGET = ("--target=cuda-emulated",)


if __name__ == "__main__":
    unittest.main()
