"""MatMul and Gemm."""

import numpy as np

from common import F32, I32, U8, case, const, model, node, tensor, weights


@case
def matmul_batched():
    nodes = [node("MatMul", ["x", "w"], ["y"], name="mm")]
    return model(nodes, [tensor("x", F32, [2, 3, 4])], [tensor("y", F32, [2, 3, 5])], 13,
                 [weights("w", [4, 5])])


@case
def gemm():
    nodes = [node("Gemm", ["a", "b", "c"], ["y"], name="fc", alpha=0.5, beta=2.0, transB=1),
             node("Gemm", ["y", "b2"], ["z"], name="fc_nobias", transA=1)]
    return model(nodes, [tensor("a", F32, [2, 4])], [tensor("z", F32, [3, 6])], 13,
                 [weights("b", [3, 4]), weights("c", [3]), weights("b2", [2, 6])])


@case
def gemm_missing_b():
    # A required input left empty.
    nodes = [node("Gemm", ["a", ""], ["y"], name="fc")]
    return model(nodes, [tensor("a", F32, [2, 4])], [tensor("y", F32, [2, 4])], 13)


@case
def gemm_integer():
    nodes = [node("Gemm", ["a", "b"], ["y"], name="fc", alpha=2.0)]
    return model(nodes, [tensor("a", I32, [2, 4]), tensor("b", I32, [4, 3])],
                 [tensor("y", I32, [2, 3])], 13)


@case
def gemm_integer_fractional():
    nodes = [node("Gemm", ["a", "b"], ["y"], name="fc", alpha=0.5)]
    return model(nodes, [tensor("a", I32, [2, 4]), tensor("b", I32, [4, 3])],
                 [tensor("y", I32, [2, 3])], 13)


@case
def qlinear_matmul():
    # Unit-scale dequantization (exact integers), a float matmul, the scale
    # product applied in f64, then quantization to the output type.
    nodes = [node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"], name="qmm")]
    return model(nodes, [tensor("a", U8, [2, 4])], [tensor("y", U8, [2, 3])], 10,
                 [const("as", 0.5, np.float32), const("az", 3, np.uint8),
                  const("b", [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], np.uint8), const("bs", [0.25, 0.5, 1.0], np.float32),
                  const("bz", [1, 2, 3], np.uint8), const("ys", 2.0, np.float32), const("yz", 5, np.uint8)])


@case
def det():
    nodes = [node("Det", ["x"], ["y"], name="det")]
    return model(nodes, [tensor("x", F32, [3, 2, 2])], [tensor("y", F32, [3])], 11)


@case
def det_too_large():
    nodes = [node("Det", ["x"], ["y"], name="det")]
    return model(nodes, [tensor("x", F32, [6, 6])], [tensor("y", F32, [])], 11)
