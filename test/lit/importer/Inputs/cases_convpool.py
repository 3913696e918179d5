"""Convolution and pooling."""

from common import F32, I64, case, model, node, tensor, weights


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
