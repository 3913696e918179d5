#!/usr/bin/env python3
"""--precision (autoglm-compile): bf16 and fp16 store the weights of the
matrix products with a constant weight in bfloat16 or IEEE half and compute
in float32. The example GLM layer and MLP against onnxruntime's float32
outputs (and fp16 against bf16: more accurate), the language models (KV
cache inside, --max-seq-len) against AutoGLM's float32 build of the same
model, the report, and the option errors (int8 has its own test,
test_int8.py); and bf16 tensors in the graph itself on a CPU without
bfloat16 instructions.

bfloat16 rounds each weight to 8 significant bits (a relative error of at
most 2^-8), half to 11 (2^-11; weights beyond 65504 would saturate, none
here); activations, softmax, norms and sums stay float32. Tolerances, for
both, against the float32 reference:

  model        max |out - ref| / max |ref|   cosine
  glm_layer    <= 0.01                        >= 0.9999 (issue 7's target)
  mlp          <= 0.01                        >= 0.9999
  LLM logits   top-1 agreement >= 90% of positions, cosine >= 0.999

Measured when written, bf16: GLM layer 0.0016 / 0.9999992, MLP 0.0031 /
0.9999972; glm_tiny top-1 agreement 100% of 32 teacher-forced positions,
logits cosine 0.999981, the first 30 of 64 greedy tokens equal float32's;
gpt2_tiny 96.9%, 0.999992, 17 of 64 (the test prints these numbers).
fp16: GLM layer 0.00017 / 0.99999999, MLP 0.00033 / 0.99999995 (about a
tenth of bf16's errors); glm_tiny and gpt2_tiny top-1 agreement 100%,
logits cosine 1.000000, all 64 greedy tokens equal float32's.
"""

import json
import os
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, TOOLS_DIR, E2ETestCase, compile_model, describe, load_case,
    run, run_model, saved_output_name)

GENERATE = os.path.join(TOOLS_DIR, "autoglm-generate")
MAX_REL, MIN_COSINE = 0.01, 0.9999
LLM_MIN_TOP1, LLM_MIN_COSINE = 0.90, 0.999
LLMS = ["glm_tiny", "gpt2_tiny"]
CAPACITY = 96


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


