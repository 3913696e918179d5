"""Softmax, reductions and normalizations."""

from common import F32, I64, case, const, model, node, tensor, weights


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
