"""Convolution and pooling."""

import numpy as np

from common import F32, I32, I64, U8, case, const, model, node, tensor, weights


@case
def conv_same_upper():
    # SAME_UPPER: ceil(in / stride) outputs; an odd total padding puts the
    # extra position at the end. Here both axes need 1 in total.
    nodes = [node("Conv", ["x", "w"], ["y"], name="conv_same", auto_pad="SAME_UPPER",
                  strides=[2, 2])]
    return model(nodes, [tensor("x", F32, [1, 2, 5, 6])], [tensor("y", F32, [1, 4, 3, 3])], 13,
                 [weights("w", [4, 2, 2, 3])])


@case
def conv_same_lower():
    # SAME_LOWER puts the odd position at the beginning.
    nodes = [node("Conv", ["x", "w"], ["y"], name="conv_same", auto_pad="SAME_LOWER")]
    return model(nodes, [tensor("x", F32, [1, 2, 5, 5])], [tensor("y", F32, [1, 4, 5, 5])], 13,
                 [weights("w", [4, 2, 2, 2])])


@case
def conv_explicit():
    # Explicit pads, bias, groups and dilation; kernel_shape comes from the
    # filter.
    nodes = [node("Conv", ["x", "w", "b"], ["y"], name="conv_grouped", pads=[1, 0, 1, 0],
                  group=2, dilations=[2, 1]),
             node("Conv", ["x", "w2"], ["z"], name="conv_valid", auto_pad="VALID",
                  kernel_shape=[3, 3])]
    return model(nodes, [tensor("x", F32, [1, 4, 6, 6])],
                 [tensor("y", F32, [1, 6, 4, 6]), tensor("z", F32, [1, 2, 4, 4])], 13,
                 [weights("w", [6, 2, 3, 1]), weights("b", [6]), weights("w2", [2, 4, 3, 3])])


@case
def pooling():
    nodes = [node("MaxPool", ["x"], ["max"], name="maxpool", kernel_shape=[2, 2],
                  strides=[2, 2], ceil_mode=1),
             node("AveragePool", ["x"], ["avg"], name="avgpool", kernel_shape=[3, 3],
                  pads=[1, 1, 1, 1], count_include_pad=1),
             node("GlobalAveragePool", ["x"], ["gap"], name="gap")]
    return model(nodes, [tensor("x", F32, [1, 2, 5, 5])],
                 [tensor("max", F32, [1, 2, 3, 3]), tensor("avg", F32, [1, 2, 5, 5]),
                  tensor("gap", F32, [1, 2, 1, 1])], 13)


@case
def maxpool_indices():
    nodes = [node("MaxPool", ["x"], ["y", "idx"], name="maxpool", kernel_shape=[2, 2])]
    return model(nodes, [tensor("x", F32, [1, 1, 4, 4])],
                 [tensor("y", F32, [1, 1, 3, 3]), tensor("idx", I64, [1, 1, 3, 3])], 13)


@case
def pool_rank2():
    nodes = [node("MaxPool", ["x"], ["y"], name="maxpool", kernel_shape=[2])]
    return model(nodes, [tensor("x", F32, [4, 4])], [tensor("y", F32, [4, 3])], 13)


@case
def conv_channel_mismatch():
    nodes = [node("Conv", ["x", "w"], ["y"], name="bad_conv")]
    return model(nodes, [tensor("x", F32, [1, 3, 8, 8])], [tensor("y", F32, [1, 4, 6, 6])], 13,
                 [weights("w", [4, 2, 3, 3])])


@case
def maxpool_indices_column_major():
    nodes = [node("MaxPool", ["x"], ["y", "idx"], name="maxpool", kernel_shape=[2, 2],
                  storage_order=1)]
    return model(nodes, [tensor("x", F32, [1, 1, 4, 4])],
                 [tensor("y", F32, [1, 1, 3, 3]), tensor("idx", I64, [1, 1, 3, 3])], 13)


@case
def conv_transpose():
    # Explicit pads and output_padding; output_shape derives the pads (the
    # odd position goes to the begin except with SAME_UPPER); SAME_* aims at
    # in * stride.
    nodes = [node("ConvTranspose", ["x", "w", "b"], ["y1"], name="explicit", strides=[2, 2],
                  pads=[1, 0, 0, 1], output_padding=[1, 0]),
             node("ConvTranspose", ["x", "w"], ["y2"], name="output_shape", strides=[2, 2],
                  output_shape=[8, 10]),
             node("ConvTranspose", ["x", "w"], ["y3"], name="output_shape_upper", strides=[2, 2],
                  output_shape=[8, 10], auto_pad="SAME_UPPER"),
             node("ConvTranspose", ["x", "w"], ["y4"], name="same_lower", strides=[2, 3],
                  auto_pad="SAME_LOWER")]
    return model(nodes, [tensor("x", F32, [1, 2, 4, 5])],
                 [tensor("y1", F32, [1, 3, 9, 10]), tensor("y2", F32, [1, 3, 8, 10]),
                  tensor("y3", F32, [1, 3, 8, 10]), tensor("y4", F32, [1, 3, 8, 15])], 11,
                 [weights("w", [2, 3, 3, 3]), weights("b", [3])])


@case
def conv_integer():
    # Zero points are subtracted in int32 before an integer convolution; the
    # per-channel filter zero point broadcasts along output channels.
    nodes = [node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], name="convint", pads=[1, 1, 1, 1])]
    return model(nodes, [tensor("x", U8, [1, 2, 4, 4])], [tensor("y", I32, [1, 3, 4, 4])],
                 10, [weights("w", [3, 2, 3, 3], np.uint8), const("xz", 7, np.uint8),
                      const("wz", [1, 2, 3], np.uint8)])


