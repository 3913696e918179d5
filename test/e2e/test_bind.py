#!/usr/bin/env python3
"""autoglm-compile --bind NAME=FILE: a graph input that must be a compile-time
constant (here ReduceSum's axes) is fixed to a tensor file and leaves the
compiled model's signature; misuse fails cleanly."""

import os
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    ATOL, RTOL, E2ETestCase, compile_model, describe, run_model)


def reduce_sum_model(path):
    node = helper.make_node("ReduceSum", ["data", "axes"], ["reduced"],
                            keepdims=0)
    graph = helper.make_graph(
        [node], "reduce_sum",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [3, 4, 5]),
         helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("reduced", TensorProto.FLOAT, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


class BindTest(E2ETestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.model = cls.cache.path("reduce_sum.onnx")
        reduce_sum_model(cls.model)
        cls.axes_npy = cls.cache.path("axes.npy")
        np.save(cls.axes_npy, np.array([1], dtype=np.int64))
        cls.axes_pb = cls.cache.path("axes.pb")
        with open(cls.axes_pb, "wb") as f:
            f.write(numpy_helper.from_array(np.array([-1], dtype=np.int64)).SerializeToString())

    def compile_with(self, *options):
        out = self.cache.path(f"out{len(os.listdir(self.cache.dir))}", "model.so")
        return out, compile_model(self.model, out, *options)

    def check(self, artifact, axis):
        data = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
        data_path = self.cache.path(f"data{axis}.npy")
        expected_path = self.cache.path(f"expected{axis}.npy")
        np.save(data_path, data)
        np.save(expected_path, data.sum(axis=axis))
        result = run_model(artifact, "-i", f"data={data_path}", "-e", expected_path,
                           "--rtol", str(RTOL), "--atol", str(ATOL))
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn(" OK", result.stdout, describe(result))

    def test_unbound_input_names_the_fix(self):
        out, result = self.compile_with()
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, 2, describe(result))
        self.assertIn("'axes' must be a compile-time integer constant", result.stderr)
        self.assertIn("--bind axes=FILE", result.stderr)
        self.assertFalse(os.path.exists(out))

    def test_bind_npy_and_pb(self):
        for path, axis in ((self.axes_npy, 1), (self.axes_pb, -1)):
            with self.subTest(file=os.path.basename(path)):
                out, result = self.compile_with("--bind", f"axes={path}")
                self.assertEqual(result.returncode, 0, describe(result))
                with open(out[:-3] + ".h") as header:
                    self.assertNotIn('"axes"', header.read())
                self.check(out, axis)

    def test_bad_bindings(self):
        wrong_dtype = self.cache.path("axes_i32.npy")
        np.save(wrong_dtype, np.array([1], dtype=np.int32))
        wrong_shape = self.cache.path("axes_2.npy")
        np.save(wrong_shape, np.array([0, 1], dtype=np.int64))
        cases = {
            "unknown name": (f"nope={self.axes_npy}", ["--bind nope", "no input named 'nope'"]),
            "dtype": (f"axes={wrong_dtype}", ["--bind axes", "i32", "int64"]),
            "shape": (f"axes={wrong_shape}", ["--bind axes", "tensor<2xi64>", "[1]"]),
            "missing file": ("axes=/does/not/exist.npy", ["--bind axes", "/does/not/exist.npy"]),
            "no file": ("axes", ["--bind expects NAME=FILE"]),
        }
        for what, (option, mentions) in cases.items():
            with self.subTest(case=what):
                out, result = self.compile_with("--bind", option)
                self.assertCleanError(result, "autoglm-compile", *mentions)
                self.assertFalse(os.path.exists(out))
        out, result = self.compile_with("--bind", f"axes={self.axes_npy}",
                                        "--bind", f"axes={self.axes_pb}")
        self.assertCleanError(result, "autoglm-compile", "given twice")


if __name__ == "__main__":
    unittest.main()
