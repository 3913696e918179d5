#!/usr/bin/env python3
"""Correctness and speed of --target=cuda on a GPU machine that has no MLIR.

Two steps, on two machines:

  prepare  (where AutoGLM is built) compiles every model of
           test/e2e/test_cuda.py and the GPU workloads below for sm_90, in
           each of VARIANTS (products by cuBLAS in fp32 or fp16, or as
           the estimates choose between it and the generated GEMV,
           --no-kernels, reductions on the host; the models with symbolic
           dimensions also kept symbolic, one build for all their cases;
           with calibration data an int8 build; the models onnxruntime
           quantized, models/quantized, as they are: cuBLASLt's int8
           products, checked against the CPU's builds),
           and writes a bundle: the artifacts, their inputs
           and references,
           autoglm-run and the shared libraries it needs that a stock
           system may lack. The models' weights files travel as recipes of
           their ONNX initializers (the repository's models/*.onnx travel
           anyway); large files are xz-compressed: the workloads' weights
           and big inputs repeat one random block, so that they compress to
           almost nothing.
  run      (on the GPU machine, with PyTorch) unpacks the bundle, runs each
           model with autoglm-run against its references, then times the
           workloads with autoglm-run and with PyTorch (eager and
           torch.compile, fp32 and fp16) side by side, takes each kernel's
           GPU time from an fp16 build compiled with --profile, prints a
           Markdown table and writes everything as JSON.

Workloads (batch 1, float32 models):
  gemm4096     MatMul of an input [4096,4096] by a weight [4096,4096]
  glm_prefill  one GLM decoder layer (bench/make_glm_layer.py): hidden 4096,
               32 heads of 128, SwiGLU MLP of 13696, sequence 512
  glm_decode   the same layer decoding one token after a 2047-position KV
               cache (past_key/past_value inputs [1,32,2047,128])
  glm_decode_wo  the decode step with --weight-only int8 and int4 (builds
               wo_int8, wo_int4), checked against the same builds run on
               this CPU (--target=cuda-emulated); its weights' columns
               repeat every 64 (they compress)

Generation: the decoders of test/e2e/test_generate.py compiled with their
KV cache inside (--max-seq-len, fp32 and fp16) continue onnxruntime's
prompt greedily with autoglm-generate on the GPU: the float32 build must
give onnxruntime's tokens (models/NAME/generate.json); the fp16 build's
tokens are reported with how many of them agree. Both give tokens/s.

autoglm-run checks each workload's outputs on a first run that copies the
inputs to the device and the outputs back, then times runs with
--device-resident: the tensors stay on the GPU, as PyTorch's do.

Usage:
  python3 bench/cuda_check.py prepare [--bundle DIR] [--only NAME...]
  python3 bench/cuda_check.py run [--bundle DIR] [--out DIR] [--runs N]
          [--variants cublas fp32 fp16_cublas fp16 loops hosted]
          [--model-variants cublas fp16 loops hosted] [--no-models]
          [--only NAME...]
"""

import argparse
import functools
import json
import lzma
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
DEFAULT_BUNDLE = os.path.join(REPO_ROOT, "cuda-bundle")
sys.dont_write_bytecode = True  # keep the source folders free of __pycache__

# Outputs of the workloads compared with their references (fp32 kernels,
# the GPU's own summation order over K up to 13696).
BENCH_RTOL, BENCH_ATOL = 1e-3, 1e-3

GLM = dict(hidden=4096, heads=32, ffn=13696)
PREFILL_SEQ = 512
DECODE_PAST = 2047
GEMM_N = 4096
# The last rows of the GEMM's and the prefill's output kept as their
# references (all of them would be 64 and 8 MB).
CHECKED_ROWS = 64
# Weights and large inputs repeat a random block of this many floats.
BLOCK = 65537
# Files larger than this travel xz-compressed.
COMPRESS_BYTES = 256 << 10
# How each workload is compiled: `cublas` and `fp16_cublas` with every
# product on cuBLAS (--gemv-max-rows 0), `fp32` and `fp16` as by default
# (products with a constant weight as the generated GEMV where the GPU's
# peaks rate it faster than cuBLAS: decode steps), so that the run times
# the choice; `loops` with the products as generated kernels like
# everything else (--no-kernels); `hosted` runs the reductions
# (normalizations, softmax) as host sections between the GPU's work
# (--device-hint reduction=host). The first's weights travel once for the
# builds whose weights are the same bytes.
CUBLAS_ONLY = ["--gemv-max-rows", "0"]
VARIANTS = {"cublas": CUBLAS_ONLY, "fp32": [], "loops": ["--no-kernels"],
            "fp16": ["--precision", "fp16"],
            "fp16_cublas": ["--precision", "fp16", *CUBLAS_ONLY],
            "hosted": ["--device-hint", "reduction=host", *CUBLAS_ONLY]}
# The models' builds: their checks need no second copy of each weight in
# the GEMV's layout (the bundle's size is bounded): fp16 as by default.
MODEL_VARIANTS = {v: VARIANTS[v] for v in ("cublas", "loops", "fp16",
                                           "hosted")}
# Models with calibration data (models/calibration/NAME) also have an
# `int8` build (--precision int8), checked against the CPU's int8 build of
# the same model: the same quantization and integer sums.
INT8_RTOL, INT8_ATOL = 1e-4, 1e-5
# The models of models/quantized (onnxruntime's QDQ, dynamic and QLinear
# forms), checked the same way: their one build is `int8`.
QUANTIZED_MODELS = ["mlp_qdq", "mlp_dynamic", "glm_layer_qdq",
                    "glm_layer_dynamic", "resnet_cnn_qdq",
                    "resnet_cnn_qlinear", "resnet_cnn_dynamic"]
# Every model also has weight-only builds (--weight-only int8 / int4),
# checked against the same build for --target=cuda-emulated (the same
# quantized weights and kernels, run on this CPU): within these fractions
# of the largest output (float sums in another order; cuBLAS's where the
# weight is dequantized for it). (The CPU's own 4-bit kernel rounds a
# decode row to int8 where it has VNNI: not a reference for the GPU's.)
WEIGHT_ONLY_VARIANTS = {"wo_int8": (["--weight-only", "int8"], 1e-4),
                        "wo_int4": (["--weight-only", "int4"], 1e-4)}
