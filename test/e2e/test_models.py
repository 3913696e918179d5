#!/usr/bin/env python3
"""The example models in models/: compile to shared libraries and check
autoglm-run against the stored onnxruntime references."""

import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    ATOL, MODELS_DIR, RTOL, E2ETestCase, describe, load_case, run_model,
    saved_output_name)

MODELS = ["mlp", "glm_layer", "resnet_cnn"]


class ExampleModelsTest(E2ETestCase):

    def case(self, model):
        names, inputs, outputs = load_case(os.path.join(MODELS_DIR, model))
        with open(os.path.join(MODELS_DIR, model, "outputs.json")) as f:
            output_names = json.load(f)
        self.assertEqual(len(output_names), len(outputs))
        return names, inputs, output_names, outputs

    def run_args(self, model):
        names, inputs, output_names, outputs = self.case(model)
        args = []
        for name, path in zip(names, inputs):
            args += ["--input", f"{name}={path}"]
        for name, path in zip(output_names, outputs):
            args += ["--expect", f"{name}={path}"]
        return args + ["--rtol", str(RTOL), "--atol", str(ATOL)]

    def test_matches_reference(self):
        for model in MODELS:
            with self.subTest(model=model):
                artifact = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"))
                result = run_model(artifact, *self.run_args(model))
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertIn("OK", result.stderr + result.stdout)

    def test_repeated_runs(self):
        # The last of several runs on one instance is the one checked.
        artifact = self.compiled(os.path.join(MODELS_DIR, "mlp.onnx"))
        result = run_model(artifact, *self.run_args("mlp"), "--repeat", "3")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("OK", result.stderr + result.stdout)
        result = run_model(artifact, *self.run_args("mlp"), "--repeat", "0")
        self.assertEqual(result.returncode, 2, describe(result))
        self.assertIn("--repeat", result.stderr)

    def test_positional_bindings(self):
        # Unnamed files bind in descriptor order.
        for model in MODELS:
            with self.subTest(model=model):
                artifact = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"))
                _, inputs, _, outputs = self.case(model)
                args = [a for path in inputs for a in ("-i", path)]
                args += [a for path in outputs for a in ("-e", path)]
                result = run_model(artifact, *args)
                self.assertEqual(result.returncode, 0, describe(result))

    def test_json_report(self):
        for model in MODELS:
            with self.subTest(model=model):
                artifact = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"))
                result = run_model(artifact, *self.run_args(model),
                                   "--json", "--bench", "2", "--warmup", "1")
                self.assertEqual(result.returncode, 0, describe(result))
                lines = result.stdout.strip().splitlines()
                self.assertEqual(len(lines), 1, describe(result))
                report = json.loads(lines[0])
                self.assertEqual(report["model"], model)
                self.assertTrue(report["ok"])
                self.assertEqual(report["exit_code"], 0)
                _, _, output_names, outputs = self.case(model)
                self.assertEqual([o["name"] for o in report["outputs"]],
                                 output_names)
                for entry, path in zip(report["outputs"], outputs):
                    reference = np.load(path)
                    self.assertTrue(entry["checked"])
                    self.assertTrue(entry["ok"])
                    self.assertEqual(entry["mismatches"], 0)
                    self.assertEqual(entry["shape"], list(reference.shape))
                    self.assertEqual(entry["elements"], reference.size)
                    self.assertEqual(entry["dtype"], "float32")
                    self.assertLessEqual(entry["max_abs"],
                                         ATOL + RTOL * np.abs(reference).max())
                latency = report["latency_ms"]
                self.assertEqual(latency["runs"], 2)
                self.assertGreater(latency["median"], 0)

    def test_output_dir(self):
        for model in MODELS:
            with self.subTest(model=model):
                artifact = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"))
                out_dir = self.cache.path("saved", model)
                result = run_model(artifact, *self.run_args(model),
                                   "--output-dir", out_dir)
                self.assertEqual(result.returncode, 0, describe(result))
                _, _, output_names, outputs = self.case(model)
                saved = sorted(os.listdir(out_dir))
                self.assertEqual(
                    saved, sorted(saved_output_name(n) for n in output_names))
                for name, path in zip(output_names, outputs):
                    actual = np.load(os.path.join(out_dir, saved_output_name(name)))
                    expected = np.load(path)
                    self.assertEqual(actual.dtype, expected.dtype)
                    self.assertEqual(actual.shape, expected.shape)
                    np.testing.assert_allclose(actual, expected,
                                               rtol=RTOL, atol=ATOL)


if __name__ == "__main__":
    unittest.main(verbosity=2)
