"""GridSample, AffineGrid and the window functions."""

from common import F32, I64, case, const, model, node, tensor


@case
def grid_sample_bilinear():
    nodes = [node("GridSample", ["x", "grid"], ["y"], name="gs", mode="linear",
                  padding_mode="border")]
    return model(nodes, [tensor("x", F32, [1, 2, 3, 4]), tensor("grid", F32, [1, 5, 6, 2])],
                 [tensor("y", F32, [1, 2, 5, 6])], 20)


@case
def grid_sample_cubic_reflection():
    nodes = [node("GridSample", ["x", "grid"], ["y"], name="gs", mode="cubic",
                  padding_mode="reflection", align_corners=1)]
    return model(nodes, [tensor("x", F32, [1, 1, 3, 4]), tensor("grid", F32, [1, 2, 2, 2])],
                 [tensor("y", F32, [1, 1, 2, 2])], 20)


@case
def grid_sample_bad_mode():
    nodes = [node("GridSample", ["x", "grid"], ["y"], name="gs", mode="area")]
    return model(nodes, [tensor("x", F32, [1, 1, 3, 4]), tensor("grid", F32, [1, 2, 2, 2])],
                 [tensor("y", F32, [1, 1, 2, 2])], 20)


@case
def affine_grid_runtime_size():
    # `size` is a graph input, to be bound at compile time.
    nodes = [node("AffineGrid", ["theta", "size"], ["grid"], name="ag")]
    return model(nodes, [tensor("theta", F32, [2, 2, 3]), tensor("size", I64, [4])],
                 [tensor("grid", F32, [2, 3, 4, 2])], 20)


@case
def hann_window():
    nodes = [node("HannWindow", ["n"], ["y"], name="hann", periodic=0)]
    return model(nodes, [], [tensor("y", F32, [5])], 17, [const("n", 5)])
