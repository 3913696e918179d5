#!/usr/bin/env python3
"""Quantized test models, made from the float32 examples with
onnxruntime.quantization, and the calibration input sets.

For MODEL in mlp and glm_layer (their MatMuls) and resnet_cnn (its Convs):

  calibration/MODEL/set_<i>/x.npy   seeded random input sets: the data that
                                    quantize_static calibrates on, and that
                                    `autoglm-compile --calibrate` takes
  quantized/MODEL_qdq.onnx          quantize_static, QDQ format: uint8
                                    activations (per tensor), int8 weights
                                    (per channel)
  quantized/MODEL_dynamic.onnx      quantize_dynamic: DynamicQuantizeLinear
                                    and MatMulInteger (int8 weights) or
                                    ConvInteger (uint8 weights, the only
                                    kind onnxruntime runs)
  quantized/resnet_cnn_qlinear.onnx quantize_static, QOperator format:
                                    QLinearConv, with 7-bit weights
                                    (reduce_range): with 8-bit ones,
                                    onnxruntime's kernel saturates on CPUs
                                    without AVX512-VNNI, and the reference
                                    would depend on the CPU
  quantized/NAME/input_0.npy, output_0.npy, inputs.json, outputs.json
                                    one input (not a calibration set) and
                                    onnxruntime's output for it (CPU, all
                                    graph optimizations off, one thread)

Run from anywhere; writes next to this script. Deterministic given the
onnxruntime version (recorded in quantized/VERSION) and the CPU: the
stored files were made on one with AVX512-VNNI (the CNN's, on one
without). Elsewhere onnxruntime's own products of uint8 by int8 (the
transformers' MODEL_dynamic references) saturate, and float rounding may
move a calibrated scale (glm_layer_qdq.onnx), so rerunning this script on
such a CPU rewrites those files; keep the stored ones.
"""

import json
import os
import shutil

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_dynamic,
                                      quantize_static)

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"mlp": 8, "glm_layer": 4, "resnet_cnn": 4}  # model: calibration sets
# The operators quantized in each model.
OP_TYPES = {"mlp": ["MatMul"], "glm_layer": ["MatMul"], "resnet_cnn": ["Conv"]}


def input_shape(model_path):
    graph = onnx.load(model_path).graph
    dims = graph.input[0].type.tensor_type.shape.dim
    return graph.input[0].name, [d.dim_value for d in dims]


class SetsReader(CalibrationDataReader):
    def __init__(self, name, sets):
        self.items = iter([{name: s} for s in sets])

    def get_next(self):
        return next(self.items, None)


def reference(model_path, name, x):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model_path, options,
                                   providers=["CPUExecutionProvider"])
    outputs = [o.name for o in session.get_outputs()]
    return outputs, session.run(None, {name: x})


def write_case(case, name, x, model_path):
    folder = os.path.join(HERE, "quantized", case)
    os.makedirs(folder, exist_ok=True)
    outputs, values = reference(model_path, name, x)
    np.save(os.path.join(folder, "input_0.npy"), x)
    for i, v in enumerate(values):
        np.save(os.path.join(folder, f"output_{i}.npy"), v)
    with open(os.path.join(folder, "inputs.json"), "w") as f:
        json.dump([name], f)
    with open(os.path.join(folder, "outputs.json"), "w") as f:
        json.dump(outputs, f)


def main():
    os.makedirs(os.path.join(HERE, "quantized"), exist_ok=True)
    for model, count in MODELS.items():
        source = os.path.join(HERE, model + ".onnx")
        name, shape = input_shape(source)
        rng = np.random.default_rng(7)
        sets = [rng.standard_normal(shape).astype(np.float32)
                for _ in range(count)]
        calibration = os.path.join(HERE, "calibration", model)
        shutil.rmtree(calibration, ignore_errors=True)
        for i, s in enumerate(sets):
            os.makedirs(os.path.join(calibration, f"set_{i}"))
            np.save(os.path.join(calibration, f"set_{i}", f"{name}.npy"), s)

        op_types = OP_TYPES[model]
        qdq = os.path.join(HERE, "quantized", model + "_qdq.onnx")
        quantize_static(source, qdq, SetsReader(name, sets),
                        quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, per_channel=True,
                        op_types_to_quantize=op_types)
        dynamic = os.path.join(HERE, "quantized", model + "_dynamic.onnx")
        quantize_dynamic(source, dynamic,
                         weight_type=(QuantType.QUInt8 if "Conv" in op_types
                                      else QuantType.QInt8),
                         op_types_to_quantize=op_types)
        x = rng.standard_normal(shape).astype(np.float32)
        write_case(model + "_qdq", name, x, qdq)
        write_case(model + "_dynamic", name, x, dynamic)
        if "Conv" in op_types:
            qlinear = os.path.join(HERE, "quantized", model + "_qlinear.onnx")
            quantize_static(source, qlinear, SetsReader(name, sets),
                            quant_format=QuantFormat.QOperator,
                            activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8, per_channel=True,
                            reduce_range=True, op_types_to_quantize=op_types)
            write_case(model + "_qlinear", name, x, qlinear)
    with open(os.path.join(HERE, "quantized", "VERSION"), "w") as f:
        f.write(f"onnxruntime {ort.__version__}\n")


if __name__ == "__main__":
    main()
