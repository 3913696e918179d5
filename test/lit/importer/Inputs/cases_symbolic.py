"""Symbolic input dimensions (--dim NAME=MIN..MAX): shape subgraphs that
compute Reshape targets from the input's extents."""

import numpy as np

from common import F32, I64, case, const, model, node, tensor


@case
def symbolic_reshape_computed():
    # [batch, seq, 256] -> [batch, seq, 4, -1], the target computed from the
    # input's extents as exporters write it.
    nodes = [node("Shape", ["x"], ["s"], name="shape"),
             node("Gather", ["s", "i0"], ["d0"], name="gather0", axis=0),
             node("Gather", ["s", "i1"], ["d1"], name="gather1", axis=0),
             node("Unsqueeze", ["d0", "ax0"], ["u0"], name="unsqueeze0"),
             node("Unsqueeze", ["d1", "ax0"], ["u1"], name="unsqueeze1"),
             node("Concat", ["u0", "u1", "heads", "minus1"], ["target"], name="concat", axis=0),
             node("Reshape", ["x", "target"], ["y"], name="reshape")]
    return model(nodes, [tensor("x", F32, ["batch", "seq", 256])],
                 [tensor("y", F32, ["batch", "seq", 4, 64])], 13,
                 [const("i0", 0), const("i1", 1), const("ax0", [0]),
                  const("heads", [4]), const("minus1", [-1])])


@case
def symbolic_reshape_data_shape():
    # The target is a graph input: tensor data, not the input's extents.
    nodes = [node("Reshape", ["x", "shape"], ["y"], name="data_reshape")]
    return model(nodes, [tensor("x", F32, ["batch", 4]), tensor("shape", I64, [2])],
                 [tensor("y", F32, [4, "batch"])], 13)


@case
def symbolic_reshape_flatten():
    # [batch, seq, 256] -> [batch, -1]: the -1 is seq * 256, symbolic.
    nodes = [node("Shape", ["x"], ["s"], name="shape"),
             node("Gather", ["s", "i0"], ["d0"], name="gather0", axis=0),
             node("Unsqueeze", ["d0", "ax0"], ["u0"], name="unsqueeze0"),
             node("Concat", ["u0", "minus1"], ["target"], name="concat", axis=0),
             node("Reshape", ["x", "target"], ["y"], name="reshape")]
    return model(nodes, [tensor("x", F32, ["batch", "seq", 256])],
                 [tensor("y", F32, ["batch", "flat"])], 13,
                 [const("i0", 0), const("ax0", [0]), const("minus1", [-1])])


def _reshape_to_first_two_and(tail):
    # [batch, seq, 256] -> [batch, seq] + tail, the target from Shape/Slice.
    nodes = [node("Shape", ["x"], ["s"], name="shape"),
             node("Slice", ["s", "zero", "two"], ["p"], name="slice"),
             node("Concat", ["p", "tail"], ["target"], name="concat", axis=0),
             node("Reshape", ["x", "target"], ["y"], name="reshape")]
    return model(nodes, [tensor("x", F32, ["batch", "seq", 256])],
                 [tensor("y", F32, None)], 13,
                 [const("zero", [0]), const("two", [2]), const("tail", tail)])


@case
def symbolic_reshape_inexact():
    # 256 / 3 is not whole.
    return _reshape_to_first_two_and([3, -1])


@case
def symbolic_reshape_wrong_count():
    # 4 * 32 != 256.
    return _reshape_to_first_two_and([4, 32])


@case
def symbolic_slice_computed_end():
    # positions[:, :seq] with seq read from the input's shape (as BERT and
    # GPT-2 exports slice their position and mask tables).
    nodes = [node("Shape", ["x"], ["s"], name="shape"),
             node("Gather", ["s", "i1"], ["seq"], name="gather"),
             node("Unsqueeze", ["seq", "ax0"], ["end"], name="unsqueeze"),
             node("Slice", ["table", "zero", "end", "ax1"], ["y"], name="slice")]
    return model(nodes, [tensor("x", F32, ["batch", "seq"])],
                 [tensor("y", F32, [1, "seq"])], 13,
                 [const("i1", 1), const("ax0", [0]), const("zero", [0]),
                  const("ax1", [1]),
                  const("table", [[float(i) for i in range(16)]], np.float32)])
