#!/usr/bin/env python3
"""--target=cuda on every model in models/, on machines with the CUDA
toolkit and no GPU (where CI runs) as well as with one.

Each model is compiled for sm_90 into an object whose device code cuobjdump
lists (a cubin for sm_90 and PTX per kernel), whose kernel launches pass the
parameters its kernels declare, and that links with the runtime. Where no
GPU (or no driver) is present, running it must fail with the runtime's
"no CUDA device" error, never crash; where one is, its outputs must match
the references. Without the toolkit the whole file is skipped, saying so.

Models with symbolic dimensions are compiled with the dimensions pinned,
and also with them kept symbolic (one build for every shape of their case
folders); the decoders take their KV cache as inputs and outputs (no
--max-seq-len).
"""

import importlib.util
import json
import os
import re
import shutil
import sys
import unittest

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    ATOL, MODELS_DIR, RT_STATIC, RTOL, RUN, RUNTIME_INCLUDE,
    SHARED_MODELS_DIR, TOOLS_DIR, E2ETestCase, describe, run, run_model,
    saved_output_name)
import shared_models  # noqa: E402

OPT = os.path.join(TOOLS_DIR, "autoglm-opt")
GENERATE = os.path.join(TOOLS_DIR, "autoglm-generate")

# Every model in models/: how its symbolic dimensions are pinned, and the
# folder of inputs and references (under models/) of that shape. The
# decoders run one decode step after 12 positions.
DECODE = ["batch=1", "seq=1", "past=12", "total=13"]
MODELS = {
    "mlp": ([], "mlp"),
    "glm_layer": ([], "glm_layer"),
    "resnet_cnn": ([], "resnet_cnn"),
    "glm_layer_dynamic": (["batch=1", "seq=32"],
                          "glm_layer_dynamic/batch1_seq32"),
    "glm_tiny": (DECODE, "glm_tiny/decode"),
    "gpt2_tiny": (DECODE, "gpt2_tiny/decode"),
}
# Models with their dimensions symbolic: one build runs the case folders of
# every shape (the decoders' prefill from an empty cache, a decode step,
# and a batch of two).
DECODER_RANGES = ["batch=1..4", "seq=1..32", "past=0..96", "total=1..128"]
SYMBOLIC = {
    "glm_layer_dynamic": (["batch=1..4", "seq=1..64"], [
        "batch1_seq1", "batch1_seq32", "batch2_seq7", "batch3_seq64"]),
    "glm_tiny": (DECODER_RANGES, ["prefill", "decode", "batch2"]),
    "gpt2_tiny": (DECODER_RANGES, ["prefill", "decode", "batch2"]),
}

# A decoder compiled with or without its KV cache inside (--max-seq-len 128).
KV_CACHE_DIMS = [a for d in ("batch=1", "seq=1..32", "past=0..128",
                             "total=1..128") for a in ("--dim", d)]


def symbolic_options(model):
    return [a for d in SYMBOLIC[model][0] for a in ("--dim", d)]
# --precision fp16 on a GPU rounds both operands of every product: checked
# against the float32 references as test_precision.py checks the CPU's
# (max |out - ref| <= 1% of max |ref|, cosine >= 0.9999). Measured on an
# H200: at most 0.1% and 0.9999997 (glm_tiny).
HALF_MAX_REL, HALF_MIN_COSINE = 0.01, 0.9999
# resnet_cnn's class probabilities in bf16 (both operands of its
# convolutions rounded to 8 bits of mantissa, layer after layer; the
# transformer targets above do not cover it): measured 0.9% of the largest
# with its classifier on cuBLAS, 1.2% with the generated GEMV, which rounds
# only the weight.
HALF_MAX_REL_OF = {("resnet_cnn", "bf16"): 0.02}
# Models the CUDA target cannot compile yet, with the error expected.
UNSUPPORTED = {}


def cuda_toolkit():
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(variable):
            return os.environ[variable]
    return "/usr/local/cuda"


def find_cuobjdump():
    """cuobjdump from $CUOBJDUMP, PATH or the toolkit, else the copy that
    the triton Python package ships; None when there is none."""
    candidates = [os.environ.get("CUOBJDUMP"), shutil.which("cuobjdump"),
                  os.path.join(cuda_toolkit(), "bin", "cuobjdump")]
    spec = importlib.util.find_spec("triton")
    if spec and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidates.append(os.path.join(location, "backends", "nvidia",
                                           "bin", "cuobjdump"))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def dims_options(model):
    return [a for d in MODELS[model][0] for a in ("--dim", d)]


def case_names(case_dir, kind):
    """Input or output names of a case folder: its own inputs.json /
    outputs.json, or its model's (the decoders' prefill/decode folders)."""
    for folder in (case_dir, os.path.dirname(case_dir)):
        path = os.path.join(folder, kind + ".json")
        if os.path.isfile(path):
            with open(path) as f:
                return json.load(f)
    raise FileNotFoundError(f"no {kind}.json for {case_dir}")


def case_files(case_dir, kind):
    files = []
    while os.path.isfile(os.path.join(case_dir, f"{kind}_{len(files)}.npy")):
        files.append(os.path.join(case_dir, f"{kind}_{len(files)}.npy"))
    return files


def case_arguments(model, expect=True, case=None):
    """autoglm-run's --input (and --expect) arguments for the case of
    `model` in models/ (or the case folder `case` under models/)."""
    case_dir = os.path.join(MODELS_DIR, case or MODELS[model][1])
    args = [a for n, p in zip(case_names(case_dir, "inputs"),
                              case_files(case_dir, "input"))
            for a in ("--input", f"{n}={p}")]
    if expect:
        args += [a for n, p in zip(case_names(case_dir, "outputs"),
                                   case_files(case_dir, "output"))
                 for a in ("--expect", f"{n}={p}")]
    return args


# Creates an instance of the model linked in and prints the status and the
# runtime's message.
INSTANCE_PROGRAM = r"""
#include "autoglm/runtime.h"
#include <stdio.h>
const agl_model_desc *mlp_model(void);
int main(void) {
  const agl_model_desc *model = mlp_model();
  printf("device %u\n", (unsigned)model->device);
  agl_instance *instance = NULL;
  agl_status status = agl_instance_create(model, &instance);
  printf("status %d: %s\n", (int)status,
         status == AGL_OK ? "ok" : agl_last_error());
  agl_instance_destroy(instance);
  return 0;
}
"""


