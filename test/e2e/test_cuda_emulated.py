#!/usr/bin/env python3
"""--target=cuda-emulated: the CUDA target's code run on this CPU (no
toolkit, no GPU needed) against every model's references, the shared
real-world models', and the CPU's own builds where they must agree. The
artifacts for the GPU itself are checked in test_cuda.py, whose helpers
this file shares.
"""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    COMPILE, MODELS_DIR, RUN, SHARED_MODELS_DIR, E2ETestCase, describe, run)
import shared_models  # noqa: E402
from test_cuda import (  # noqa: E402
    MODELS, SYMBOLIC, OutputChecks, attention_model, case_arguments,
    dims_options)


class EmulatedKernelsTest(OutputChecks, E2ETestCase):
    """--target=cuda-emulated: the CUDA target's code (kernels with their
    blocks, threads, barriers and block-wide reductions; the cuBLAS and
    cuBLASLt calls with their arguments) compiled for this CPU, each
    block's threads run one after another, the library calls by the
    runtime's host versions. Needs no toolkit and no GPU: checked on every
    model of models/ and ../shared/models."""

    def test_models_match_their_references(self):
        """Products by the host versions of the cuBLAS calls (fp32, fp16,
        bf16 operands) and as generated loops (--no-kernels)."""
        for model in MODELS:
            for flags in ([], ["--no-kernels"], ["--precision", "fp16"],
                          ["--precision", "bf16"]):
                with self.subTest(model=model, flags=flags):
                    lib = self.compiled(
                        os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                        "--target=cuda-emulated", *dims_options(model),
                        *flags)
                    case_dir = os.path.join(MODELS_DIR, MODELS[model][1])
                    out_dir = self.cache.path(
                        "emulated", model + "".join(flags), "")
                    result = run([RUN, lib, *case_arguments(model, False),
                                  "--output-dir", out_dir])
                    self.assertEqual(result.returncode, 0, describe(result))
                    self.assertOutputsMatch(out_dir, case_dir, flags, model)

    def test_attention_kernel(self):
        """fp16 and bf16 builds run attention as one tensor-core kernel
        (autoglm-attention-to-gpu, its warp-level products emulated as the
        PTX ISA lays out their fragments): several blocks of 64 query rows,
        key steps of 32 with a partial last one, an additive mask input, a
        causal mask over more keys than queries, 4 query heads on one K/V
        head, and head sizes of 32, 48 (an odd number of 16-wide tiles),
        64 and 128."""
        for q_len, kv_len, causal, heads, kv_heads, head_dim in (
                (100, 150, False, 2, 2, 32), (80, 130, True, 2, 2, 32),
                (48, 80, True, 4, 1, 32), (40, 70, False, 1, 1, 64),
                (33, 50, False, 2, 2, 48), (20, 45, True, 2, 1, 128)):
            name = (f"attention_{q_len}x{kv_len}_{heads}on{kv_heads}"
                    f"_d{head_dim}")
            model = self.cache.path("attention", name + ".onnx")
            inputs, reference = attention_model(
                model, q_len, kv_len, heads, head_dim, causal, kv_heads)
            arguments = []
            for input_name, array in inputs.items():
                path = self.cache.path("attention", name, input_name + ".npy")
                np.save(path, array)
                arguments += ["-i", f"{input_name}={path}"]
            for precision in ("fp16", "bf16"):
                with self.subTest(name=name, precision=precision):
                    flags = ["--target=cuda-emulated", "--precision",
                             precision]
                    memref = self.compiled(model, ".mlir", *flags,
                                           "--emit=memref")
                    with open(memref) as f:
                        self.assertIn("autoglm.attention_buffers", f.read())
                    lib = self.compiled(model, ".so", *flags)
                    out_dir = self.cache.path("attention", name, precision,
                                              "")
                    result = run([RUN, lib, *arguments, "--output-dir",
                                  out_dir])
                    self.assertEqual(result.returncode, 0, describe(result))
                    self.assertMatchesReference(
                        np.load(os.path.join(out_dir, "y.npy")), reference,
                        ["--precision", precision], name)

    def test_embedded_weights(self):
        """--weights=embed: the weights are data in the artifact, handed to
        the code by the runtime (on a GPU, uploaded); no weights file."""
        for model in ("mlp", "glm_tiny"):
            with self.subTest(model=model):
                lib = self.compiled(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                    "--target=cuda-emulated", "--weights=embed",
                    *dims_options(model))
                self.assertFalse(os.path.exists(
                    os.path.splitext(lib)[0] + ".weights"))
                case_dir = os.path.join(MODELS_DIR, MODELS[model][1])
                out_dir = self.cache.path("emulated", model + "-embedded", "")
                result = run([RUN, lib, *case_arguments(model, False),
                              "--output-dir", out_dir])
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertOutputsMatch(out_dir, case_dir, [])

    def test_symbolic_dimensions(self):
        """One build with symbolic dimensions, the products cuBLAS calls
        with extents known at run time, matches every shape's references."""
        for model in SYMBOLIC:
            for flags in ([], ["--precision", "fp16"]):
                self.assertSymbolicCasesMatch(
                    model, ["--target=cuda-emulated"], flags)
        self.assertSymbolicCasesMatch(
            "glm_layer_dynamic", ["--target=cuda-emulated"], ["--no-kernels"])

    def test_shared_models_match_their_references(self):
        if not shared_models.available():
            self.skipTest(f"no shared models at {SHARED_MODELS_DIR}")
        work_dir = os.path.dirname(self.cache.path("emulated", "-"))
        for name in shared_models.model_names():
            with self.subTest(model=name):
                ev = shared_models.evaluate(name, work_dir,
                                            "--target=cuda-emulated")
                self.assertEqual(ev.status, "pass", ev.message)

    def test_shared_models_with_symbolic_dimensions(self):
        """The real-world transformers (BERT, GPT-2 with a KV cache) built
        with their dimensions kept symbolic (1..twice the stored case's
        values) match their references. (The CNNs' convolutions take no
        symbolic extents yet.)"""
        if not shared_models.available():
            self.skipTest(f"no shared models at {SHARED_MODELS_DIR}")
        work_dir = os.path.dirname(self.cache.path("emulated", "-"))
        for name in ("bert_toy", "gpt2_attn_past", "gpt2_megatron_1layer"):
            self.assertTrue(shared_models.dim_values(name), name)
            with self.subTest(model=name):
                ev = shared_models.evaluate(name, work_dir,
                                            "--target=cuda-emulated",
                                            symbolic=True)
                self.assertEqual(ev.status, "pass", ev.message)

    def test_row_kernels_are_emulated(self):
        # The normalizations and the softmax are row kernels, whose
        # barriers and block-wide reductions the emulation runs.
        result = run([COMPILE, os.path.join(MODELS_DIR, "glm_layer.onnx"),
                      "--target=cuda-emulated", "-o",
                      self.cache.path("glm_layer_emulated.so"),
                      "--print-ir-after=autoglm-map-loops-to-gpu"])
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertGreaterEqual(result.stderr.count("gpu.all_reduce"), 4)
        self.assertGreaterEqual(result.stderr.count("gpu.barrier"), 4)

    def test_options_it_cannot_take(self):
        for flags, message in (
                (["--profile"], "--target=cuda-emulated"),
                (["--device-hint", "all=host"],
                 "--device-hint needs --target=cuda"),
                (["--gpu-arch", "sm_90"], "--gpu-arch needs --target=cuda")):
            with self.subTest(flags=flags):
                result = run([COMPILE, os.path.join(MODELS_DIR, "mlp.onnx"),
                              "--target=cuda-emulated", *flags, "-o",
                              self.cache.path("refused.so")])
                self.assertCleanError(result, "autoglm-compile", message)



if __name__ == "__main__":
    unittest.main(verbosity=2)
