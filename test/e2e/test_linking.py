#!/usr/bin/env python3
"""Models compiled to object files, linked into a C program (c_app/main.c)
with the static runtime and libm by the system C compiler, and run through
their own entry point and through the runtime API."""

import os
import shutil
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    ATOL, MODELS_DIR, RT_STATIC, RTOL, RUNTIME_INCLUDE, E2ETestCase, describe,
    load_case, run)

C_APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "c_app", "main.c")
MODES = ["direct", "runtime", "arena"]


class LinkingTest(E2ETestCase):

    @classmethod
    def setUpClass(cls):
        cls.cc = shutil.which("cc")
        if cls.cc is None:
            raise unittest.SkipTest("no system C compiler 'cc'")
        if not os.path.isfile(RT_STATIC):
            raise RuntimeError(f"static runtime not found: {RT_STATIC}; "
                               f"build it or set AUTOGLM_RT_STATIC")
        super().setUpClass()

    def build_app(self, model, symbol_name=None, extra_objects=()):
        """Compiles models/MODEL.onnx to an object and links the C program
        with it; returns the executable."""
        options = ("--name", symbol_name) if symbol_name else ()
        obj = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"), ".o",
                            *options)
        header = os.path.splitext(obj)[0] + ".h"
        self.assertTrue(os.path.isfile(header))
        name = symbol_name or model
        exe = self.cache.path("apps", "_".join([name, *map(os.path.basename,
                                                          extra_objects)]))
        result = run([self.cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror",
                      "-pedantic", f"-DMODEL={name}",
                      f"-DMODEL_UPPER={name.upper()}",
                      f'-DMODEL_HEADER="{os.path.basename(header)}"',
                      "-I", RUNTIME_INCLUDE, "-I", os.path.dirname(header),
                      C_APP, obj, *extra_objects, RT_STATIC,
                      "-lm", "-ldl", "-lpthread", "-o", exe])
        self.assertEqual(result.returncode, 0, describe(result))
        return exe

    def check_app(self, exe, model, mode):
        """Runs the program on the model's stored inputs and compares its
        raw outputs with the references."""
        _, inputs, outputs = load_case(os.path.join(MODELS_DIR, model))
        work = self.cache.path("runs", f"{os.path.basename(exe)}-{mode}", "")
        for i, path in enumerate(inputs):
            with open(os.path.join(work, f"input_{i}.bin"), "wb") as f:
                f.write(np.ascontiguousarray(np.load(path)).tobytes())
        result = run([exe, mode, work])
        self.assertEqual(result.returncode, 0, describe(result))
        for i, path in enumerate(outputs):
            expected = np.load(path)
            actual = np.fromfile(os.path.join(work, f"output_{i}.bin"),
                                 dtype=expected.dtype).reshape(expected.shape)
            np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL)

    def test_models(self):
        for model in ["mlp", "glm_layer"]:
            exe = self.build_app(model)
            for mode in MODES:
                with self.subTest(model=model, mode=mode):
                    self.check_app(exe, model, mode)

    def test_custom_symbol_name(self):
        # --name picks the symbol prefix and the header's macro prefix.
        exe = self.build_app("mlp", symbol_name="my_net")
        self.check_app(exe, "mlp", "direct")

    def test_two_models_in_one_program(self):
        # Only the entry points are global: two models link side by side.
        other = self.compiled(os.path.join(MODELS_DIR, "glm_layer.onnx"), ".o")
        exe = self.build_app("mlp", extra_objects=[other])
        self.check_app(exe, "mlp", "runtime")

    def test_wrong_input_size_rejected(self):
        # The program itself checks sizes against the header.
        exe = self.build_app("mlp")
        work = self.cache.path("short-input", "")
        with open(os.path.join(work, "input_0.bin"), "wb") as f:
            f.write(b"\0" * 100)
        result = run([exe, "direct", work])
        self.assertEqual(result.returncode, 1, describe(result))


if __name__ == "__main__":
    unittest.main(verbosity=2)
