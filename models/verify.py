#!/usr/bin/env python3
"""Check the stored reference outputs against a fresh onnxruntime run.

Runs every model in models/ and every fixture with a reference directory in
test/e2e/fixtures/ with onnxruntime CPU (default graph optimizations, i.e. a
different execution path than the one that produced the references) and
compares with the fp32 tolerances used by the end-to-end tests.

Usage: python3 models/verify.py
"""

import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

MODELS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(MODELS_DIR)
FIXTURES_DIR = os.path.join(REPO_ROOT, "test", "e2e", "fixtures")

RTOL, ATOL = 1e-4, 1e-5


def cases():
    """Yield (model path, reference dir) for every model with references."""
    for root in (MODELS_DIR, FIXTURES_DIR):
        for entry in sorted(os.listdir(root)):
            case_dir = os.path.join(root, entry)
            model_path = case_dir + ".onnx"
            if os.path.isdir(case_dir) and os.path.isfile(model_path):
                yield model_path, case_dir


def load_arrays(case_dir, kind, count):
    return [np.load(os.path.join(case_dir, f"{kind}_{i}.npy"))
            for i in range(count)]


def check(model_path, case_dir):
    with open(os.path.join(case_dir, "inputs.json")) as f:
        input_names = json.load(f)
    with open(os.path.join(case_dir, "outputs.json")) as f:
        output_names = json.load(f)
    inputs = load_arrays(case_dir, "input", len(input_names))
    expected = load_arrays(case_dir, "output", len(output_names))

    sess = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == input_names
    assert [o.name for o in sess.get_outputs()] == output_names
    actual = sess.run(output_names, dict(zip(input_names, inputs)))

    ok = True
    for name, exp, act in zip(output_names, expected, actual):
        close = exp.shape == act.shape and np.allclose(act, exp, rtol=RTOL,
                                                       atol=ATOL)
        err = np.max(np.abs(act - exp)) if exp.shape == act.shape else np.inf
        ok &= bool(close)
        print(f"  {name}: shape {list(exp.shape)} {exp.dtype}, "
              f"max abs diff {err:.3g} {'ok' if close else 'MISMATCH'}")
    return ok


def main():
    all_ok = True
    for model_path, case_dir in cases():
        model = onnx.load(model_path, load_external_data=False)
        opset = {o.domain: o.version for o in model.opset_import}.get("", None)
        print(f"{os.path.relpath(model_path, REPO_ROOT)} "
              f"(opset {opset}, {len(model.graph.node)} nodes, "
              f"{os.path.getsize(model_path)} bytes)")
        all_ok &= check(model_path, case_dir)
    print("all references match" if all_ok else "MISMATCHES FOUND")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