def attention_model(path, q_len, kv_len, heads, head_dim, causal,
                    kv_heads=None):
    """Writes to `path` an attention over inputs q [1, H, Sq, D], k and v
    [1, Hkv, Sk, D] (Hkv = `kv_heads`, else H; each K/V head repeated for
    H / Hkv query heads by Reshape, Expand, Reshape): softmax(q kᵀ /
    sqrt(D) + mask) v, the mask an input [1, 1, Sq, Sk] added to the
    scores, or (`causal`) a constant Where that leaves key j out of row i
    past i + Sk - Sq. Returns the inputs (seeded, every row seeing a key)
    and the float64 reference."""
    from onnx import TensorProto, helper, numpy_helper
    kv_heads = kv_heads or heads
    group = heads // kv_heads
    rng = np.random.default_rng(q_len * 1000 + kv_len)
    q = rng.standard_normal((1, heads, q_len, head_dim)).astype(np.float32)
    k = rng.standard_normal((1, kv_heads, kv_len, head_dim)).astype(
        np.float32)
    v = rng.standard_normal((1, kv_heads, kv_len, head_dim)).astype(
        np.float32)
    scale = np.float32(head_dim ** -0.5)
    inits = [numpy_helper.from_array(np.array(scale), "scale")]
    nodes = []
    keys, values = "k", "v"
    if group > 1:
        shapes = {"grouped": [1, kv_heads, 1, kv_len, head_dim],
                  "wide": [1, kv_heads, group, kv_len, head_dim],
                  "merged": [1, heads, kv_len, head_dim]}
        inits += [numpy_helper.from_array(np.array(shape, np.int64), name)
                  for name, shape in shapes.items()]
        for name in ("k", "v"):
            nodes += [helper.make_node("Reshape", [name, "grouped"],
                                       [name + "_g"]),
                      helper.make_node("Expand", [name + "_g", "wide"],
                                       [name + "_w"]),
                      helper.make_node("Reshape", [name + "_w", "merged"],
                                       [name + "_r"])]
        keys, values = "k_r", "v_r"
    nodes += [helper.make_node("Transpose", [keys], ["kt"],
                               perm=[0, 1, 3, 2]),
              helper.make_node("MatMul", ["q", "kt"], ["s"]),
              helper.make_node("Mul", ["s", "scale"], ["scaled"])]
    inputs = {"q": q, "k": k, "v": v}
    rows, cols = np.indices((q_len, kv_len))
    if causal:
        keep = cols <= rows + kv_len - q_len
        inits += [numpy_helper.from_array(keep, "keep"),
                  numpy_helper.from_array(np.array(-1e9, np.float32), "off")]
        nodes.append(helper.make_node("Where", ["keep", "scaled", "off"],
                                      ["masked"]))
        bias = np.where(keep, 0.0, -np.inf)
    else:
        mask = np.where(rng.random((1, 1, q_len, kv_len)) < 0.3, -np.inf,
                        rng.standard_normal((1, 1, q_len, kv_len)))
        mask[..., 0] = 0.0  # every row sees the first key
        inputs["mask"] = mask.astype(np.float32)
        nodes.append(helper.make_node("Add", ["scaled", "mask"], ["masked"]))
        bias = mask
    nodes += [helper.make_node("Softmax", ["masked"], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", values], ["y"])]
    graph = helper.make_graph(
        nodes, "attention",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, a.shape)
         for name, a in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, heads, q_len, head_dim])], inits)
    onnx.save_model(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scores = (q.astype(np.float64) @ k.transpose(0, 1, 3, 2)) * scale + bias
    p = np.exp(scores - scores.max(-1, keepdims=True))
    reference = (p / p.sum(-1, keepdims=True)) @ v
    return inputs, reference.astype(np.float32)


class OutputChecks:
    """How a CUDA build's output is checked against its float32 reference."""

    def assertMatchesReference(self, actual, expected, flags, name,
                               model=None):
        if flags[:1] != ["--precision"]:
            # fp32: the CPU's tolerances.
            np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL,
                                       err_msg=name)
            return
        # 16-bit operands: test_precision.py's measures.
        error = np.max(np.abs(actual - expected))
        max_rel = HALF_MAX_REL_OF.get((model, flags[1]), HALF_MAX_REL)
        self.assertLessEqual(error, max_rel * np.max(np.abs(expected)),
                             name)
        a, e = actual.ravel(), expected.ravel()
        self.assertGreaterEqual(
            a @ e / (np.linalg.norm(a) * np.linalg.norm(e)), HALF_MIN_COSINE,
            name)

    def assertOutputsMatch(self, out_dir, case_dir, flags, model=None):
        """Each output that autoglm-run saved in `out_dir` against its
        reference in the case folder `case_dir`."""
        for name, reference in zip(case_names(case_dir, "outputs"),
                                   case_files(case_dir, "output")):
            self.assertMatchesReference(
                np.load(os.path.join(out_dir, saved_output_name(name))),
                np.load(reference), flags, name, model)

    def assertSymbolicCasesMatch(self, model, target, flags):
        """One build of `model` with symbolic dimensions (for `target`, a
        list of options, with `flags`) matches the references of each of
        its case folders."""
        lib = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                            *target, *symbolic_options(model), *flags)
        out_dir = self.cache.path(
            "symbolic", model + "".join(target + flags).replace("/", "_"), "")
        for case in SYMBOLIC[model][1]:
            with self.subTest(model=model, case=case, flags=flags):
                case = os.path.join(model, case)
                case_out = os.path.join(out_dir, os.path.basename(case), "")
                result = run_model(lib, *case_arguments(None, False, case),
                                   "--output-dir", case_out)
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertOutputsMatch(case_out,
                                        os.path.join(MODELS_DIR, case), flags)


