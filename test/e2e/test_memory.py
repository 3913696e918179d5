#!/usr/bin/env python3
"""Memory behaviour of compiled models:

- running an instance never calls the allocator (c_app/alloc_count.c counts
  every malloc/calloc/realloc/free/posix_memalign/aligned_alloc/memalign of
  the process around 101 runs), with the runtime's arena and with a
  caller-provided one;
- distinct instances of one model run concurrently on threads without
  interfering (c_app/concurrency.c), each thread on its own input;
- the arena planner's result, as `--report=json` states it, is within 10% of
  the live-set lower bound and never above the plain sum of all buffers, and
  `--verify-memory-plan` accepts the plan, for models/ and for the shared
  real-world models.
"""

import glob
import json
import os
import re
import shutil
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shared_models  # noqa: E402
from e2e_common import (  # noqa: E402
    ATOL, COMPILE, MODELS_DIR, RT_STATIC, RTOL, RUNTIME_INCLUDE,
    SHARED_MODELS_DIR, E2ETestCase, describe, load_case, model_dims, run)

C_APP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "c_app")

# Model, and the case folder (for models with symbolic dimensions: a size).
ALLOC_MODELS = [("glm_layer", ""), ("resnet_cnn", ""),
                ("glm_layer_dynamic", "batch2_seq7")]
ALLOC_RUNS = 100

CONCURRENCY_MODELS = ["glm_layer", "resnet_cnn"]
THREADS = 4
ITERATIONS = 50
# Thread t runs on the stored input times SCALES[t]; thread 0 on the stored
# input itself, whose reference is stored next to it.
SCALES = [1.0, 0.5, 1.5, 2.0]

# The planner must come within 10% of the largest live set.
MAX_ARENA_TO_BOUND = 1.10


