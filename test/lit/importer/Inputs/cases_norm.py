"""Softmax, reductions and normalizations."""

import numpy as np
from common import F32, I32, I64, case, const, model, node, tensor, weights


@case
def softmax_opset11():
    # Before opset 13, Softmax normalizes the input flattened to 2-D at
    # `axis` (default 1); on the last axis that is the same as opset 13.
    nodes = [node("Softmax", ["x"], ["flat"], name="sm_axis1", axis=1),
             node("Softmax", ["x"], ["last"], name="sm_last", axis=-1),
             node("Softmax", ["x"], ["dflt"], name="sm_default")]
    outs = [tensor(n, F32, [2, 3, 4]) for n in ["flat", "last", "dflt"]]
    return model(nodes, [tensor("x", F32, [2, 3, 4])], outs, 11)


@case
def softmax_opset13():
    nodes = [node("Softmax", ["x"], ["mid"], name="sm_axis1", axis=1),
             node("Softmax", ["x"], ["dflt"], name="sm_default")]
    outs = [tensor(n, F32, [2, 3, 4]) for n in ["mid", "dflt"]]
    return model(nodes, [tensor("x", F32, [2, 3, 4])], outs, 13)


@case
def softmax_bad_axis():
    nodes = [node("Softmax", ["x"], ["y"], name="sm", axis=3)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])], [tensor("y", F32, [2, 3, 4])], 13)


@case
def reduce_opset11():
    # Axes are an attribute; negative ones count from the end.
    nodes = [node("ReduceSum", ["x"], ["sum"], name="rsum", axes=[-1, 0], keepdims=0),
             node("ReduceMean", ["x"], ["mean"], name="rmean", axes=[1]),
             node("ReduceMax", ["x"], ["max"], name="rmax")]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("sum", F32, [3]), tensor("mean", F32, [2, 1, 4]),
                  tensor("max", F32, [1, 1, 1])], 11)


@case
def reduce_opset13():
    # ReduceSum takes axes as an input from opset 13 (the others at 18);
    # without axes, noop_with_empty_axes makes it the identity.
    nodes = [node("ReduceSum", ["x", "axes"], ["sum"], name="rsum", keepdims=0),
             node("ReduceSum", ["x"], ["all"], name="rsum_all"),
             node("ReduceSum", ["x"], ["noop"], name="rsum_noop", noop_with_empty_axes=1),
             node("ReduceMean", ["x"], ["mean"], name="rmean", axes=[2])]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("sum", F32, [3]), tensor("all", F32, [1, 1, 1]),
                  tensor("noop", F32, [2, 3, 4]), tensor("mean", F32, [2, 3, 1])], 13,
                 [const("axes", [2, 0])])


@case
def reduce_opset18():
    nodes = [node("ReduceMean", ["x", "axes"], ["mean"], name="rmean"),
             node("ReduceMax", ["x", "axes"], ["max"], name="rmax", keepdims=0)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("mean", F32, [2, 3, 1]), tensor("max", F32, [2, 3])], 18,
                 [const("axes", [-1])])


@case
def reduce_dynamic_axes():
    nodes = [node("ReduceSum", ["x", "axes"], ["y"], name="rsum")]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("axes", I64, [1])],
                 [tensor("y", F32, [2, 1])], 13)


@case
def layer_norm():
    nodes = [node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln", axis=-1, epsilon=1e-6),
             node("LayerNormalization", ["x", "g2"], ["z"], name="ln2", axis=1)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("y", F32, [2, 3, 4]), tensor("z", F32, [2, 3, 4])], 17,
                 [weights("g", [4]), weights("b", [4], offset=1.0), weights("g2", [3, 4])])


@case
def batch_norm():
    params = [weights(n, [3], offset=i) for i, n in enumerate(["scale", "bias", "mean", "var"])]
    nodes = [node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"], name="bn",
                  epsilon=1e-3)]
    return model(nodes, [tensor("x", F32, [1, 3, 4, 4])], [tensor("y", F32, [1, 3, 4, 4])], 15,
                 params)


@case
def batch_norm_training():
    params = [weights(n, [3]) for n in ["scale", "bias", "mean", "var"]]
    nodes = [node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"], name="bn",
                  training_mode=1)]
    return model(nodes, [tensor("x", F32, [1, 3, 4, 4])], [tensor("y", F32, [1, 3, 4, 4])], 15,
                 params)