class CudaTargetTest(OutputChecks, E2ETestCase):

    @classmethod
    def setUpClass(cls):
        ptxas = os.path.join(cuda_toolkit(), "bin", "ptxas")
        if not os.access(ptxas, os.X_OK):
            raise unittest.SkipTest(
                f"CUDA toolkit not found ({ptxas} missing; set CUDA_HOME): "
                f"--target=cuda cannot build GPU code here")
        cls.cuobjdump = find_cuobjdump()
        super().setUpClass()

    def compiled_cuda(self, model, suffix=".o", arch="sm_90"):
        return self.compiled(os.path.join(MODELS_DIR, model + ".onnx"),
                             suffix, "--target=cuda", f"--gpu-arch={arch}",
                             *dims_options(model))

    def cuobjdump_lists(self, obj):
        result = run([self.cuobjdump, "--list-elf", obj])
        self.assertEqual(result.returncode, 0, describe(result))
        elfs = re.findall(r"ELF file\s+\d+: (\S+)", result.stdout)
        result = run([self.cuobjdump, "--list-ptx", obj])
        self.assertEqual(result.returncode, 0, describe(result))
        ptxs = re.findall(r"PTX file\s+\d+: (\S+)", result.stdout)
        return elfs, ptxs

    def test_objects_hold_cubin_and_ptx(self):
        for model in MODELS:
            with self.subTest(model=model):
                obj = self.compiled_cuda(model)
                stem = os.path.splitext(obj)[0]
                for suffix in (".h", ".weights"):
                    self.assertTrue(os.path.isfile(stem + suffix), suffix)
                symbols = run(["nm", obj]).stdout
                for name in ("mgpuModuleLoad", "mgpuLaunchKernel"):
                    self.assertRegex(symbols, rf"\bU {name}\b")
                self.assertRegex(symbols, rf"\bT {model}_model\b")
                if self.cuobjdump is None:
                    self.skipTest("no cuobjdump (not in the toolkit, PATH, "
                                  "$CUOBJDUMP or triton): device code not "
                                  "listed")
                elfs, ptxs = self.cuobjdump_lists(obj)
                self.assertGreater(len(elfs), 0)
                self.assertEqual(len(elfs), len(ptxs))
                for name in elfs:
                    self.assertTrue(name.endswith(".sm_90.cubin"), name)
                for name in ptxs:
                    self.assertTrue(name.endswith(".sm_90.ptx"), name)
                ptx = run([self.cuobjdump, "-ptx", obj]).stdout
                entries = re.findall(r"\.entry\s+(\w+)", ptx)
                self.assertEqual(len(entries), len(ptxs))
                # k<launch>_<ONNX node>, one per launch.
                self.assertEqual(
                    sorted(int(re.match(r"k(\d+)(_\w+)?$", e).group(1))
                           for e in entries), list(range(len(entries))))
                if model == "mlp":
                    self.assertIn("k0_fc1_MatMul", entries)

    def test_shared_models_compile(self):
        """Every real-world model of ../shared/models (with the dimensions
        of its meta.json) compiles for sm_90, a cubin and its PTX per
        kernel: dynquant_matmul's scale, scalar code on tensor data, in a
        one-thread kernel of its own."""
        if not shared_models.available():
            self.skipTest(f"no shared models at {SHARED_MODELS_DIR}")
        for name in shared_models.model_names():
            with self.subTest(model=name):
                with open(os.path.join(SHARED_MODELS_DIR, name,
                                       "meta.json")) as f:
                    meta = json.load(f)
                dims = []
                for dim, value in meta.get("dim_values_used", {}).items():
                    dims += ["--dim", f"{dim}={value}"]
                obj = self.compiled(
                    os.path.join(SHARED_MODELS_DIR, name + ".onnx"), ".o",
                    "--target=cuda", "--gpu-arch=sm_90", *dims)
                if self.cuobjdump is not None:  # else compiled only
                    elfs, ptxs = self.cuobjdump_lists(obj)
                    self.assertGreater(len(elfs), 0)
                    self.assertEqual(len(elfs), len(ptxs))

    def test_products_through_cublas(self):
        """Matrix products are agl_cuda_sgemm calls (cuBLAS), those with a
        residual add agl_cuda_gemm_epilogue calls (cuBLASLt); with
        --precision fp16 or bf16 agl_cuda_gemm_half calls, whose 16-bit
        weights make the weights file smaller, except attention's: one
        tensor-core kernel with the precision's operands; with --no-kernels
        they stay generated kernels."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        # cuBLAS for every product (at 32 rows the estimates give most of
        # them the generated GEMV: test_gemv_for_decode_sized_products).
        cublas = ["--gemv-max-rows", "0"]
        fp32 = self.compiled(onnx_path, ".o", "--target=cuda", *cublas)
        symbols = run(["nm", fp32]).stdout
        self.assertRegex(symbols, r"\bU agl_cuda_sgemm\b")
        self.assertRegex(symbols, r"\bU agl_cuda_gemm_epilogue\b")
        self.assertNotIn("agl_cuda_gemm_half", symbols)
        fp32_bytes = os.path.getsize(os.path.splitext(fp32)[0] + ".weights")
        for precision in ("fp16", "bf16"):
            with self.subTest(precision=precision):
                obj = self.compiled(onnx_path, ".o", "--target=cuda",
                                    "--precision", precision, *cublas)
                symbols = run(["nm", obj]).stdout
                self.assertRegex(symbols, r"\bU agl_cuda_gemm_half\b")
                self.assertRegex(symbols, r"\bU agl_cuda_gemm_epilogue\b")
                _, result = self.cache.compile(
                    onnx_path, ".o", "--target=cuda", "--precision",
                    precision, "--report=json", *cublas)
                placement = json.loads(result.stdout)["placement"]
                float32 = [e["nodes"] for e in placement
                           if e.get("operands") == "f32"]
                operands = {"fp16": "f16", "bf16": "bf16"}[precision]
                tensor_core_kernels = [
                    e for e in placement
                    if e["kind"] == "kernel" and e.get("operands") == operands]
                self.assertEqual(float32, [])
                self.assertEqual(len(tensor_core_kernels), 1)
                weights = os.path.getsize(os.path.splitext(obj)[0] +
                                          ".weights")
                # The products' weights are most of the bytes.
                self.assertLess(weights, 0.6 * fp32_bytes)
        loops = self.compiled(onnx_path, ".o", "--target=cuda",
                              "--no-kernels")
        self.assertNotIn("agl_cuda", run(["nm", loops]).stdout)

    def test_weight_only_products(self):
        """--weight-only int8/int4: the weights' products (32 rows here)
        are kernels of their own that read 8- or 4-bit weights (the report
        says so, and the weights file shrinks); attention's products of
        two activations stay cuBLAS calls in float32."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        fp32 = self.compiled(onnx_path, ".o", "--target=cuda")
        fp32_bytes = os.path.getsize(os.path.splitext(fp32)[0] + ".weights")
        for bits, fraction in (("int8", 0.3), ("int4", 0.2)):
            with self.subTest(bits=bits):
                obj, result = self.cache.compile(
                    onnx_path, ".o", "--target=cuda", "--weight-only", bits,
                    "--report=json")
                self.assertEqual(result.returncode, 0, describe(result))
                report = json.loads(result.stdout)
                kernels = [e["nodes"] for e in report["placement"]
                           if e.get("operands") == "q" + bits[3:]]
                self.assertEqual(len(kernels), 5, kernels)
                for nodes in ("qkv", "o_proj", "gate_proj", "up_proj",
                              "down_proj"):
                    self.assertTrue(any(nodes in k for k in kernels), nodes)
                self.assertEqual(report["weight_only"]["products"], 5)
                symbols = run(["nm", obj]).stdout
                self.assertRegex(symbols, r"\bU agl_cuda_sgemm\b")
                self.assertNotIn("agl_cuda_gemm_half", symbols)
                weights = os.path.getsize(os.path.splitext(obj)[0] +
                                          ".weights")
                self.assertLess(weights, fraction * fp32_bytes)

    def test_gemv_for_decode_sized_products(self):
        """Each product with a constant weight gets the generated GEMV where
        the reference GPU's peaks rate it faster than cuBLAS, and the report
        says why: glm_layer's 32 rows in fp16 and bf16 (cuBLAS would first
        convert the rows to 16 bits, in a launch of its own), each weight
        read in the precision's type, one copy of it (the weights file no
        larger than with cuBLAS), attention's products of two activations
        as before; in float32, where the GEMV would stream each weight once
        per 8 rows, cuBLAS. --gemv-max-rows overrides the estimates."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")

        def build(*flags):
            obj, result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                             "--report=json", *flags)
            self.assertEqual(result.returncode, 0, describe(result))
            weights = os.path.getsize(os.path.splitext(obj)[0] + ".weights")
            return json.loads(result.stdout)["placement"], weights

        estimate = (r"\(est\. [\d.]+ us\) over (cuBLAS|generated GEMV) "
                    r"\(est\. [\d.]+ us\) at 32 rows on H100 SXM \(sm_90\)$")
        for precision in ("fp16", "bf16"):
            with self.subTest(precision=precision):
                placement, weights = build("--precision", precision)
                gemv = [e for e in placement if e.get("operands") ==
                        "gemv-" + precision.replace("fp", "f")]
                self.assertEqual(len(gemv), 5, placement)
                for nodes in ("qkv", "o_proj", "gate_proj", "up_proj",
                              "down_proj"):
                    self.assertTrue(any(nodes in e["nodes"] for e in gemv),
                                    nodes)
                for e in gemv:
                    self.assertRegex(e["choice"], "^generated GEMV " + estimate)
                    self.assertEqual(e["kind"], "kernel")
                cublas, cublas_weights = build("--precision", precision,
                                               "--gemv-max-rows", "0")
                self.assertFalse([e for e in cublas if "gemv" in
                                  e.get("operands", "")])
                self.assertLessEqual(weights, cublas_weights)
                # 31 rows at most: not these products of 32.
                fewer, _ = build("--precision", precision, "--gemv-max-rows",
                                 "31")
                self.assertEqual([e["name"] for e in fewer],
                                 [e["name"] for e in cublas])
        placement, _ = build()
        products = [e for e in placement if "choice" in e]
        self.assertEqual(len(products), 5, placement)
        for e in products:
            self.assertEqual(e["kind"], "library")
            self.assertRegex(e["choice"], "^cuBLAS " + estimate)

    def test_int8_products_through_cublaslt(self):
        """--precision int8: each product with a weight is one cuBLASLt
        call of int8 operands (int32 sums), its FLOPs and bytes reported,
        rated at the tensor cores' int8 peak by --explain. (The weight's
        column-by-column copy and the zero point's share: the lit tests.)"""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        calibration = ("--calibrate",
                       os.path.join(MODELS_DIR, "calibration", "glm_layer"))
        result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                    "--precision", "int8", *calibration,
                                    "--report=json")[1]
        self.assertEqual(result.returncode, 0, describe(result))
        # (The accuracy report goes to standard error: the JSON is alone.)
        placement = json.loads(result.stdout)["placement"]
        self.assertIn("int8 accuracy against float32", result.stderr)
        int8 = [e for e in placement if e["name"] == "agl_cuda_gemm_int8"]
        self.assertEqual([e["nodes"] for e in int8], [
            "self_attn/qkv/MatMul", "self_attn/o_proj/MatMul",
            "mlp/gate_proj/MatMul", "mlp/up_proj/MatMul",
            "mlp/down_proj/MatMul"])
        # 32 tokens: 2 m n k operations, m k + k n bytes in, 4 m n out.
        self.assertEqual(int8[0]["flops"], 2 * 32 * 256 * 768)
        self.assertEqual(int8[0]["bytes"],
                         32 * 256 + 256 * 768 + 4 * 32 * 768)
        text = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                  "--precision", "int8", *calibration,
                                  "--explain")[1].stdout
        self.assertIn("(1979 TOP/s int8)", text)
        rows = [line for line in text.splitlines()
                if "agl_cuda_gemm_int8" in line]
        self.assertEqual(len(rows), 5)
        self.assertEqual(text.count("cuBLASLt product of int8 operands on "
                                    "the tensor cores, int32 sums"), 5)
        # The QKV product at 3350 GB/s (memory bound at these sizes).
        estimate = max(int8[0]["flops"] / 1979e6, int8[0]["bytes"] / 3350e3)
        self.assertIn(f"{estimate:.2f}", rows[0].split())

    def test_report_lists_the_placement(self):
        """--report names, in order, every kernel the object holds and every
        cuBLAS call with its epilogue; none of glm_layer's kernels runs in
        one thread."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        obj, result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                         "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        placement = json.loads(result.stdout)["placement"]
        kernels = [e["name"] for e in placement if e["kind"] == "kernel"]
        library = [e for e in placement if e["kind"] == "library"]
        self.assertEqual([int(re.match(r"k(\d+)_", k).group(1))
                          for k in kernels], list(range(len(kernels))))
        self.assertFalse([e for e in placement if "one_thread" in e])
        # One product per MatMul node of the graph; the two whose residual
        # add follows take it in (cuBLASLt), the others are plain cuBLAS.
        self.assertEqual([e["name"] for e in library],
                         ["agl_cuda_sgemm"] * 3 + ["agl_cuda_gemm_epilogue"] +
                         ["agl_cuda_sgemm"] * 2 + ["agl_cuda_gemm_epilogue"])
        fused = {e["nodes"]: e["epilogue"] for e in library if "epilogue" in e}
        self.assertEqual(fused, {
            "self_attn/o_proj/MatMul+residual_attn/Add": "residual",
            "mlp/down_proj/MatMul+y": "residual"})
        text = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                  "--report")[1].stdout
        self.assertRegex(text, rf"placement: +{len(kernels)} GPU kernels "
                               r"\(0 in one thread\), 7 library calls "
                               r"\(cuBLAS, 2 through cuBLASLt with their "
                               r"epilogue\); nothing on the host")
        if self.cuobjdump is None:
            self.skipTest("no cuobjdump: the object's kernels not listed")
        ptx = run([self.cuobjdump, "-ptx", obj]).stdout
        self.assertEqual(sorted(re.findall(r"\.entry\s+(\w+)", ptx)),
                         sorted(kernels))

    def test_explain_rates_each_launch(self):
        """--explain: a row per launch of the placement, in its order, with
        its grid and block, FLOPs and bytes (those of the report's JSON) and
        a roofline estimate at the reference GPU's peaks, or at the ones
        given; products with 16-bit operands at the tensor cores' peak."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        cublas = ["--gemv-max-rows", "0"]
        placement = json.loads(self.cache.compile(
            onnx_path, ".o", "--target=cuda", "--report=json", *cublas)[
                1].stdout)["placement"]
        for e in placement:
            self.assertIn("bytes", e, e)
            self.assertIn("flops", e, e)
            if e["kind"] == "kernel":
                self.assertEqual(len(e["grid"]), 3, e)
                self.assertEqual(len(e["block"]), 3, e)
        # glm_layer's products: 2 m n k FLOPs each (m = 32 tokens).
        products = [e["flops"] for e in placement if e["kind"] == "library"]
        self.assertEqual(products[0], 2 * 32 * 256 * 768)
        obj, result = self.cache.compile(
            onnx_path, ".o", "--target=cuda", "--explain", "--peak-gflops",
            "1000", "--bandwidth-gbs", "100", *cublas)
        self.assertEqual(result.returncode, 0, describe(result))
        lines = result.stdout.splitlines()
        self.assertIn("1.0 TFLOP/s FP32", lines[0])
        self.assertIn("100 GB/s", lines[0])
        rows = [line.split() for line in lines[1:-1]
                if re.match(r"\s*\d+\s", line)]
        self.assertEqual([r[1] for r in rows], [e["name"] for e in placement])
        total = 0.0
        for row, e in zip(rows, placement):
            grid = (["x".join(map(str, e["grid"])), "x",
                     "x".join(map(str, e["block"]))]
                    if e["kind"] == "kernel" else ["-"])
            self.assertEqual(row[2:2 + len(grid)], grid)
            # The roofline at 1 TFLOP/s and 100 GB/s, in us.
            compute, memory = e["flops"] / 1e6, e["bytes"] / 1e5
            bound = "compute" if compute >= memory else "memory"
            self.assertEqual(row[row.index(bound) + 1],
                             f"{max(compute, memory):.2f}", row)
            total += max(compute, memory)
        kernels = len([e for e in placement if e["kind"] == "kernel"])
        self.assertTrue(lines[-1].startswith(
            f"{kernels} kernels, 7 library calls"), lines[-1])
        self.assertIn(f"roofline estimate {total:.1f} us", lines[-1])
        # fp16 operands: the products at the tensor cores' peak.
        half = self.cache.compile(
            onnx_path, ".o", "--target=cuda", "--precision", "fp16",
            "--explain", "--tensor-peak-gflops", "2000", *cublas)[1].stdout
        self.assertIn("2.0 TFLOP/s with 16-bit operands", half)
        self.assertIn("f16 operands on the tensor cores", half)

    def test_report_gives_the_device_memory(self):
        """--report adds up the device memory an instance allocates: the
        arena, the inputs and outputs at their largest (each rounded up to
        256 bytes), the weights file, cuBLASLt's 32 MiB workspace where a
        product goes through it (an epilogue, int8 operands)."""
        def aligned(n):
            return (n + 255) // 256 * 256
        int8 = ["--precision", "int8", "--calibrate",
                os.path.join(MODELS_DIR, "calibration", "mlp")]
        for model, dims in (("mlp", []), ("resnet_cnn", []),
                            ("glm_layer_dynamic",
                             symbolic_options("glm_layer_dynamic")),
                            ("mlp", int8)):
            with self.subTest(model=model, flags=dims):
                out, result = self.cache.compile(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".o",
                    "--target=cuda", *dims, "--report=json")
                self.assertEqual(result.returncode, 0, describe(result))
                report = json.loads(result.stdout)
                memory = report["device_memory"]
                lt_calls = [e for e in report["placement"] if e["name"] in (
                    "agl_cuda_gemm_epilogue", "agl_cuda_gemm_int8")]
                if dims == int8:  # the int8 products are cuBLASLt's
                    self.assertEqual(len(lt_calls), 2)
                self.assertEqual(memory["arena"],
                                 aligned(report["arena_bytes"]))
                self.assertEqual(memory["weights"], os.path.getsize(
                    os.path.splitext(out)[0] + ".weights"))
                self.assertEqual(memory["cublaslt_workspace"],
                                 32 << 20 if lt_calls else 0)
                # The inputs and outputs at their largest: the header's
                # sizes (at the symbols' maxima).
                with open(os.path.splitext(out)[0] + ".h") as f:
                    header = f.read()
                sizes = {kind: [aligned(int(n)) for n in re.findall(
                    rf"#define \w+_{kind}_\d+_NUM_BYTES (\d+)", header)]
                    for kind in ("INPUT", "OUTPUT")}
                self.assertTrue(sizes["INPUT"] and sizes["OUTPUT"], header)
                self.assertEqual(memory["inputs"], sum(sizes["INPUT"]))
                self.assertEqual(memory["outputs"], sum(sizes["OUTPUT"]))
                self.assertEqual(memory["total"], sum(
                    memory[k] for k in ("arena", "inputs", "outputs",
                                        "weights", "cublaslt_workspace")))

    def test_profile_times_each_launch(self):
        """--profile: every kernel launch and library call in the placement
        is bracketed by the runtime's event calls; on the fake driver, a
        model with its ops on the host (a host section) gives autoglm-run
        --profile one event per timed run."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        _, result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                       "--profile", "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        placement = json.loads(result.stdout)["placement"]
        ir, result = self.cache.compile(onnx_path, ".mlir", "--target=cuda",
                                        "--profile", "--emit=llvm-dialect")
        self.assertEqual(result.returncode, 0, describe(result))
        with open(ir) as f:
            text = f.read()
        self.assertEqual(text.count("llvm.call @agl_cuda_profile_begin"),
                         len(placement))
        self.assertEqual(text.count("llvm.call @agl_cuda_profile_end"),
                         len(placement))
        names = re.findall(r'name = "([^"]*)"', text.split("autoglm.kernels")
                           [1].split("]")[0])
        self.assertEqual(names, [f"{e['name']} {e['nodes']}"
                                 for e in placement])

        driver = os.environ.get("AUTOGLM_FAKE_CUDA_DRIVER")
        cublas = os.environ.get("AUTOGLM_FAKE_CUBLAS")
        if not driver or not os.path.isfile(driver) or not cublas:
            self.skipTest("the fake CUDA driver and cuBLAS are not built")
        # A product alone is one cuBLAS call, which the fake cuBLAS runs:
        # its FLOPs give the table a rate.
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        rng = np.random.default_rng(5)
        w = rng.standard_normal((64, 32)).astype(np.float32)
        x = rng.standard_normal((16, 64)).astype(np.float32)
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
            "mm", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                 [16, 64])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 32])],
            [numpy_helper.from_array(w, "w")])
        model = self.cache.path("mm.onnx")
        onnx.save(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]), model)
        np.save(self.cache.path("mm_x.npy"), x)
        np.save(self.cache.path("mm_y.npy"), x @ w)
        lib = self.compiled(model, ".so", "--target=cuda", "--profile")
        result = run(["env", f"AUTOGLM_CUDA_DRIVER={driver}",
                      f"AUTOGLM_CUBLAS={cublas}", RUN, lib,
                      "--input", self.cache.path("mm_x.npy"),
                      "--expect", self.cache.path("mm_y.npy"),
                      "--bench", "2", "--profile",
                      self.cache.path("mm_trace.json")])
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertRegex(result.stdout, r"\n +[\d.]+ +100\.0% +2 +[\d.]+ +"
                                        r"[\d.]+ +- +agl_cuda_sgemm mm\n")
        # Host sections are timed too.
        lib = self.compiled(os.path.join(MODELS_DIR, "mlp.onnx"), ".so",
                            "--target=cuda", "--device-hint", "all=host",
                            "--profile")
        trace = self.cache.path("mlp_cuda_profile.json")
        result = run(["env", f"AUTOGLM_CUDA_DRIVER={driver}", RUN, lib,
                      *case_arguments("mlp"), "--bench", "3", "--warmup", "1",
                      "--profile", trace])
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("profile: 3 kernel calls, trace in", result.stdout)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        kernels = [e for e in events if e.get("cat") == "kernel"]
        self.assertEqual(len(kernels), 3)
        self.assertTrue(all(e["name"].startswith("host fc1/MatMul")
                            for e in kernels), kernels)

    def test_symbolic_dimensions_compile(self):
        """Symbolic dimensions kept as ranges: the same kernels and cuBLAS
        calls as with pinned dimensions, their extents known at run time."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer_dynamic.onnx")
        placements = []
        for dims in (symbolic_options("glm_layer_dynamic"),
                     dims_options("glm_layer_dynamic")):
            obj, result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                             *dims, "--report=json")
            self.assertEqual(result.returncode, 0, describe(result))
            self.assertTrue(os.path.isfile(obj))
            placements.append(json.loads(result.stdout)["placement"])
        # The same kernels (row kernels, transposes folded into products,
        # the result computed in the output) and the same library calls.
        symbolic, pinned = (
            [(e["kind"], e["name"], e.get("epilogue")) for e in placement]
            for placement in placements)
        self.assertEqual(symbolic, pinned)
        self.assertEqual(len([e for e in symbolic if e[0] == "library"]), 9)
        self.assertEqual(len([e for e in symbolic if e[0] == "kernel"]), 4)

    def test_kv_cache_compiles(self):
        """--max-seq-len: the decoders keep their KV cache in the device
        arena and read its length after the symbol values (the header
        says so); the products over the cache are the cuBLAS calls of the
        build that takes the cache as inputs."""
        for model in ("glm_tiny", "gpt2_tiny"):
            with self.subTest(model=model):
                onnx_path = os.path.join(MODELS_DIR, model + ".onnx")
                calls = []
                for cache in (["--max-seq-len", "128"], []):
                    obj, result = self.cache.compile(
                        onnx_path, ".o", "--target=cuda", *KV_CACHE_DIMS,
                        *cache, "--report=json")
                    self.assertEqual(result.returncode, 0, describe(result))
                    calls.append([(e["name"], e.get("epilogue"))
                                  for e in json.loads(result.stdout)[
                                      "placement"]
                                  if e["kind"] == "library"])
                    with open(os.path.splitext(obj)[0] + ".h") as f:
                        header = f.read()
                    self.assertEqual(
                        bool(cache), "is the KV cache length" in header)
                kept, explicit = calls
                self.assertGreater(len(kept), 0)
                self.assertEqual(kept, explicit)

    def test_embedded_weights(self):
        """--weights=embed: no weights file; the weights are data in the
        object (which the runtime uploads when an instance is created)."""
        for model in ("mlp", "glm_layer"):
            with self.subTest(model=model):
                obj = self.compiled(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".o",
                    "--target=cuda", "--weights=embed", *dims_options(model))
                stem = os.path.splitext(obj)[0]
                self.assertFalse(os.path.exists(stem + ".weights"))
                with open(stem + ".h") as f:
                    header = f.read()
                self.assertIn("weights embedded in the artifact", header)
                size = int(re.search(r"_WEIGHTS_SIZE (\d+)u", header)[1])
                self.assertGreater(size, 0)
                sections = run(["size", "-A", obj]).stdout
                data = sum(int(m[1]) for m in re.finditer(
                    r"^\.l?rodata\S*\s+(\d+)", sections, re.M))
                self.assertGreaterEqual(data, size, sections)

    def test_other_architectures(self):
        for arch in ("sm_80", "sm_89"):
            with self.subTest(arch=arch):
                obj = self.compiled_cuda("mlp", arch=arch)
                if self.cuobjdump is None:
                    self.skipTest("no cuobjdump: device code not listed")
                elfs, ptxs = self.cuobjdump_lists(obj)
                self.assertTrue(elfs and all(
                    name.endswith(f".{arch}.cubin") for name in elfs), elfs)
                self.assertTrue(ptxs and all(
                    name.endswith(f".{arch}.ptx") for name in ptxs), ptxs)

    def test_launches_match_kernel_parameters(self):
        """Each launch passes as many parameters as its kernel declares
        (memref descriptors on both sides), checked on the PTX that the
        GPU stage makes of the planned model."""
        for model in ("mlp", "glm_layer", "resnet_cnn"):
            with self.subTest(model=model):
                planned = self.compiled(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".mlir",
                    "--target=cuda", "--emit=memref", *dims_options(model))
                lowered = self.cache.path("isa", model + ".mlir")
                result = run([OPT, planned, "--autoglm-stage-cuda=format=isa",
                              "-o", lowered])
                self.assertEqual(result.returncode, 0, describe(result))
                with open(lowered) as f:
                    text = f.read()
                launches = {m.group(1): m.group(2).count(" : ") for m in
                            re.finditer(r"gpu.launch_func\s+@(\w+)::@\w+ .*? "
                                        r"args\((.*)\)\n", text)}
                kernels = {}
                for line in text.splitlines():
                    m = re.match(r"\s*gpu.binary @(\w+)\s", line)
                    if m:
                        kernels[m.group(1)] = len(set(re.findall(
                            m.group(1) + r"_param_\d+", line)))
                self.assertGreater(len(launches), 0)
                self.assertEqual(set(launches), set(kernels))
                for name, count in launches.items():
                    self.assertEqual(count, kernels[name], name)

    def test_unsupported_models_fail_clearly(self):
        if not UNSUPPORTED:
            self.skipTest("every model in models/ compiles for CUDA")
        for model, message in UNSUPPORTED.items():
            with self.subTest(model=model):
                out, result = self.cache.compile(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".o",
                    "--target=cuda", *dims_options(model))
                self.assertCleanError(result, "autoglm-compile", message,
                                      one_line=False)
                self.assertFalse(os.path.exists(out))

    def test_linked_program_reports_the_device(self):
        """The object links with the static runtime into a program; without
        a GPU, creating an instance fails with the "no CUDA device" error
        (also with the toolkit's stub driver)."""
        cc = shutil.which("cc")
        if cc is None:
            self.skipTest("no system C compiler 'cc'")
        obj = self.compiled_cuda("mlp")
        source = self.cache.path("program", "main.c")
        with open(source, "w") as f:
            f.write(INSTANCE_PROGRAM)
        exe = self.cache.path("program", "instance")
        result = run([cc, "-std=c11", "-Wall", "-Werror", "-I",
                      RUNTIME_INCLUDE, source, obj, RT_STATIC, "-lm", "-ldl",
                      "-lpthread", "-o", exe])
        self.assertEqual(result.returncode, 0, describe(result))
        result = run([exe])
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("device 1", result.stdout)
        if "status 0: ok" in result.stdout:
            return  # a GPU: test_run_on_device compares the outputs
        self.assertIn("status 8: no CUDA device: ", result.stdout)
        stub = os.path.join(cuda_toolkit(), "lib64", "stubs", "libcuda.so")
        if os.path.isfile(stub):
            result = run(["env", f"AUTOGLM_CUDA_DRIVER={stub}", exe])
            self.assertIn("status 8: no CUDA device: cuInit failed: "
                          "CUDA_ERROR_STUB_LIBRARY", result.stdout,
                          describe(result))

    def run_case(self, model, *flags):
        """autoglm-run on the model's shared library (compiled with `flags`)
        with the inputs of its case; returns (result, output folder, case
        folder)."""
        lib = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                            "--target=cuda", "--gpu-arch=sm_90",
                            *dims_options(model), *flags)
        case_dir = os.path.join(MODELS_DIR, MODELS[model][1])
        self.assertEqual(len(case_names(case_dir, "inputs")),
                         len(case_files(case_dir, "input")))
        out_dir = self.cache.path(
            "outputs", model + "".join(flags).replace("/", "_"), "")
        result = run_model(lib, *case_arguments(model, expect=False),
                           "--output-dir", out_dir)
        self.assertNoCrash(result)
        return result, out_dir, case_dir

    def test_device_hints_place_families_on_the_host(self):
        """--device-hint FAMILY=host: glm_layer's normalizations and
        softmax (reductions) become host sections, listed in the report
        with their reason; with all=host nothing is left for the GPU."""
        onnx_path = os.path.join(MODELS_DIR, "glm_layer.onnx")
        _, result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                       "--device-hint", "reduction=host",
                                       "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        placement = json.loads(result.stdout)["placement"]
        host = [e for e in placement if e["kind"] == "host"]
        self.assertGreaterEqual(len(host), 2)
        self.assertTrue(all(e["host"] == "--device-hint reduction=host"
                            for e in host), host)
        nodes = " ".join(e["nodes"] for e in host)
        for node in ("input_layernorm/ReduceMean", "self_attn/Softmax",
                     "post_attention_layernorm/ReduceMean"):
            self.assertIn(node, nodes)
        # The products stay cuBLAS calls.
        self.assertEqual(len([e for e in placement if e["kind"] == "library"]),
                         7)
        obj, result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                         "--device-hint", "all=host",
                                         "--report")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertRegex(result.stdout, r"placement: +0 GPU kernels \(0 in "
                                        r"one thread\), 0 library calls "
                                        r"\(cuBLAS\); 1 section on the host")
        self.assertNotIn("agl_cuda_sgemm", run(["nm", obj]).stdout)
        # A later hint overrides an earlier one.
        _, result = self.cache.compile(onnx_path, ".o", "--target=cuda",
                                       "--device-hint", "all=host",
                                       "--device-hint", "matmul=gpu",
                                       "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        placement = json.loads(result.stdout)["placement"]
        self.assertEqual(len([e for e in placement if e["kind"] == "library"]),
                         7)
        self.assertTrue([e for e in placement if e["kind"] == "host"])

    def test_bad_device_hints_fail_clearly(self):
        onnx_path = os.path.join(MODELS_DIR, "mlp.onnx")
        for flags, message in (
                (["--target=cuda", "--device-hint", "conv=host"],
                 "unknown op family 'conv' in --device-hint 'conv=host'"),
                (["--target=cuda", "--device-hint", "matmul"],
                 "--device-hint 'matmul' names no device"),
                (["--device-hint", "matmul=host"],
                 "--device-hint needs --target=cuda"),
                (["--target=cuda", "--precision", "fp16", "--device-hint",
                  "matmul=host"],
                 "--precision fp16 is the operands of the cuBLAS products; "
                 "with --device-hint matmul=host the products run on the "
                 "host in float32")):
            with self.subTest(flags=flags):
                out, result = self.cache.compile(onnx_path, ".o", *flags)
                self.assertCleanError(result, "autoglm-compile", message)
                self.assertFalse(os.path.exists(out))

    def test_host_only_models_run_without_a_gpu(self):
        """With every op on the host (--device-hint all=host) a CUDA model
        needs device memory and copies only: on the fake driver (host
        memory as device memory) every model matches its references, also
        in a run after timed runs that leave the tensors on the device."""
        driver = os.environ.get("AUTOGLM_FAKE_CUDA_DRIVER")
        if not driver or not os.path.isfile(driver):
            self.skipTest("the fake CUDA driver is not built")
        for model in MODELS:
            with self.subTest(model=model):
                lib = self.compiled(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                    "--target=cuda", "--device-hint", "all=host",
                    *dims_options(model))
                case_dir = os.path.join(MODELS_DIR, MODELS[model][1])
                args = case_arguments(model)
                result = run(["env", f"AUTOGLM_CUDA_DRIVER={driver}", RUN,
                              lib, *args, "--rtol", str(RTOL), "--atol",
                              str(ATOL), "--repeat", "2", "--bench", "1",
                              "--warmup", "1", "--device-resident"])
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertEqual(result.stdout.count(" OK"),
                                 len(case_names(case_dir, "outputs")),
                                 describe(result))
        # Symbolic dimensions: each run copies its own extents. (The
        # decoders' scalar extents join the host section; broadcasts that
        # read their source by index read its staged copy.)
        for model, (_, cases) in SYMBOLIC.items():
            lib = self.compiled(
                os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                "--target=cuda", "--device-hint", "all=host",
                *symbolic_options(model))
            for case in cases:
                case = os.path.join(model, case)
                with self.subTest(case=case):
                    result = run(["env", f"AUTOGLM_CUDA_DRIVER={driver}",
                                  RUN, lib, *case_arguments(None, case=case),
                                  "--rtol", str(RTOL), "--atol", str(ATOL),
                                  "--bench", "1", "--warmup", "1",
                                  "--device-resident"])
                    self.assertEqual(result.returncode, 0, describe(result))
                    self.assertEqual(
                        result.stdout.count(" OK"),
                        len(case_names(os.path.join(MODELS_DIR, case),
                                       "outputs")), describe(result))
        # A model without weights (none to upload: weights_size 0).
        path = self.cache.path("no_weights.onnx")
        graph = onnx.helper.make_graph(
            [onnx.helper.make_node("Add", ["a", "b"], ["c"])], "no_weights",
            [onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT,
                                                [4]) for n in "ab"],
            [onnx.helper.make_tensor_value_info("c", onnx.TensorProto.FLOAT,
                                                [4])])
        onnx.save(onnx.helper.make_model(
            graph, opset_imports=[onnx.helper.make_opsetid("", 17)]), path)
        lib = self.compiled(path, ".so", "--target=cuda", "--device-hint",
                            "all=host")
        folder = self.cache.path("no_weights", "")
        os.makedirs(folder, exist_ok=True)
        for name, value in (("a", [1, 2, 3, 4]), ("b", [10, 20, 30, 40]),
                            ("c", [11, 22, 33, 44])):
            np.save(os.path.join(folder, name + ".npy"),
                    np.array(value, np.float32))
        result = run(["env", f"AUTOGLM_CUDA_DRIVER={driver}", RUN, lib,
                      "-i", f"a={folder}a.npy", "-i", f"b={folder}b.npy",
                      "-e", f"c={folder}c.npy"])
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn(" OK", result.stdout, describe(result))

    def test_kv_cache_generates_on_the_fake_driver(self):
        """A decoder with its KV cache in device memory, every op on the
        host (--device-hint all=host), generates onnxruntime's greedy tokens
        through the runtime's CUDA layer on the fake driver: the length kept
        by the runtime after the symbol values, copies of each run's
        elements, host sections."""
        driver = os.environ.get("AUTOGLM_FAKE_CUDA_DRIVER")
        if not driver or not os.path.isfile(driver):
            self.skipTest("the fake CUDA driver is not built")
        for model in ("glm_tiny", "gpt2_tiny"):
            with self.subTest(model=model):
                lib = self.compiled(
                    os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                    "--target=cuda", "--device-hint", "all=host",
                    *KV_CACHE_DIMS, "--max-seq-len", "128")
                with open(os.path.join(MODELS_DIR, model,
                                       "generate.json")) as f:
                    reference = json.load(f)
                result = run(["env", f"AUTOGLM_CUDA_DRIVER={driver}",
                              GENERATE, lib, "--prompt-ids",
                              ",".join(map(str, reference["prompt"])),
                              "--max-new-tokens",
                              str(len(reference["generated"])), "--json"])
                self.assertEqual(result.returncode, 0, describe(result))
                self.assertEqual(json.loads(result.stdout)["tokens"],
                                 reference["generated"])

    def test_run_on_device(self):
        """autoglm-run on the shared libraries: the references on a GPU;
        without one, the clear "no CUDA device" error (checked on mlp: the
        same for every model)."""
        result, _, _ = self.run_case("mlp")
        if result.returncode != 0:
            self.assertCleanError(result, "autoglm-run", "no CUDA device: ")
            self.skipTest(f"no CUDA device, outputs not checked "
                          f"({result.stderr.strip()})")
        for model in MODELS:
            for flags in ([], ["--no-kernels"], ["--precision", "fp16"]):
                with self.subTest(model=model, flags=flags):
                    result, out_dir, case_dir = self.run_case(model, *flags)
                    self.assertEqual(result.returncode, 0, describe(result))
                    self.assertOutputsMatch(out_dir, case_dir, flags)
        # Symbolic dimensions: one build runs every shape.
        for model in SYMBOLIC:
            for flags in ([], ["--precision", "fp16"]):
                self.assertSymbolicCasesMatch(
                    model, ["--target=cuda", "--gpu-arch=sm_90"], flags)
        # --weight-only: what the CPU's weight-only build computes (the same
        # quantized weights; 4 bits: the CPU's kernel rounds more).
        for model in ("mlp", "glm_layer"):
            for bits, bound in (("int8", 1e-5), ("int4", 5e-4)):
                with self.subTest(model=model, flags=["--weight-only", bits]):
                    result, out_dir, case_dir = self.run_case(
                        model, "--weight-only", bits)
                    self.assertEqual(result.returncode, 0, describe(result))
                    cpu = self.compiled(
                        os.path.join(MODELS_DIR, model + ".onnx"), ".so",
                        "--weight-only", bits)
                    cpu_dir = self.cache.path("outputs", model + "-cpu-" + bits,
                                              "")
                    result = run_model(cpu, *case_arguments(model,
                                                            expect=False),
                                       "--output-dir", cpu_dir)
                    self.assertEqual(result.returncode, 0, describe(result))
                    for name in case_names(case_dir, "outputs"):
                        file = saved_output_name(name)
                        expected = np.load(os.path.join(cpu_dir, file))
                        self.assertLessEqual(
                            np.max(np.abs(np.load(os.path.join(out_dir, file))
                                          - expected)),
                            bound * np.max(np.abs(expected)), name)
        # int8: what the CPU's int8 build computes (the same quantization and
        # integer sums; float rounding of the scales aside).
        for model in ("mlp", "glm_layer", "resnet_cnn"):
            with self.subTest(model=model, flags=["--precision", "int8"]):
                calibration = ("--calibrate",
                               os.path.join(MODELS_DIR, "calibration", model))
                result, out_dir, case_dir = self.run_case(
                    model, "--precision", "int8", *calibration)
                self.assertEqual(result.returncode, 0, describe(result))
                cpu = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"),
                                    ".so", "--precision", "int8", *calibration)
                cpu_dir = self.cache.path("outputs", model + "-cpu-int8", "")
                result = run_model(cpu, *case_arguments(model, expect=False),
                                   "--output-dir", cpu_dir)
                self.assertEqual(result.returncode, 0, describe(result))
                for name in case_names(case_dir, "outputs"):
                    file = saved_output_name(name)
                    np.testing.assert_allclose(
                        np.load(os.path.join(out_dir, file)),
                        np.load(os.path.join(cpu_dir, file)),
                        rtol=1e-4, atol=1e-5, err_msg=name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
