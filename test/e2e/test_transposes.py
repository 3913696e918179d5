#!/usr/bin/env python3
"""Transposes, which compiled models run on the runtime's transpose kernel
where the innermost output dimension is not the input's (4-byte elements):
NHWC -> NCHW and back with edges of every width, a matrix of int32, a
permutation whose plane dimensions fold, one with too many plane
dimensions and one that keeps the innermost dimension (both left to the
generated loops), and a transpose feeding a ReLU; each against numpy
(exact: a transpose moves bits), also compiled with --no-kernels, which
must call no runtime symbol."""

import os
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    E2ETestCase, compile_model, describe, run_model, undefined_symbols)

# name -> (input shape, permutation, element type, runs on the kernel,
#          followed by a ReLU)
CASES = {
    "nhwc_to_nchw": ([2, 9, 11, 20], [0, 3, 1, 2], TensorProto.FLOAT, True,
                     False),
    "nchw_to_nhwc": ([1, 24, 7, 13], [0, 2, 3, 1], TensorProto.FLOAT, True,
                     False),
    "matrix_int32": ([70, 133], [1, 0], TensorProto.INT32, True, False),
    "folded_planes": ([2, 3, 17, 40], [0, 1, 3, 2], TensorProto.FLOAT, True,
                      False),
    "three_planes": ([2, 3, 2, 5, 9], [1, 0, 2, 4, 3], TensorProto.FLOAT,
                     False, False),
    "heads": ([1, 12, 4, 16], [0, 2, 1, 3], TensorProto.FLOAT, False, False),
    "then_relu": ([1, 16, 16, 8], [0, 3, 1, 2], TensorProto.FLOAT, None,
                  True),
}


def build_case(directory, name, spec, rng):
    shape, perm, elem, _, relu = spec
    if elem == TensorProto.INT32:
        x = rng.integers(-2**31, 2**31 - 1, size=shape, dtype=np.int64)
        x = x.astype(np.int32)
    else:
        x = rng.standard_normal(shape).astype(np.float32)
    y = np.transpose(x, perm)
    nodes = [helper.make_node("Transpose", ["x"], ["t" if relu else "y"],
                              perm=perm)]
    if relu:
        nodes.append(helper.make_node("Relu", ["t"], ["y"]))
        y = np.maximum(y, 0)
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", elem, shape)],
        [helper.make_tensor_value_info("y", elem, list(y.shape))])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(directory, name + ".onnx")
    onnx.save(model, path)
    np.save(os.path.join(directory, name + "_x.npy"), x)
    np.save(os.path.join(directory, name + "_y.npy"), np.ascontiguousarray(y))
    return path


class TransposeKernelTest(E2ETestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(7)
        cls.models = {name: build_case(cls.cache.path("models", ""), name,
                                       spec, rng)
                      for name, spec in CASES.items()}

    def check(self, name, *options, threads=1):
        """Runs the case against numpy's transpose, exactly."""
        model = self.models[name]
        artifact = self.compiled(model, ".so", *options)
        stem = os.path.splitext(model)[0]
        result = run_model(artifact, "-i", f"x={stem}_x.npy",
                           "-e", f"y={stem}_y.npy", "--rtol", "0",
                           "--atol", "0", "--threads", str(threads))
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn(" OK", result.stdout, describe(result))
        return artifact

    def test_matches_numpy(self):
        for name, spec in CASES.items():
            with self.subTest(case=name):
                symbols = undefined_symbols(self.check(name))
                on_kernel = spec[3]
                if on_kernel is not None:
                    self.assertEqual("agl_kernel_transpose32" in symbols,
                                     on_kernel, symbols)

    def test_matches_numpy_at_two_threads(self):
        for name in ("nhwc_to_nchw", "matrix_int32"):
            with self.subTest(case=name):
                self.check(name, threads=2)

    def test_explain_names_the_kernel(self):
        result = compile_model(self.models["nhwc_to_nchw"],
                               self.cache.path("explain", "nhwc.so"),
                               "--explain")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("transpose kernel 2x9 planes of 20 rows x 11 columns",
                      result.stdout + result.stderr)

    def test_no_kernels_matches_numpy(self):
        for name in CASES:
            with self.subTest(case=name):
                artifact = self.check(name, "--no-kernels")
                self.assertNotIn("agl_", undefined_symbols(artifact))


if __name__ == "__main__":
    unittest.main()
