#!/usr/bin/env python3
"""Loader corner cases and malformed inputs (test/e2e/fixtures/, written by
models/generate_bad_inputs.py): valid oddities compile and match their
references; broken models, bad output paths and bad run-time inputs fail
with exit status 2, one clear line on stderr and no partial output."""

import os
import shutil
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    ATOL, FIXTURES_DIR, MODELS_DIR, RTOL, E2ETestCase, compile_model,
    describe, load_case, run_model)

# Valid models that exercise the loader; each has references in fixtures/NAME/.
VALID = ["unsorted", "external_data", "old_opset", "opset13"]

# Fixture -> strings the diagnostic must mention (besides the tool prefix).
BROKEN = {
    "truncated": ["truncated.onnx", "protobuf"],
    "garbage": ["garbage.onnx", "protobuf"],
    "empty": ["empty.onnx", "empty"],
    "unsupported_op": ["Unique", "my_unsupported_node", "opset 17",
                       "not supported"],
    "unsupported_dtype": ["complex64", "not supported"],
    "inconsistent_shapes": ["[2,3]", "[4,5]", "broadcast"],
}

# Every output form; failures must leave none of them (nor OUT.h) behind.
SUFFIXES = [".so", ".o", ".mlir", ".ll", ".s"]


class ValidFixturesTest(E2ETestCase):

    def check_fixture(self, name, cwd=None):
        artifact = self.compiled(os.path.join(FIXTURES_DIR, name + ".onnx"))
        input_names, inputs, outputs = load_case(os.path.join(FIXTURES_DIR, name))
        args = [a for n, p in zip(input_names, inputs) for a in ("-i", f"{n}={p}")]
        args += [a for p in outputs for a in ("-e", p)]
        result = run_model(artifact, *args, "--rtol", str(RTOL),
                           "--atol", str(ATOL), cwd=cwd)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual(result.stdout.count(" OK"), len(outputs),
                         describe(result))

    def test_fixtures_match_references(self):
        for name in VALID:
            with self.subTest(fixture=name):
                self.check_fixture(name)

    def test_external_data_relative_to_model(self):
        # The side file is found next to the model, not in the working
        # directory; copy both elsewhere and compile from a third place.
        model_dir = self.cache.path("moved", "")
        for f in ("external_data.onnx", "external_data.onnx.data"):
            shutil.copy(os.path.join(FIXTURES_DIR, f), model_dir)
        cwd = self.cache.path("elsewhere", "")
        out = os.path.join(cwd, "ext.so")
        result = compile_model(os.path.join(model_dir, "external_data.onnx"),
                               out, cwd=cwd)
        self.assertEqual(result.returncode, 0, describe(result))
        _, inputs, outputs = load_case(os.path.join(FIXTURES_DIR, "external_data"))
        result = run_model(out, "-i", inputs[0], "-e", outputs[0])
        self.assertEqual(result.returncode, 0, describe(result))

    def test_missing_external_data(self):
        model_dir = self.cache.path("no-data", "")
        shutil.copy(os.path.join(FIXTURES_DIR, "external_data.onnx"), model_dir)
        out_dir = self.cache.path("no-data-out", "")
        result = compile_model(os.path.join(model_dir, "external_data.onnx"),
                               os.path.join(out_dir, "ext.so"))
        self.assertCleanError(result, "autoglm-compile", "weight",
                              "external_data.onnx.data")
        # A side file shorter than the tensor it should hold.
        with open(os.path.join(FIXTURES_DIR, "external_data.onnx.data"), "rb") as f:
            data = f.read()
        with open(os.path.join(model_dir, "external_data.onnx.data"), "wb") as f:
            f.write(data[:100])
        result = compile_model(os.path.join(model_dir, "external_data.onnx"),
                               os.path.join(out_dir, "ext.so"))
        self.assertCleanError(result, "autoglm-compile", "weight",
                              "external_data.onnx.data")
        self.assertEqual(os.listdir(out_dir), [])


class BrokenModelsTest(E2ETestCase):

    def assertRejected(self, model, *mentions):
        """Every output form fails cleanly and leaves the directory empty."""
        for suffix in SUFFIXES:
            with self.subTest(model=os.path.basename(model), suffix=suffix):
                out_dir = self.cache.path("out", os.path.basename(model) + suffix, "")
                result = compile_model(model, os.path.join(out_dir, "out" + suffix))
                self.assertCleanError(result, "autoglm-compile", *mentions)
                self.assertEqual(os.listdir(out_dir), [], describe(result))

    def test_broken_models(self):
        for name, mentions in BROKEN.items():
            self.assertRejected(os.path.join(FIXTURES_DIR, name + ".onnx"),
                                *mentions)

    def test_missing_file(self):
        missing = os.path.join(self.cache.dir, "does_not_exist.onnx")
        self.assertRejected(missing, "does_not_exist.onnx",
                            "no such file")

    def test_directory(self):
        self.assertRejected(FIXTURES_DIR, "directory")

    def test_unwritable_output(self):
        model = os.path.join(MODELS_DIR, "mlp.onnx")
        a_file = self.cache.path("plain-file")
        open(a_file, "w").close()
        for suffix in SUFFIXES:
            a_directory = self.cache.path("existing-dir" + suffix, "")
            for out in (os.path.join(self.cache.dir, "no", "such", "dir", "m" + suffix),
                        os.path.join(a_file, "m" + suffix),
                        a_directory):
                with self.subTest(output=out):
                    parent = os.path.dirname(out.rstrip("/"))
                    before = sorted(os.listdir(parent)) if os.path.isdir(parent) else []
                    result = compile_model(model, out.rstrip("/"))
                    self.assertCleanError(result, "autoglm-compile",
                                          out.rstrip("/"))
                    after = sorted(os.listdir(parent)) if os.path.isdir(parent) else []
                    self.assertEqual(after, before, "left files behind")
                    if os.path.isdir(a_directory):
                        self.assertEqual(os.listdir(a_directory), [])

    def test_unwritable_header(self):
        # The artifact is written first; if its header then cannot be
        # written, the artifact must go too.
        out_dir = self.cache.path("header-blocked", "")
        os.mkdir(os.path.join(out_dir, "m.h"))
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"),
                               os.path.join(out_dir, "m.o"))
        self.assertCleanError(result, "autoglm-compile", "m.h")
        self.assertEqual(os.listdir(out_dir), ["m.h"])


