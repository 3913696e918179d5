#!/usr/bin/env python3
"""End-to-end tests of autoglm-run on the hand-written models in fake_model.c
and fake_shaped_model.c.

fake_model.c computes y = a + b and y/positive = a + b > 0 over
float32[2,3]. fake_shaped_model.c has symbolic dimensions batch (1..4) and
seq (1..8): sum = x + bias over float32[batch,seq,2] (bias float32[seq],
broadcast), flat = sum flattened, count = [batch*seq].

Usage: test_autoglm_run.py [BUILD_DIR] [unittest options]
The tool and the model are found through AUTOGLM_RUN and AUTOGLM_FAKE_MODEL
when set, otherwise in BUILD_DIR (or $AUTOGLM_BUILD_DIR) as bin/autoglm-run
and .../fake_add_model.so.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

try:
    import onnx
    from onnx import helper, numpy_helper
except ImportError:  # only the .pb tests need it
    onnx = None


def locate_build_products():
    tool = os.environ.get("AUTOGLM_RUN")
    model = os.environ.get("AUTOGLM_FAKE_MODEL")
    if tool and model:
        return tool, model
    build_dir = os.environ.get("AUTOGLM_BUILD_DIR")
    if not build_dir:
        sys.exit("set AUTOGLM_BUILD_DIR, pass the build directory, "
                 "or set AUTOGLM_RUN and AUTOGLM_FAKE_MODEL")
    build = pathlib.Path(build_dir)
    tool = tool or str(build / "bin" / "autoglm-run")
    if not model:
        found = sorted(build.rglob("fake_add_model.so"))
        if not found:
            sys.exit(f"no fake_add_model.so under {build}")
        model = str(found[0])
    return tool, model


A = np.array([[1, -2, 3], [-4, 5, -6]], dtype=np.float32)
B = np.array([[0.5, 1, -3.5], [2, -4, 8]], dtype=np.float32)
Y = A + B


class ToolTest(unittest.TestCase):
    """Temporary files and a way to run the tool; the tests are below."""
    tool = None
    model = None

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="autoglm-run-test-")
        self.dir = pathlib.Path(self._tmp.name)
        self.a = self.npy("a.npy", A)
        self.b = self.npy("b.npy", B)
        self.y = self.npy("y.npy", Y)

    def tearDown(self):
        self._tmp.cleanup()

    def npy(self, name, array, **save_options):
        path = self.dir / name
        with open(path, "wb") as f:
            np.lib.format.write_array(f, np.asanyarray(array), **save_options)
        return str(path)

    def pb(self, name, tensor):
        path = self.dir / name
        path.write_bytes(tensor.SerializeToString())
        return str(path)

    def run_tool(self, *args, artifact=None):
        command = [self.tool, artifact or self.model, *map(str, args)]
        return subprocess.run(command, capture_output=True, text=True,
                              timeout=60)

    def assert_exit(self, result, code):
        self.assertEqual(result.returncode, code,
                         f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")

    def sibling_model(self, name):
        path = pathlib.Path(self.model).with_name(name)
        if not path.exists():
            self.skipTest(f"{path} is not built")
        return str(path)


class AutoglmRunTest(ToolTest):
    """autoglm-run on fake_add_model.so, a model with static shapes."""

    # ---- successful runs ---------------------------------------------------

    def test_matching_expectation_exits_0(self):
        result = self.run_tool("--input", self.a, "--input", self.b,
                               "--expect", self.y)
        self.assert_exit(result, 0)
        self.assertRegex(result.stdout,
                         r"y: max_abs_err=0 max_rel_err=0 mismatches=0/6 OK")

    def test_inputs_bind_by_name_in_any_order(self):
        result = self.run_tool("-i", f"b={self.b}", "-i", f"a={self.a}",
                               "-e", f"y={self.y}")
        self.assert_exit(result, 0)

    def test_bool_output_is_compared_exactly(self):
        positive = self.npy("positive.npy", Y > 0)
        result = self.run_tool("-i", self.a, "-i", self.b,
                               "-e", f"y/positive={positive}")
        self.assert_exit(result, 0)
        self.assertIn("y/positive: max_abs_err=0", result.stdout)

        flipped = self.npy("flipped.npy", ~(Y > 0))
        result = self.run_tool("-i", self.a, "-i", self.b,
                               "-e", f"y/positive={flipped}", "--atol", "10")
        self.assert_exit(result, 1)
        self.assertIn("mismatches=6/6 MISMATCH", result.stdout)

    def test_summary_without_expectations(self):
        result = self.run_tool("-i", self.a, "-i", self.b)
        self.assert_exit(result, 0)
        self.assertIn("y: float32[2,3] min=-2 max=2 mean=0.166667",
                      result.stdout)
        self.assertIn("y/positive: bool[2,3]", result.stdout)

    def test_help_exits_0(self):
        result = subprocess.run([self.tool, "--help"], capture_output=True,
                                text=True)
        self.assert_exit(result, 0)
        self.assertIn("--expect", result.stdout)
        self.assertIn("--threads", result.stdout)
        self.assertIn("--pin-threads", result.stdout)

    # ---- wrong results -----------------------------------------------------

    def test_mismatch_exits_1_with_errors(self):
        wrong = Y.copy()
        wrong[1, 2] += 0.5
        result = self.run_tool("-i", self.a, "-i", self.b,
                               "-e", self.npy("wrong.npy", wrong))
        self.assert_exit(result, 1)
        self.assertRegex(result.stdout,
                         r"y: max_abs_err=0\.5 max_rel_err=0\.\d+ "
                         r"mismatches=1/6 MISMATCH")
        self.assertIn("y[1,2]: got 2, expected 2.5", result.stdout)

    def test_tolerances_are_options(self):
        close = self.npy("close.npy", Y + 1e-3)
        self.assert_exit(self.run_tool("-i", self.a, "-i", self.b, "-e", close),
                         1)
        self.assert_exit(self.run_tool("-i", self.a, "-i", self.b, "-e", close,
                                       "--atol", "2e-3"), 0)
        self.assert_exit(self.run_tool("-i", self.a, "-i", self.b, "-e", close,
                                       "--atol", "0", "--rtol", "0.01"), 0)

    def test_nan_expectation_does_not_match_a_number(self):
        nan = Y.copy()
        nan[0, 0] = np.nan
        result = self.run_tool("-i", self.a, "-i", self.b,
                               "-e", self.npy("nan.npy", nan))
        self.assert_exit(result, 1)
        self.assertIn("max_abs_err=inf", result.stdout)

    def test_expectation_of_another_type_exits_1(self):
        as_double = self.npy("y64.npy", Y.astype(np.float64))
        result = self.run_tool("-i", self.a, "-i", self.b, "-e", as_double)
        self.assert_exit(result, 1)
        self.assertIn(f"y: model produces float32[2,3], but {as_double} holds "
                      "float64[2,3] MISMATCH", result.stdout)

        transposed = self.npy("yT.npy", np.ascontiguousarray(Y.T))
        result = self.run_tool("-i", self.a, "-i", self.b, "-e", transposed)
        self.assert_exit(result, 1)
        self.assertIn("holds float32[3,2]", result.stdout)

    # ---- unusable arguments ------------------------------------------------

    def test_wrong_shape_exits_2(self):
        short = self.npy("short.npy", A[:, :2].copy())
        result = self.run_tool("-i", short, "-i", self.b)
        self.assert_exit(result, 2)
        self.assertIn(f"input 'a': expected float32[2,3], got float32[2,2] "
                      f"from {short}", result.stderr)

    def test_wrong_dtype_exits_2(self):
        halves = self.npy("half.npy", B.astype(np.float16))
        result = self.run_tool("-i", self.a, "-i", halves)
        self.assert_exit(result, 2)
        self.assertIn("input 'b': expected float32[2,3], got float16[2,3]",
                      result.stderr)

    def test_fortran_order_exits_2(self):
        fortran = self.npy("fortran.npy", np.asfortranarray(A))
        result = self.run_tool("-i", fortran, "-i", self.b)
        self.assert_exit(result, 2)
        self.assertIn("Fortran-order arrays are not supported", result.stderr)

    def test_missing_input_file_exits_2(self):
        missing = self.dir / "missing.npy"
        result = self.run_tool("-i", self.a, "-i", missing)
        self.assert_exit(result, 2)
        self.assertIn(f"cannot read '{missing}': No such file or directory",
                      result.stderr)

    def test_missing_and_extra_inputs_exit_2(self):
        result = self.run_tool("-i", self.a)
        self.assert_exit(result, 2)
        self.assertIn("missing input 'b' (float32[2,3])", result.stderr)

        result = self.run_tool("-i", self.a, "-i", self.b, "-i", self.a)
        self.assert_exit(result, 2)
        self.assertIn("too many inputs: model 'fake_add' has 2 (a, b)",
                      result.stderr)

    def test_unknown_input_name_exits_2(self):
        result = self.run_tool("-i", self.a, "-i", f"bias={self.b}")
        self.assert_exit(result, 2)
        self.assertIn("unknown input 'bias'; model 'fake_add' has inputs: a, b",
                      result.stderr)

    def test_unknown_output_name_exits_2(self):
        result = self.run_tool("-i", self.a, "-i", self.b,
                               "-e", f"z={self.y}")
        self.assert_exit(result, 2)
        self.assertIn("unknown output 'z'; model 'fake_add' has outputs: "
                      "y, y/positive", result.stderr)

    def test_unreadable_expectation_exits_2(self):
        garbage = self.dir / "garbage.npy"
        garbage.write_bytes(b"\x93NUMPY\x01\x00\x05\x00{'de")
        result = self.run_tool("-i", self.a, "-i", self.b, "-e", garbage)
        self.assert_exit(result, 2)
        self.assertIn(str(garbage), result.stderr)

    def test_missing_artifact_exits_2(self):
        missing = self.dir / "nothing.so"
        result = self.run_tool("-i", self.a, "-i", self.b, artifact=missing)
        self.assert_exit(result, 2)
        self.assertIn(f"cannot open '{missing}'", result.stderr)

    def test_non_artifact_exits_2(self):
        result = self.run_tool("-i", self.a, artifact=self.a)
        self.assert_exit(result, 2)
        self.assertIn("cannot open", result.stderr)

    def test_artifact_for_another_abi_exits_2(self):
        result = self.run_tool("-i", self.a, "-i", self.b,
                               artifact=self.sibling_model(
                                   "fake_add_model_abi99.so"))
        self.assert_exit(result, 2)
        self.assertIn("built for runtime ABI 99", result.stderr)

    def test_failing_model_exits_2(self):
        result = self.run_tool("-i", self.a, "-i", self.b, "-e", self.y,
                               artifact=self.sibling_model(
                                   "fake_add_model_failing.so"))
        self.assert_exit(result, 2)
        self.assertIn("model 'fake_add' failed with code 3", result.stderr)

    def test_bad_option_values_exit_2(self):
        for option in (["--threads", "-1"], ["--rtol", "-1"], ["--bench", "x"],
                       ["--no-such-option"]):
            with self.subTest(option=option):
                result = self.run_tool("-i", self.a, "-i", self.b, *option)
                self.assert_exit(result, 2)

    # ---- file formats ------------------------------------------------------

    @unittest.skipIf(onnx is None, "the onnx package is not installed")
    def test_tensor_proto_inputs(self):
        raw = self.pb("a.pb", numpy_helper.from_array(A, "a"))
        typed = self.pb("b.pb", helper.make_tensor(
            "b", onnx.TensorProto.FLOAT, B.shape, B.flatten().tolist()))
        expected = self.pb("y.pb", numpy_helper.from_array(Y, "y"))
        result = self.run_tool("-i", raw, "-i", typed, "-e", expected)
        self.assert_exit(result, 0)

    @unittest.skipIf(onnx is None, "the onnx package is not installed")
    def test_tensor_proto_of_another_type_exits_2(self):
        ints = self.pb("a_int.pb", numpy_helper.from_array(
            A.astype(np.int32), "a"))
        result = self.run_tool("-i", ints, "-i", self.b)
        self.assert_exit(result, 2)
        self.assertIn("expected float32[2,3], got int32[2,3]", result.stderr)

    def test_npy_format_versions(self):
        for version in ((1, 0), (2, 0), (3, 0)):
            with self.subTest(version=version):
                a = self.npy(f"a{version[0]}.npy", A, version=version)
                result = self.run_tool("-i", a, "-i", self.b, "-e", self.y)
                self.assert_exit(result, 0)

    # ---- outputs, JSON and timing -----------------------------------------

    def test_output_dir_holds_readable_npy_files(self):
        out = self.dir / "results" / "run1"
        result = self.run_tool("-i", self.a, "-i", self.b, "--output-dir", out)
        self.assert_exit(result, 0)
        self.assertEqual(sorted(p.name for p in out.iterdir()),
                         ["y.npy", "y_positive.npy"])
        np.testing.assert_array_equal(np.load(out / "y.npy"), Y)
        positive = np.load(out / "y_positive.npy")
        self.assertEqual(positive.dtype, np.bool_)
        np.testing.assert_array_equal(positive, Y > 0)

    def test_saved_output_can_serve_as_expectation(self):
        out = self.dir / "out"
        self.assert_exit(self.run_tool("-i", self.a, "-i", self.b, "-o", out), 0)
        result = self.run_tool("-i", self.a, "-i", self.b,
                               "-e", out / "y.npy",
                               "-e", out / "y_positive.npy")
        self.assert_exit(result, 0)

    def test_json_is_one_line_on_stdout(self):
        result = self.run_tool("-i", self.a, "-i", self.b, "-e", self.y,
                               "--json", "--threads", "3", "--bench", "4")
        self.assert_exit(result, 0)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 1)
        report = json.loads(lines[0])
        self.assertEqual(report["model"], "fake_add")
        self.assertEqual(report["threads"], 3)
        self.assertTrue(report["ok"])
        y = report["outputs"][0]
        self.assertEqual((y["name"], y["ok"], y["mismatches"], y["max_abs"],
                          y["max_rel"]), ("y", True, 0, 0, 0))
        self.assertFalse(report["outputs"][1]["checked"])
        latency = report["latency_ms"]
        self.assertEqual(latency["runs"], 4)
        self.assertLessEqual(latency["min"], latency["median"])
        self.assertLessEqual(latency["median"], latency["p90"])
        self.assertIn("mismatches=0/6 OK", result.stderr)

    def test_json_reports_mismatches_and_errors(self):
        wrong = self.npy("wrong.npy", Y * 2)
        result = self.run_tool("-i", self.a, "-i", self.b, "-e", wrong,
                               "--json")
        self.assert_exit(result, 1)
        report = json.loads(result.stdout)
        self.assertFalse(report["ok"])
        self.assertEqual(report["outputs"][0]["mismatches"], 6)

        result = self.run_tool("-i", self.a, "--json")
        self.assert_exit(result, 2)
        report = json.loads(result.stdout)
        self.assertEqual(report["exit_code"], 2)
        self.assertIn("missing input 'b'", report["error"])

        result = self.run_tool("--json", "--threads", "-1")
        self.assert_exit(result, 2)
        self.assertIn("--threads", json.loads(result.stdout)["error"])

    def test_bench_prints_latency(self):
        result = self.run_tool("-i", self.a, "-i", self.b, "--bench", "20",
                               "--warmup", "2", "--threads", "2")
        self.assert_exit(result, 0)
        self.assertRegex(result.stdout,
                         r"latency ms: min=\d+\.\d{3} median=\d+\.\d{3} "
                         r"p90=\d+\.\d{3} \(20 runs, 2 threads\)")


    def test_device_resident_needs_a_cuda_model(self):
        result = self.run_tool("-i", self.a, "-i", self.b, "--bench", "2",
                               "--device-resident")
        self.assert_exit(result, 2)
        self.assertIn("--device-resident: model 'fake_add' runs on the host",
                      result.stderr)


class ShapedModelTest(ToolTest):
    """autoglm-run on fake_shaped_model.so, a model with symbolic dimensions."""

    def setUp(self):
        super().setUp()
        self.shaped = self.sibling_model("fake_shaped_model.so")

    def shaped_inputs(self, batch, seq, bias_seq=None):
        x = np.arange(batch * seq * 2, dtype=np.float32).reshape(batch, seq, 2)
        bias = 100 * np.arange(1, (bias_seq or seq) + 1, dtype=np.float32)
        return x, bias, self.npy("x.npy", x), self.npy("bias.npy", bias)

    def run_shaped(self, *args):
        return self.run_tool(*args, artifact=self.shaped)

    def test_runs_at_the_sizes_of_its_inputs(self):
        for batch, seq in ((1, 1), (2, 3), (4, 8)):
            with self.subTest(batch=batch, seq=seq):
                x, bias, x_path, bias_path = self.shaped_inputs(batch, seq)
                total = x + bias[None, :, None]
                result = self.run_shaped(
                    "-i", x_path, "-i", bias_path,
                    "-e", f"sum={self.npy('sum.npy', total)}",
                    "-e", f"flat={self.npy('flat.npy', total.ravel())}",
                    "-e", "count=" + self.npy(
                        "count.npy", np.array([batch * seq], np.int64)))
                self.assert_exit(result, 0)
                self.assertIn(f"symbols: batch={batch} seq={seq}\n",
                              result.stdout)
                self.assertIn(f"mismatches=0/{batch * seq * 2} OK",
                              result.stdout)

    def test_summaries_and_saved_outputs_have_the_actual_shapes(self):
        x, bias, x_path, bias_path = self.shaped_inputs(2, 3)
        out = self.dir / "out"
        result = self.run_shaped("-i", x_path, "-i", bias_path, "-o", out)
        self.assert_exit(result, 0)
        self.assertIn("sum: float32[2,3,2]", result.stdout)
        self.assertIn("flat: float32[12]", result.stdout)
        self.assertIn("count: int64[1] min=6 max=6", result.stdout)
        total = x + bias[None, :, None]
        np.testing.assert_array_equal(np.load(out / "sum.npy"), total)
        np.testing.assert_array_equal(np.load(out / "flat.npy"), total.ravel())

    def test_expectation_of_another_shape_is_a_mismatch(self):
        x, bias, x_path, bias_path = self.shaped_inputs(2, 3)
        bound = np.zeros((4, 8, 2), np.float32)
        result = self.run_shaped("-i", x_path, "-i", bias_path,
                                 "-e", f"sum={self.npy('big.npy', bound)}")
        self.assert_exit(result, 1)
        self.assertIn("sum: model produces float32[2,3,2], but", result.stdout)

    def test_wrong_static_extent_rank_or_dtype_exits_2(self):
        _, _, _, bias_path = self.shaped_inputs(2, 3)
        for name, array, got in (
                ("wide.npy", np.zeros((2, 3, 5), np.float32),
                 "float32[2,3,5]"),
                ("flat.npy", np.zeros((2, 3), np.float32), "float32[2,3]"),
                ("ints.npy", np.zeros((2, 3, 2), np.int32), "int32[2,3,2]")):
            with self.subTest(got=got):
                path = self.npy(name, array)
                result = self.run_shaped("-i", path, "-i", bias_path)
                self.assert_exit(result, 2)
                self.assertIn(f"input 'x': expected float32[batch,seq,2], "
                              f"got {got} from {path}", result.stderr)

    def test_symbol_out_of_range_exits_2(self):
        _, _, x_path, bias_path = self.shaped_inputs(5, 3)
        result = self.run_shaped("-i", x_path, "-i", bias_path)
        self.assert_exit(result, 2)
        self.assertIn(f"input 'x': dimension 0 is 5 in {x_path}, outside the "
                      "range 1..4 of symbol 'batch'", result.stderr)

    def test_disagreeing_extents_exit_2(self):
        _, _, x_path, bias_path = self.shaped_inputs(2, 3, bias_seq=4)
        result = self.run_shaped("-i", x_path, "-i", bias_path)
        self.assert_exit(result, 2)
        self.assertIn(f"input 'bias': dimension 0 is 4 in {bias_path}, but "
                      "symbol 'seq' is 3 from input 'x'", result.stderr)

    def test_missing_input_shows_the_symbolic_type(self):
        _, _, x_path, _ = self.shaped_inputs(2, 3)
        result = self.run_shaped("-i", x_path)
        self.assert_exit(result, 2)
        self.assertIn("missing input 'bias' (float32[seq])", result.stderr)

    def test_json_and_bench(self):
        _, _, x_path, bias_path = self.shaped_inputs(3, 5)
        result = self.run_shaped("-i", x_path, "-i", bias_path, "--json",
                                 "--bench", "5", "--warmup", "1")
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        self.assertEqual(report["symbols"], {"batch": 3, "seq": 5})
        self.assertEqual(report["outputs"][0]["shape"], [3, 5, 2])
        self.assertEqual(report["outputs"][1]["shape"], [30])
        self.assertEqual(report["latency_ms"]["runs"], 5)
        self.assertIn("symbols: batch=3 seq=5", result.stderr)

        result = self.run_shaped("-i", x_path, "-i", bias_path, "--bench",
                                 "3")
        self.assert_exit(result, 0)
        self.assertRegex(result.stdout, r"latency ms: .* \(3 runs, \d+ threads\)")


def main():
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        os.environ["AUTOGLM_BUILD_DIR"] = sys.argv.pop(1)
    ToolTest.tool, ToolTest.model = locate_build_products()
    unittest.main()


if __name__ == "__main__":
    main()
