#!/usr/bin/env python3
"""Convolutions with constant filters, which compiled models run on the
runtime's convolution kernel (forced by a tuning file where the cost model
keeps im2col and the GEMM for fewer than 32 filters, or picks Winograd):
padding on every side, strides, dilations, groups, 1-D, with and without
bias, followed by a ReLU or not, against direct loops in numpy (float64);
the cost model's choice (Winograd's F(2x2, 3x3) for 3x3 convolutions with
64 channels and filters or more); and the same models compiled with
--no-kernels, which must call no runtime symbol."""

import json
import os
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    E2ETestCase, compile_model, describe, host_has_avx512, run_model,
    undefined_symbols)

# name -> (input shape, filters, kernel, strides, pads, dilations, group,
#          bias, relu)
CASES = {
    "pad_all_sides": ([1, 3, 11, 13], 8, [3, 3], [1, 1], [1, 1, 1, 1],
                      [1, 1], 1, True, True),
    "stem_7x7_s2": ([1, 3, 30, 30], 16, [7, 7], [2, 2], [3, 3, 3, 3],
                    [1, 1], 1, True, True),
    "uneven_pads": ([2, 4, 9, 10], 6, [2, 4], [3, 1], [0, 2, 1, 3],
                    [1, 2], 1, False, False),
    "dilated": ([1, 5, 12, 12], 20, [3, 3], [1, 1], [2, 2, 2, 2],
                [2, 2], 1, True, False),
    "groups": ([1, 6, 8, 8], 12, [3, 3], [1, 2], [1, 1, 1, 1],
               [1, 1], 3, True, True),
    "pointwise_s2": ([1, 16, 14, 14], 32, [1, 1], [2, 2], [0, 0, 0, 0],
                     [1, 1], 1, True, False),
    "stride_3": ([1, 2, 17, 19], 5, [3, 3], [3, 3], [1, 1, 1, 1],
                 [1, 1], 1, False, True),
    "one_d": ([1, 4, 40], 9, [5], [2], [2, 2], [1], 1, True, True),
    # 3x3, unit strides, 64 channels and filters or more, 32 tiles of 4x4
    # outputs or more: Winograd's F(4x4, 3x3) by default with AVX-512, else
    # F(2x2, 3x3) from 32 tiles of 2x2 (odd output sizes: partial tiles).
    # Enough filters for the kernel; a stride keeps it from Winograd.
    "strided_3x3": ([1, 8, 10, 10], 40, [3, 3], [2, 2], [1, 1, 1, 1],
                    [1, 1], 1, True, True),
    # 16 output positions, 2.25 MiB of filters: the GEMM call.
    "small_map_deep": ([1, 256, 4, 4], 256, [3, 3], [1, 1], [1, 1, 1, 1],
                       [1, 1], 1, True, False),
    "winograd_odd": ([1, 64, 25, 23], 64, [3, 3], [1, 1], [1, 1, 1, 1],
                     [1, 1], 1, True, True),
    "winograd_unpadded": ([2, 72, 26, 24], 80, [3, 3], [1, 1], [0, 0, 0, 0],
                          [1, 1], 1, False, False),
}
WINOGRAD = [name for name in CASES if name.startswith("winograd")]


def conv_reference(x, w, b, strides, pads, dilations, group):
    """Direct loops in float64 (any number of spatial axes)."""
    s = x.ndim - 2
    x = np.pad(x.astype(np.float64),
               [(0, 0), (0, 0)] + [(pads[i], pads[i + s]) for i in range(s)])
    n, c = x.shape[:2]
    f, cg = w.shape[:2]
    kernel = w.shape[2:]
    out_shape = [(x.shape[2 + i] - dilations[i] * (kernel[i] - 1) - 1)
                 // strides[i] + 1 for i in range(s)]
    y = np.zeros([n, f] + out_shape)
    fg = f // group
    for k in np.ndindex(*kernel):
        window = tuple(
            slice(k[i] * dilations[i],
                  k[i] * dilations[i] + strides[i] * (out_shape[i] - 1) + 1,
                  strides[i]) for i in range(s))
        for g in range(group):
            xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + window]
            ws = w[(slice(g * fg, (g + 1) * fg), slice(None)) + k]
            y[:, g * fg:(g + 1) * fg] += np.einsum("nc...,fc->nf...", xs, ws)
    if b is not None:
        y += b.reshape([1, f] + [1] * s)
    return y