class RunErrorsTest(E2ETestCase):
    """autoglm-run on the mlp artifact with bad inputs and expectations."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.mlp_input = os.path.join(MODELS_DIR, "mlp", "input_0.npy")
        cls.mlp_output = os.path.join(MODELS_DIR, "mlp", "output_0.npy")

    def mlp(self):
        return self.compiled(os.path.join(MODELS_DIR, "mlp.onnx"))

    def run_clean_error(self, artifact, *args):
        """Runs, expecting status 2 and no saved output; returns stderr."""
        out_dir = self.cache.path("run-out", "")
        result = run_model(artifact, *args, "--output-dir", out_dir)
        message = self.assertCleanError(result, "autoglm-run")
        self.assertEqual(os.listdir(out_dir), [])
        return message

    def test_wrong_shape(self):
        path = os.path.join(FIXTURES_DIR, "mlp_wrong_shape.npy")
        message = self.run_clean_error(self.mlp(), "-i", path)
        for text in ("input 'x'", "float32[4,64]", "float32[4,63]", path):
            self.assertIn(text, message)

    def test_wrong_dtype(self):
        path = os.path.join(FIXTURES_DIR, "mlp_wrong_dtype.npy")
        message = self.run_clean_error(self.mlp(), "-i", f"x={path}")
        for text in ("input 'x'", "float32[4,64]", "float64[4,64]"):
            self.assertIn(text, message)

    def test_missing_input_file(self):
        missing = os.path.join(self.cache.dir, "nothing.npy")
        for arg in (missing, f"x={missing}"):
            with self.subTest(arg=arg):
                message = self.run_clean_error(self.mlp(), "-i", arg)
                self.assertIn("input 'x'", message)
                self.assertIn(missing, message)

    def test_no_inputs(self):
        message = self.run_clean_error(self.mlp())
        self.assertIn("missing input 'x'", message)

    def test_too_few_inputs(self):
        # A two-input model given only its first input.
        graph = helper.make_graph(
            [helper.make_node("Add", ["a", "b"], ["y"])], "add2",
            [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
             helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        model_path = self.cache.path("add2.onnx")
        onnx.save_model(model, model_path)
        artifact = self.compiled(model_path)
        a = self.cache.path("a.npy")
        np.save(a, np.ones((2, 3), np.float32))
        message = self.run_clean_error(artifact, "-i", a)
        self.assertIn("missing input 'b'", message)
        self.assertNotIn("'a'", message)
        # Both given: runs.
        result = run_model(artifact, "-i", a, "-i", f"b={a}")
        self.assertEqual(result.returncode, 0, describe(result))

    def test_too_many_inputs(self):
        message = self.run_clean_error(self.mlp(), "-i", self.mlp_input,
                                       "-i", self.mlp_input)
        self.assertIn("too many inputs", message)

    def test_unknown_input_name(self):
        message = self.run_clean_error(self.mlp(), "-i", f"images={self.mlp_input}")
        self.assertIn("images", message)

    def test_missing_expectation_file(self):
        missing = os.path.join(self.cache.dir, "nothing.npy")
        message = self.run_clean_error(self.mlp(), "-i", self.mlp_input,
                                       "-e", missing)
        self.assertIn("'y'", message)
        self.assertIn(missing, message)

    def test_artifact_not_loadable(self):
        # An object file is not a loadable artifact; neither is a missing one.
        obj = self.compiled(os.path.join(MODELS_DIR, "mlp.onnx"), ".o")
        for artifact in (obj, os.path.join(self.cache.dir, "none.so")):
            with self.subTest(artifact=artifact):
                message = self.run_clean_error(artifact, "-i", self.mlp_input)
                self.assertIn(artifact, message)

    def test_wrong_expectation(self):
        wrong = np.load(self.mlp_output)
        wrong[1, 2] += 1.0
        wrong_path = self.cache.path("wrong.npy")
        np.save(wrong_path, wrong)
        result = run_model(self.mlp(), "-i", self.mlp_input, "-e", wrong_path)
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn("MISMATCH", result.stdout)
        self.assertIn("y[1,2]", result.stdout)
        self.assertIn("mismatches=1/128", result.stdout)

    def test_expectation_of_another_shape(self):
        other = os.path.join(MODELS_DIR, "glm_layer", "output_0.npy")
        result = run_model(self.mlp(), "-i", self.mlp_input, "-e", other)
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertIn("float32[1,32,256]", result.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
