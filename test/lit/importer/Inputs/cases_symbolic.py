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


@case
def symbolic_causal_mask():
    # The causal mask of a decoder with a KV cache, as torch's dynamo
    # exporter writes it: key positions Range(0, total), query positions
    # Range(0, seq) + (total - seq), LessOrEqual, And with the padding mask,
    # Where to 0 / -1e9.
    nodes = [node("Shape", ["ids"], ["seq_s"], name="shape_seq", start=1, end=2),
             node("Squeeze", ["seq_s"], ["seq"], name="squeeze_seq"),
             node("Shape", ["mask"], ["total_s"], name="shape_total", start=1, end=2),
             node("Squeeze", ["total_s"], ["total"], name="squeeze_total"),
             node("Range", ["zero", "total", "one"], ["keys"], name="range_keys"),
             node("Range", ["zero", "seq", "one"], ["q0"], name="range_queries"),
             node("Sub", ["total", "seq"], ["past"], name="past"),
             node("Add", ["q0", "past"], ["queries"], name="queries"),
             node("Unsqueeze", ["keys", "ax0"], ["k2"], name="keys_row"),
             node("Unsqueeze", ["queries", "ax1"], ["q2"], name="queries_column"),
             node("LessOrEqual", ["k2", "q2"], ["causal"], name="causal"),
             node("Equal", ["mask", "zero"], ["padded"], name="padded"),
             node("Not", ["padded"], ["kept"], name="kept"),
             node("Unsqueeze", ["kept", "ax1"], ["kept3"], name="kept_rows"),
             node("And", ["causal", "kept3"], ["keep"], name="keep"),
             node("Where", ["keep", "fzero", "fmin"], ["y"], name="where")]
    return model(nodes, [tensor("ids", I64, [1, "seq"]),
                         tensor("mask", I64, [1, "total"])],
                 [tensor("y", F32, [1, "seq", "total"])], 18,
                 [const("zero", 0), const("one", 1), const("ax0", [0]),
                  const("ax1", [1]), const("fzero", 0.0, np.float32),
                  const("fmin", -1e9, np.float32)])


@case
def symbolic_range_offset():
    # Range(2, seq, 3): ceil((seq - 2) / 3) elements, at least 0.
    nodes = [node("Shape", ["x"], ["s"], name="shape", start=1, end=2),
             node("Squeeze", ["s"], ["n"], name="squeeze"),
             node("Range", ["two", "n", "three"], ["y"], name="range")]
    return model(nodes, [tensor("x", F32, [1, "seq"])],
                 [tensor("y", I64, ["count"])], 18,
                 [const("two", 2), const("three", 3)])


@case
def symbolic_range_data_limit():
    # The limit is tensor data: its length is not known from extents.
    nodes = [node("Range", ["zero", "n", "one"], ["y"], name="data_range")]
    return model(nodes, [tensor("n", I64, [])],
                 [tensor("y", I64, ["count"])], 18,
                 [const("zero", 0), const("one", 1)])


@case
def symbolic_strided_slice():
    # x[..., 0::2] of a [batch, seq, 8] tensor (the interleaved rotary
    # halves): the strided axis is static, the others are taken whole.
    nodes = [node("Slice", ["x", "zero", "big", "last", "two"], ["y"], name="even")]
    return model(nodes, [tensor("x", F32, ["batch", "seq", 8])],
                 [tensor("y", F32, ["batch", "seq", 4])], 18,
                 [const("zero", [0]), const("big", [2**62]), const("last", [-1]),
                  const("two", [2])])
