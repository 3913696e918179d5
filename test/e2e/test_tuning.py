#!/usr/bin/env python3
"""Tuning: autoglm-compile --tuning applies a tuning file's knobs (checked in
--explain and in the outputs), rejects bad files with a clear error, and
autoglm-tune writes a file that compiles, catching variants that crash or
compute wrong results."""

import json
import os
import stat
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    COMPILE, MODELS_DIR, RUN, TOOLS_DIR, E2ETestCase, compile_model,
    describe, run, run_model)

TUNE = os.path.join(TOOLS_DIR, "autoglm-tune")


def model_files(model):
    return (os.path.join(MODELS_DIR, model + ".onnx"),
            os.path.join(MODELS_DIR, model, "input_0.npy"),
            os.path.join(MODELS_DIR, model, "output_0.npy"))


def tuning_file(target, kernels, **extra):
    return {"format": "autoglm-tuning", "version": 1,
            "targets": {target: kernels}, **extra}


class TuningTest(E2ETestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        onnx_path, _, _ = model_files("mlp")
        out = cls.cache.path("probe", "mlp.so")
        result = compile_model(onnx_path, out, "--report=json")
        cls.target = json.loads(result.stdout)["tuning_target"]

    def write(self, name, content):
        path = self.cache.path("files", name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str)
                    else json.dumps(content))
        return path

    def plan_keys(self, model, kind=None):
        """The tuning keys of the model's kernels (of one kind of kernel)."""
        onnx_path, _, _ = model_files(model)
        out = self.cache.path("keys", model + ".so")
        result = compile_model(onnx_path, out, "--report=json")
        self.assertEqual(result.returncode, 0, describe(result))
        return [k["tuning_key"] for k in json.loads(result.stdout)["kernels"]
                if kind is None or k["name"].split()[0] == kind]

    def test_knobs_reach_the_plan_and_outputs_stay_right(self):
        glm = self.plan_keys("glm_layer")
        gemm = next(k for k in glm if k.startswith("sgemm"))
        loop = next(k for k in glm if k.startswith("loop") and
                    k.endswith("ppp"))
        # A convolution the cost model puts on the kernel goes to im2col,
        # another (one it leaves to im2col, keyed on its gather loop, when
        # there is one: that depends on the CPU) to the kernel.
        convs = self.plan_keys("resnet_cnn", kind="conv2d")
        gathered = [k for k in self.plan_keys("resnet_cnn", kind="loop")
                    if k.startswith("conv2d")]
        self.assertGreaterEqual(len(convs), 1, convs)
        moved_in = (gathered + convs[1:])[0]
        path = self.write("good.json", tuning_file(self.target, {
            gemm: {"kc": 96, "nc": 64, "mc": 28},
            loop: {"vector_width": 4, "parallel": False},
            convs[0]: {"strategy": "im2col"},
            moved_in: {"strategy": "implicit-gemm", "kc": 40, "nc": 96,
                       "mc": 14},
        }))
        for model, knobs in (("glm_layer", ["KC 96 (tuned)", "NC 64 (tuned)",
                                            "MC 28 (tuned)",
                                            "4-lane vectors"]),
                             ("resnet_cnn", ["KC 40 (tuned)"])):
            with self.subTest(model=model):
                onnx_path, x, y = model_files(model)
                out = self.cache.path("tuned", model + ".so")
                result = compile_model(onnx_path, out, "--tuning", path,
                                       "--explain", "--peak-gflops", "100",
                                       "--bandwidth-gbs", "10")
                self.assertEqual(result.returncode, 0, describe(result))
                for text in knobs:
                    self.assertIn(text, result.stdout)
                self.assertIn("set by the tuning file", result.stdout)
                checked = run_model(out, "-i", x, "-e", y)
                self.assertEqual(checked.returncode, 0, describe(checked))
        # The im2col strategy took one convolution off the kernel.
        onnx_path, _, _ = model_files("resnet_cnn")
        out = self.cache.path("tuned", "resnet_keys.so")
        result = compile_model(onnx_path, out, "--tuning", path,
                               "--report=json")
        tuned = [k["tuning_key"] for k in json.loads(result.stdout)["kernels"]
                 if k["name"].split()[0] == "conv2d"]
        self.assertEqual(sorted(tuned), sorted(set(convs[1:] + [moved_in])))

    def test_bad_tuning_files_are_clear_errors(self):
        onnx_path, _, _ = model_files("mlp")
        cases = [
            ("broken.json", '{"format": "autoglm-tuning", ', ["not valid JSON"]),
            ("other.json", {"kernels": {}}, ["not a tuning file"]),
            ("version.json", tuning_file(self.target, {}, version=7),
             ["version 7"]),
            ("kind.json", tuning_file(self.target, {"gemv 1x2": {"kc": 1}}),
             ["gemv 1x2", "not a tuning key"]),
            ("knob.json", tuning_file(self.target,
                                      {"sgemm b1 m4 n32 k128": {"kx": 1}}),
             ["sgemm b1 m4 n32 k128", "unknown knob \"kx\"", "kc, nc, mc"]),
            ("value.json", tuning_file(self.target,
                                       {"loop 4x128 pp": {"vector_width": 3}}),
             ["loop 4x128 pp", "vector_width", "1, 4, 8 or 16"]),
            ("strategy.json", tuning_file(self.target, {
                "conv2d n1 g1 c1 3x3 f2 k2x2 s1x1 o2x2": {"strategy": "fft"}}),
             ["strategy", "im2col"]),
        ]
        for name, content, mentions in cases:
            with self.subTest(file=name):
                path = self.write(name, content)
                out = self.cache.path("bad", name + ".so")
                result = compile_model(onnx_path, out, "--tuning", path)
                self.assertCleanError(result, "autoglm-compile", name,
                                      *mentions)
                self.assertFalse(os.path.exists(out))
        result = compile_model(onnx_path, self.cache.path("bad", "x.so"),
                               "--tuning", self.cache.path("none.json"))
        self.assertCleanError(result, "autoglm-compile", "none.json",
                              "cannot read")

    def test_file_for_another_target_is_noted(self):
        onnx_path, x, y = model_files("mlp")
        path = self.write("elsewhere.json",
                          tuning_file("some-other-cpu",
                                      {"sgemm b1 m4 n32 k128": {"kc": 8}}))
        out = self.cache.path("elsewhere", "mlp.so")
        result = compile_model(onnx_path, out, "--tuning", path)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("no section for target", result.stderr)
        self.assertIn("some-other-cpu", result.stderr)
        checked = run_model(out, "-i", x, "-e", y)
        self.assertEqual(checked.returncode, 0, describe(checked))

    def tune(self, *options, output, model="mlp"):
        onnx_path, x, _ = model_files(model)
        return run([TUNE, onnx_path, "-i", x, "-o", output, "--budget", "60s",
                    "--runs", "3", "--repeats", "1", "--passes", "1",
                    "--min-share", "0", *options], timeout=600)

    def test_tuner_writes_a_file_the_compiler_takes(self):
        output = self.cache.path("tuned", "mlp-tuning.json")
        # An existing file: its other targets and kernels are kept.
        with open(output, "w") as f:
            json.dump(tuning_file("some-other-cpu", {"loop 1 p": {}}), f)
        result = self.tune(output=output)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("kernel keys searched", result.stdout)
        self.assertIn("model median", result.stdout)
        with open(output) as f:
            written = json.load(f)
        self.assertEqual(written["format"], "autoglm-tuning")
        self.assertIn(self.target, written["targets"])
        self.assertIn("some-other-cpu", written["targets"])
        onnx_path, x, y = model_files("mlp")
        out = self.cache.path("tuned", "mlp-with-file.so")
        compiled = compile_model(onnx_path, out, "--tuning", output)
        self.assertEqual(compiled.returncode, 0, describe(compiled))
        checked = run_model(out, "-i", x, "-e", y)
        self.assertEqual(checked.returncode, 0, describe(checked))

    def test_tuner_skips_variants_that_crash_or_compute_wrong(self):
        # A runner that crashes for variants with 4-lane vectors and feeds
        # other inputs (so: other outputs) to variants with kc 128. On the
        # GLM layer, which has loop nests (the MLP's GELU and biases run in
        # its GEMMs' epilogues).
        zeros = self.cache.path("faulty", "zeros.npy")
        import numpy as np
        np.save(zeros, np.zeros_like(np.load(model_files("glm_layer")[1])))
        runner = self.cache.path("faulty", "faulty-run")
        with open(runner, "w") as f:
            f.write(f"""#!/bin/sh
tuning="${{1%.so}}.tuning.json"
if grep -q '"vector_width": 4' "$tuning"; then kill -SEGV $$; fi
if grep -q '"kc": 128' "$tuning"; then
  set -- $(echo "$@" | sed 's|[^ ]*input_0.npy|{zeros}|')
fi
exec {RUN} "$@"
""")
        os.chmod(runner, os.stat(runner).st_mode | stat.S_IXUSR)
        output = self.cache.path("faulty", "tuning.json")
        result = self.tune("--runner", runner, output=output,
                           model="glm_layer")
        self.assertEqual(result.returncode, 0, describe(result))
        skipped = [line for line in result.stdout.splitlines()
                   if line.startswith("skipped (failed)")]
        self.assertTrue(any("vector_width=4" in s and "crashed" in s
                            for s in skipped), describe(result))
        self.assertTrue(any("kc=128" in s and "wrong results" in s
                            for s in skipped), describe(result))
        with open(output) as f:
            section = json.load(f)["targets"][self.target]
        for knobs in section.values():
            self.assertNotEqual(knobs.get("vector_width"), 4)
            self.assertNotEqual(knobs.get("kc"), 128)

    def test_tuner_errors(self):
        onnx_path, x, _ = model_files("mlp")
        out = self.cache.path("errors", "t.json")
        result = run([TUNE, onnx_path, "-i", x, "-o", out, "--budget", "soon"])
        self.assertCleanError(result, "autoglm-tune", "--budget", "soon")
        result = run([TUNE, self.cache.path("missing.onnx"), "-o", out])
        self.assertCleanError(result, "autoglm-tune", "missing.onnx")
        # No inputs: the baseline cannot run; the error says why.
        result = run([TUNE, onnx_path, "-o", out, "--runs", "1"])
        self.assertCleanError(result, "autoglm-tune", "missing input")
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