# Builds whose products round their operands to 16 bits, checked against
# the float32 references as test/e2e/test_precision.py checks the CPU's:
# max |out - ref| <= MAX_REL * max |ref| and cosine >= MIN_COSINE.
HALF_VARIANTS = {"fp16", "fp16_cublas", "symbolic_fp16", "fp16_profiled"}
# The workloads also get an fp16 build compiled with --profile: its timed
# runs give each kernel's and cuBLAS call's GPU time (CUDA events).
PROFILED_VARIANTS = {"fp16_profiled": ["--precision", "fp16", "--profile"]}
# The models of test/e2e/test_cuda.py's SYMBOLIC are also compiled with
# their dimensions symbolic: one build per variant runs every case folder.
SYMBOLIC_VARIANTS = {"symbolic": [], "symbolic_fp16": ["--precision", "fp16"]}
MAX_REL, MIN_COSINE = 0.01, 0.9999
# Workloads compiled with --weight-only (the WEIGHT_ONLY_VARIANTS) instead
# of VARIANTS, checked as the models' weight-only builds are: the decode
# step.
WEIGHT_ONLY_WORKLOADS = {"glm_decode_wo"}
# The decode steps' weights repeat their columns every 64, so that the
# GEMV's weights (a row per column: float, half or quantized) compress as
# the float ones do.
COLUMN_PERIODIC_WORKLOADS = {"glm_decode", "glm_decode_wo"}
COLUMN_PERIOD = 64
# The generation builds: the KV cache inside the model, products in fp32
# or fp16 (the capacity and dimensions are test_generate.py's).
GENERATE_VARIANTS = {"kv": [], "kv_fp16": ["--precision", "fp16"],
                     "kv_int8": ["--weight-only", "int8"],
                     "kv_int4": ["--weight-only", "int4"]}


def log(msg):
    print(msg, flush=True)


# ---------------------------------------------------------------------------
# prepare
# ---------------------------------------------------------------------------

def tiled(rng, shape, scale):
    """An array of `shape` that repeats one random block of BLOCK floats
    (times `scale`): random enough for a product, compressible to a block."""
    block = (rng.standard_normal(BLOCK) * scale).astype(np.float32)
    return np.resize(block, shape)


