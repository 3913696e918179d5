#!/usr/bin/env python3
"""--target=cuda-emulated with int8 products: --precision int8 builds of
models/ and the models onnxruntime quantized (models/quantized), run on
this CPU, against the CPU's own int8 builds (the same integers) and
onnxruntime. On the GPU their products with a weight are cuBLASLt's
integer products, here its host version (runtime/src/cuda/emulated_blas.c).
"""

import os
import re
import shutil
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, RUN, TOOLS_DIR, E2ETestCase, describe, run,
    saved_output_name)
from test_cuda import (  # noqa: E402
    MODELS, case_arguments, case_names, symbolic_options)

GENERATE = os.path.join(TOOLS_DIR, "autoglm-generate")


class EmulatedInt8Test(E2ETestCase):
    def test_int8_sums_as_the_cpu_int8_build(self):
        """--precision int8: the CUDA target's integer products give what
        the CPU's int8 GEMM gives, bit for bit: the same quantization
        (calibrated on this CPU), the same exact sums, though the CUDA
        target's are of int8 activations (the CPU's uint8) without zero
        points, the zero point's share subtracted after the product. The
        products of mlp and glm_layer and resnet_cnn's convolutions (but
        its 27-deep stem and its 10-column classifier, which keep their
        loops) are cuBLASLt's (their host version here); with --no-kernels
        all are generated loops, with the same sums."""
        builds = (("x86_64", [], None), ("cuda-emulated", [], True),
                  ("cuda-emulated", ["--no-kernels"], False))
        for model in ("mlp", "glm_layer", "resnet_cnn"):
            calibration = os.path.join(MODELS_DIR, "calibration", model)
            outputs = []
            for target, flags, library in builds:
                lib = self.compiled(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                    f"--target={target}", "--precision", "int8",
                    "--calibrate", calibration, *flags)
                if library is not None:
                    with open(lib, "rb") as f:
                        calls = b"agl_emulated_gemm_int8" in f.read()
                    self.assertEqual(calls, library, (model, flags))
                case_dir = os.path.join(MODELS_DIR, MODELS[model][1])
                out_dir = self.cache.path("int8", target + "".join(flags),
                                          model, "")
                result = run([RUN, lib, *case_arguments(model, expect=False),
                              "--output-dir", out_dir])
                self.assertEqual(result.returncode, 0, describe(result))
                outputs.append([
                    np.load(os.path.join(out_dir, saved_output_name(n)))
                    for n in case_names(case_dir, "outputs")])
            for (target, flags, _), got in zip(builds[1:], outputs[1:]):
                with self.subTest(model=model, flags=flags):
                    for cpu, emulated in zip(outputs[0], got):
                        np.testing.assert_allclose(emulated, cpu, rtol=1e-6,
                                                   atol=1e-6)

    def test_symbolic_int8_build(self):
        """--precision int8 with symbolic dimensions (--dim batch=1..4
        --dim seq=1..64, calibrated on the case folders): one build whose
        products are cuBLASLt's, each case's outputs those of the CPU's
        symbolic int8 build, bit for bit."""
        model = "glm_layer_dynamic"
        onnx_path = os.path.join(MODELS_DIR, model + ".onnx")
        cases_dir = os.path.join(MODELS_DIR, model)
        flags = [*symbolic_options(model), "--precision", "int8",
                 "--calibrate", cases_dir]
        libs = {target: self.compiled(onnx_path, ".so", f"--target={target}",
                                      *flags)
                for target in ("x86_64", "cuda-emulated")}
        with open(libs["cuda-emulated"], "rb") as f:
            self.assertIn(b"agl_emulated_gemm_int8", f.read())
        for case in sorted(os.listdir(cases_dir)):
            case_dir = os.path.join(cases_dir, case)
            if not os.path.isdir(case_dir):
                continue
            with self.subTest(case=case):
                inputs = [arg for i, name in enumerate(
                    case_names(case_dir, "inputs"))
                    for arg in ("--input", f"{name}=" + os.path.join(
                        case_dir, f"input_{i}.npy"))]
                outputs = {}
                for target, lib in libs.items():
                    out_dir = self.cache.path("symbolic", target, case, "")
                    result = run([RUN, lib, *inputs, "--output-dir", out_dir])
                    self.assertEqual(result.returncode, 0, describe(result))
                    outputs[target] = np.load(os.path.join(
                        out_dir, saved_output_name(
                            case_names(case_dir, "outputs")[0])))
                np.testing.assert_array_equal(outputs["cuda-emulated"],
                                              outputs["x86_64"])

    def test_generation_with_the_cache_inside(self):
        """--precision int8 --max-seq-len: glm_tiny calibrated on its
        prefill case, its KV cache inside the model, generates with
        autoglm-generate the tokens the CPU's int8 build generates, its
        products cuBLASLt's."""
        model = "glm_tiny"
        calibration = self.cache.path("glm_tiny_calibration", "set_0", "")
        for name in os.listdir(os.path.join(MODELS_DIR, model, "prefill")):
            if name.startswith("input_"):
                shutil.copy(os.path.join(MODELS_DIR, model, "prefill", name),
                            calibration)
        flags = ["--dim", "batch=1", "--dim", "seq=1..32", "--dim",
                 "past=0..64", "--dim", "total=1..64", "--max-seq-len", "64",
                 "--precision", "int8", "--calibrate",
                 os.path.dirname(os.path.dirname(calibration))]
        tokens = {}
        for target in ("x86_64", "cuda-emulated"):
            lib = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"),
                                ".so", f"--target={target}", *flags)
            if target == "cuda-emulated":
                with open(lib, "rb") as f:
                    self.assertIn(b"agl_emulated_gemm_int8", f.read())
            result = run([GENERATE, lib, "--prompt-ids", "1,2,3,4,5",
                          "--max-new-tokens", "12"])
            self.assertEqual(result.returncode, 0, describe(result))
            tokens[target] = re.search(r"^ids: (.*)$", result.stdout,
                                       re.MULTILINE).group(1).split()
        self.assertEqual(len(tokens["x86_64"]), 12)
        self.assertEqual(tokens["cuda-emulated"], tokens["x86_64"])

    def test_quantized_models(self):
        """The models onnxruntime quantized (models/quantized: QDQ,
        MatMulInteger with DynamicQuantizeLinear, QLinearConv, ConvInteger)
        match onnxruntime as on the CPU (0.1% of the largest output) and
        the CPU's builds (the same integers); the products of the MLP and
        the GLM layer with a weight and the CNN's convolutions are
        cuBLASLt's int8 products, their activations made int8 also when
        DynamicQuantizeLinear computes the zero point at run time."""
        models = {f"{model}_{kind}": True for model in ("mlp", "glm_layer")
                  for kind in ("qdq", "dynamic")}
        # (quantize_dynamic's convolutions have uint8 weights: loops.)
        models.update({"resnet_cnn_qdq": True, "resnet_cnn_qlinear": True,
                       "resnet_cnn_dynamic": False})
        quantized = os.path.join(MODELS_DIR, "quantized")
        for name, library in models.items():
            with self.subTest(model=name):
                onnx_path = os.path.join(quantized, name + ".onnx")
                case_dir = os.path.join(quantized, name)
                outputs = {}
                for target in ("x86_64", "cuda-emulated"):
                    lib = self.compiled(onnx_path, ".so", f"--target={target}")
                    out_dir = self.cache.path("quantized", target, name, "")
                    inputs = [arg for i, input_name in enumerate(
                        case_names(case_dir, "inputs"))
                        for arg in ("--input", f"{input_name}=" + os.path.join(
                            case_dir, f"input_{i}.npy"))]
                    result = run([RUN, lib, *inputs, "--output-dir", out_dir])
                    self.assertEqual(result.returncode, 0, describe(result))
                    outputs[target] = np.load(os.path.join(
                        out_dir, saved_output_name(
                            case_names(case_dir, "outputs")[0])))
                reference = np.load(os.path.join(case_dir, "output_0.npy"))
                emulated = outputs["cuda-emulated"]
                self.assertLessEqual(
                    np.abs(emulated - reference).max(),
                    1e-3 * np.abs(reference).max())
                np.testing.assert_allclose(emulated, outputs["x86_64"],
                                           rtol=1e-6, atol=1e-6)
                with open(self.compiled(onnx_path, ".so",
                                        "--target=cuda-emulated"), "rb") as f:
                    self.assertEqual(b"agl_emulated_gemm_int8" in f.read(),
                                     library)


if __name__ == "__main__":
    unittest.main(verbosity=2)
