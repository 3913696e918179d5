"""Shared pieces of the end-to-end tests: where the tools are, running them,
compiling each model once per test file, and checks of clean failures.

Paths come from the environment that ctest sets (see CMakeLists.txt); run by
hand, the defaults assume a build in <repo>/build:

    AUTOGLM_TOOLS_DIR        directory with autoglm-compile and autoglm-run
    AUTOGLM_RT_STATIC        the static runtime library (libautoglm_rt.a)
    AUTOGLM_RUNTIME_INCLUDE  directory holding autoglm/runtime.h
    AUTOGLM_SHARED_MODELS    the real-world models (default <repo>/../shared/models)
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
MODELS_DIR = os.path.join(REPO_ROOT, "models")
FIXTURES_DIR = os.path.join(REPO_ROOT, "test", "e2e", "fixtures")

TOOLS_DIR = os.environ.get("AUTOGLM_TOOLS_DIR",
                           os.path.join(REPO_ROOT, "build", "bin"))
COMPILE = os.path.join(TOOLS_DIR, "autoglm-compile")
RUN = os.path.join(TOOLS_DIR, "autoglm-run")
RT_STATIC = os.environ.get(
    "AUTOGLM_RT_STATIC",
    os.path.join(REPO_ROOT, "build", "runtime", "libautoglm_rt.a"))
RUNTIME_INCLUDE = os.environ.get(
    "AUTOGLM_RUNTIME_INCLUDE", os.path.join(REPO_ROOT, "runtime", "include"))
SHARED_MODELS_DIR = os.environ.get(
    "AUTOGLM_SHARED_MODELS",
    os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "models")))

# Tolerances of models/README.md and the shared models' MANIFEST.md.
RTOL = 1e-4
ATOL = 1e-5
# Integer outputs of quantized paths may differ by one step.
INT_ATOL = 1

# Generous per-command limit: a hang is a failure, not a stuck ctest.
TIMEOUT_S = 300

# Messages that only appear when a tool crashed or asserted.
CRASH_MARKERS = ("Assertion", "Stack dump", "LLVM ERROR", "PLEASE submit",
                 "Segmentation fault", "terminate called", "Traceback")


def model_dims(model_path):
    """--dim options for a model with symbolic dimensions: the ranges in
    NAME/dims.json next to NAME.onnx ({"seq": [1, 64], ...}), if present."""
    path = os.path.join(os.path.splitext(model_path)[0], "dims.json")
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        ranges = json.load(f)
    return [f"{name}={lo}..{hi}" for name, (lo, hi) in sorted(ranges.items())]


def host_has_avx512():
    """Whether this CPU has AVX-512 (avx512f), which autoglm-compile's
    default --mcpu=native targets: some cost models choose by it."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line
                       for line in f)
    except OSError:
        return False


def run(args, cwd=None, timeout=TIMEOUT_S):
    """Runs a command and returns the CompletedProcess (text mode)."""
    return subprocess.run([str(a) for a in args], cwd=cwd, timeout=timeout,
                          capture_output=True, text=True)


def compile_model(model, output, *options, cwd=None):
    # Tests always check the memory plan (the check costs little).
    return run([COMPILE, model, "-o", output, "--verify-memory-plan", *options], cwd=cwd)


def run_model(artifact, *options, cwd=None):
    return run([RUN, artifact, *options], cwd=cwd)


def undefined_symbols(artifact):
    """The symbols a shared-library artifact needs from elsewhere (nm -D)."""
    return subprocess.run(["nm", "-D", "--undefined-only", artifact],
                          capture_output=True, text=True).stdout


def describe(result):
    """Command, status and output of a finished process, for failure messages."""
    return (f"$ {' '.join(result.args)}\nexit status {result.returncode}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")


def load_case(case_dir):
    """Inputs and reference outputs of a model directory laid out as in
    models/README.md: (input names, input paths, output paths)."""
    with open(os.path.join(case_dir, "inputs.json")) as f:
        names = json.load(f)
    inputs = [os.path.join(case_dir, f"input_{i}.npy")
              for i in range(len(names))]
    outputs = []
    while os.path.exists(os.path.join(case_dir, f"output_{len(outputs)}.npy")):
        outputs.append(os.path.join(case_dir, f"output_{len(outputs)}.npy"))
    return names, inputs, outputs


def saved_output_name(name):
    """File name autoglm-run --output-dir gives output `name` (first use)."""
    safe = "".join(c if c.isalnum() or c in ".-_" else "_" for c in name)
    return safe + ".npy"


def max_abs_error(actual, expected):
    if actual.shape != expected.shape:
        return float("inf")
    if actual.size == 0:
        return 0.0
    diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    return float(np.max(diff))


def outputs_match(actual, expected):
    """Tolerance check of one output: fp within rtol/atol, integers +-1."""
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    if np.issubdtype(expected.dtype, np.floating):
        return bool(np.allclose(actual, expected, rtol=RTOL, atol=ATOL,
                                equal_nan=True))
    if expected.dtype == np.bool_:
        return bool(np.array_equal(actual, expected))
    return max_abs_error(actual, expected) <= INT_ATOL


class ArtifactCache:
    """Compiles each (model, output kind, options) once into a private
    temporary directory, removed by cleanup()."""

    def __init__(self, prefix="autoglm-e2e-"):
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self._results = {}

    def path(self, *parts):
        path = os.path.join(self.dir, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def compile(self, model, suffix=".so", *options):
        """Returns (artifact path, CompletedProcess); the artifact is missing
        when compilation failed. The artifact is named after the model."""
        key = (os.path.abspath(model), suffix, options)
        if key not in self._results:
            stem = os.path.splitext(os.path.basename(model))[0]
            out = self.path(f"build{len(self._results)}", stem + suffix)
            self._results[key] = (out, compile_model(model, out, *options))
        return self._results[key]

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class E2ETestCase(unittest.TestCase):
    """Base class: a per-class artifact cache and common assertions."""

    cache = None

    @classmethod
    def setUpClass(cls):
        for tool in (COMPILE, RUN):
            if not os.access(tool, os.X_OK):
                raise RuntimeError(f"{tool} not found: build the tools or "
                                   f"set AUTOGLM_TOOLS_DIR")
        cls.cache = ArtifactCache()

    @classmethod
    def tearDownClass(cls):
        if cls.cache is not None:
            cls.cache.cleanup()

    def compiled(self, model, suffix=".so", *options):
        """The artifact of `model`, compiled once; fails the test if the
        compiler did not succeed."""
        out, result = self.cache.compile(model, suffix, *options)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertTrue(os.path.isfile(out), describe(result))
        return out

    def assertNoCrash(self, result):
        # A negative status is a signal; anything but 0/1/2 is unexpected.
        self.assertIn(result.returncode, (0, 1, 2), describe(result))
        for marker in CRASH_MARKERS:
            self.assertNotIn(marker, result.stderr, describe(result))

    def assertCleanError(self, result, tool, *mentions, one_line=True):
        """Exit status exactly 2 and a `TOOL: error: ...` message on stderr
        that mentions every string in `mentions` (case-insensitive)."""
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, 2, describe(result))
        message = result.stderr.strip()
        if one_line:
            self.assertEqual(len(message.splitlines()), 1,
                             "expected a one-line message\n" + describe(result))
        self.assertTrue(message.startswith(f"{tool}: error: "),
                        describe(result))
        for text in mentions:
            self.assertIn(str(text).lower(), message.lower(), describe(result))
        return message
