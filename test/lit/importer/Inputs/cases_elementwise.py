"""Elementwise operators."""

import numpy as np
from onnx import TensorProto

from common import BOOL, F32, I64, case, const, model, node, tensor


@case
def binary_ops():
    # Min, Max and Sum are variadic: they fold left to right.
    ops = ["Add", "Sub", "Mul", "Div", "Pow"]
    nodes = [node(op, ["x", "y"], [op.lower()]) for op in ops]
    nodes += [node(op, ["x", "y", "x"], [op.lower()]) for op in ["Min", "Max", "Sum"]]
    outs = [tensor(n.output[0], F32, [2, 3]) for n in nodes]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("y", F32, [3])], outs, 17)


@case
def unary_ops():
    ops = ["Sqrt", "Reciprocal", "Erf", "Tanh", "Sigmoid", "Exp", "Log", "Relu", "Neg", "Abs"]
    nodes = [node(op, ["x"], [op.lower()]) for op in ops]
    outs = [tensor(n.output[0], F32, [4]) for n in nodes]
    return model(nodes, [tensor("x", F32, [4])], outs, 17)


@case
def identity_dropout():
    # Identity and inference-time Dropout forward their input.
    nodes = [node("Identity", ["x"], ["a"]), node("Relu", ["a"], ["b"]),
             node("Dropout", ["b"], ["y"])]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 13)


@case
def dropout_mask():
    nodes = [node("Dropout", ["x"], ["y", "mask"], name="drop")]
    return model(nodes, [tensor("x", F32, [4])],
                 [tensor("y", F32, [4]), tensor("mask", BOOL, [4])], 13)


@case
def compare_where():
    nodes = [node("Equal", ["a", "b"], ["eq"]), node("Less", ["a", "b"], ["lt"]),
             node("Greater", ["a", "b"], ["gt"]), node("Not", ["lt"], ["ge"]),
             node("Where", ["ge", "x", "zero"], ["y"])]
    return model(nodes,
                 [tensor("a", I64, [2, 3]), tensor("b", I64, [3]), tensor("x", F32, [2, 3])],
                 [tensor("eq", BOOL, [2, 3]), tensor("gt", BOOL, [2, 3]), tensor("y", F32, [2, 3])],
                 17, [const("zero", 0.0, np.float32)])


@case
def cast_ops():
    targets = [("f16", TensorProto.FLOAT16), ("i32", TensorProto.INT32),
               ("u8", TensorProto.UINT8), ("b", TensorProto.BOOL), ("d", TensorProto.DOUBLE)]
    nodes = [node("Cast", ["x"], [n], name="cast_" + n, to=t) for n, t in targets]
    return model(nodes, [tensor("x", F32, [4])], [tensor(n, t, [4]) for n, t in targets], 13)


@case
def cast_to_string():
    nodes = [node("Cast", ["x"], ["y"], name="to_string", to=TensorProto.STRING)]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", TensorProto.STRING, [4])], 13)


@case
def clip_opset10():
    # Before opset 11 the bounds are attributes; absent ones are +-FLT_MAX.
    nodes = [node("Clip", ["x"], ["relu6"], name="relu6", min=0.0, max=6.0),
             node("Clip", ["x"], ["open"], name="open")]
    return model(nodes, [tensor("x", F32, [4])],
                 [tensor("relu6", F32, [4]), tensor("open", F32, [4])], 10)


@case
def clip_opset13():
    # Since opset 11 the bounds are optional inputs; "" skips one.
    nodes = [node("Clip", ["x", "lo", "hi"], ["both"], name="both"),
             node("Clip", ["x", "lo"], ["min_only"], name="min_only"),
             node("Clip", ["x", "", "hi"], ["max_only"], name="max_only")]
    return model(nodes, [tensor("x", F32, [4])],
                 [tensor(n, F32, [4]) for n in ["both", "min_only", "max_only"]], 13,
                 [const("lo", -1.0, np.float32), const("hi", 1.5, np.float32)])


@case
def clip_dynamic_bound():
    nodes = [node("Clip", ["x", "lo"], ["y"], name="dyn_clip")]
    return model(nodes, [tensor("x", F32, [4]), tensor("lo", F32, [])],
                 [tensor("y", F32, [4])], 13)
