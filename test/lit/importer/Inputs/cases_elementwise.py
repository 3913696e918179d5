"""Elementwise operators."""

import numpy as np
from onnx import TensorProto

from common import BOOL, F16, F32, I32, I64, U8, case, const, model, node, tensor


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


@case
def activations():
    # Activation functions import as compositions of autoglm ops.
    nodes = [node("HardSigmoid", ["x"], ["hard_sigmoid"], alpha=0.25, beta=0.5),
             node("LeakyRelu", ["x"], ["leaky_relu"], alpha=0.1),
             node("Elu", ["x"], ["elu"], alpha=2.0),
             node("Softplus", ["x"], ["softplus"])]
    return model(nodes, [tensor("x", F32, [4])], [tensor(n.output[0], F32, [4]) for n in nodes], 17)


@case
def celu_f16():
    # 16-bit floats are computed in f32 and rounded once.
    nodes = [node("Celu", ["x"], ["y"], alpha=0.5)]
    return model(nodes, [tensor("x", F16, [4])], [tensor("y", F16, [4])], 13)


@case
def mod_bitshift():
    nodes = [node("Mod", ["a", "b"], ["floored"], name="floored"),
             node("Mod", ["a", "b"], ["truncated"], name="truncated", fmod=1),
             node("BitShift", ["u", "v"], ["left"], name="left", direction="LEFT"),
             node("BitShift", ["u", "v"], ["right"], name="right", direction="RIGHT")]
    return model(nodes,
                 [tensor("a", I32, [2, 3]), tensor("b", I32, [3]), tensor("u", U8, [3]), tensor("v", U8, [3])],
                 [tensor("floored", I32, [2, 3]), tensor("truncated", I32, [2, 3]),
                  tensor("left", U8, [3]), tensor("right", U8, [3])], 13)


@case
def bitshift_bad_direction():
    nodes = [node("BitShift", ["u", "v"], ["y"], name="shift", direction="UP")]
    return model(nodes, [tensor("u", U8, [3]), tensor("v", U8, [3])], [tensor("y", U8, [3])], 13)


@case
def logical_ops():
    # Logical and bitwise operators share the and/or/xor/not ops.
    nodes = [node("And", ["p", "q"], ["and"]), node("Or", ["p", "q"], ["or"]),
             node("Xor", ["p", "q"], ["xor"]), node("BitwiseNot", ["i"], ["bnot"]),
             node("BitwiseAnd", ["i", "j"], ["band"]),
             node("GreaterOrEqual", ["i", "j"], ["ge"]), node("LessOrEqual", ["i", "j"], ["le"])]
    return model(nodes,
                 [tensor("p", BOOL, [2, 3]), tensor("q", BOOL, [3]),
                  tensor("i", TensorProto.INT8, [3]), tensor("j", TensorProto.INT8, [3])],
                 [tensor("and", BOOL, [2, 3]), tensor("or", BOOL, [2, 3]), tensor("xor", BOOL, [2, 3]),
                  tensor("bnot", TensorProto.INT8, [3]), tensor("band", TensorProto.INT8, [3]),
                  tensor("ge", BOOL, [3]), tensor("le", BOOL, [3])], 18)


@case
def isinf_isnan():
    nodes = [node("IsInf", ["x"], ["inf"]),
             node("IsInf", ["x"], ["pos"], name="pos", detect_negative=0),
             node("IsInf", ["x"], ["none"], name="none", detect_negative=0, detect_positive=0),
             node("IsNaN", ["x"], ["nan"])]
    return model(nodes, [tensor("x", F32, [4])], [tensor(n.output[0], BOOL, [4]) for n in nodes], 20)


@case
def size_castlike_mean():
    nodes = [node("Size", ["x"], ["size"]), node("CastLike", ["x", "like"], ["cast"]),
             node("Mean", ["x", "y", "x"], ["mean"])]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("like", F16, [1]), tensor("y", F32, [3])],
                 [tensor("size", I64, []), tensor("cast", F16, [2, 3]), tensor("mean", F32, [2, 3])], 19)


@case
def dropout_mask_opset7():
    # Before opset 10 the mask has the input's type.
    nodes = [node("Dropout", ["x"], ["y", "mask"], name="drop")]
    return model(nodes, [tensor("x", F32, [4])],
                 [tensor("y", F32, [4]), tensor("mask", F32, [4])], 7)


@case
def gelu_bad_approximation():
    nodes = [node("Gelu", ["x"], ["y"], name="gelu", approximate="sigmoid")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 20)


@case
def prelu_bad_slope():
    # The slope broadcasts to the input, never the input to the slope.
    nodes = [node("PRelu", ["x", "slope"], ["y"], name="prelu")]
    return model(nodes, [tensor("x", F32, [4]), tensor("slope", F32, [2, 4])],
                 [tensor("y", F32, [2, 4])], 16)


@case
def swish():
    nodes = [node("Swish", ["x"], ["y"], name="swish", alpha=2.0)]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 24)


@case
def bitcast_float_to_int():
    nodes = [node("BitCast", ["x"], ["y"], name="bits", to=TensorProto.INT32)]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", I32, [4])], 26)


@case
def swiglu():
    nodes = [node("SwiGLU", ["a", "b"], ["y"], name="swiglu", alpha=0.5)]
    return model(nodes, [tensor("a", F32, [2, 4]), tensor("b", F32, [2, 4])],
                 [tensor("y", F32, [2, 4])], 28)