def ort_reference(model_path, inputs):
    """onnxruntime outputs computed as models/generate.py computes the stored
    references (CPU, graph optimizations off, one thread), or None when
    onnxruntime is not installed."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    options = ort.SessionOptions()
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model_path, sess_options=options,
                                   providers=["CPUExecutionProvider"])
    feeds = {i.name: a for i, a in zip(session.get_inputs(), inputs)}
    return session.run(None, feeds)


def parse_counts(stdout):
    """The totals alloc_count.c prints: (after the first run, after the
    further runs, during instance creation)."""
    first = re.search(r"in total after the first run: (\d+)", stdout)
    later = re.search(r"in total after \d+ more runs: (\d+)", stdout)
    create = re.search(r"while creating the instance: (\d+)", stdout)
    if not (first and later and create):
        return None
    return int(first.group(1)), int(later.group(1)), int(create.group(1))


def arena_buffer_sizes(memref_ir):
    """Bytes of every buffer placed in the arena, from the
    `autoglm.arena_buffers` attribute of the planned function."""
    match = re.search(r"autoglm\.arena_buffers = \[([^\]]*)\]", memref_ir)
    if match is None:
        return []
    return [int(b) for b in re.findall(r"bytes = (\d+) : i64", match.group(1))]


class MemoryTest(E2ETestCase):

    @classmethod
    def setUpClass(cls):
        cls.cc = shutil.which("cc")
        if cls.cc is None:
            raise unittest.SkipTest("no system C compiler 'cc'")
        if not os.path.isfile(RT_STATIC):
            raise RuntimeError(f"static runtime not found: {RT_STATIC}; "
                               f"build it or set AUTOGLM_RT_STATIC")
        super().setUpClass()

    # --- building and checking -----------------------------------------------

    def build_program(self, program, model):
        """Links c_app/PROGRAM.c with models/MODEL.onnx compiled to an object
        and the static runtime; returns the executable."""
        model_path = os.path.join(MODELS_DIR, model + ".onnx")
        obj = self.compiled(model_path, ".o",
                            *[a for d in model_dims(model_path) for a in ("--dim", d)])
        header = os.path.splitext(obj)[0] + ".h"
        exe = self.cache.path("apps", f"{program}-{model}")
        result = run([self.cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror",
                      "-pedantic", f"-DMODEL={model}",
                      f"-DMODEL_UPPER={model.upper()}",
                      f'-DMODEL_HEADER="{os.path.basename(header)}"',
                      "-I", RUNTIME_INCLUDE, "-I", os.path.dirname(header),
                      os.path.join(C_APP_DIR, program + ".c"), obj, RT_STATIC,
                      "-lm", "-ldl", "-lpthread", "-o", exe])
        self.assertEqual(result.returncode, 0, describe(result))
        return exe

    @staticmethod
    def write_inputs(directory, arrays):
        """Raw input bytes, and their extents for the C programs that take
        inputs of any size in a symbol's range."""
        os.makedirs(directory, exist_ok=True)
        for i, array in enumerate(arrays):
            with open(os.path.join(directory, f"input_{i}.bin"), "wb") as f:
                f.write(np.ascontiguousarray(array).tobytes())
            with open(os.path.join(directory, f"input_{i}.shape"), "w") as f:
                f.write(" ".join(str(d) for d in array.shape) + "\n")

    def check_outputs(self, directory, expected_arrays, what):
        for i, expected in enumerate(expected_arrays):
            actual = np.fromfile(os.path.join(directory, f"output_{i}.bin"),
                                 dtype=expected.dtype).reshape(expected.shape)
            np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL,
                                       err_msg=f"{what}, output {i}")

    # --- a. no allocation while running --------------------------------------

    def test_no_allocation_while_running(self):
        for model, case in ALLOC_MODELS:
            exe = self.build_program("alloc_count", model)
            _, inputs, outputs = load_case(os.path.join(MODELS_DIR, model, case))
            references = [np.load(p) for p in outputs]
            for mode in ["runtime", "arena"]:
                with self.subTest(model=model, mode=mode):
                    work = self.cache.path("alloc", f"{model}-{mode}", "")
                    self.write_inputs(work, [np.load(p) for p in inputs])
                    result = run([exe, mode, work, str(ALLOC_RUNS)])
                    print(f"\n{model}, {mode}:\n{result.stdout.strip()}",
                          file=sys.stderr)
                    self.assertEqual(result.returncode, 0, describe(result))
                    self.assertIn("verdict: PASS", result.stdout,
                                  describe(result))
                    counts = parse_counts(result.stdout)
                    self.assertIsNotNone(counts, describe(result))
                    after_first, after_all, at_create = counts
                    self.assertEqual(after_first, after_all, describe(result))
                    # The counting works: reading the inputs and creating
                    # the instance went through the counted functions.
                    self.assertGreater(after_first, 0, describe(result))
                    self.assertGreater(at_create, 0, describe(result))
                    self.check_outputs(work, references,
                                       f"{model} after {ALLOC_RUNS + 1} runs")

    # --- b. concurrent instances ---------------------------------------------

    def test_concurrent_instances(self):
        for model in CONCURRENCY_MODELS:
            with self.subTest(model=model):
                self.check_concurrency(model)

    def check_concurrency(self, model):
        exe = self.build_program("concurrency", model)
        model_path = os.path.join(MODELS_DIR, model + ".onnx")
        _, inputs, outputs = load_case(os.path.join(MODELS_DIR, model))
        base_inputs = [np.load(p) for p in inputs]
        stored = [np.load(p) for p in outputs]
        work = self.cache.path("threads", model, "")

        per_thread = []  # (inputs, references)
        for t in range(THREADS):
            scale = SCALES[t % len(SCALES)]
            scaled = [(a * scale).astype(a.dtype)
                      if np.issubdtype(a.dtype, np.floating) else a
                      for a in base_inputs]
            references = stored if scale == 1.0 else \
                ort_reference(model_path, scaled)
            if references is None:
                # Without onnxruntime every thread gets the stored input.
                scaled, references = base_inputs, stored
            per_thread.append((scaled, references))
            self.write_inputs(os.path.join(work, f"thread_{t}"), scaled)

        result = run([exe, work, str(THREADS), str(ITERATIONS)])
        print(f"\n{model}, {THREADS} threads:\n{result.stdout.strip()}",
              file=sys.stderr)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("verdict: PASS", result.stdout, describe(result))
        self.assertEqual(
            len(re.findall(rf"of {ITERATIONS} runs, 0 differ", result.stdout)),
            THREADS, describe(result))
        for t, (_, references) in enumerate(per_thread):
            self.check_outputs(os.path.join(work, f"thread_{t}"), references,
                               f"{model}, thread {t}")

    # --- c. arena size -------------------------------------------------------

    def check_arena(self, model_path, dims=(), header_too=False):
        """Compiles with --report=json --verify-memory-plan and checks the
        planned arena against the live-set bound and the buffers."""
        stem = os.path.splitext(os.path.basename(model_path))[0]
        options = []
        for dim in dims:
            options += ["--dim", dim]
        if header_too:
            out = self.cache.path("arena", stem, stem + ".o")
        else:
            out = self.cache.path("arena", stem, stem + ".mlir")
            options.append("--emit=memref")
        result = run([COMPILE, model_path, "-o", out, "--report=json",
                      "--verify-memory-plan", *options])
        self.assertEqual(result.returncode, 0, describe(result))
        report = json.loads(result.stdout)
        arena = report["arena_bytes"]
        bound = report["arena_lower_bound_bytes"]

        if header_too:
            # The same plan, seen from the IR, and the header's size.
            ir = out[:-2] + ".mlir"
            ir_result = run([COMPILE, model_path, "-o", ir, "--emit=memref",
                             *options])
            self.assertEqual(ir_result.returncode, 0, describe(ir_result))
            with open(out[:-2] + ".h") as f:
                header_size = re.search(r"#define \w+_ARENA_SIZE (\d+)u",
                                        f.read())
            self.assertIsNotNone(header_size)
            self.assertEqual(int(header_size.group(1)), arena)
        else:
            ir = out
        with open(ir) as f:
            buffers = arena_buffer_sizes(f.read())

        summary = (f"{stem}: arena {arena}, bound {bound}, ratio "
                   f"{report['arena_to_bound']:.4f}, {len(buffers)} buffers "
                   f"totalling {sum(buffers)}")
        print(summary, file=sys.stderr)
        self.assertLessEqual(report["arena_to_bound"], MAX_ARENA_TO_BOUND,
                             summary)
        self.assertLessEqual(bound, arena, summary)
        self.assertLessEqual(arena, sum(buffers), summary)
        if arena:
            self.assertAlmostEqual(report["arena_to_bound"], arena / bound,
                                   places=6, msg=summary)
        # No buffer larger than the arena, and the report's largest buffers
        # are the largest of the plan.
        self.assertLessEqual(max(buffers, default=0), arena, summary)
        largest = [b["bytes"] for b in report["largest_buffers"]]
        self.assertEqual(largest,
                         sorted(buffers, reverse=True)[:len(largest)], summary)

    def test_arena_example_models(self):
        models = sorted(glob.glob(os.path.join(MODELS_DIR, "*.onnx")))
        self.assertGreater(len(models), 0)
        for path in models:
            with self.subTest(model=os.path.basename(path)):
                self.check_arena(path, model_dims(path), header_too=True)

    def test_arena_shared_models(self):
        names = shared_models.model_names()
        if not names:
            self.skipTest(f"shared models not found in {SHARED_MODELS_DIR}")
        for name in names:
            with self.subTest(model=name):
                with open(os.path.join(SHARED_MODELS_DIR, name,
                                       "meta.json")) as f:
                    meta = json.load(f)
                dims = [f"{k}={v}" for k, v in
                        meta.get("dim_values_used", {}).items()]
                self.check_arena(os.path.join(SHARED_MODELS_DIR,
                                              name + ".onnx"), dims)


if __name__ == "__main__":
    unittest.main(verbosity=2)
