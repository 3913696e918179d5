"""float8, float4 and 2-/4-bit integer types."""

from onnx import TensorProto, helper

from common import F32, case, model, node, tensor


@case
def narrow_types():
    # An int4 initializer of odd length: ONNX packs it two to a byte, low
    # nibble first (-8, 7 | -1, pad).
    weights = helper.make_tensor("w", TensorProto.INT4, [3], vals=bytes([0x78, 0x0F]),
                                 raw=True)
    nodes = [
        node("Cast", ["x"], ["x32"], name="from_f8", to=F32),
        node("Cast", ["x32"], ["y"], name="to_e5m2", to=TensorProto.FLOAT8E5M2, saturate=0),
        node("Cast", ["w"], ["w32"], name="from_int4", to=F32),
        node("QuantizeLinear", ["x32", "scale", "zp"], ["q"], name="quantize"),
    ]
    zp = helper.make_tensor("zp", TensorProto.FLOAT4E2M1, [], vals=bytes([0x00]), raw=True)
    scale = helper.make_tensor("scale", F32, [], vals=[2.0])
    return model(nodes, [tensor("x", TensorProto.FLOAT8E4M3FN, [3])],
                 [tensor("y", TensorProto.FLOAT8E5M2, [3]), tensor("w32", F32, [3]),
                  tensor("q", TensorProto.FLOAT4E2M1, [3])], 21, [weights, zp, scale],
                 ir_version=10)


@case
def narrow_type_arithmetic():
    nodes = [node("Add", ["x", "x"], ["y"], name="add")]
    return model(nodes, [tensor("x", TensorProto.FLOAT8E4M3FN, [3])],
                 [tensor("y", TensorProto.FLOAT8E4M3FN, [3])], 21, ir_version=10)
