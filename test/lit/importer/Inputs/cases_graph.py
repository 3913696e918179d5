"""Whole-graph behaviour: names, ordering, weights, symbolic dimensions and
malformed models."""

import numpy as np
from onnx import TensorProto, helper

from common import BOOL, F32, I64, case, model, node, tensor, weights


@case
def unsorted_nodes():
    # Exporters may list nodes out of order.
    nodes = [node("Exp", ["b"], ["y"], name="last"), node("Neg", ["a"], ["b"], name="middle"),
             node("Relu", ["x"], ["a"], name="first")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 13)


@case
def weights_and_names():
    # A large initializer becomes a dense_resource blob; a small one (up to
    # 64 elements) stays inline. Inputs and outputs keep their ONNX names.
    nodes = [node("MatMul", ["input.1", "fc.weight"], ["h"], name="/fc/MatMul"),
             node("Add", ["h", "fc.bias"], ["logits:0"], name="/fc/Add")]
    return model(nodes, [tensor("input.1", F32, [2, 16])], [tensor("logits:0", F32, [2, 8])], 13,
                 [weights("fc.weight", [16, 8]), weights("fc.bias", [8])])


@case
def initializer_as_input():
    # IR version 3 exporters also list initializers as graph inputs.
    nodes = [node("Add", ["x", "bias"], ["y"], name="add")]
    return model(nodes, [tensor("x", F32, [3]), tensor("bias", F32, [3])],
                 [tensor("y", F32, [3])], 9, [weights("bias", [3])], ir_version=3)


@case
def symbolic_batch():
    nodes = [node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [tensor("x", F32, ["batch", 4])], [tensor("y", F32, ["batch", 4])], 13)


@case
def unnamed_dim():
    # A dimension with neither a value nor a name.
    x = helper.make_tensor_value_info("x", F32, [None, 4])
    nodes = [node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [x], [tensor("y", F32, [None, 4])], 13)


@case
def unnamed_node_unsupported():
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Unique", ["a"], ["y"])]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 13)


@case
def unsupported_op():
    nodes = [node("Relu", ["x"], ["a"], name="ok"),
             node("NonMaxSuppression", ["a", "a"], ["y"], name="nms")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", I64, [1, 3])], 13)


@case
def custom_domain():
    n = helper.make_node("FusedGelu", ["x"], ["y"], name="gelu", domain="com.microsoft")
    m = model([n], [tensor("x", F32, [4])], [tensor("y", F32, [4])], 13)
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return m


@case
def opset6():
    nodes = [node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 6)


@case
def opset29():
    nodes = [node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 29)


@case
def no_default_opset():
    graph = helper.make_graph([node("Relu", ["x"], ["y"], name="relu")], "test",
                              [tensor("x", F32, [4])], [tensor("y", F32, [4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("com.example", 1)])
    m.ir_version = 8
    return m


@case
def ir_version2():
    m = model([node("Relu", ["x"], ["y"], name="relu")], [tensor("x", F32, [4])],
              [tensor("y", F32, [4])], 7)
    m.ir_version = 2
    return m


@case
def undefined_input():
    nodes = [node("Add", ["x", "nowhere"], ["y"], name="add")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 13)


@case
def unsupported_input_dtype():
    nodes = [node("Identity", ["x"], ["y"], name="id")]
    return model(nodes, [tensor("x", TensorProto.STRING, [4])],
                 [tensor("y", TensorProto.STRING, [4])], 13)


@case
def unsupported_initializer_dtype():
    w = helper.make_tensor("w", TensorProto.COMPLEX64, [1], [1.0 + 0.0j])
    nodes = [node("Identity", ["w"], ["y"], name="id")]
    return model(nodes, [], [tensor("y", TensorProto.COMPLEX64, [1])], 13, [w])


@case
def input_without_shape():
    x = helper.make_tensor_value_info("x", F32, None)
    nodes = [node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [x], [tensor("y", F32, [4])], 13)


@case
def sequence_input():
    x = helper.make_tensor_sequence_value_info("x", F32, [4])
    nodes = [node("SequenceLength", ["x"], ["y"], name="len")]
    return model(nodes, [x], [tensor("y", I64, [])], 13)


@case
def output_wrong_dtype():
    nodes = [node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", I64, [4])], 13)


@case
def output_wrong_shape():
    nodes = [node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [5])], 13)


@case
def initializer_wrong_size():
    # 12 bytes of data for a [4] float32 tensor.
    w = TensorProto(name="w", data_type=F32, dims=[4],
                    raw_data=np.zeros(3, dtype=np.float32).tobytes())
    nodes = [node("Add", ["x", "w"], ["y"], name="add")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 13, [w])


@case
def output_of_identity_twice():
    # Two graph outputs that are the same value.
    nodes = [node("Exp", ["x"], ["y"], name="exp"), node("Identity", ["y"], ["y_copy"], name="copy")]
    return model(nodes, [tensor("x", F32, [4])],
                 [tensor("y", F32, [4]), tensor("y_copy", F32, [4])], 13)


@case
def empty_boundary_tensors():
    # An empty input and an empty output with a zero extent after the first.
    nodes = [node("ReduceSum", ["x"], ["s"], name="sum", axes=[1], keepdims=0),
             node("Transpose", ["x"], ["t"], name="t", perm=[1, 0, 2])]
    return model(nodes, [tensor("x", F32, [2, 0, 4])],
                 [tensor("s", F32, [2, 4]), tensor("t", F32, [0, 2, 4]), ], 11)


@case
def empty_boundary_output():
    nodes = [node("Slice", ["x", "starts", "ends", "axes"], ["y"], name="empty_slice")]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [2, 0])], 11,
                 [helper.make_tensor("starts", TensorProto.INT64, [1], [1]),
                  helper.make_tensor("ends", TensorProto.INT64, [1], [1]),
                  helper.make_tensor("axes", TensorProto.INT64, [1], [1])])


@case
def opset1_not():
    # Not means the same since opset 1: such a model is accepted.
    nodes = [node("Not", ["x"], ["y"], name="not")]
    return model(nodes, [tensor("x", BOOL, [4])], [tensor("y", BOOL, [4])], 1)