@case
def conv_integer_scalar():
    # One group and scalar (or absent) zero points: one conv_integer of the
    # 8-bit operands, for the int8 GEMM.
    nodes = [node("ConvInteger", ["x", "w", "xz"], ["y"], name="convint", strides=[2, 2])]
    return model(nodes, [tensor("x", U8, [1, 2, 5, 5])], [tensor("y", I32, [1, 3, 2, 2])],
                 10, [weights("w", [3, 2, 3, 3], np.int8), const("xz", 7, np.uint8)])


@case
def lp_pools():
    nodes = [node("LpPool", ["x"], ["lp"], name="lppool", kernel_shape=[2, 2], p=3, strides=[2, 2]),
             node("GlobalLpPool", ["x"], ["glp"], name="globallppool"),
             node("GlobalMaxPool", ["x"], ["gmp"], name="globalmaxpool")]
    return model(nodes, [tensor("x", F32, [1, 2, 4, 5])],
                 [tensor("lp", F32, [1, 2, 2, 2]), tensor("glp", F32, [1, 2, 1, 1]),
                  tensor("gmp", F32, [1, 2, 1, 1])], 18)


def resize_model(opset, inputs, attrs, initializers=(), name="Resize"):
    nodes = [node(name, inputs, ["y"], name=name.lower(), **attrs)]
    return model(nodes, [tensor("x", F32, [1, 2, 4, 6])], [tensor("y", F32, None)], opset,
                 list(initializers))


@case
def resize_opset10():
    # Opset 10: asymmetric coordinates; nearest floors when enlarging.
    return resize_model(10, ["x", "scales"], {},
                        [const("scales", [1, 1, 2, 1.5], np.float32)])


@case
def resize_opset10_shrink():
    # ... and rounds up when shrinking.
    return resize_model(10, ["x", "scales"], {"mode": "linear"},
                        [const("scales", [1, 1, 0.5, 0.5], np.float32)])


@case
def resize_opset11_sizes():
    # Sizes win over the (empty) scales; scales become sizes / input extents.
    return resize_model(11, ["x", "roi", "scales", "sizes"],
                        {"mode": "cubic", "coordinate_transformation_mode": "tf_half_pixel_for_nn",
                         "cubic_coeff_a": -0.5, "exclude_outside": 1},
                        [const("roi", [], np.float32), const("scales", [], np.float32),
                         const("sizes", [1, 2, 5, 3])])


@case
def resize_opset13_crop():
    # tf_crop_and_resize keeps the roi; absent inputs are empty names.
    return resize_model(13, ["x", "roi", "", "sizes"],
                        {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize",
                         "extrapolation_value": 2.5},
                        [const("roi", [0, 0, 0.25, 0, 1, 1, 0.75, 1], np.float32),
                         const("sizes", [1, 2, 3, 3])])


@case
def resize_opset18_axes():
    # axes and keep_aspect_ratio_policy: one scale for the listed axes,
    # sizes rounded half up.
    return resize_model(18, ["x", "", "", "sizes"],
                        {"mode": "linear", "axes": [3, 2], "keep_aspect_ratio_policy": "not_larger",
                         "antialias": 1},
                        [const("sizes", [3, 3])])


@case
def resize_opset19_symmetric():
    return resize_model(19, ["x", "", "scales"],
                        {"mode": "nearest", "coordinate_transformation_mode": "half_pixel_symmetric",
                         "nearest_mode": "ceil"},
                        [const("scales", [1, 1, 1.5, 0.5], np.float32)])


@case
def resize_runtime_scales():
    nodes = [node("Resize", ["x", "", "scales"], ["y"], name="resize")]
    return model(nodes, [tensor("x", F32, [1, 2, 4, 6]), tensor("scales", F32, [4])],
                 [tensor("y", F32, None)], 13)


@case
def resize_symmetric_before_19():
    return resize_model(18, ["x", "", "scales"],
                        {"coordinate_transformation_mode": "half_pixel_symmetric"},
                        [const("scales", [1, 1, 2, 2], np.float32)])


@case
def upsample():
    # Opset 7 has the scales as an attribute, opset 9 as an input.
    return resize_model(7, ["x"], {"scales": [1.0, 1.0, 2.0, 3.0]}, name="Upsample")


@case
def upsample_opset9():
    return resize_model(9, ["x", "scales"], {"mode": "linear"},
                        [const("scales", [1, 1, 2, 1], np.float32)], name="Upsample")


@case
def qlinear_conv():
    # Unit-scale dequantization, a float convolution with the int32 bias as
    # float, x_scale * w_scale / y_scale per output channel in f64, then
    # quantization.
    nodes = [node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                  name="qconv", pads=[1, 1, 1, 1])]
    return model(nodes, [tensor("x", U8, [1, 2, 4, 4])], [tensor("y", U8, [1, 3, 4, 4])], 10,
                 [const("xs", 0.5, np.float32), const("xz", 7, np.uint8),
                  weights("w", [3, 2, 3, 3], np.uint8), const("ws", [0.25, 0.5, 1.0], np.float32),
                  const("wz", [1, 2, 3], np.uint8), const("ys", 2.0, np.float32),
                  const("yz", 5, np.uint8), const("b", [10, -20, 30], np.int32)])


@case
def max_unpool():
    # Unpooled 2x2 -> 4x4, then padded at the end to the output_shape 5x5.
    nodes = [node("MaxUnpool", ["x", "i", "shape"], ["y"], name="unpool",
                  kernel_shape=[2, 2], strides=[2, 2])]
    return model(nodes, [tensor("x", F32, [1, 1, 2, 2]), tensor("i", I64, [1, 1, 2, 2])],
                 [tensor("y", F32, [1, 1, 5, 5])], 11, [const("shape", [1, 1, 5, 5])])
