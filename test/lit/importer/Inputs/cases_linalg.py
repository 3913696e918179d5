"""MatMul and Gemm."""

from common import F32, case, model, node, tensor, weights


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
