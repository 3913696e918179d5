"""Compiling and checking the real-world models of <repo>/../shared/models,
shared by test_shared_models.py and shared_models_report.py.

Each model NAME comes as NAME.onnx plus a directory NAME/ with meta.json
(symbolic dimensions bound as `dim_values_used`, output names and types under
`run.outputs`), inputs.json (input names in order), input_<i>.npy and
output_<i>.npy; MANIFEST.md describes them.
"""

import json
import os
import re
import time
from dataclasses import dataclass, field

import numpy as np

from e2e_common import (
    ATOL, RTOL, SHARED_MODELS_DIR, compile_model, load_case, max_abs_error,
    outputs_match, run_model, saved_output_name)


@dataclass(frozen=True)
class QuantizedTolerance:
    """For floating-point outputs of quantized paths: an element is off by a
    quantization step when the float sums before a QuantizeLinear land on
    the other side of a rounding tie, and such steps add up along the
    graph. Allow a few steps (max_abs), in a small fraction of the elements
    (max_fraction of them outside the fp32 tolerance)."""
    max_abs: float
    max_fraction: float


QUANTIZED_TOLERANCES = {
    # Output scales are 0.37 and 0.34; the error is at most two steps of
    # each (two elements in 100k), and ONNX Runtime without graph
    # optimizations differs from the stored reference by up to two steps too.
    "mobilenet_edgetpu_qdq_block": QuantizedTolerance(max_abs=1.5,
                                                      max_fraction=0.02),
}


def available():
    return os.path.isfile(os.path.join(SHARED_MODELS_DIR, "MANIFEST.md"))


def model_names():
    """Models that have both the .onnx file and their data directory."""
    if not os.path.isdir(SHARED_MODELS_DIR):
        return []
    return sorted(
        name[:-len(".onnx")] for name in os.listdir(SHARED_MODELS_DIR)
        if name.endswith(".onnx") and os.path.isfile(
            os.path.join(SHARED_MODELS_DIR, name[:-len(".onnx")], "meta.json")))


def dim_values(name):
    """The symbolic dimensions of model `name` and the values its stored
    case uses (meta.json's dim_values_used); empty for a static model."""
    with open(os.path.join(SHARED_MODELS_DIR, name, "meta.json")) as f:
        return json.load(f).get("dim_values_used", {})


def categories():
    """Model name -> short category ("transformer", "CNN", ...) from the
    table in MANIFEST.md."""
    result = {}
    path = os.path.join(SHARED_MODELS_DIR, "MANIFEST.md")
    if not os.path.isfile(path):
        return result
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and re.fullmatch(r"[A-Za-z0-9_.-]+", cells[0]) \
                    and cells[0] != "name":
                result[cells[0]] = cells[1].split(":")[0].strip()
    return result


@dataclass
class Evaluation:
    """What happened to one model."""
    name: str
    status: str = ""          # pass, mismatch, compile-error, run-error
    message: str = ""         # the tool's diagnostic when it failed
    compile_s: float = 0.0
    compile_result: object = None
    run_result: object = None
    artifact: str = ""
    # output name -> max |actual - expected| (inf on shape/dtype mismatch)
    errors: dict = field(default_factory=dict)
    mismatched: list = field(default_factory=list)
    quantized_tolerance: QuantizedTolerance = None


def matches(actual, expected, quantized_tolerance=None):
    if quantized_tolerance is None or actual.shape != expected.shape \
            or not np.issubdtype(expected.dtype, np.floating):
        return outputs_match(actual, expected)
    if actual.dtype != expected.dtype:
        return False
    if max_abs_error(actual, expected) > quantized_tolerance.max_abs:
        return False
    off = ~np.isclose(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
    return off.mean() <= quantized_tolerance.max_fraction


def evaluate(name, work_dir, *flags, symbolic=False):
    """Compiles model `name` into work_dir (with autoglm-compile `flags`),
    runs it on the stored inputs and compares every output with its
    reference. The dimensions of meta.json are pinned to the values the
    stored case uses, or, `symbolic`, kept symbolic in 1..twice that."""
    case_dir = os.path.join(SHARED_MODELS_DIR, name)
    with open(os.path.join(case_dir, "meta.json")) as f:
        meta = json.load(f)
    ev = Evaluation(name)
    ev.quantized_tolerance = QUANTIZED_TOLERANCES.get(name)

    dims = []
    for dim, value in dim_values(name).items():
        dims += ["--dim", f"{dim}=1..{2 * value}" if symbolic
                 else f"{dim}={value}"]
    ev.artifact = os.path.join(work_dir, name + ("_symbolic" if symbolic
                                                  else "") + ".so")
    start = time.monotonic()
    ev.compile_result = compile_model(
        os.path.join(SHARED_MODELS_DIR, name + ".onnx"), ev.artifact, *dims,
        *flags)
    ev.compile_s = time.monotonic() - start
    if ev.compile_result.returncode != 0:
        ev.status = "compile-error"
        ev.message = ev.compile_result.stderr.strip()
        return ev

    input_names, inputs, outputs = load_case(case_dir)
    output_names = [o["name"] for o in meta["run"]["outputs"]]
    args = []
    for input_name, path in zip(input_names, inputs):
        args += ["--input", f"{input_name}={path}"]
    # autoglm-run checks fp32 outputs itself; integer outputs may be off by
    # one and quantized models need their own tolerance, which only the
    # comparison below allows.
    for output_name, path in zip(output_names, outputs):
        floating = np.issubdtype(np.load(path, mmap_mode="r").dtype,
                                 np.floating)
        if floating and ev.quantized_tolerance is None:
            args += ["--expect", f"{output_name}={path}"]
    saved_dir = os.path.join(work_dir, name + "-outputs")
    ev.run_result = run_model(ev.artifact, *args, "--output-dir", saved_dir)
    if ev.run_result.returncode not in (0, 1):
        ev.status = "run-error"
        ev.message = ev.run_result.stderr.strip()
        return ev

    for output_name, path in zip(output_names, outputs):
        saved = os.path.join(saved_dir, saved_output_name(output_name))
        expected = np.load(path)
        actual = np.load(saved) if os.path.isfile(saved) else None
        if actual is None:
            ev.errors[output_name] = float("inf")
            ev.mismatched.append(output_name)
            continue
        ev.errors[output_name] = max_abs_error(actual, expected)
        if not matches(actual, expected, ev.quantized_tolerance):
            ev.mismatched.append(output_name)
    ok = ev.run_result.returncode == 0 and not ev.mismatched
    ev.status = "pass" if ok else "mismatch"
    if not ok:
        ev.message = ev.run_result.stderr.strip()
    return ev
