"""Shape and data-movement operators."""

import numpy as np
from onnx import numpy_helper

from common import F32, I32, I64, case, const, model, node, tensor

INT64_MAX = 2**63 - 1


@case
def reshape_zero_and_minus_one():
    # 0 copies the input extent, -1 takes what is left.
    nodes = [node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [tensor("x", F32, [2, 3, 4])], [tensor("y", F32, [2, 4, 3])], 13,
                 [const("shape", [0, -1, 3])])


@case
def reshape_computed_shape():
    # The target computed by Shape -> Gather -> Unsqueeze -> Concat folds to
    # a constant at import.
    nodes = [node("Shape", ["x"], ["s"], name="shape"),
             node("Gather", ["s", "i0"], ["d0"], name="gather", axis=0),
             node("Unsqueeze", ["d0", "ax0"], ["u0"], name="unsqueeze"),
             node("Concat", ["u0", "minus1"], ["target"], name="concat", axis=0),
             node("Reshape", ["x", "target"], ["y"], name="reshape")]
    return model(nodes, [tensor("x", F32, [2, 3, 4])], [tensor("y", F32, [2, 12])], 13,
                 [const("i0", 0), const("ax0", [0]), const("minus1", [-1])])


@case
def reshape_dynamic_shape():
    nodes = [node("Reshape", ["x", "shape"], ["y"], name="dyn_reshape")]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("shape", I64, [2])],
                 [tensor("y", F32, [3, 2])], 13)


@case
def reshape_two_minus_one():
    nodes = [node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [3, 2])], 13,
                 [const("shape", [-1, -1])])


@case
def reshape_wrong_count():
    nodes = [node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [4, 2])], 13,
                 [const("shape", [4, 2])])


@case
def unsqueeze_squeeze_opset11():
    # Axes are attributes before opset 13.
    nodes = [node("Unsqueeze", ["x"], ["u"], name="unsqueeze", axes=[0, -1]),
             node("Squeeze", ["u"], ["s"], name="squeeze", axes=[0]),
             node("Squeeze", ["u"], ["all"], name="squeeze_all")]
    return model(nodes, [tensor("x", F32, [3, 4])],
                 [tensor("u", F32, [1, 3, 4, 1]), tensor("s", F32, [3, 4, 1]),
                  tensor("all", F32, [3, 4])], 11)


@case
def unsqueeze_squeeze_opset13():
    # Axes are inputs since opset 13; without them Squeeze drops every 1.
    nodes = [node("Unsqueeze", ["x", "uaxes"], ["u"], name="unsqueeze"),
             node("Squeeze", ["u", "saxes"], ["s"], name="squeeze"),
             node("Squeeze", ["u"], ["all"], name="squeeze_all")]
    return model(nodes, [tensor("x", F32, [3, 4])],
                 [tensor("u", F32, [1, 3, 1, 4]), tensor("s", F32, [3, 1, 4]),
                  tensor("all", F32, [3, 4])], 13,
                 [const("uaxes", [2, 0]), const("saxes", [-4])])


@case
def unsqueeze_repeated_axes():
    nodes = [node("Unsqueeze", ["x", "axes"], ["u"], name="unsqueeze")]
    return model(nodes, [tensor("x", F32, [3])], [tensor("u", F32, [1, 1, 3])], 13,
                 [const("axes", [0, -3])])


@case
def split_opset11():
    nodes = [node("Split", ["x"], ["a", "b"], name="split_sizes", axis=1, split=[1, 3]),
             node("Split", ["x"], ["c", "d"], name="split_equal", axis=-1)]
    return model(nodes, [tensor("x", F32, [2, 4])],
                 [tensor("a", F32, [2, 1]), tensor("b", F32, [2, 3]),
                  tensor("c", F32, [2, 2]), tensor("d", F32, [2, 2])], 11)


@case
def split_opset13():
    nodes = [node("Split", ["x", "sizes"], ["a", "b", "c"], name="split_sizes", axis=0),
             node("Split", ["x"], ["d", "e"], name="split_equal", axis=1)]
    return model(nodes, [tensor("x", F32, [6, 4])],
                 [tensor("a", F32, [1, 4]), tensor("b", F32, [2, 4]), tensor("c", F32, [3, 4]),
                  tensor("d", F32, [6, 2]), tensor("e", F32, [6, 2])], 13,
                 [const("sizes", [1, 2, 3])])


@case
def split_uneven_opset13():
    nodes = [node("Split", ["x"], ["a", "b"], name="split_uneven", axis=0)]
    return model(nodes, [tensor("x", F32, [5])],
                 [tensor("a", F32, [3]), tensor("b", F32, [2])], 13)


