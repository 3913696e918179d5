#!/usr/bin/env python3
"""--weight-only int8|int4 on the CUDA target, run on this CPU
(--target=cuda-emulated, the same kernels and cuBLAS calls as the GPU's):
autoglm-weight-products-to-gpu's kernel (the generated GEMV), its
dequantizing loop before cuBLAS's 16-bit products, the choice between them
at run time (symbolic rows; --gemv-max-rows 32 here, since these small
models' products would take the GEMV at any of their row counts), the combination with --precision
fp16, and the real-world models of ../shared/models. The GPU builds'
objects are checked in test_cuda.py.
"""

import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, RUN, SHARED_MODELS_DIR, E2ETestCase, describe, run,
    saved_output_name)
import shared_models  # noqa: E402
from test_cuda import (  # noqa: E402
    DECODE, SYMBOLIC, case_arguments, case_names, symbolic_options)


# Forces the dequantizing path above 32 rows, where the estimates would
# give these small products the GEMV.
GEMV_32 = ["--gemv-max-rows", "32"]


def gpu_flags_dropped(flags):
    """`flags` without the GPU's own (GEMV_32), for the CPU build."""
    return [f for i, f in enumerate(flags)
            if f != GEMV_32[0] and (i == 0 or flags[i - 1] != GEMV_32[0])]