def build_workloads(only):
    """{name: (onnx model, inputs, references, checked rows or None)}: with
    checked rows R, the references are the last R rows of the outputs."""
    sys.path.insert(0, os.path.join(REPO_ROOT, "models"))
    sys.path.insert(0, BENCH_DIR)
    from generate import GraphBuilder, tensor_info, ort_reference  # noqa
    from make_glm_layer import build_glm_layer  # noqa
    import onnx
    from onnx import numpy_helper

    def retile(model, inputs, seed, column_period=None):
        """The model with every large initializer and input replaced by a
        tiled one of the same shape, scaled like the original. With
        `column_period` P, a matrix's columns repeat every P instead (the
        weight-only layouts, a row per column, then compress too)."""
        rng = np.random.default_rng(seed)
        for init in model.graph.initializer:
            array = numpy_helper.to_array(init)
            if array.size >= BLOCK and array.dtype == np.float32:
                if (column_period and array.ndim == 2
                        and array.shape[1] % column_period == 0):
                    columns = tiled(rng, (array.shape[0], column_period),
                                    float(array.std()))
                    new = np.tile(columns, (1, array.shape[1]
                                            // column_period))
                else:
                    new = tiled(rng, array.shape, float(array.std()))
                init.CopyFrom(numpy_helper.from_array(new, init.name))
        return model, [tiled(rng, a.shape, float(a.std()))
                       if a.size >= BLOCK else a for a in inputs]

    workloads = {}
    if not only or "gemm4096" in only:
        g = GraphBuilder()
        rng = np.random.default_rng(5005)
        w = tiled(rng, (GEMM_N, GEMM_N), 1 / math.sqrt(GEMM_N))
        x = tiled(rng, (GEMM_N, GEMM_N), 1.0)
        g.init("weight", w)
        g.op("MatMul", ["x", "weight"], "y")
        model = g.model("gemm4096", [tensor_info("x", [GEMM_N, GEMM_N])],
                        [tensor_info("y", [GEMM_N, GEMM_N])])
        rows = CHECKED_ROWS
        reference = (x[-rows:].astype(np.float64) @ w).astype(np.float32)
        workloads["gemm4096"] = (model, [x], [reference], rows)
    for name, seq, past in (("glm_prefill", PREFILL_SEQ, 0),
                            ("glm_decode", 1, DECODE_PAST),
                            ("glm_decode_wo", 1, DECODE_PAST)):
        if only and name not in only:
            continue
        model, inputs = build_glm_layer(seq, past=past, **GLM)
        model, inputs = retile(
            model, inputs, 4004 + past,
            COLUMN_PERIOD if name in COLUMN_PERIODIC_WORKLOADS else None)
        path = os.path.join("/tmp", f"autoglm-cuda-{name}.onnx")
        onnx.save_model(model, path)
        log(f"  {name}: onnxruntime reference")
        references = ort_reference(path, inputs)
        rows = CHECKED_ROWS if seq > CHECKED_ROWS else None
        if rows:
            references = [r[..., -rows:, :] for r in references]
        workloads[name] = (model, inputs, references, rows)
        os.remove(path)
    return workloads


def save(path, array_or_bytes):
    """np.save or raw bytes; compressed to PATH.xz when large."""
    if isinstance(array_or_bytes, np.ndarray):
        import io
        buffer = io.BytesIO()
        np.save(buffer, array_or_bytes)
        data = buffer.getvalue()
    else:
        data = array_or_bytes
    if len(data) > COMPRESS_BYTES:
        # A dictionary that spans the repeated block, a fast preset.
        filters = [{"id": lzma.FILTER_LZMA2, "preset": 1,
                    "dict_size": 64 << 20}]
        with open(path + ".xz", "wb") as f:
            f.write(lzma.compress(data, filters=filters))
    else:
        with open(path, "wb") as f:
            f.write(data)


def weights_recipe(weights, onnx_path):
    """The weights file as pieces of the ONNX model's initializers (which
    travel with the repository) and literal bytes: a list of
    ("init", name, length) and ("bytes", offset into the literal blob,
    length), and that blob."""
    import onnx
    from onnx import numpy_helper
    spans = []
    for init in onnx.load(onnx_path).graph.initializer:
        data = numpy_helper.to_array(init).tobytes()
        at = weights.find(data) if len(data) >= 4096 else -1
        if at >= 0:
            spans.append((at, len(data), init.name))
    recipe, literal, pos = [], bytearray(), 0
    for at, length, name in sorted(spans):
        if at < pos:
            continue  # inside an earlier piece
        if at > pos:
            recipe.append(("bytes", len(literal), at - pos))
            literal += weights[pos:at]
        recipe.append(("init", name, length))
        pos = at + length
    if pos < len(weights):
        recipe.append(("bytes", len(literal), len(weights) - pos))
        literal += weights[pos:]
    return recipe, bytes(literal)


def write_recipe(base, weights, onnx_path):
    """BASE.recipe.json and BASE.literal for the weights file BASE.weights."""
    import hashlib
    pieces, literal = weights_recipe(weights, onnx_path)
    with open(base + ".literal", "wb") as f:
        f.write(literal)
    with open(base + ".recipe.json", "w") as f:
        json.dump(dict(onnx=os.path.relpath(onnx_path, REPO_ROOT),
                       sha256=hashlib.sha256(weights).hexdigest(),
                       pieces=pieces), f)


def rebuild_weights(recipe_path):
    """Writes the weights file a recipe describes next to it; checks its
    digest."""
    import hashlib
    import onnx
    from onnx import numpy_helper
    with open(recipe_path) as f:
        recipe = json.load(f)
    base = recipe_path[:-len(".recipe.json")]
    with open(base + ".literal", "rb") as f:
        literal = f.read()
    inits = {i.name: i for i in onnx.load(
        os.path.join(REPO_ROOT, recipe["onnx"])).graph.initializer}
    digest = hashlib.sha256()
    with open(base + ".weights", "wb") as out:
        for kind, key, length in recipe["pieces"]:
            data = (numpy_helper.to_array(inits[key]).tobytes()
                    if kind == "init" else literal[key:key + length])
            assert len(data) == length, (kind, key)
            out.write(data)
            digest.update(data)
    if digest.hexdigest() != recipe["sha256"]:
        raise RuntimeError(f"{base}.weights: rebuilt with the wrong digest")


def compress_tree(bundle):
    """xz-compresses every file over COMPRESS_BYTES in the bundle."""
    for folder, _, files in os.walk(bundle):
        for f in files:
            path = os.path.join(folder, f)
            if not f.endswith(".xz") and os.path.getsize(path) > COMPRESS_BYTES:
                with open(path, "rb") as src:
                    data = src.read()
                save(path, data)
                shutil.copymode(path, path + ".xz")
                os.remove(path)


def deduplicate(bundle):
    """Files of 64 KiB or more whose bytes an earlier one has (a model's
    fp16 weights in its pinned and symbolic builds, the decode workloads'
    caches) travel once: each copy becomes NAME.same, which holds the
    first one's path in the bundle (unpack copies it back)."""
    import hashlib
    first = {}
    for folder, _, files in sorted(os.walk(bundle)):
        for f in sorted(files):
            path = os.path.join(folder, f)
            if os.path.getsize(path) < 64 << 10:
                continue
            with open(path, "rb") as src:
                digest = hashlib.sha256(src.read()).hexdigest()
            if digest not in first:
                first[digest] = os.path.relpath(path, bundle)
                continue
            with open(path + ".same", "w") as out:
                out.write(first[digest])
            os.remove(path)


def compile_model(tools, onnx_path, out_so, dims, flags):
    os.makedirs(os.path.dirname(out_so), exist_ok=True)
    cmd = [os.path.join(tools, "autoglm-compile"), onnx_path,
           "--target=cuda", "--gpu-arch=sm_90", "-o", out_so, *flags]
    for d in dims:
        cmd += ["--dim", d]
    start = time.time()
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{result.stderr}")
    return time.time() - start


def compile_variants(tools, onnx_path, folder, name, dims, variants):
    """Builds of the model in folder/VARIANT/NAME.so, one per entry of
    `variants` (its options), each weights file left as its recipe; the
    seconds each took."""
    seconds = {v: compile_model(tools, onnx_path,
                                os.path.join(folder, v, name + ".so"), dims,
                                flags)
               for v, flags in variants.items()}
    for v in variants:
        weights = os.path.join(folder, v, name + ".weights")
        with open(weights, "rb") as f:
            write_recipe(weights[:-len(".weights")], f.read(), onnx_path)
        os.remove(weights)
    return seconds


def symbolic_model(tools, bundle, name, dims, cases, case_files, case_names,
                   model_dir):
    """The builds of model `name` with symbolic dimensions `dims` (one per
    SYMBOLIC_VARIANTS, in models/NAME@symbolic) and the inputs and
    references of each case folder; its manifest entry."""
    folder = os.path.join(bundle, "models", name + "@symbolic")
    seconds = compile_variants(tools, model_dir + ".onnx", folder, name, dims,
                               SYMBOLIC_VARIANTS)
    entry = dict(name=name + "@symbolic", so=name, compile_s=seconds,
                 variants=list(SYMBOLIC_VARIANTS), cases=[])
    for case in cases:
        case_dir = os.path.join(model_dir, case)
        os.makedirs(os.path.join(folder, case))
        files = dict(case=case, inputs=[], outputs=[])
        for kind, key in (("inputs", "input"), ("outputs", "output")):
            for i, (tensor, path) in enumerate(zip(case_names(case_dir, kind),
                                                   case_files(case_dir, key))):
                file = os.path.join(case, f"{key}_{i}.npy")
                shutil.copy2(path, os.path.join(folder, file))
                files[kind].append(dict(name=tensor, file=file))
        entry["cases"].append(files)
    return entry


def cpu_references(tools, onnx_path, dims, flags, folder, entry, variant):
    """The outputs of the build of the model with `flags` (those of GPU
    build `variant`; weight-only builds for --target=cuda-emulated, others
    for this CPU) on its inputs, as VARIANT_output_I.npy next to them
    (entry["VARIANT_outputs"])."""
    if variant in WEIGHT_ONLY_VARIANTS:
        flags = ["--target=cuda-emulated", *flags]
    with tempfile.TemporaryDirectory() as work:
        so = os.path.join(work, "model.so")
        result = subprocess.run(
            [os.path.join(tools, "autoglm-compile"), onnx_path, "-o", so,
             *flags, *[a for d in dims for a in ("--dim", d)]],
            capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"the CPU {variant} build failed:\n"
                               f"{result.stderr}")
        args = [a for i in entry["inputs"]
                for a in ("--input",
                          f"{i['name']}={os.path.join(folder, i['file'])}")]
        result = subprocess.run(
            [os.path.join(tools, "autoglm-run"), so, *args, "--output-dir",
             work], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"the CPU {variant} build's run failed:\n"
                               f"{result.stderr}")
        entry[variant + "_outputs"] = []
        for i, o in enumerate(entry["outputs"]):
            file = f"{variant}_output_{i}.npy"
            shutil.copy2(os.path.join(work, saved_name(o["name"])),
                         os.path.join(folder, file))
            entry[variant + "_outputs"].append(file)


def generation_models(tools, bundle, only):
    """The decoders built with their KV cache inside, one per
    GENERATE_VARIANTS, in generation/NAME, with onnxruntime's tokens; their
    manifest entries."""
    from test_generate import CAPACITY, MODELS as DECODERS  # noqa
    from e2e_common import MODELS_DIR  # noqa
    dims = ["batch=1", "seq=1..32", f"past=0..{CAPACITY}",
            f"total=1..{CAPACITY}"]
    entries = []
    for name in DECODERS:
        if only and name not in only:
            continue
        seconds = compile_variants(
            tools, os.path.join(MODELS_DIR, name + ".onnx"),
            os.path.join(bundle, "generation", name), name, dims,
            {v: ["--max-seq-len", str(CAPACITY), *flags]
             for v, flags in GENERATE_VARIANTS.items()})
        with open(os.path.join(MODELS_DIR, name, "generate.json")) as f:
            reference = json.load(f)
        entries.append(dict(name=name, compile_s=seconds,
                            prompt=reference["prompt"],
                            tokens=reference["generated"]))
        log(f"  {name} with its KV cache: compiled in {seconds}")
    return entries


def bundle_binaries(tools, bundle):
    """autoglm-run and the shared libraries it loads from outside the
    system's base set, into bin/ and lib/."""
    for sub in ("bin", "lib"):
        os.makedirs(os.path.join(bundle, sub), exist_ok=True)
    run = os.path.join(tools, "autoglm-run")
    shutil.copy2(run, os.path.join(bundle, "bin"))
    shutil.copy2(os.path.join(tools, "autoglm-generate"),
                 os.path.join(bundle, "bin"))
    base = ("libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so",
            "ld-linux", "libgcc_s.so", "libstdc++.so", "linux-vdso")
    for line in subprocess.run(["ldd", run], capture_output=True,
                               text=True).stdout.splitlines():
        parts = line.split("=>")
        if len(parts) != 2 or not parts[1].strip().startswith("/"):
            continue
        name, path = parts[0].strip(), parts[1].split()[0]
        if not name.startswith(base):
            shutil.copy2(path, os.path.join(bundle, "lib", name))


def bundle_model(tools, bundle, name, onnx_path, dims, case_dir, variants):
    """Compiles `variants` of one model into the bundle with its case's
    inputs and outputs (and the CPU's outputs for the builds checked
    against those); returns its manifest entry."""
    from test_cuda import case_files, case_names  # noqa
    from e2e_common import ATOL, RTOL  # noqa
    folder = os.path.join(bundle, "models", name)
    os.makedirs(folder)
    seconds = {v: compile_model(
        tools, onnx_path, os.path.join(folder, v, name + ".so"), dims,
        flags) for v, flags in variants.items()}
    # The float32 variants' weights are the same bytes: one recipe in the
    # model's folder for them; a variant with other weights (16-bit, int8)
    # has its own recipe.
    weights = [os.path.join(folder, v, name + ".weights") for v in variants]
    with open(weights[0], "rb") as f:
        shared = f.read()
    write_recipe(os.path.join(folder, name), shared, onnx_path)
    for path in weights:
        with open(path, "rb") as f:
            data = f.read()
        if data != shared:
            write_recipe(path[:-len(".weights")], data, onnx_path)
        os.remove(path)
    entry = dict(name=name, rtol=RTOL, atol=ATOL, compile_s=seconds,
                 variants=list(variants), inputs=[], outputs=[])
    for kind, key in (("inputs", "input"), ("outputs", "output")):
        for i, (tensor, path) in enumerate(zip(case_names(case_dir, kind),
                                               case_files(case_dir, key))):
            shutil.copy2(path, os.path.join(folder, f"{key}_{i}.npy"))
            entry[kind].append(dict(name=tensor, file=f"{key}_{i}.npy"))
    for variant in ("int8", *WEIGHT_ONLY_VARIANTS):
        if variant in variants:
            cpu_references(tools, onnx_path, dims, variants[variant], folder,
                           entry, variant)
    log(f"  {name}: compiled in {seconds}")
    return entry


def prepare(args):
    tools = args.tools
    bundle = args.bundle
    if os.path.isdir(bundle):
        shutil.rmtree(bundle)
    os.makedirs(bundle)
    bundle_binaries(tools, bundle)
    manifest = {"models": [], "workloads": []}

    sys.path.insert(0, os.path.join(REPO_ROOT, "test", "e2e"))
    from test_cuda import (  # noqa
        MODELS, SYMBOLIC, case_files, case_names)
    from e2e_common import ATOL, MODELS_DIR, RTOL  # noqa
    for name, (dims, case) in MODELS.items():
        if args.only and name not in args.only:
            continue
        onnx_path = os.path.join(MODELS_DIR, name + ".onnx")
        variants = dict(MODEL_VARIANTS)
        calibration = os.path.join(MODELS_DIR, "calibration", name)
        if os.path.isdir(calibration):
            variants["int8"] = ["--precision", "int8", "--calibrate",
                                calibration]
        for variant, (flags, _) in WEIGHT_ONLY_VARIANTS.items():
            variants[variant] = flags
        manifest["models"].append(bundle_model(
            tools, bundle, name, onnx_path, dims,
            os.path.join(MODELS_DIR, case), variants))
    # The models onnxruntime quantized: their one build (`int8`, no flags:
    # the model says int8) against the CPU's build of the same model.
    quantized = os.path.join(MODELS_DIR, "quantized")
    for name in QUANTIZED_MODELS:
        if args.only and name not in args.only:
            continue
        # (Named apart from models/'s own glm_layer_dynamic.)
        manifest["models"].append(bundle_model(
            tools, bundle, "quantized_" + name,
            os.path.join(quantized, name + ".onnx"), [],
            os.path.join(quantized, name), {"int8": []}))
    for name, (dims, cases) in SYMBOLIC.items():
        if args.only and name not in args.only:
            continue
        entry = symbolic_model(tools, bundle, name, dims, cases, case_files,
                               case_names, os.path.join(MODELS_DIR, name))
        entry.update(rtol=RTOL, atol=ATOL)
        manifest["models"].append(entry)
        log(f"  {entry['name']}: compiled in {entry['compile_s']}")

    manifest["generation"] = generation_models(tools, bundle, args.only)

    sys.path.insert(0, BENCH_DIR)
    from workloads import count_flops  # noqa
    import onnx
    for name, (model, inputs, references, rows) in build_workloads(
            args.only).items():
        folder = os.path.join(bundle, "workloads", name)
        os.makedirs(folder)
        onnx_path = os.path.join("/tmp", f"autoglm-cuda-{name}.onnx")
        onnx.save_model(model, onnx_path)
        seconds, first = {}, None
        variants = ({v: flags for v, (flags, _) in
                     WEIGHT_ONLY_VARIANTS.items()}
                    if name in WEIGHT_ONLY_WORKLOADS
                    else {**VARIANTS, **PROFILED_VARIANTS})
        for variant, flags in variants.items():
            so = os.path.join(folder, variant, name + ".so")
            seconds[variant] = compile_model(tools, onnx_path, so, [], flags)
            weights = os.path.splitext(so)[0] + ".weights"
            with open(weights, "rb") as f:
                data = f.read()
            os.remove(weights)
            if first is None:  # shared by the variants, unless they differ
                first = data
                save(os.path.join(folder, name + ".weights"), data)
            elif data != first:
                save(weights, data)
        os.remove(onnx_path)
        entry = dict(name=name, compile_s=seconds, flops=count_flops(model),
                     checked_rows=rows, rtol=BENCH_RTOL, atol=BENCH_ATOL,
                     variants=list(seconds), inputs=[], outputs=[])
        for i, (info, array) in enumerate(zip(model.graph.input, inputs)):
            save(os.path.join(folder, f"input_{i}.npy"), array)
            entry["inputs"].append(dict(name=info.name, file=f"input_{i}.npy",
                                        shape=list(array.shape)))
        for i, (info, array) in enumerate(zip(model.graph.output,
                                              references)):
            save(os.path.join(folder, f"output_{i}.npy"), array)
            shape = [d.dim_value for d in info.type.tensor_type.shape.dim]
            entry["outputs"].append(dict(name=info.name,
                                         file=f"output_{i}.npy", shape=shape))
        if name in WEIGHT_ONLY_WORKLOADS:
            onnx.save_model(model, onnx_path)
            for i, array in enumerate(inputs):
                np.save(os.path.join(folder, f"cpu_input_{i}.npy"), array)
            for variant in variants:
                log(f"  {name}: the emulated {variant} reference")
                cpu = dict(entry, inputs=[
                    dict(i, file=f"cpu_input_{n}.npy")
                    for n, i in enumerate(entry["inputs"])])
                cpu_references(tools, onnx_path, [], variants[variant],
                               folder, cpu, variant)
                entry[variant + "_outputs"] = cpu[variant + "_outputs"]
                for file in cpu[variant + "_outputs"]:
                    path = os.path.join(folder, file)
                    array = np.load(path)
                    os.remove(path)
                    save(path, array)
            os.remove(onnx_path)
            for i in range(len(inputs)):
                os.remove(os.path.join(folder, f"cpu_input_{i}.npy"))
        manifest["workloads"].append(entry)
        log(f"  {name}: compiled in {seconds}")
    with open(os.path.join(bundle, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    compress_tree(bundle)
    deduplicate(bundle)
    size = sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(bundle) for f in files)
    log(f"bundle {bundle}: {size / 2**20:.1f} MiB")


# ---------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------

def unpack(bundle, manifest):
    copies = [os.path.join(folder, f) for folder, _, files in os.walk(bundle)
              for f in files if f.endswith(".same")]
    for path in copies:
        with open(path) as f:
            source = os.path.join(bundle, f.read().strip())
        shutil.copy2(source, path[:-len(".same")])
        os.remove(path)
    for folder, _, files in os.walk(bundle):
        for f in files:
            if f.endswith(".xz"):
                path = os.path.join(folder, f)
                with lzma.open(path) as src, open(path[:-3], "wb") as dst:
                    shutil.copyfileobj(src, dst, 16 << 20)
                shutil.copymode(path, path[:-3])
                os.remove(path)
    for kind in ("models", "generation"):
        for folder, _, files in os.walk(os.path.join(bundle, kind)):
            for f in files:
                if f.endswith(".recipe.json"):
                    rebuild_weights(os.path.join(folder, f))
    for kind in ("models", "workloads"):
        for m in manifest[kind]:
            folder = os.path.join(bundle, kind, m["name"])
            base = m.get("so", m["name"])
            for variant in m.get("variants", VARIANTS):
                link = os.path.join(folder, variant, base + ".weights")
                if not os.path.exists(link):
                    os.symlink(os.path.join("..", base + ".weights"), link)


@functools.lru_cache(maxsize=None)
def find_cublas():
    """libcublas.so for the runtime: $AUTOGLM_CUBLAS, else the toolkit's or
    the one the NVIDIA Python wheels (PyTorch's) ship; None if none."""
    import glob
    import site
    if os.environ.get("AUTOGLM_CUBLAS"):
        return os.environ["AUTOGLM_CUBLAS"]
    roots = [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                          "lib64")]
    for packages in site.getsitepackages():
        roots += glob.glob(os.path.join(packages, "nvidia", "*", "lib"))
    for root in roots:
        found = sorted(glob.glob(os.path.join(root, "libcublas.so.1[0-9]*")))
        if found:
            return found[-1]
    return None


def autoglm_run(bundle, so, args, extra_env=None, tool="autoglm-run"):
    env = dict(os.environ, **(extra_env or {}))
    paths = [os.path.join(bundle, "lib")]
    cublas = find_cublas()
    if cublas:
        env["AUTOGLM_CUBLAS"] = cublas
        paths.append(os.path.dirname(cublas))  # its libcublasLt
    if env.get("LD_LIBRARY_PATH"):
        paths.append(env["LD_LIBRARY_PATH"])
    env["LD_LIBRARY_PATH"] = ":".join(paths)
    cmd = [os.path.join(bundle, "bin", tool), so, "--json", *args]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env,
                            timeout=600)
    try:
        report = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        report = {"ok": False, "error": (result.stderr or result.stdout)[-2000:]}
    report["exit_code"] = result.returncode
    if result.returncode != 0 and "stderr" not in report:
        report["stderr"] = result.stderr[-2000:]
    return report


def compare(got, expected, variant, rtol, atol):
    """(ok, max |error|, max |error| / max |ref|, cosine) of an output:
    float32 builds elementwise within rtol/atol, 16-bit ones by MAX_REL and
    MIN_COSINE."""
    got = got.astype(np.float64).ravel()
    expected = expected.astype(np.float64).ravel()
    if got.shape != expected.shape:
        return False, float("inf"), float("inf"), 0.0
    error = float(np.max(np.abs(got - expected))) if got.size else 0.0
    scale = float(np.max(np.abs(expected))) if got.size else 1.0
    rel = error / scale if scale else error
    norms = np.linalg.norm(got) * np.linalg.norm(expected)
    cos = float(got @ expected / norms) if norms else 1.0
    if variant in HALF_VARIANTS:
        ok = rel <= MAX_REL and cos >= MIN_COSINE
    elif variant in WEIGHT_ONLY_VARIANTS:
        ok = rel <= WEIGHT_ONLY_VARIANTS[variant][1]
    else:
        ok = bool(np.allclose(got, expected, rtol=rtol, atol=atol))
    return ok, error, rel, cos


def saved_name(name):
    """The file autoglm-run --output-dir writes output `name` to."""
    return "".join(c if c.isalnum() or c in ".-_" else "_"
                   for c in name) + ".npy"


def check_models(bundle, manifest, variants):
    results = []
    for m in manifest["models"]:
        folder = os.path.join(bundle, "models", m["name"])
        base = m.get("so", m["name"])
        # A symbolic build runs each of its cases; another build, its one.
        cases = m["cases"] if "cases" in m else [
            dict(case="", inputs=m["inputs"], outputs=m["outputs"])]
        for variant in variants:
            if variant not in m.get("variants", VARIANTS):
                continue
            for case in cases:
                results.append(check_case(
                    bundle, m, case, variant,
                    os.path.join(folder, variant, base + ".so"), folder))
    return results


def check_generation(bundle, manifest):
    """autoglm-generate on each decoder's builds; the float32 one must give
    onnxruntime's tokens."""
    results = []
    for g in manifest.get("generation", []):
        for variant in GENERATE_VARIANTS:
            so = os.path.join(bundle, "generation", g["name"], variant,
                              g["name"] + ".so")
            report = autoglm_run(
                bundle, so, ["--prompt-ids", ",".join(map(str, g["prompt"])),
                             "--max-new-tokens", str(len(g["tokens"]))],
                tool="autoglm-generate")
            tokens = report.get("tokens", [])
            agree = next((i for i, (a, b) in enumerate(zip(tokens,
                                                           g["tokens"]))
                          if a != b), min(len(tokens), len(g["tokens"])))
            ok = report["exit_code"] == 0 and (
                variant != "kv" or tokens == g["tokens"])
            log(f"  {g['name']:<28} {variant:<13} {'ok' if ok else 'FAILED'}"
                f"  {agree} of {len(g['tokens'])} tokens as onnxruntime's,"
                f" {report.get('decode_tokens_per_s', 0):.0f} tokens/s"
                + ("" if report["exit_code"] == 0 else
                   f"\n{report.get('error', '')}{report.get('stderr', '')}"))
            results.append(dict(name=g["name"], variant=variant, ok=ok,
                                agree=agree, of=len(g["tokens"]),
                                report=report))
    return results


def check_case(bundle, m, case, variant, so, folder):
    """Runs `so` on one case's inputs; compares its outputs."""
    label = m["name"] + (f"/{case['case']}" if case["case"] else "")
    out_dir = os.path.join(folder, variant, "outputs", case["case"])
    # The third run: the first goes op by op, the second is captured into a
    # CUDA graph, the third launches it.
    args = ["--output-dir", out_dir, "--repeat", "3"]
    for i in case["inputs"]:
        args += ["--input", f"{i['name']}={os.path.join(folder, i['file'])}"]
    report = autoglm_run(bundle, so, args)
    ok, worst, rel, cos = report["exit_code"] == 0, 0.0, 0.0, 1.0
    # int8: against the CPU's build; weight-only: against the emulated one.
    int8 = variant == "int8"
    cpu_matched = int8 or variant in WEIGHT_ONLY_VARIANTS
    references = (m[variant + "_outputs"] if cpu_matched else
                  [o["file"] for o in case["outputs"]])
    for o, reference in zip(case["outputs"] if ok else [], references):
        o_ok, o_err, o_rel, o_cos = compare(
            np.load(os.path.join(out_dir, saved_name(o["name"]))),
            np.load(os.path.join(folder, reference)), variant,
            INT8_RTOL if int8 else m["rtol"], INT8_ATOL if int8 else m["atol"])
        ok &= o_ok
        worst, rel, cos = max(worst, o_err), max(rel, o_rel), min(cos, o_cos)
    if not ok and report["exit_code"] != 0:
        worst = rel = float("nan")
    log(f"  {label:<28} {variant:<13} {'ok' if ok else 'FAILED'}"
        f"  max |error| {worst:.3g} ({rel:.2g} of max |ref|),"
        f" cosine {cos:.7f}"
        + ("" if report["exit_code"] == 0 else
           f"\n{report.get('error', '')}{report.get('stderr', '')}"))
    return dict(name=label, variant=variant, ok=ok, max_abs=worst,
                max_rel=rel, cosine=cos, report=report)


def bench_autoglm(bundle, w, variant, runs, warmup, extra_env=None,
                  extra_args=()):
    folder = os.path.join(bundle, "workloads", w["name"])
    out_dir = os.path.join(folder, variant, "outputs")
    args = ["--output-dir", out_dir, "--bench", str(runs),
            "--warmup", str(warmup), "--device-resident", *extra_args]
    for i in w["inputs"]:
        args += ["--input", f"{i['name']}={os.path.join(folder, i['file'])}"]
    report = autoglm_run(bundle, os.path.join(folder, variant, w["name"] + ".so"),
                         args, extra_env)
    result = dict(ok=False, report=report)
    if report["exit_code"] != 0:
        return result
    result.update(ok=True, max_abs=0.0, max_rel=0.0, cosine=1.0)
    # Weight-only builds: against the emulated build (the same weights).
    references = w.get(variant + "_outputs",
                       [o["file"] for o in w["outputs"]])
    for o, reference in zip(w["outputs"], references):
        expected = np.load(os.path.join(folder, reference))
        got = np.load(os.path.join(out_dir, saved_name(o["name"])))
        if w["checked_rows"]:
            got = got[..., -w["checked_rows"]:, :]
        ok, error, rel, cos = compare(got, expected, variant, w["rtol"],
                                      w["atol"])
        result.update(ok=result["ok"] and ok,
                      max_abs=max(result["max_abs"], error),
                      max_rel=max(result["max_rel"], rel),
                      cosine=min(result["cosine"], cos))
    result["ms"] = report.get("latency_ms", {}).get("median")
    return result


def kernel_totals(trace_path):
    """[name, calls, total us, median us] per kernel of an autoglm-run
    --profile trace, the longest first; [] without one."""
    try:
        with open(trace_path) as f:
            events = [e for e in json.load(f)["traceEvents"]
                      if e.get("cat") == "kernel"]
    except (OSError, ValueError, KeyError):
        return []
    durations = {}
    for e in events:
        durations.setdefault(e["name"], []).append(float(e["dur"]))
    rows = [[name, len(d), sum(d), float(np.median(d))]
            for name, d in durations.items()]
    return sorted(rows, key=lambda r: -r[2])


# --- PyTorch ---------------------------------------------------------------

def find_ncu():
    found = shutil.which("ncu")
    if found:
        return found
    for root in ("/opt/nvidia", "/usr/local/cuda"):
        for dirpath, _, files in os.walk(root):
            if "ncu" in files:
                return os.path.join(dirpath, "ncu")
    return None


def profile_autoglm(bundle, w, variant, out_dir):
    """Per-kernel GPU times of one run of a workload's build, by Nsight
    Compute: {"kernels": [(name, grid, block, microseconds)...]} in launch
    order, or {"error": ...}."""
    ncu = find_ncu()
    if not ncu:
        return {"error": "no ncu"}
    folder = os.path.join(bundle, "workloads", w["name"])
    log_file = os.path.join(out_dir or folder,
                            f"ncu_{w['name']}_{variant}.csv")
    if os.path.exists(log_file):
        os.remove(log_file)
    env = dict(os.environ)
    paths = [os.path.join(bundle, "lib")]
    cublas = find_cublas()
    if cublas:
        env["AUTOGLM_CUBLAS"] = cublas
        paths.append(os.path.dirname(cublas))
    env["LD_LIBRARY_PATH"] = ":".join(paths + [env.get("LD_LIBRARY_PATH", "")])
    cmd = [ncu, "--clock-control", "none", "--metrics",
           "gpu__time_duration.sum", "--csv", "--print-units", "base",
           "--log-file", log_file, os.path.join(bundle, "bin", "autoglm-run"),
           os.path.join(folder, variant, w["name"] + ".so")]
    for i in w["inputs"]:
        cmd += ["--input", f"{i['name']}={os.path.join(folder, i['file'])}"]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env,
                            timeout=600)
    if result.returncode != 0 or not os.path.exists(log_file):
        return {"error": (result.stderr or result.stdout)[-2000:]}
    import csv
    kernels = []
    with open(log_file) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        ns = float(row["Metric Value"].replace(",", ""))
        kernels.append((row["Kernel Name"][:80], row.get("Grid Size", ""),
                        row.get("Block Size", ""), ns / 1000.0))
    return {"kernels": kernels,
            "total_us": sum(k[3] for k in kernels)}