@case
def split_uneven_opset18():
    # Since opset 18 the last part may be smaller.
    nodes = [node("Split", ["x"], ["a", "b", "c"], name="split_uneven", axis=0, num_outputs=3)]
    return model(nodes, [tensor("x", F32, [7])],
                 [tensor("a", F32, [3]), tensor("b", F32, [3]), tensor("c", F32, [1])], 18)


@case
def slice_opset9():
    # Before opset 10 bounds are attributes (and there are no steps).
    nodes = [node("Slice", ["x"], ["y"], name="slice", starts=[1, -3], ends=[INT64_MAX, -1],
                  axes=[0, 2])]
    return model(nodes, [tensor("x", F32, [3, 4, 5])], [tensor("y", F32, [2, 4, 2])], 9)


@case
def slice_opset13():
    # Bounds are inputs; negative and huge ends clamp; negative steps run
    # backwards (INT64_MIN-like ends mean "through index 0").
    nodes = [node("Slice", ["x", "s1", "e1", "a1"], ["fwd"], name="slice_fwd"),
             node("Slice", ["x", "s2", "e2", "a2", "st2"], ["rev"], name="slice_rev"),
             node("Slice", ["x", "s3", "e3", "a3", "st3"], ["step"], name="slice_step")]
    return model(nodes, [tensor("x", F32, [3, 4, 5])],
                 [tensor("fwd", F32, [3, 3, 5]), tensor("rev", F32, [3, 4, 5]),
                  tensor("step", F32, [3, 4, 2])], 13,
                 [const("s1", [-3]), const("e1", [INT64_MAX]), const("a1", [1]),
                  const("s2", [-1]), const("e2", [-INT64_MAX]), const("a2", [-1]),
                  const("st2", [-1]),
                  const("s3", [4]), const("e3", [0]), const("a3", [2]), const("st3", [-3])])


@case
def slice_zero_step():
    nodes = [node("Slice", ["x", "s", "e", "a", "st"], ["y"], name="slice")]
    return model(nodes, [tensor("x", F32, [4])], [tensor("y", F32, [4])], 13,
                 [const("s", [0]), const("e", [4]), const("a", [0]), const("st", [0])])


@case
def gather():
    nodes = [node("Gather", ["table", "ids"], ["emb"], name="embed"),
             node("Gather", ["x", "cols"], ["picked"], name="pick", axis=-1)]
    table = numpy_helper.from_array(np.arange(40, dtype=np.float32).reshape(10, 4), "table")
    return model(nodes, [tensor("ids", I64, [2, 3]), tensor("x", F32, [2, 5])],
                 [tensor("emb", F32, [2, 3, 4]), tensor("picked", F32, [2, 2])], 13,
                 [table, const("cols", [-1, 0])])


@case
def gather_bad_axis():
    nodes = [node("Gather", ["x", "i"], ["y"], name="gather", axis=-3)]
    return model(nodes, [tensor("x", F32, [2, 5])], [tensor("y", F32, [2])], 13,
                 [const("i", 0)])


@case
def pad_opset10():
    nodes = [node("Pad", ["x"], ["y"], name="pad", pads=[0, 1, 2, 0], value=-1.0)]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [4, 4])], 10)


@case
def pad_opset18():
    # Pads as an input, an optional value and (opset 18) axes.
    nodes = [node("Pad", ["x", "pads", "value"], ["y"], name="pad"),
             node("Pad", ["x", "apads", "", "axes"], ["z"], name="pad_axes")]
    return model(nodes, [tensor("x", F32, [2, 3])],
                 [tensor("y", F32, [3, 2]), tensor("z", F32, [2, 6])], 18,
                 [const("pads", [1, 0, 0, -1]), const("value", 2.5, np.float32),
                  const("apads", [1, 2]), const("axes", [-1])])


@case
def pad_reflect():
    nodes = [node("Pad", ["x", "pads"], ["y"], name="pad_reflect", mode="reflect")]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [2, 5])], 13,
                 [const("pads", [0, 1, 0, 1])])


@case
def data_movement():
    nodes = [node("Transpose", ["x"], ["t"], name="transpose_default"),
             node("Transpose", ["x"], ["p"], name="transpose_perm", perm=[1, 0, 2]),
             node("Concat", ["x", "x"], ["c"], name="concat", axis=-2),
             node("Expand", ["v", "eshape"], ["e"], name="expand"),
             node("Flatten", ["x"], ["f"], name="flatten", axis=-1)]
    return model(nodes, [tensor("x", F32, [2, 3, 4]), tensor("v", F32, [3, 1])],
                 [tensor("t", F32, [4, 3, 2]), tensor("p", F32, [3, 2, 4]),
                  tensor("c", F32, [2, 6, 4]), tensor("e", F32, [2, 3, 4]),
                  tensor("f", F32, [6, 4])], 13,
                 [const("eshape", [2, 1, 4])])


