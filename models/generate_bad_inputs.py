#!/usr/bin/env python3
"""Generate malformed and edge-case ONNX fixtures for the end-to-end tests.

Writes into test/e2e/fixtures/. Several fixtures derive from models/mlp.onnx,
so run models/generate.py (which calls this script at the end) or make sure
that model exists first.

Fixtures that are valid, runnable models get onnxruntime references in a
directory of the same name (input_<i>.npy, output_<i>.npy, inputs.json,
outputs.json), like the models in models/.

Usage: python3 models/generate_bad_inputs.py
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # keep models/ free of __pycache__
from generate import (  # noqa: E402
    MODELS_DIR, REPO_ROOT, GraphBuilder, f32, make_model, tensor_info,
    write_case, write_reference)

FIXTURES_DIR = os.path.join(REPO_ROOT, "test", "e2e", "fixtures")


def path(name):
    return os.path.join(FIXTURES_DIR, name)


def write_bytes(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def loads_ok(data):
    try:
        onnx.load_model_from_string(data)
        return True
    except Exception:
        return False


# --- Unparseable files -------------------------------------------------------

def gen_truncated():
    with open(os.path.join(MODELS_DIR, "mlp.onnx"), "rb") as f:
        data = f.read()
    truncated = data[:len(data) // 2]
    # The cut lands inside the weight initializer's raw data, so protobuf
    # parsing must fail rather than yield a partial model.
    assert not loads_ok(truncated), "truncated.onnx unexpectedly parses"
    write_bytes("truncated.onnx", truncated)


def gen_garbage():
    rng = np.random.default_rng(4004)
    # Tag byte 0x07 is field 0 with wire type 7: invalid in every protobuf
    # message, so parsing fails on the first byte regardless of what follows.
    data = b"\x07" + rng.integers(0, 256, 255, dtype=np.uint8).tobytes()
    assert not loads_ok(data), "garbage.onnx unexpectedly parses"
    write_bytes("garbage.onnx", data)


def gen_empty():
    # Note: protobuf parses 0 bytes as an empty ModelProto (no graph, no
    # opset); a loader has to reject it on content, not on parse errors.
    write_bytes("empty.onnx", b"")


# --- Valid protobuf, but not compilable --------------------------------------

def gen_unsupported_op():
    g = GraphBuilder()
    g.nodes.append(helper.make_node("Unique", ["x"], ["y"],
                                    name="my_unsupported_node"))
    model = g.model("unsupported_op", [tensor_info("x", [3, 2, 2])],
                    [tensor_info("y", [3])])
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, path("unsupported_op.onnx"))


def gen_unsupported_dtype():
    g = GraphBuilder()
    g.op("Identity", ["x"], "y")
    model = g.model(
        "unsupported_dtype",
        [tensor_info("x", [2, 3], TensorProto.COMPLEX64)],
        [tensor_info("y", [2, 3], TensorProto.COMPLEX64)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, path("unsupported_dtype.onnx"))


def gen_inconsistent_shapes():
    # Declared input shapes [2,3] and [4,5] cannot broadcast. Saved without
    # running the checker, which would reject it.
    g = GraphBuilder()
    g.op("Add", ["a", "b"], "y")
    model = g.model("inconsistent_shapes",
                    [tensor_info("a", [2, 3]), tensor_info("b", [4, 5])],
                    [tensor_info("y", [2, 3])])
    onnx.save_model(model, path("inconsistent_shapes.onnx"))


# --- Valid models that exercise loader corner cases --------------------------

def gen_unsorted():
    # x -> Relu -> Neg -> y, with the node list stored in reverse order.
    # ONNX requires topological order, but real-world files sometimes violate
    # it; onnxruntime sorts the graph itself, so it still produces references.
    relu = helper.make_node("Relu", ["x"], ["r"], name="relu")
    neg = helper.make_node("Neg", ["r"], ["y"], name="neg")
    graph = helper.make_graph([neg, relu], "unsorted",
                              [tensor_info("x", [3, 4])],
                              [tensor_info("y", [3, 4])])
    model = make_model(graph)
    rng = np.random.default_rng(5005)
    write_case(model, path("unsorted.onnx"), path("unsorted"),
               [f32(rng.standard_normal((3, 4)))])


def gen_external_data():
    # y = x @ W with W stored in a side file referenced by relative path.
    rng = np.random.default_rng(6006)
    g = GraphBuilder()
    w = g.init("weight", f32(rng.standard_normal((16, 8)) * 0.1))
    g.op("MatMul", ["x", w], "y")
    model = g.model("external_data", [tensor_info("x", [2, 16])],
                    [tensor_info("y", [2, 8])])
    onnx.checker.check_model(model, full_check=True)
    model_path = path("external_data.onnx")
    data_path = path("external_data.onnx.data")
    # onnx appends to an existing data file, so start from a clean slate.
    if os.path.exists(data_path):
        os.remove(data_path)
    onnx.save_model(model, model_path, save_as_external_data=True,
                    all_tensors_to_one_file=True,
                    location=os.path.basename(data_path), size_threshold=0)
    os.chmod(data_path, 0o644)
    write_reference(model_path, path("external_data"),
                    [f32(rng.standard_normal((2, 16)))], ["x"], ["y"])


def gen_old_opset():
    """Opset 10 (IR 5) model whose ops changed meaning or signature later:
    Gemm with a required C, Unsqueeze/Squeeze/ReduceSum with `axes`
    attributes (inputs since 13), Softmax with pre-13 semantics (axis=1
    coerces the input to 2-D and normalizes over all trailing dims), and
    Slice-10 with starts/ends/axes as inputs (attributes before 10)."""
    rng = np.random.default_rng(7007)
    g = GraphBuilder()
    w = g.init("gemm.weight", f32(rng.standard_normal((5, 4)) * 0.5))
    b = g.init("gemm.bias", f32(rng.standard_normal(5) * 0.1))
    starts = g.init("slice.starts", np.array([1], np.int64))
    ends = g.init("slice.ends", np.array([4], np.int64))
    axes = g.init("slice.axes", np.array([2], np.int64))

    t = g.op("Gemm", ["x", w, b], "Gemm", transB=1)              # [3,5]
    t = g.op("Unsqueeze", [t], "Unsqueeze", axes=[0])           # [1,3,5]
    t = g.op("Softmax", [t], "Softmax", axis=1)                 # over 3*5
    t = g.op("Slice", [t, starts, ends, axes], "Slice")         # [1,3,3]
    g.op("Squeeze", [t], "y", axes=[0])                         # [3,3]
    g.op("ReduceSum", ["y"], "y_sum", axes=[1], keepdims=0)     # [3]

    model = g.model("old_opset", [tensor_info("x", [3, 4])],
                    [tensor_info("y", [3, 3]), tensor_info("y_sum", [3])],
                    opset=10, ir_version=5)
    onnx.checker.check_model(model, full_check=True)
    write_case(model, path("old_opset.onnx"), path("old_opset"),
               [f32(rng.standard_normal((3, 4)))])


def gen_opset13():
    """Opset 13 model: Unsqueeze/Squeeze/ReduceSum take `axes` as an input,
    Softmax normalizes along one axis, while ReduceMean still uses the
    attribute form."""
    rng = np.random.default_rng(8008)
    g = GraphBuilder()
    axes0 = g.init("axes0", np.array([0], np.int64))
    axes3 = g.init("axes3", np.array([3], np.int64))

    t = g.op("Unsqueeze", ["x", axes0], "Unsqueeze")            # [1,2,3,4]
    t = g.op("Softmax", [t], "Softmax", axis=2)                 # along dim 2
    t = g.op("ReduceSum", [t, axes3], "ReduceSum", keepdims=0)  # [1,2,3]
    g.op("Squeeze", [t, axes0], "y")                            # [2,3]
    g.op("ReduceMean", ["x"], "y_mean", axes=[-1], keepdims=1)  # [2,3,1]

    model = g.model("opset13", [tensor_info("x", [2, 3, 4])],
                    [tensor_info("y", [2, 3]), tensor_info("y_mean", [2, 3, 1])],
                    opset=13)
    onnx.checker.check_model(model, full_check=True)
    write_case(model, path("opset13.onnx"), path("opset13"),
               [f32(rng.standard_normal((2, 3, 4)))])


def gen_bad_mlp_inputs():
    # Inputs for models/mlp.onnx (expects float32 x[4,64]) that must be
    # rejected at run time.
    rng = np.random.default_rng(9009)
    np.save(path("mlp_wrong_shape.npy"), f32(rng.standard_normal((4, 63))))
    np.save(path("mlp_wrong_dtype.npy"), rng.standard_normal((4, 64)))


def main():
    os.makedirs(FIXTURES_DIR, exist_ok=True)
    for gen in [gen_truncated, gen_garbage, gen_empty, gen_unsupported_op,
                gen_unsupported_dtype, gen_inconsistent_shapes, gen_unsorted,
                gen_external_data, gen_old_opset, gen_opset13,
                gen_bad_mlp_inputs]:
        gen()
    print(f"wrote fixtures to {os.path.relpath(FIXTURES_DIR, REPO_ROOT)}/")


if __name__ == "__main__":
    main()