class WeightOnlyEmulatedTest(E2ETestCase):
    def weight_only_outputs(self, model, case, flags, target):
        """The outputs of `model`'s build for `target` with `flags` on the
        inputs of the case folder `case`, in its outputs' order."""
        if target == "x86_64":
            flags = gpu_flags_dropped(flags)
        lib = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                            f"--target={target}", *flags)
        out_dir = self.cache.path("weight-only", target, case,
                                  "".join(flags).replace("/", "_"), "")
        result = run([RUN, lib, *case_arguments(model, expect=False,
                                                case=case),
                      "--output-dir", out_dir])
        self.assertEqual(result.returncode, 0, describe(result))
        return [np.load(os.path.join(out_dir, saved_output_name(n)))
                for n in case_names(os.path.join(MODELS_DIR, case),
                                    "outputs")]

    def assertSameAsCpu(self, model, case, flags, bound):
        """The emulated GPU build's outputs within `bound` of the largest
        output of the CPU build's."""
        cpu = self.weight_only_outputs(model, case, flags, "x86_64")
        gpu = self.weight_only_outputs(model, case, flags, "cuda-emulated")
        for expected, got in zip(cpu, gpu):
            self.assertLessEqual(np.max(np.abs(got - expected)),
                                 bound * np.max(np.abs(expected)), case)

    def test_weight_only_products_as_the_cpu_build(self):
        """--weight-only: the GPU reads each weight in 8 or 4 bits with
        the CPU quantizer's values (autoglm-weight-products-to-gpu). Products
        the estimates give the generated GEMV (all of these) run it (a warp
        per output column, emulated here) and give what the CPU's
        weight-only kernels give up to the order of the float sums (within
        1e-5 of the largest output for 8 bits; 5e-4 for 4 bits, whose CPU
        kernel sums q + 2056 and so rounds more); those of more than 32 rows
        with --gemv-max-rows 32 dequantize the weight for cuBLAS's 16-bit
        products (2e-3, half-precision activations). Decode steps (one row)
        are checked with 8 bits only: the CPU's one-row 4-bit kernel rounds
        the activations to int8 where VNNI is there."""
        cases = (  # model, case folder, dimensions, bits, rows per product
            ("mlp", "mlp", [], ("int8", "int4"), "kernel"),
            ("glm_layer", "glm_layer", [], ("int8", "int4"), "kernel"),
            ("glm_tiny", "glm_tiny/prefill",
             ["batch=1", "seq=12", "past=0", "total=12"], ("int8", "int4"),
             "kernel"),
            ("glm_tiny", "glm_tiny/decode", DECODE, ("int8",), "kernel"),
            ("glm_layer_dynamic", "glm_layer_dynamic/batch3_seq64",
             ["batch=3", "seq=64"], ("int8", "int4"), "dequantized"))
        for model, case, dims, formats, path in cases:
            for bits in formats:
                with self.subTest(case=case, bits=bits):
                    flags = ["--weight-only", bits,
                             *[a for d in dims for a in ("--dim", d)],
                             *(GEMV_32 if path == "dequantized" else [])]
                    memref = self.compiled(
                        os.path.join(MODELS_DIR, model + ".onnx"), ".mlir",
                        "--target=cuda-emulated", *flags, "--emit=memref")
                    with open(memref) as f:
                        ir = f.read()
                    if path == "kernel":
                        self.assertIn('autoglm.operand_type = "q%s"'
                                      % bits[3:], ir)
                        self.assertNotIn("agl_cuda_gemm_half", ir)
                    else:
                        self.assertIn("call @agl_cuda_gemm_half", ir)
                    self.assertSameAsCpu(
                        model, case, flags,
                        2e-3 if path == "dequantized" else
                        1e-5 if bits == "int8" else 5e-4)

    def test_weight_only_with_half_precision(self):
        """--precision fp16 --weight-only int4 on a GPU: 4-bit weights, and
        attention as the fp16 build's tensor-core kernel; within 2e-3 of
        the largest output of the CPU's int4 build (half-precision
        attention)."""
        flags = ["--precision", "fp16", "--weight-only", "int4"]
        memref = self.compiled(os.path.join(MODELS_DIR, "glm_layer.onnx"),
                               ".mlir", "--target=cuda-emulated", *flags,
                               "--emit=memref")
        with open(memref) as f:
            ir = f.read()
        self.assertIn("autoglm.attention_buffers", ir)
        self.assertEqual(ir.count('autoglm.operand_type = "q4"'), 5)
        cpu = self.weight_only_outputs("glm_layer", "glm_layer",
                                       ["--weight-only", "int4"], "x86_64")
        gpu = self.weight_only_outputs("glm_layer", "glm_layer", flags,
                                       "cuda-emulated")
        for expected, got in zip(cpu, gpu):
            self.assertLessEqual(np.max(np.abs(got - expected)),
                                 2e-3 * np.max(np.abs(expected)))

    def test_weight_only_symbolic_rows(self):
        """One build with symbolic rows (up to 64) holds both ways and
        picks one at run time: the kernel for up to 32 rows
        (--gemv-max-rows 32), the dequantized weight and cuBLAS for more
        (3 x 64 here)."""
        model = "glm_layer_dynamic"
        flags = ["--weight-only", "int8", *symbolic_options(model), *GEMV_32]
        memref = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"),
                               ".mlir", "--target=cuda-emulated", *flags,
                               "--emit=memref")
        with open(memref) as f:
            ir = f.read()
        self.assertIn('autoglm.operand_type = "q8"', ir)
        self.assertIn("call @agl_cuda_gemm_half", ir)
        for case in SYMBOLIC[model][1]:
            with self.subTest(case=case):
                self.assertSameAsCpu(model, f"{model}/{case}", flags,
                                     2e-3 if case == "batch3_seq64"
                                     else 1e-5)

    def test_shared_models_with_weight_only(self):
        """The real-world models built with --weight-only int8 (BERT's 29
        products, GPT-2's) run emulated within the weights' quantization
        error of their float references: at most 3% of the largest output,
        test_weight_only.py's int8 bound (measured: 1.9% on BERT's
        seq_relationship_score, 0.05% on the GPT-2 layer)."""
        if not shared_models.available():
            self.skipTest(f"no shared models at {SHARED_MODELS_DIR}")
        for name in shared_models.model_names():
            with self.subTest(model=name):
                case_dir = os.path.join(SHARED_MODELS_DIR, name)
                dims = [a for d, v in shared_models.dim_values(name).items()
                        for a in ("--dim", f"{d}={v}")]
                lib = self.compiled(
                    os.path.join(SHARED_MODELS_DIR, name + ".onnx"), ".so",
                    "--target=cuda-emulated", "--weight-only", "int8", *dims)
                input_names, inputs, outputs = shared_models.load_case(
                    case_dir)
                out_dir = self.cache.path("weight-only", "shared", name, "")
                result = run([RUN, lib, *[
                    a for n, p in zip(input_names, inputs)
                    for a in ("--input", f"{n}={p}")],
                    "--output-dir", out_dir])
                self.assertEqual(result.returncode, 0, describe(result))
                with open(os.path.join(case_dir, "meta.json")) as f:
                    names = [o["name"] for o in json.load(f)["run"]["outputs"]]
                for output, path in zip(names, outputs):
                    expected = np.load(path)
                    if not np.issubdtype(expected.dtype, np.floating):
                        continue
                    got = np.load(os.path.join(out_dir,
                                               saved_output_name(output)))
                    self.assertLessEqual(np.max(np.abs(got - expected)),
                                         0.03 * np.max(np.abs(expected)),
                                         output)


if __name__ == "__main__":
    unittest.main(verbosity=2)