@case
def constants_and_shape():
    # Constant nodes in their attribute forms, and Shape with start/end.
    t = numpy_helper.from_array(np.array([1.5, -2.0], dtype=np.float32))
    nodes = [node("Constant", [], ["c_tensor"], name="c_tensor", value=t),
             node("Constant", [], ["c_ints"], name="c_ints", value_ints=[4, 5, 6]),
             node("Constant", [], ["c_float"], name="c_float", value_float=0.25),
             node("Shape", ["x"], ["dims"], name="shape", start=1, end=-1)]
    return model(nodes, [tensor("x", F32, [2, 3, 4, 5])],
                 [tensor("c_tensor", F32, [2]), tensor("c_ints", I64, [3]),
                  tensor("c_float", F32, []), tensor("dims", I64, [2])], 15)


@case
def pad_wrap_opset13():
    # 'wrap' exists since opset 19.
    nodes = [node("Pad", ["x", "pads"], ["y"], name="pad_wrap", mode="wrap")]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [2, 5])], 13,
                 [const("pads", [0, 1, 0, 1])])


@case
def pad_modes_opset19():
    nodes = [node("Pad", ["x", "pads"], ["e"], name="pad_edge", mode="edge"),
             node("Pad", ["x", "pads"], ["w"], name="pad_wrap", mode="wrap")]
    return model(nodes, [tensor("x", F32, [2, 3])],
                 [tensor("e", F32, [3, 7]), tensor("w", F32, [3, 7])], 19,
                 [const("pads", [1, 2, 0, 2])])


@case
def pad_runtime_value():
    nodes = [node("Pad", ["x", "pads", "v"], ["y"], name="pad")]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("v", F32, [])],
                 [tensor("y", F32, [2, 5])], 13, [const("pads", [0, 1, 0, 1])])


@case
def slice_empty():
    # A start past the end selects nothing; the slice starts at 0.
    nodes = [node("Slice", ["x", "s", "e"], ["y"], name="slice")]
    return model(nodes, [tensor("x", F32, [4, 3])], [tensor("y", F32, [0, 3])], 13,
                 [const("s", [10]), const("e", [20])])


@case
def tile():
    nodes = [node("Tile", ["x", "r"], ["y"], name="tile")]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [4, 3])], 13,
                 [const("r", [2, 1])])


@case
def trilu():
    # Constant k: the mask folds. Runtime k: the mask is computed.
    nodes = [node("Trilu", ["x", "k"], ["u"], name="triu"),
             node("Trilu", ["x", "rk"], ["l"], name="tril", upper=0)]
    return model(nodes, [tensor("x", F32, [3, 4]), tensor("rk", I64, [])],
                 [tensor("u", F32, [3, 4]), tensor("l", F32, [3, 4])], 14,
                 [const("k", 1)])


@case
def constant_of_shape():
    # Small results fold to constants; large ones stay a broadcast. The
    # shape may come from a Shape subgraph.
    value = numpy_helper.from_array(np.array([1.5], dtype=np.float32))
    nodes = [node("Shape", ["x"], ["s"], name="shape"),
             node("ConstantOfShape", ["s"], ["small"], name="small", value=value),
             node("ConstantOfShape", ["big_shape"], ["big"], name="big"),
             node("ConstantOfShape", ["empty"], ["scalar"], name="scalar",
                  value=numpy_helper.from_array(np.array([7], dtype=np.int32)))]
    return model(nodes, [tensor("x", F32, [2, 3])],
                 [tensor("small", F32, [2, 3]), tensor("big", F32, [512, 256]),
                  tensor("scalar", I32, [])], 20,
                 [const("big_shape", [512, 256]), const("empty", np.zeros([0]))])


@case
def range_constant():
    nodes = [node("Range", ["a", "b", "c"], ["ints"], name="range_int"),
             node("Range", ["fa", "fb", "fc"], ["floats"], name="range_float")]
    return model(nodes, [], [tensor("ints", I64, [4]), tensor("floats", F32, [3])], 13,
                 [const("a", 10), const("b", 0), const("c", -3),
                  const("fa", 1.0, np.float32), const("fb", 1.6, np.float32),
                  const("fc", 0.25, np.float32)])


@case
def range_runtime():
    nodes = [node("Range", ["a", "b", "c"], ["y"], name="range")]
    return model(nodes, [tensor("b", I64, [])], [tensor("y", I64, [4])], 13,
                 [const("a", 0), const("c", 1)])


@case
def nonzero_constant():
    nodes = [node("NonZero", ["c"], ["y"], name="nonzero")]
    return model(nodes, [], [tensor("y", I64, [2, 3])], 13,
                 [const("c", [[1, 0, 2], [0, 0, 3]], np.float32)])