def cost_model_takes_gemm_call(spec):
    """Whether, without a tuning, the convolution stays as im2col gather
    and GEMM call (autoglm-convolutions-to-kernels' cost model): fewer than
    32 filters per group; without AVX-512, also a 1x1 kernel with a stride,
    or at most 64 output positions with 1 MiB of filters per group or
    more."""
    shape, filters, kernel, strides, pads, dilations, group = spec[:7]
    if filters // group < 32:
        return True
    if host_has_avx512():
        return False
    if all(k == 1 for k in kernel) and any(s > 1 for s in strides):
        return True
    s = len(kernel)
    out = [(shape[2 + i] + pads[i] + pads[i + s] -
            dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
           for i in range(s)]
    filter_bytes = 4 * (filters // group) * (shape[1] // group) * \
        int(np.prod(kernel))
    return int(np.prod(out)) <= 64 and filter_bytes >= 1 << 20


def build_case(directory, name, spec, rng):
    shape, filters, kernel, strides, pads, dilations, group, bias, relu = spec
    w = rng.standard_normal([filters, shape[1] // group] + kernel)
    w = w.astype(np.float32)
    b = rng.standard_normal(filters).astype(np.float32) if bias else None
    x = rng.standard_normal(shape).astype(np.float32)
    y = conv_reference(x, w, b, strides, pads, dilations, group)
    if relu:
        y = np.maximum(y, 0)
    inits = [numpy_helper.from_array(w, "w")]
    inputs = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(b, "b"))
        inputs.append("b")
    nodes = [helper.make_node("Conv", inputs, ["conv" if relu else "y"],
                              kernel_shape=kernel, strides=strides,
                              pads=pads, dilations=dilations, group=group)]
    if relu:
        nodes.append(helper.make_node("Relu", ["conv"], ["y"]))
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                    shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       list(y.shape))], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(directory, name + ".onnx")
    onnx.save(model, path)
    np.save(os.path.join(directory, name + "_x.npy"), x)
    np.save(os.path.join(directory, name + "_y.npy"), y.astype(np.float32))
    return path


class ConvolutionKernelTest(E2ETestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.models = {}
        rng = np.random.default_rng(2024)
        for name, spec in CASES.items():
            cls.models[name] = build_case(cls.cache.path("models", ""), name,
                                          spec, rng)

    def check(self, name, *options):
        """Runs the case against its float64 reference: within 1e-4 of
        each value, and for the Winograd cases also within 1e-4 of the
        output's largest magnitude (F(4x4, 3x3) rounds to about 3e-5 of
        it: its transforms multiply by up to 5 and 8)."""
        model = self.models[name]
        artifact = self.compiled(model, ".so", *options)
        stem = os.path.splitext(model)[0]
        atol = 1e-4
        if name in WINOGRAD:
            atol *= max(1.0, float(np.abs(np.load(f"{stem}_y.npy")).max()))
        result = run_model(artifact, "-i", f"x={stem}_x.npy",
                           "-e", f"y={stem}_y.npy", "--rtol", "1e-4",
                           "--atol", str(atol))
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn(" OK", result.stdout, describe(result))
        return artifact

    def force_kernel(self, name):
        """A tuning file that puts the case's convolution on the kernel:
        with fewer than 32 filters the cost model would keep im2col."""
        result = compile_model(self.models[name],
                               self.cache.path("keys", name + ".so"),
                               "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        report = json.loads(result.stdout)
        keys = [k["tuning_key"] for k in report["kernels"]
                if k["tuning_key"].startswith("conv2d")]
        path = self.cache.path("tuning", name + ".json")
        with open(path, "w") as f:
            json.dump({"format": "autoglm-tuning", "version": 1,
                       "targets": {report["tuning_target"]: {
                           key: {"strategy": "implicit-gemm"}
                           for key in keys}}}, f)
        return path

    def test_kernel_matches_reference(self):
        for name in CASES:
            with self.subTest(case=name):
                artifact = self.check(name, "--tuning",
                                      self.force_kernel(name))
                symbols = undefined_symbols(artifact)
                self.assertIn("agl_kernel_conv2d", symbols)
                self.assertNotIn("agl_kernel_conv2d_winograd", symbols)

    def test_cost_model_keeps_im2col_where_the_gemm_call_wins(self):
        for name, spec in CASES.items():
            with self.subTest(case=name):
                artifact = self.check(name)
                if not cost_model_takes_gemm_call(spec):
                    self.assertIn("agl_kernel_conv2d", undefined_symbols(artifact))
                else:
                    self.assertNotIn("agl_kernel_conv2d",
                                     undefined_symbols(artifact))
                    self.assertIn("agl_kernel_sgemm", undefined_symbols(artifact))

    def test_winograd_for_many_channels(self):
        for name in WINOGRAD:
            with self.subTest(case=name):
                artifact = self.check(name)
                symbols = undefined_symbols(artifact).split()
                f4 = "agl_kernel_conv2d_winograd_f4"
                f2 = "agl_kernel_conv2d_winograd"
                self.assertIn(f4 if host_has_avx512() else f2, symbols)
                self.assertNotIn(f2 if host_has_avx512() else f4, symbols)

    def test_no_kernels_matches_reference(self):
        for name in CASES:
            with self.subTest(case=name):
                artifact = self.check(name, "--no-kernels")
                self.assertNotIn("agl_", undefined_symbols(artifact))


def residual_network(directory, rng):
    """A small ResNet: a 32-filter stem, then two blocks of two 3x3
    convolutions each, the second ending in Add(shortcut) and ReLU, the
    second block downsampling (stride 2, a 1x1 stride-2 convolution on the
    shortcut). The convolutions run on the kernel; the block ends become
    their epilogues; buffers are planned around the kernel calls."""
    nodes, inits = [], []
    reference = {}

    def conv(name, x, cin, cout, k, stride, relu):
        w = (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k))
        w = w.astype(np.float32)
        b = rng.standard_normal(cout).astype(np.float32) * 0.1
        inits.extend([numpy_helper.from_array(w, name + "_w"),
                      numpy_helper.from_array(b, name + "_b")])
        pad = k // 2
        out = name if not relu else name + "_conv"
        nodes.append(helper.make_node(
            "Conv", [x, name + "_w", name + "_b"], [out], name=name,
            kernel_shape=[k, k], strides=[stride, stride],
            pads=[pad] * 4))
        y = conv_reference(reference[x], w, b, [stride] * 2, [pad] * 4,
                           [1, 1], 1)
        if relu:
            nodes.append(helper.make_node("Relu", [out], [name]))
            y = np.maximum(y, 0)
        reference[name] = y
        return name

    def add_relu(name, a, b):
        nodes.append(helper.make_node("Add", [a, b], [name + "_sum"]))
        nodes.append(helper.make_node("Relu", [name + "_sum"], [name]))
        reference[name] = np.maximum(reference[a] + reference[b], 0)
        return name

    x = rng.standard_normal((1, 3, 64, 64)).astype(np.float32)
    reference["x"] = x.astype(np.float64)
    h = conv("stem", "x", 3, 32, 3, 1, True)
    h = add_relu("block1", conv("b1c2", conv("b1c1", h, 32, 32, 3, 1, True),
                                32, 32, 3, 1, False), h)
    shortcut = conv("b2ds", h, 32, 64, 1, 2, False)
    h = add_relu("block2", conv("b2c2", conv("b2c1", h, 32, 64, 3, 2, True),
                                64, 64, 3, 1, False), shortcut)
    graph = helper.make_graph(
        nodes, "resnet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("block2", TensorProto.FLOAT,
                                       list(reference["block2"].shape))],
        inits)
    path = os.path.join(directory, "resnet.onnx")
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    np.save(os.path.join(directory, "resnet_x.npy"), x)
    np.save(os.path.join(directory, "resnet_y.npy"),
            reference["block2"].astype(np.float32))
    return path


