"""Helpers shared by the model definitions of the importer tests."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F32 = TensorProto.FLOAT
F16 = TensorProto.FLOAT16
I32 = TensorProto.INT32
I64 = TensorProto.INT64
U8 = TensorProto.UINT8
BOOL = TensorProto.BOOL

# name -> function returning an onnx.ModelProto
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def weights(name, shape, dtype=np.float32, offset=0.0):
    """A deterministic weight tensor: offset + (0, 1/n, 2/n, ...)."""
    count = int(np.prod(shape))
    values = offset + np.arange(count, dtype=np.float64) / max(count, 1)
    return numpy_helper.from_array(values.astype(dtype).reshape(shape), name)


def node(op, inputs, outputs, name=None, **attrs):
    return helper.make_node(op, inputs, outputs, name=name or op.lower(), **attrs)


def model(nodes, inputs, outputs, opset, initializers=(), ir_version=8):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir_version
    return m