def torch_workload(torch, name, dtype):
    """(function, arguments) computing the workload in PyTorch on the GPU,
    with random weights of the model's shapes."""
    import torch.nn.functional as F
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape, scale=1.0):
        return (torch.randn(*shape, generator=gen, device=dev) * scale).to(dtype)

    # The weight-only decode step's peer is PyTorch's decode step.
    name = "glm_decode" if name in WEIGHT_ONLY_WORKLOADS else name
    if name == "gemm4096":
        def gemm(a, b):
            return a @ b
        return gemm, (rand(GEMM_N, GEMM_N),
                      rand(GEMM_N, GEMM_N, scale=GEMM_N ** -0.5))
    h, heads, ffn = GLM["hidden"], GLM["heads"], GLM["ffn"]
    d = h // heads
    p = dict(n1=rand(h), wqkv=rand(h, 3 * h, scale=h ** -0.5),
             wo=rand(h, h, scale=h ** -0.5), n2=rand(h),
             wg=rand(h, ffn, scale=h ** -0.5), wu=rand(h, ffn, scale=h ** -0.5),
             wd=rand(ffn, h, scale=ffn ** -0.5))

    def rms(x, w):
        x32 = x.float()
        return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6)
                ).to(x.dtype) * w

    def layer(x, past_k=None, past_v=None):
        b, s, _ = x.shape
        q, k, v = (rms(x, p["n1"]) @ p["wqkv"]).split(h, dim=-1)
        q, k, v = (t.view(b, s, heads, d).transpose(1, 2) for t in (q, k, v))
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        ctx = F.scaled_dot_product_attention(q, k, v,
                                             is_causal=past_k is None)
        x = x + ctx.transpose(1, 2).reshape(b, s, h) @ p["wo"]
        m = rms(x, p["n2"])
        x = x + (F.silu(m @ p["wg"]) * (m @ p["wu"])) @ p["wd"]
        return x if past_k is None else (x, k, v)

    if name == "glm_prefill":
        return layer, (rand(1, PREFILL_SEQ, h),)
    return layer, (rand(1, 1, h), rand(1, heads, DECODE_PAST, d),
                   rand(1, heads, DECODE_PAST, d))


