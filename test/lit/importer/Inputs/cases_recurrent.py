"""RNN, GRU and LSTM."""

from common import F32, I32, case, model, node, tensor, weights


@case
def rnn_forward():
    # Two steps, batch 1, input 2, hidden 3.
    nodes = [node("RNN", ["x", "w", "r", "b"], ["y", "y_h"], name="rnn", hidden_size=3)]
    return model(nodes, [tensor("x", F32, [2, 1, 2])],
                 [tensor("y", F32, [2, 1, 1, 3]), tensor("y_h", F32, [1, 1, 3])], 14,
                 [weights("w", [1, 3, 2]), weights("r", [1, 3, 3]), weights("b", [1, 6])])


@case
def gru_bidirectional_batchwise():
    nodes = [node("GRU", ["x", "w", "r"], ["y", "y_h"], name="gru", hidden_size=2,
                  direction="bidirectional", layout=1, linear_before_reset=1)]
    return model(nodes, [tensor("x", F32, [1, 2, 2])],
                 [tensor("y", F32, [1, 2, 2, 2]), tensor("y_h", F32, [1, 2, 2])], 14,
                 [weights("w", [2, 6, 2]), weights("r", [2, 6, 2])])


@case
def lstm_reverse_lengths():
    # Runtime sequence lengths: masked steps, reversal within each length.
    nodes = [node("LSTM", ["x", "w", "r", "", "lens"], ["y", "y_h", "y_c"], name="lstm",
                  hidden_size=2, direction="reverse")]
    return model(nodes, [tensor("x", F32, [3, 2, 1]), tensor("lens", I32, [2])],
                 [tensor("y", F32, [3, 1, 2, 2]), tensor("y_h", F32, [1, 2, 2]),
                  tensor("y_c", F32, [1, 2, 2])], 14,
                 [weights("w", [1, 8, 1]), weights("r", [1, 8, 2])])


@case
def lstm_activation():
    nodes = [node("LSTM", ["x", "w", "r"], ["y"], name="lstm", hidden_size=2,
                  activations=["Sigmoid", "Softsign", "Tanh"])]
    return model(nodes, [tensor("x", F32, [1, 1, 1])], [tensor("y", F32, [1, 1, 1, 2])], 14,
                 [weights("w", [1, 8, 1]), weights("r", [1, 8, 2])])
