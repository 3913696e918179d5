#!/usr/bin/env python3
"""Weights in a file (autoglm-compile --weights=file, the default above
1 GiB of weights): the weights leave the code for OUT.weights, which the
runtime maps, and are packed, rounded or quantized at compile time as
embedded ones are. So a model compiled either way computes the same bits
(same kernels, same packed panels, one thread), a decoder with its KV
cache generates the same tokens, its products call the packed kernels (no
packing of B at run time), and a quantized model's file holds the
quantized bytes, not the float weights.
"""

import os
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, TOOLS_DIR, E2ETestCase, describe, load_case, run_model)

CALIBRATION_DIR = os.path.join(MODELS_DIR, "calibration")

# (model, options) compiled both ways; convolutions and matrix products,
# float32 and each way of storing the weights smaller.
CASES = [
    ("mlp", []),
    ("glm_layer", []),
    ("resnet_cnn", []),
    ("glm_layer", ["--weight-only", "int4"]),
    ("mlp", ["--weight-only", "int8"]),
    ("mlp", ["--precision", "bf16"]),
    ("mlp", ["--precision", "fp16"]),
    ("mlp", ["--precision", "int8", "--calibrate",
             os.path.join(CALIBRATION_DIR, "mlp")]),
]


class WeightsFileTest(E2ETestCase):

    def outputs(self, artifact, model, tag):
        """The artifact's outputs on the model's inputs (name -> array), at
        one thread."""
        names, inputs, _ = load_case(os.path.join(MODELS_DIR, model))
        out_dir = os.path.dirname(self.cache.path(f"out-{tag}", "x"))
        args = [a for name, path in zip(names, inputs)
                for a in ("--input", f"{name}={path}")]
        result = run_model(artifact, *args, "--output-dir", out_dir,
                           "--threads", "1")
        self.assertEqual(result.returncode, 0, describe(result))
        return {f: np.load(os.path.join(out_dir, f))
                for f in sorted(os.listdir(out_dir))}

    def test_same_bits_as_embedded_weights(self):
        for i, (model, options) in enumerate(CASES):
            with self.subTest(model=model, options=options):
                onnx_path = os.path.join(MODELS_DIR, model + ".onnx")
                embedded = self.compiled(onnx_path, ".so", *options,
                                         "--weights=embed")
                in_file = self.compiled(onnx_path, ".so", *options,
                                        "--weights=file")
                weights = os.path.splitext(in_file)[0] + ".weights"
                self.assertTrue(os.path.isfile(weights))
                self.assertFalse(os.path.exists(
                    os.path.splitext(embedded)[0] + ".weights"))
                # The code without its weights is the smaller object.
                self.assertLess(os.path.getsize(in_file),
                                os.path.getsize(embedded))
                got = self.outputs(in_file, model, f"file{i}")
                expected = self.outputs(embedded, model, f"embed{i}")
                self.assertEqual(sorted(got), sorted(expected))
                self.assertTrue(got)
                for name in got:
                    np.testing.assert_array_equal(got[name], expected[name],
                                                  err_msg=name)

    def test_float_outputs_match_the_reference(self):
        names, inputs, references = load_case(
            os.path.join(MODELS_DIR, "glm_layer"))
        artifact = self.compiled(os.path.join(MODELS_DIR, "glm_layer.onnx"),
                                 ".so", "--weights=file")
        args = [a for name, path in zip(names, inputs)
                for a in ("--input", f"{name}={path}")]
        for reference in references:
            args += ["--expect", reference]
        result = run_model(artifact, *args, "--atol", "1e-4", "--rtol",
                           "1e-3")
        self.assertEqual(result.returncode, 0, describe(result))

    def explain(self, model):
        out = self.cache.path(f"explain-{model}", model + ".so")
        result = subprocess.run(
            [os.path.join(TOOLS_DIR, "autoglm-compile"),
             os.path.join(MODELS_DIR, model + ".onnx"), "-o", out,
             "--weights=file", "--explain"],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, describe(result))
        return result.stdout + result.stderr

    def test_products_read_packed_weights(self):
        # Every product of the GLM layer has a constant weight: all call
        # the kernel whose B was packed at compile time, none packs it.
        text = self.explain("glm_layer")
        self.assertIn("sgemm_packed", text)
        self.assertIn("B packed at compile time", text)
        self.assertNotIn("B packed at run time", text)
        # The CNN's larger convolutions run the implicit-GEMM kernel on
        # filters packed when it was compiled.
        self.assertIn("filters packed at compile time",
                      self.explain("resnet_cnn"))

    def test_decoder_with_a_kv_cache_generates_the_same_tokens(self):
        # A decoder as large LLMs are compiled: KV cache inside, symbolic
        # lengths, weights in a file, float32 and int4.
        dims = ["--dim", "batch=1", "--dim", "seq=1..64", "--dim",
                "past=0..256", "--dim", "total=1..256", "--max-seq-len", "256"]
        onnx_path = os.path.join(MODELS_DIR, "glm_tiny.onnx")
        for options in ([], ["--weight-only", "int4"]):
            with self.subTest(options=options):
                tokens = []
                for weights in ("--weights=embed", "--weights=file"):
                    artifact = self.compiled(onnx_path, ".so", *dims,
                                             *options, weights)
                    result = subprocess.run(
                        [os.path.join(TOOLS_DIR, "autoglm-generate"),
                         artifact, "--prompt-ids", "1,2,3,4",
                         "--max-new-tokens", "8"],
                        capture_output=True, text=True, timeout=300)
                    self.assertEqual(result.returncode, 0, describe(result))
                    ids = [line for line in result.stdout.splitlines()
                           if line.startswith("ids:")]
                    self.assertEqual(len(ids), 1, describe(result))
                    self.assertEqual(len(ids[0].split()), 9)  # "ids:" + 8
                    tokens.append(ids[0])
                self.assertEqual(tokens[0], tokens[1])

    def test_quantized_file_holds_the_quantized_bytes(self):
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        fp32 = self.compiled(onnx_path, ".so", "--weights=file")
        int4 = self.compiled(onnx_path, ".so", "--weights=file",
                             "--weight-only", "int4")
        size = {path: os.path.getsize(os.path.splitext(path)[0] + ".weights")
                for path in (fp32, int4)}
        # Half a byte per weight plus a scale per 128: under a sixth.
        self.assertLess(size[int4] * 6, size[fp32])


if __name__ == "__main__":
    unittest.main(verbosity=2)