def time_cuda(torch, fn, args, runs, warmup):
    with torch.no_grad():
        for _ in range(warmup):
            fn(*args)
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn(*args)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return float(np.median(times))


def run(args):
    bundle = args.bundle
    with open(os.path.join(bundle, "manifest.json")) as f:
        manifest = json.load(f)
    unpack(bundle, manifest)
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True,
                             text=True)
        results["gpu"] = smi.stdout.strip() or smi.stderr.strip()
    except FileNotFoundError:
        results["gpu"] = "no nvidia-smi"
    results["cublas"] = find_cublas()
    log(f"GPU: {results['gpu']}; cuBLAS: {results['cublas']}")

    results["models"] = []
    if not args.no_models:
        log("models/ on the GPU, against their references:")
        results["models"] = check_models(bundle, manifest,
                                         args.model_variants)
        log("generation with the KV cache inside the model:")
        results["generation"] = check_generation(bundle, manifest)

    def write():
        # After every step: a run cut short still leaves what it measured.
        if not args.out:
            return
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "cuda_results.json"), "w") as f:
            json.dump(results, f, indent=2, default=str)
        with open(os.path.join(args.out, "cuda_results.md"), "w") as f:
            f.write(render(results) + "\n")
    write()

    try:
        import torch
        results["torch"] = torch.__version__
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    except ImportError:
        torch = None
    rows = results["workloads"] = []
    workloads = [w for w in manifest["workloads"]
                 if not args.only or w["name"] in args.only]
    for w in workloads:
        log(f"{w['name']}:")
        row = dict(name=w["name"], flops=w["flops"])
        rows.append(row)
        for variant in [v for v in [*args.variants, *WEIGHT_ONLY_VARIANTS]
                        if v in w["variants"]]:
            a = row[variant] = bench_autoglm(bundle, w, variant, args.runs,
                                             args.warmup)
            log(f"  autoglm {variant}: {a.get('ms')} ms, ok={a['ok']}, "
                f"max |error| {a.get('max_abs')}"
                + ("" if a["report"]["exit_code"] == 0 else
                   f"\n{a['report'].get('error', '')}"
                   f"{a['report'].get('stderr', '')}"))
            if variant == "fp16":
                # What CUDA graphs (runs after the first) save.
                n = row["fp16_no_graphs"] = bench_autoglm(
                    bundle, w, variant, args.runs, args.warmup,
                    {"AUTOGLM_CUDA_GRAPHS": "0"})
                log(f"  autoglm fp16 without CUDA graphs: {n.get('ms')} ms")
            if variant == "fp16" and os.path.isdir(os.path.join(
                    bundle, "workloads", w["name"], "fp16_profiled")):
                # Each kernel's GPU time, from AutoGLM's own profile.
                trace = os.path.join(bundle, "workloads", w["name"],
                                     "fp16_profiled", "trace.json")
                p = row["fp16_profiled"] = bench_autoglm(
                    bundle, w, "fp16_profiled", args.runs, args.warmup,
                    extra_args=["--profile", trace])
                p["kernels"] = kernel_totals(trace)
                log(f"  autoglm fp16 profiled: {p.get('ms')} ms, "
                    f"{len(p['kernels'])} kernels")
            if args.profile:
                a["profile"] = profile_autoglm(bundle, w, variant, args.out)
                p = a["profile"]
                log(f"  ncu {variant}: {p.get('total_us', 0):.1f} us in "
                    f"{len(p.get('kernels', []))} kernels"
                    + (f"; {p['error']}" if "error" in p else ""))
        write()
    # PyTorch eager for every workload before torch.compile, which takes
    # longest.
    for mode in ("eager", "compile") if torch is not None else ():
        for w, row in zip(workloads, rows):
            for dtype in ("float32", "float16"):
                key = f"torch_{mode}_{dtype}"
                try:
                    fn, fargs = torch_workload(torch, w["name"],
                                               getattr(torch, dtype))
                    f = fn if mode == "eager" else torch.compile(fn)
                    row[key] = time_cuda(torch, f, fargs, args.runs,
                                         args.warmup)
                except Exception as e:  # a failed peer gets a note
                    row[key] = None
                    row[key + "_error"] = f"{type(e).__name__}: {e}"[:500]
                log(f"  {w['name']} {key}: {row[key]} ms")
                write()
    log(render(results))
    checks = results["models"] + results.get("generation", [])
    return 0 if all(c["ok"] for c in checks) else 1