class ResidualNetworkTest(E2ETestCase):
    def test_blocks_end_in_convolution_epilogues(self):
        directory = self.cache.path("resnet", "")
        model = residual_network(directory, np.random.default_rng(7))
        result = compile_model(model, os.path.join(directory, "resnet.so"),
                               "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        kernels = [k["name"] for k in json.loads(result.stdout)["kernels"]]
        # Five convolution calls and the shortcut, and nothing else: the
        # ReLUs and the Add + ReLU of each block are the calls' epilogues.
        # The second block's 64 -> 64 3x3 one runs by Winograd (F(4x4,
        # 3x3) with AVX-512, else F(2x2, 3x3)), its shortcut and ReLU in
        # the output transform's epilogue. The 1x1
        # shortcut with stride 2 is a convolution call with AVX-512, else
        # a GEMM call on its subsampled input (and a fill of its bias).
        self.assertEqual(
            [k for k in kernels if not k.endswith(" b2ds")],
            ["conv2d stem", "conv2d b1c1", "conv2d b1c2", "conv2d b2c1",
             "conv2d_winograd_f4 b2c2" if host_has_avx512() else
             "conv2d_winograd b2c2"], kernels)
        self.assertEqual(sorted(k for k in kernels if k.endswith(" b2ds")),
                         ["conv2d b2ds"] if host_has_avx512() else
                         ["loop b2ds", "loop b2ds", "sgemm b2ds"], kernels)
        result = run_model(os.path.join(directory, "resnet.so"),
                           "-i", os.path.join(directory, "resnet_x.npy"),
                           "-e", os.path.join(directory, "resnet_y.npy"),
                           "--rtol", "1e-4", "--atol", "1e-4")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn(" OK", result.stdout, describe(result))


if __name__ == "__main__":
    unittest.main(verbosity=2)