@case
def reduce_more_opset13():
    # Before opset 18 the axes of ReduceL1 and friends are an attribute.
    nodes = [node("ReduceL1", ["x"], ["l1"], name="rl1", axes=[1], keepdims=0),
             node("ReduceLogSumExp", ["x"], ["lse"], name="rlse", axes=[-1]),
             node("ReduceProd", ["x"], ["prod"], name="rprod")]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("l1", F32, [2, 4]), tensor("lse", F32, [2, 3, 1]),
                  tensor("prod", F32, [1, 1, 1])], 13)


@case
def reduce_more_opset18():
    # Axes are an input; empty axes reduce everything, or nothing with
    # noop_with_empty_axes, which still applies the per-element map of the
    # reduction: x*x for ReduceSumSquare.
    nodes = [node("ReduceL2", ["x", "axes"], ["l2"], name="rl2"),
             node("ReduceSumSquare", ["x", "none"], ["all"], name="rss_all", keepdims=0),
             node("ReduceSumSquare", ["x", "none"], ["noop"], name="rss_noop",
                  noop_with_empty_axes=1),
             node("ReduceLogSum", ["x"], ["ls"], name="rls", noop_with_empty_axes=1)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("l2", F32, [2, 3, 1]), tensor("all", F32, []),
                  tensor("noop", F32, [2, 3, 4]), tensor("ls", F32, [2, 3, 4])], 18,
                 [const("axes", [2]), const("none", [])])


@case
def reduce_l2_int():
    # Integer data for a reduction defined through sqrt: computed in f64 and
    # converted back.
    nodes = [node("ReduceL2", ["x", "axes"], ["y"], name="rl2", keepdims=0)]
    return model(nodes, [tensor("x", I32, [2, 3])], [tensor("y", I32, [2])], 18,
                 [const("axes", [1])])


@case
def arg_reduce():
    nodes = [node("ArgMax", ["x"], ["amax"], name="amax", axis=-1, keepdims=0),
             node("ArgMin", ["x"], ["amin"], name="amin", select_last_index=1)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("amax", I64, [2, 3]), tensor("amin", I64, [1, 3, 4])], 13)


@case
def top_k():
    # k is an attribute before opset 10 and an input after.
    nodes = [node("TopK", ["x", "k"], ["v", "i"], name="topk", axis=1, largest=0)]
    return model(nodes, [tensor("x", F32, [2, 5])],
                 [tensor("v", F32, [2, 3]), tensor("i", I64, [2, 3])], 11, [const("k", [3])])


@case
def top_k_opset7():
    nodes = [node("TopK", ["x"], ["v", "i"], name="topk", k=2)]
    return model(nodes, [tensor("x", F32, [2, 5])],
                 [tensor("v", F32, [2, 2]), tensor("i", I64, [2, 2])], 7)


@case
def top_k_dynamic():
    nodes = [node("TopK", ["x", "k"], ["v", "i"], name="topk")]
    return model(nodes, [tensor("x", F32, [2, 5]), tensor("k", I64, [1])],
                 [tensor("v", F32, [2, 2]), tensor("i", I64, [2, 2])], 11)


@case
def top_k_too_large():
    nodes = [node("TopK", ["x", "k"], ["v", "i"], name="topk")]
    return model(nodes, [tensor("x", F32, [2, 5])],
                 [tensor("v", F32, [2, 6]), tensor("i", I64, [2, 6])], 11, [const("k", [6])])


@case
def cum_sum():
    # A constant axis, or a 1-D input whose only axis is known anyway.
    nodes = [node("CumSum", ["x", "axis"], ["c"], name="cs", exclusive=1),
             node("CumSum", ["v", "vaxis"], ["d"], name="cs1d", reverse=1)]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("v", I32, [5]),
                         tensor("vaxis", I32, [])],
                 [tensor("c", F32, [2, 3]), tensor("d", I32, [5])], 14,
                 [const("axis", -1, np.int32)])


@case
def cum_sum_dynamic_axis():
    nodes = [node("CumSum", ["x", "axis"], ["c"], name="cs")]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("axis", I32, [])],
                 [tensor("c", F32, [2, 3])], 14)