def render(results):
    def ms(v):
        return "—" if v is None else f"{v:.3f}"

    def autoglm(a):
        return f"{ms(a.get('ms'))}{'' if a.get('ok', True) else ' (wrong)'}"
    lines = [f"GPU: {results['gpu']}; PyTorch {results.get('torch', '—')}; "
             f"{results['date']}", "",
             "| workload | AutoGLM fp32 | AutoGLM fp16 "
             "| AutoGLM int8 / int4 weights "
             "| AutoGLM fp16, no graphs | AutoGLM fp32, loops "
             "| torch eager fp32 | torch.compile fp32 "
             "| torch eager fp16 | torch.compile fp16 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results.get("workloads", []):
        lines.append(
            f"| {r['name']} | {autoglm(r.get('cublas', {}))}"
            f" | {autoglm(r.get('fp16', {}))}"
            f" | {autoglm(r.get('wo_int8', {}))}"
            f" / {autoglm(r.get('wo_int4', {}))}"
            f" | {autoglm(r.get('fp16_no_graphs', {}))}"
            f" | {autoglm(r.get('loops', {}))}"
            f" | {ms(r.get('torch_eager_float32'))}"
            f" | {ms(r.get('torch_compile_float32'))}"
            f" | {ms(r.get('torch_eager_float16'))}"
            f" | {ms(r.get('torch_compile_float16'))} |")
    for r in results.get("workloads", []):
        kernels = r.get("fp16_profiled", {}).get("kernels")
        if kernels:
            lines += ["", f"{r['name']} fp16, each kernel's GPU time (CUDA "
                      f"events, autoglm-run --profile; the run "
                      f"{ms(r['fp16_profiled'].get('ms'))} ms op by op), the "
                      "longest:", "",
                      "| kernel | calls | total us | median us |",
                      "|---|---:|---:|---:|"]
            for k in kernels[:20]:
                lines.append(f"| {k[0][:120]} | {k[1]} | {k[2]:.1f} | "
                             f"{k[3]:.1f} |")
        for variant in VARIANTS:
            p = r.get(variant, {}).get("profile", {})
            if not p.get("kernels"):
                continue
            lines += ["", f"{r['name']} {variant}: {p['total_us']:.1f} us of "
                      f"GPU time in {len(p['kernels'])} kernels (ncu), "
                      "the longest:", "",
                      "| kernel | grid | block | us |", "|---|---|---|---:|"]
            for k in sorted(p["kernels"], key=lambda k: -k[3])[:20]:
                lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]:.1f} |")
    lines += ["", "| model | build | on the GPU | max abs error | "
              "/ max abs ref | cosine |", "|---|---|---|---|---|---|"]
    for m in results["models"]:
        lines.append(f"| {m['name']} | {m['variant']} | "
                     f"{'ok' if m['ok'] else 'FAILED'} | {m['max_abs']:.3g} | "
                     f"{m['max_rel']:.2g} | {m['cosine']:.7f} |")
    if results.get("generation"):
        lines += ["", "| decoder, KV cache inside | build | on the GPU | "
                  "tokens as onnxruntime's | decode tokens/s |",
                  "|---|---|---|---|---|"]
        for g in results["generation"]:
            lines.append(
                f"| {g['name']} | {g['variant']} | "
                f"{'ok' if g['ok'] else 'FAILED'} | {g['agree']} of "
                f"{g['of']} | "
                f"{g['report'].get('decode_tokens_per_s', 0):.0f} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare", help="compile and write the bundle")
    p.add_argument("--bundle", default=DEFAULT_BUNDLE)
    p.add_argument("--tools", default=os.path.join(REPO_ROOT, "build", "bin"))
    p.add_argument("--only", nargs="*", help="models and workloads to take")
    r = sub.add_parser("run", help="check and time the bundle on a GPU")
    r.add_argument("--bundle", default=DEFAULT_BUNDLE)
    r.add_argument("--out", help="folder for cuda_results.json/.md")
    r.add_argument("--runs", type=int, default=20)
    r.add_argument("--warmup", type=int, default=3)
    r.add_argument("--only", nargs="*", help="workloads to time")
    r.add_argument("--variants", nargs="*",
                   default=["cublas", "fp32", "fp16_cublas", "fp16"],
                   choices=list(VARIANTS),
                   help="builds to check and time (default cublas, fp32, "
                        "fp16_cublas and fp16: the generated GEMMs of "
                        "`loops` take seconds each)")
    r.add_argument("--model-variants", nargs="*",
                   default=["cublas", "fp16", "hosted", "int8",
                            *WEIGHT_ONLY_VARIANTS, *SYMBOLIC_VARIANTS],
                   choices=[*MODEL_VARIANTS, "int8", *WEIGHT_ONLY_VARIANTS,
                            *SYMBOLIC_VARIANTS],
                   help="builds of models/ to check (default cublas, fp16, "
                        "hosted, where the model has calibration data "
                        "int8, the weight-only builds and the symbolic "
                        "builds)")
    r.add_argument("--profile", action="store_true",
                   help="also time each build's kernels with Nsight "
                        "Compute (ncu), one run")
    r.add_argument("--no-models", action="store_true",
                   help="skip the models/ check")
    args = parser.parse_args(argv)
    return prepare(args) or 0 if args.step == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