class PrecisionTest(E2ETestCase):

    def outputs(self, artifact, case_dir, tag, names, inputs):
        out_dir = os.path.dirname(self.cache.path(f"out-{tag}", "x"))
        args = [a for name, path in zip(names, inputs)
                for a in ("--input", f"{name}={path}")]
        result = run_model(artifact, *args, "--output-dir", out_dir)
        self.assertEqual(result.returncode, 0, describe(result))
        return out_dir

    def errors(self, model, precision):
        """{output: (max |out - ref| / max |ref|, cosine)} of `model`
        compiled with --precision `precision`, against onnxruntime's
        float32 outputs; checks the tolerances."""
        artifact = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"),
                                 ".so", "--precision", precision)
        case = os.path.join(MODELS_DIR, model)
        names, inputs, references = load_case(case)
        with open(os.path.join(case, "outputs.json")) as f:
            output_names = json.load(f)
        out_dir = self.outputs(artifact, case, f"{model}-{precision}", names,
                               inputs)
        measured = {}
        for name, ref_path in zip(output_names, references):
            got = np.load(os.path.join(out_dir, saved_output_name(name)))
            reference = np.load(ref_path)
            error = float(np.max(np.abs(got.astype(np.float64) - reference)))
            scale = float(np.max(np.abs(reference)))
            cos = cosine(got, reference)
            print(f"\n{model} {precision} {name}: max abs error "
                  f"{error:.3g} ({error / scale:.3g} of max |ref|), "
                  f"cosine {cos:.8f}", file=sys.stderr)
            self.assertLessEqual(error, MAX_REL * scale, name)
            self.assertGreaterEqual(cos, MIN_COSINE, name)
            # The weights are rounded: not the float model's bits.
            self.assertGreater(error, 1e-6, name)
            measured[name] = (error / scale, cos)
        return measured

    def test_bf16_matches_float_reference(self):
        for model in ("glm_layer", "mlp"):
            with self.subTest(model=model):
                self.errors(model, "bf16")

    def test_fp16_matches_float_reference_better_than_bf16(self):
        # Three more mantissa bits: the weights' rounding errors are 8 times
        # smaller, and so, about, are the outputs'.
        for model in ("glm_layer", "mlp"):
            with self.subTest(model=model):
                bf16 = self.errors(model, "bf16")
                fp16 = self.errors(model, "fp16")
                for name, (rel, cos) in fp16.items():
                    self.assertLess(rel, bf16[name][0] / 2, name)
                    self.assertLess(1 - cos, 1 - bf16[name][1], name)

    def test_symbolic_dimensions(self):
        for precision in ("bf16", "fp16"):
            self.check_symbolic_dimensions(precision)

    def check_symbolic_dimensions(self, precision):
        # One artifact from m 1 (the decode kernel) to 192 (packed path).
        case_root = os.path.join(MODELS_DIR, "glm_layer_dynamic")
        artifact = self.compiled(
            os.path.join(MODELS_DIR, "glm_layer_dynamic.onnx"), ".so",
            "--dim", "batch=1..4", "--dim", "seq=1..64", "--precision",
            precision)
        for case in sorted(os.listdir(case_root)):
            case_dir = os.path.join(case_root, case)
            if not os.path.isdir(case_dir):
                continue
            with self.subTest(precision=precision, case=case):
                names, inputs, references = load_case(case_dir)
                out_dir = self.outputs(artifact, case_dir,
                                       f"dyn-{precision}-{case}", names,
                                       inputs)
                got = np.load(os.path.join(out_dir, os.listdir(out_dir)[0]))
                reference = np.load(references[0])
                self.assertEqual(got.shape, reference.shape)
                error = float(np.max(np.abs(got - reference)))
                self.assertLessEqual(
                    error, MAX_REL * float(np.max(np.abs(reference))))
                self.assertGreaterEqual(cosine(got, reference), MIN_COSINE)

    def test_threads_give_the_same_bits(self):
        for precision in ("bf16", "fp16"):
            with self.subTest(precision=precision):
                self.check_threads_give_the_same_bits(precision)

    def check_threads_give_the_same_bits(self, precision):
        artifact = self.compiled(os.path.join(MODELS_DIR, "glm_layer.onnx"),
                                 ".so", "--precision", precision)
        case = os.path.join(MODELS_DIR, "glm_layer")
        names, inputs, _ = load_case(case)
        results = []
        for threads in ("1", "2"):
            out_dir = os.path.dirname(
                self.cache.path(f"t{threads}-{precision}", "x"))
            args = [a for name, path in zip(names, inputs)
                    for a in ("--input", f"{name}={path}")]
            result = run_model(artifact, *args, "--output-dir", out_dir,
                               "--threads", threads)
            self.assertEqual(result.returncode, 0, describe(result))
            results.append({f: np.load(os.path.join(out_dir, f))
                            for f in os.listdir(out_dir)})
        for name in results[0]:
            np.testing.assert_array_equal(results[0][name], results[1][name])

    def test_report_shows_bytes_and_kernels(self):
        model = os.path.join(MODELS_DIR, "glm_layer.onnx")
        out = self.cache.path("report", "glm.so")
        result = compile_model(model, out, "--precision", "bf16",
                               "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        report = json.loads(result.stdout.strip().splitlines()[-1])
        stored = report["weight_only"]
        self.assertEqual(stored["format"], "bf16")
        self.assertEqual(stored["bits"], 16)
        self.assertEqual(stored["products"], 5)
        # The five weights of the layer, 655360 floats, in half the bytes.
        self.assertEqual(stored["float_bytes"], 4 * 655360)
        self.assertEqual(stored["quantized_bytes"], 2 * 655360)
        gemms = [k["name"] for k in report["kernels"]
                 if k["name"].startswith("sgemm")]
        self.assertEqual(len(gemms), 5)
        self.assertTrue(all(name.split(" ")[0].split("+")[0] == "sgemm_bf16"
                            for name in gemms), gemms)
        self.assertIn("sgemm_bf16+residual mlp/down_proj/MatMul+y", gemms)
        result = compile_model(model, out, "--precision", "bf16", "--report",
                               "--explain")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("weight-only bf16: 5 products", result.stdout)
        self.assertIn("bfloat16 (--precision bf16), widened to float32",
                      result.stdout)

    def test_fp16_report(self):
        model = os.path.join(MODELS_DIR, "glm_layer.onnx")
        out = self.cache.path("report-fp16", "glm.so")
        result = compile_model(model, out, "--precision", "fp16",
                               "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        report = json.loads(result.stdout.strip().splitlines()[-1])
        stored = report["weight_only"]
        self.assertEqual(stored["format"], "fp16")
        self.assertEqual(stored["bits"], 16)
        self.assertEqual(stored["products"], 5)
        self.assertEqual(stored["float_bytes"], 4 * 655360)
        self.assertEqual(stored["quantized_bytes"], 2 * 655360)
        self.assertEqual(stored["saturated"], 0)
        gemms = [k["name"] for k in report["kernels"]
                 if k["name"].startswith("sgemm")]
        self.assertEqual(len(gemms), 5)
        self.assertTrue(all(name.split(" ")[0].split("+")[0] == "sgemm_f16"
                            for name in gemms), gemms)
        self.assertIn("sgemm_f16+residual mlp/down_proj/MatMul+y", gemms)
        result = compile_model(model, out, "--precision", "fp16", "--report",
                               "--explain")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("weight-only fp16: 5 products", result.stdout)
        self.assertIn("IEEE half (--precision fp16), widened to float32",
                      result.stdout)

    def test_fp32_is_the_default(self):
        model = os.path.join(MODELS_DIR, "mlp.onnx")
        out = self.cache.path("fp32", "mlp.so")
        result = compile_model(model, out, "--precision", "fp32",
                               "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        report = json.loads(result.stdout.strip().splitlines()[-1])
        self.assertNotIn("weight_only", report)

    def test_option_errors(self):
        model = os.path.join(MODELS_DIR, "mlp.onnx")
        out = self.cache.path("errors", "mlp.so")
        for options, mentions in [
                (["--precision", "fp8"], ["fp32, bf16, fp16 or int8",
                                          "'fp8'"]),
                (["--precision", "bf16", "--weight-only", "int8"],
                 ["--weight-only"]),
                (["--precision", "bf16", "--no-kernels"], ["--no-kernels"]),
                (["--precision", "fp16", "--weight-only", "int4"],
                 ["--precision fp16", "--weight-only"]),
                (["--precision", "fp16", "--no-kernels"], ["--no-kernels"]),
                (["--precision", "fp16", "--calibrate", "x"],
                 ["--calibrate needs --precision int8"])]:
            with self.subTest(options=options):
                result = compile_model(model, out, *options)
                self.assertCleanError(result, "autoglm-compile", *mentions)
                self.assertFalse(os.path.exists(out))

    def test_help_lists_precision(self):
        result = run([os.path.join(TOOLS_DIR, "autoglm-compile"), "--help"])
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("--precision", result.stdout)
        self.assertIn("bf16", result.stdout)
        self.assertIn("fp16", result.stdout)
        self.assertNotIn("not supported yet", result.stdout)


def round_to_bf16(x):
    """float32 -> the nearest bfloat16 (even on ties), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


class BFloat16GraphTest(E2ETestCase):
    """bfloat16 tensors in the graph itself (Cast to bf16, arithmetic and
    maxima on bf16, Cast back), compiled for a CPU without bfloat16
    instructions (--mcpu x86-64-v3), where LLVM calls the compiler
    runtime's __truncsfbf2 (libautoglm_rt provides it) and the conversions
    are integer arithmetic (autoglm-expand-bfloat16), and for this one:
    exactly numpy's bf16 rounding after every step."""

    def test_bf16_arithmetic_on_any_cpu(self):
        rng = np.random.default_rng(3)
        x = (rng.standard_normal([4, 37]) * 100).astype(np.float32)
        x[0, :4] = [np.inf, -np.inf, 0.0, -0.0]
        scale = np.float32(1.7)
        nodes = [
            helper.make_node("Cast", ["x"], ["xb"], to=TensorProto.BFLOAT16),
            helper.make_node("Mul", ["xb", "s"], ["m"]),
            helper.make_node("Max", ["m", "xb"], ["y_b"]),
            helper.make_node("Cast", ["y_b"], ["y"], to=TensorProto.FLOAT)]
        s = numpy_helper.from_array(np.array(scale, np.float32), "s32")
        graph = helper.make_graph(
            nodes + [helper.make_node("Cast", ["s32"], ["s"],
                                      to=TensorProto.BFLOAT16)],
            "bf16_graph",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)],
            [s])
        model = helper.make_model(graph,
                                  opset_imports=[helper.make_opsetid("", 17)])
        path = self.cache.path("bf16", "bf16_graph.onnx")
        onnx.save(model, path)
        xb = round_to_bf16(x)
        expect = np.maximum(round_to_bf16(xb * round_to_bf16(scale)), xb)
        np.save(path + ".x.npy", x)
        np.save(path + ".y.npy", expect)
        for cpu in ("x86-64-v3", "native"):
            with self.subTest(mcpu=cpu):
                artifact = self.compiled(path, f".{cpu}.so", "--mcpu", cpu)
                result = run_model(artifact, "-i", f"x={path}.x.npy", "-e",
                                   f"y={path}.y.npy", "--rtol", "0",
                                   "--atol", "0")
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertIn(" OK", result.stdout, describe(result))


class LanguageModelPrecisionTest(E2ETestCase):
    """The language models with their cache inside, bf16 and fp16 against
    AutoGLM's float32 build: teacher-forced logits over a 32-token sequence
    (prompt and the float32 continuation) and greedy generation."""

    def artifact(self, model, *options):
        return self.compiled(
            os.path.join(MODELS_DIR, model + ".onnx"), ".so",
            "--dim", "batch=1", "--dim", "seq=1..32", "--dim",
            f"past=0..{CAPACITY}", "--dim", f"total=1..{CAPACITY}",
            "--max-seq-len", str(CAPACITY), *options)

    def logits(self, artifact, folder, tag):
        args = []
        for i, name in enumerate(["input_ids", "attention_mask",
                                  "position_ids"]):
            args += ["-i", f"{name}={folder}/input_{i}.npy"]
        out_dir = os.path.dirname(self.cache.path(f"logits-{tag}", "x"))
        result = run_model(artifact, *args, "--output-dir", out_dir)
        self.assertEqual(result.returncode, 0, describe(result))
        return np.load(os.path.join(out_dir, saved_output_name("logits")))

    def test_bf16_logits_and_generation(self):
        self.check_logits_and_generation("bf16")

    def test_fp16_logits_and_generation(self):
        self.check_logits_and_generation("fp16")

    def check_logits_and_generation(self, precision):
        for model in LLMS:
            with self.subTest(model=model):
                with open(os.path.join(MODELS_DIR, model,
                                       "generate.json")) as f:
                    ref = json.load(f)
                # 32 tokens: the prompt and the start of the continuation.
                tokens = (ref["prompt"] + ref["generated"])[:32]
                folder = os.path.dirname(self.cache.path(f"seq-{model}", "x"))
                np.save(os.path.join(folder, "input_0.npy"),
                        np.array([tokens], dtype=np.int64))
                np.save(os.path.join(folder, "input_1.npy"),
                        np.ones((1, len(tokens)), dtype=np.int64))
                np.save(os.path.join(folder, "input_2.npy"),
                        np.arange(len(tokens), dtype=np.int64)[None])
                fp32 = self.logits(self.artifact(model), folder,
                                   model + "-fp32")
                artifact = self.artifact(model, "--precision", precision)
                logits = self.logits(artifact, folder,
                                     f"{model}-{precision}")
                top1 = float(np.mean(np.argmax(fp32, -1) ==
                                     np.argmax(logits, -1)))
                cos = cosine(logits, fp32)
                # Greedy generation: the tokens that match float32's.
                result = run([GENERATE, artifact, "--prompt-ids",
                              ",".join(map(str, ref["prompt"])),
                              "--max-new-tokens", str(len(ref["generated"])),
                              "--json"])
                self.assertEqual(result.returncode, 0, describe(result))
                generated = json.loads(result.stdout)["tokens"]
                self.assertEqual(len(generated), len(ref["generated"]))
                same = next((i for i, (a, b) in enumerate(
                    zip(generated, ref["generated"])) if a != b),
                    len(generated))
                print(f"\n{model} {precision}: top-1 agreement with float32 "
                      f"{top1:.1%} of {len(tokens)} positions, logits cosine "
                      f"{cos:.6f}; greedy: the first {same} of "
                      f"{len(generated)} tokens equal float32's",
                      file=sys.stderr)
                self.assertGreaterEqual(top1, LLM_MIN_TOP1)
                self.assertGreaterEqual(cos, LLM_MIN_COSINE)
                # The first token comes from the prompt's logits.
                self.assertGreaterEqual(same, 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