@case
def softmax_family_opset11():
    # LogSoftmax and Hardmax flatten to 2-D before opset 13, like Softmax.
    nodes = [node("LogSoftmax", ["x"], ["ls"], name="ls"),
             node("Hardmax", ["x"], ["hm"], name="hm", axis=2)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("ls", F32, [2, 3, 4]), tensor("hm", F32, [2, 3, 4])], 11)


@case
def softmax_family_opset13():
    nodes = [node("LogSoftmax", ["x"], ["ls"], name="ls", axis=0),
             node("Hardmax", ["x"], ["hm"], name="hm")]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("ls", F32, [2, 3, 4]), tensor("hm", F32, [2, 3, 4])], 13)


@case
def layer_norm_stats():
    # Mean and InvStdDev are used: the normalization is written out.
    nodes = [node("LayerNormalization", ["x", "g", "b"], ["y", "mean", "inv"], name="ln",
                  axis=1)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])],
                 [tensor("y", F32, [2, 3, 4]), tensor("mean", F32, [2, 1, 1]),
                  tensor("inv", F32, [2, 1, 1])], 17,
                 [weights("g", [3, 4]), weights("b", [3, 4], offset=1.0)])


@case
def rms_norm():
    nodes = [node("RMSNormalization", ["x", "g"], ["y"], name="rms", epsilon=1e-6)]
    return model(nodes, [tensor("x", F32, [2, 3, 4])], [tensor("y", F32, [2, 3, 4])], 23,
                 [weights("g", [4])])


@case
def instance_norm():
    nodes = [node("InstanceNormalization", ["x", "s", "b"], ["y"], name="in")]
    return model(nodes, [tensor("x", F32, [1, 3, 4, 5])], [tensor("y", F32, [1, 3, 4, 5])], 7,
                 [weights("s", [3]), weights("b", [3], offset=1.0)])


@case
def group_norm_opset18():
    # Opset 18: one scale and bias per group, applied on the [N, G, rest] view.
    nodes = [node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=2)]
    return model(nodes, [tensor("x", F32, [1, 4, 3])], [tensor("y", F32, [1, 4, 3])], 18,
                 [weights("s", [2]), weights("b", [2], offset=1.0)])


@case
def group_norm_opset21():
    # Opset 21: one scale and bias per channel.
    nodes = [node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=2)]
    return model(nodes, [tensor("x", F32, [1, 4, 3])], [tensor("y", F32, [1, 4, 3])], 21,
                 [weights("s", [4]), weights("b", [4], offset=1.0)])


@case
def group_norm_bad_scale():
    nodes = [node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=2)]
    return model(nodes, [tensor("x", F32, [1, 4, 3])], [tensor("y", F32, [1, 4, 3])], 21,
                 [weights("s", [2]), weights("b", [2])])


@case
def lp_norm():
    nodes = [node("LpNormalization", ["x"], ["y"], name="lp", p=1, axis=0)]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [2, 3])], 22)


@case
def lp_norm_p3():
    nodes = [node("LpNormalization", ["x"], ["y"], name="lp", p=3)]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [2, 3])], 22)


@case
def mvn():
    nodes = [node("MeanVarianceNormalization", ["x"], ["y"], name="mvn", axes=[1])]
    return model(nodes, [tensor("x", F32, [2, 3])], [tensor("y", F32, [2, 3])], 13)


@case
def batch_norm_spatial0():
    params = [weights(n, [3]) for n in ["scale", "bias", "mean", "var"]]
    nodes = [node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"], name="bn",
                  spatial=0)]
    return model(nodes, [tensor("x", F32, [1, 3, 4])], [tensor("y", F32, [1, 3, 4])], 7, params)


@case
def reduce_empty_axes_input():
    # An axes graph input of shape [0] is known to be empty although its
    # value is only known at run time.
    nodes = [node("ReduceSum", ["x", "none"], ["all"], name="rsum_all", keepdims=0),
             node("ReduceMax", ["x", "none"], ["noop"], name="rmax_noop",
                  noop_with_empty_axes=1)]
    return model(nodes, [tensor("x", F32, [2, 3]), tensor("none", I64, [0])],
                 [tensor("all", F32, []), tensor("noop", F32, [2, 3])], 18)


@case
def lrn():
    nodes = [node("LRN", ["x"], ["y"], name="lrn", size=4, alpha=0.5, beta=0.25, bias=2.0)]
    return model(nodes, [tensor("x", F32, [1, 5, 2, 2])], [tensor("y", F32, [1, 5, 2, 2])], 13)
