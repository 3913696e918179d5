#!/usr/bin/env python3
"""Weight-only quantization (autoglm-compile --weight-only int8|int4): the
example GLM layer and MLP against their float32 references, the report of
the bytes saved and of the kernel each product uses, the option errors.

The references are onnxruntime's float32 outputs; quantized weights change
the results by their quantization error, so the checks are per mode, on
the largest absolute error relative to the largest reference value and on
the cosine similarity of the whole output:

  mode (group 128)   max |out - ref| / max |ref|   cosine
  int8               <= 0.03                        >= 0.9995
  int4               <= 0.30                        >= 0.98

Measured when written (the models' weights are Gaussian, the hardest case
for few bits): GLM layer int8 0.0056 / 0.999988, int4 0.082 / 0.99701;
MLP int8 0.011 / 0.99995, int4 0.185 / 0.98932.
"""

import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, E2ETestCase, compile_model, describe, load_case, run_model,
    saved_output_name)

TOLERANCES = {  # mode: (max abs error / max |reference|, least cosine)
    "int8": (0.03, 0.9995),
    "int4": (0.30, 0.98),
}
MODELS = ["glm_layer", "mlp"]


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


class WeightOnlyTest(E2ETestCase):

    def outputs(self, artifact, model, tag, *options):
        """Runs `artifact` on the model's inputs; the outputs (name ->
        array) and the references."""
        names, inputs, references = load_case(os.path.join(MODELS_DIR, model))
        with open(os.path.join(MODELS_DIR, model, "outputs.json")) as f:
            output_names = json.load(f)
        out_dir = self.cache.path(f"out-{model}-{tag}", "x")
        out_dir = os.path.dirname(out_dir)
        args = []
        for name, path in zip(names, inputs):
            args += ["--input", f"{name}={path}"]
        result = run_model(artifact, *args, "--output-dir", out_dir, *options)
        self.assertEqual(result.returncode, 0, describe(result))
        got = {name: np.load(os.path.join(out_dir,
                                          saved_output_name(name)))
               for name in output_names}
        return got, dict(zip(output_names, [np.load(p) for p in references]))

    def test_matches_float_reference_within_tolerance(self):
        for model in MODELS:
            for mode, (max_rel, min_cos) in TOLERANCES.items():
                with self.subTest(model=model, mode=mode):
                    artifact = self.compiled(
                        os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                        "--weight-only", mode)
                    got, references = self.outputs(artifact, model, mode)
                    for name, reference in references.items():
                        error = float(np.max(np.abs(
                            got[name].astype(np.float64) - reference)))
                        scale = float(np.max(np.abs(reference)))
                        self.assertLessEqual(error, max_rel * scale,
                                             f"{name}: max abs error {error}")
                        self.assertGreaterEqual(cosine(got[name], reference),
                                                min_cos, name)
                        # Quantized, not the float weights.
                        self.assertGreater(error, 1e-4, name)

    def test_symbolic_dimensions(self):
        # One artifact at every size: m 1 (the decode kernel) to 192 (the
        # packed path), from the run's extents.
        case_root = os.path.join(MODELS_DIR, "glm_layer_dynamic")
        for mode, (max_rel, min_cos) in TOLERANCES.items():
            artifact = self.compiled(
                os.path.join(MODELS_DIR, "glm_layer_dynamic.onnx"), ".so",
                "--dim", "batch=1..4", "--dim", "seq=1..64",
                "--weight-only", mode)
            for case in sorted(os.listdir(case_root)):
                case_dir = os.path.join(case_root, case)
                if not os.path.isdir(case_dir):
                    continue
                with self.subTest(mode=mode, case=case):
                    names, inputs, references = load_case(case_dir)
                    out_dir = os.path.dirname(
                        self.cache.path(f"dyn-{mode}-{case}", "x"))
                    args = [a for name, path in zip(names, inputs)
                            for a in ("--input", f"{name}={path}")]
                    result = run_model(artifact, *args, "--output-dir",
                                       out_dir)
                    self.assertEqual(result.returncode, 0, describe(result))
                    got = np.load(os.path.join(out_dir, os.listdir(out_dir)[0]))
                    reference = np.load(references[0])
                    self.assertEqual(got.shape, reference.shape)
                    error = float(np.max(np.abs(got - reference)))
                    self.assertLessEqual(
                        error, max_rel * float(np.max(np.abs(reference))))
                    self.assertGreaterEqual(cosine(got, reference), min_cos)

    def test_threads_give_the_same_bits(self):
        # Threads split the columns; each element is summed in one order.
        artifact = self.compiled(os.path.join(MODELS_DIR, "glm_layer.onnx"),
                                 ".so", "--weight-only", "int4")
        one, _ = self.outputs(artifact, "glm_layer", "t1", "--threads", "1")
        two, _ = self.outputs(artifact, "glm_layer", "t2", "--threads", "2")
        for name in one:
            np.testing.assert_array_equal(one[name], two[name])

    def test_group_size(self):
        for group in ("32", "64"):
            with self.subTest(group=group):
                artifact = self.compiled(
                    os.path.join(MODELS_DIR, "mlp.onnx"), ".so",
                    "--weight-only", "int4", "--group-size", group)
                got, references = self.outputs(artifact, "mlp", "g" + group)
                for name, reference in references.items():
                    self.assertGreaterEqual(cosine(got[name], reference),
                                            TOLERANCES["int4"][1])

    def test_report_shows_bytes_and_kernels(self):
        model = os.path.join(MODELS_DIR, "glm_layer.onnx")
        out = self.cache.path("report", "glm.so")
        result = compile_model(model, out, "--weight-only", "int4",
                               "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        report = json.loads(result.stdout.strip().splitlines()[-1])
        quant = report["weight_only"]
        self.assertEqual(quant["bits"], 4)
        self.assertEqual(quant["group_size"], 128)
        self.assertEqual(quant["products"], 5)
        # The five weights of the layer, 655360 floats; 4 bits each plus a
        # 4-byte scale per 128: 17/128 of the float bytes.
        self.assertEqual(quant["float_bytes"], 4 * 655360)
        self.assertEqual(quant["quantized_bytes"],
                         quant["float_bytes"] // 8 * 17 // 16)
        self.assertEqual(quant["saved_bytes"],
                         quant["float_bytes"] - quant["quantized_bytes"])
        gemms = [k["name"] for k in report["kernels"]
                 if k["name"].startswith("sgemm")]
        self.assertEqual(len(gemms), 5)
        # All five quantized, o_proj and down_proj with their residual adds
        # fused into the quantized call, up_proj with SwiGLU's gate.
        self.assertTrue(all(name.split(" ")[0] in ("sgemm_q4",
                                                   "sgemm_q4+residual",
                                                   "sgemm_q4+gate_silu")
                            for name in gemms), gemms)
        self.assertIn("sgemm_q4+residual mlp/down_proj/MatMul+y", gemms)
        self.assertIn("sgemm_q4+gate_silu mlp/up_proj/MatMul+mlp/act/Sigmoid"
                      "+mlp/act/Mul+mlp/Mul", gemms)
        self.assertIn("sgemm_q4+residual self_attn/o_proj/MatMul"
                      "+residual_attn/Add", gemms)
        result = compile_model(model, out, "--weight-only", "int8",
                               "--report", "--explain")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("weight-only int8: 5 products, group size 128",
                      result.stdout)
        self.assertIn("sgemm_q8+residual mlp/down_proj/MatMul+y",
                      result.stdout)
        self.assertIn("weight-only int8 (scale per 128 depths", result.stdout)

    def test_option_errors(self):
        model = os.path.join(MODELS_DIR, "mlp.onnx")
        out = self.cache.path("errors", "mlp.so")
        for options, mention in [
                (["--weight-only", "int4", "--group-size", "48"],
                 "multiple of 32"),
                (["--weight-only", "int8", "--group-size", "0"],
                 "multiple of 32"),
                (["--group-size", "64"], "--weight-only"),
                (["--weight-only", "int8", "--no-kernels"], "--no-kernels")]:
            with self.subTest(options=options):
                result = compile_model(model, out, *options)
                self.assertCleanError(result, "autoglm-compile", mention)
                self.assertFalse(os.path.exists(out))
        result = compile_model(model, out, "--weight-only", "int3")
        self.assertEqual(result.returncode, 2, describe(result))


if __name__ == "__main__":
    unittest.main(verbosity=2)