@case
def nonzero_runtime():
    nodes = [node("NonZero", ["x"], ["y"], name="nonzero")]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", I64, [2, 3])], 13)


@case
def compress():
    nodes = [node("Compress", ["x", "c"], ["y"], name="compress", axis=-1),
             node("Compress", ["x", "c"], ["flat"], name="compress_flat")]
    return model(nodes, [tensor("x", F32, [2, 3])],
                 [tensor("y", F32, [2, 2]), tensor("flat", F32, [2])], 11,
                 [const("c", [True, False, True], np.bool_)])


@case
def eyelike():
    nodes = [node("EyeLike", ["x"], ["y"], name="eye", k=1, dtype=6)]
    return model(nodes, [tensor("x", F32, [3, 4])], [tensor("y", I32, [3, 4])], 9)


@case
def depth_to_space():
    nodes = [node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2, mode="CRD"),
             node("SpaceToDepth", ["y"], ["z"], name="s2d", blocksize=2)]
    return model(nodes, [tensor("x", F32, [1, 8, 2, 3])],
                 [tensor("y", F32, [1, 2, 4, 6]), tensor("z", F32, [1, 8, 2, 3])], 13)


@case
def einsum():
    # Spaces go, ellipses become letters, implicit results are spelled out.
    nodes = [node("Einsum", ["a", "b"], ["mm"], name="batch_matmul", equation="... i j, ...jk"),
             node("Einsum", ["s"], ["tr"], name="trace", equation="ii"),
             node("Einsum", ["a"], ["t"], name="transpose", equation="bij->bji")]
    return model(nodes, [tensor("a", F32, [2, 3, 4]), tensor("b", F32, [4, 5]),
                         tensor("s", F32, [3, 3])],
                 [tensor("mm", F32, [2, 3, 5]), tensor("tr", F32, []),
                  tensor("t", F32, [2, 4, 3])], 12)


@case
def gather_scatter():
    nodes = [node("GatherElements", ["x", "i"], ["ge"], name="gather_elements", axis=-1),
             node("GatherND", ["x", "nd"], ["gnd"], name="gather_nd", batch_dims=1),
             node("ScatterElements", ["x", "i", "u"], ["se"], name="scatter_elements",
                  axis=-1, reduction="add"),
             node("ScatterND", ["x", "nd", "v"], ["snd"], name="scatter_nd", reduction="max"),
             node("Scatter", ["x", "i", "u"], ["old"], name="scatter", axis=1)]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("i", I64, [2, 2]),
                         tensor("u", F32, [2, 2]), tensor("nd", I64, [2, 1]),
                         tensor("v", F32, [2, 3])],
                 [tensor("ge", F32, [2, 2]), tensor("gnd", F32, [2]),
                  tensor("se", F32, [2, 3]), tensor("snd", F32, [2, 3]),
                  tensor("old", F32, [2, 3])], 18)


@case
def scatter_reduction_opset16():
    # max/min reductions exist since opset 18.
    nodes = [node("ScatterElements", ["x", "i", "u"], ["y"], name="scatter", reduction="max")]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("i", I64, [1, 3]),
                         tensor("u", F32, [1, 3])], [tensor("y", F32, [2, 3])], 16)


@case
def onehot():
    nodes = [node("OneHot", ["i", "depth", "values"], ["y"], name="onehot", axis=0)]
    return model(nodes, [tensor("i", I64, [3]), tensor("values", F32, [2])],
                 [tensor("y", F32, [4, 3])], 11, [const("depth", 4.0, np.float32)])


@case
def onehot_runtime_depth():
    nodes = [node("OneHot", ["i", "depth", "values"], ["y"], name="onehot")]
    return model(nodes, [tensor("i", I64, [3]), tensor("depth", I64, []),
                         tensor("values", F32, [2])], [tensor("y", F32, [3, 4])], 11)


@case
def center_crop_pad():
    # Axis 0 cropped 5 -> 2 (start 1), axis 1 padded 3 -> 6 (1 before, 2 after).
    nodes = [node("CenterCropPad", ["x", "shape"], ["y"], name="ccp", axes=[0, -1])]
    return model(nodes, [tensor("x", F32, [5, 3])], [tensor("y", F32, [2, 6])], 18,
                 [const("shape", [2, 6])])


@case
def reverse_sequence():
    nodes = [node("ReverseSequence", ["x", "lens"], ["y"], name="rs", batch_axis=0, time_axis=1)]
    return model(nodes, [tensor("x", F32, [2, 4, 3]), tensor("lens", I64, [2])],
                 [tensor("y", F32, [2, 4, 3])], 10)
