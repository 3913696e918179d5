#!/usr/bin/env python3
"""Real-world models from <repo>/../shared/models: each either compiles and
matches its onnxruntime reference, or is rejected with a clean diagnostic
naming the operator the compiler lacks. The table below records which; a
model that changes status fails the test until the table is updated.
Tolerances are those of the models' MANIFEST.md, plus the per-model
quantized tolerances in shared_models.py.

docs/shared-models.md is the matching report (shared_models_report.py).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shared_models  # noqa: E402
from e2e_common import (  # noqa: E402
    SHARED_MODELS_DIR, E2ETestCase, describe)

# Models that must compile and match their references.
PASSING = [
    "bert_toy",
    "dynquant_matmul",
    "gpt2_attn_past",
    "gpt2_megatron_1layer",
    "mnist_cntk_zoo",
    "mobilenet_edgetpu_qdq_block",
    "mobilenetv2_128_050",
    "ultraface_rfb320",
]

# Models whose compilation must stop at an unsupported operator (model ->
# operator), e.g. {"dynquant_matmul": "DynamicQuantizeLinear"} before the
# quantized operators existed. Any other model in the directory must pass.
UNSUPPORTED = {}


class SharedModelsTest(E2ETestCase):

    @classmethod
    def setUpClass(cls):
        if not shared_models.available():
            raise unittest.SkipTest(
                f"shared models directory not found: {SHARED_MODELS_DIR}")
        super().setUpClass()

    def check_model(self, name):
        work_dir = self.cache.path(name, "")
        ev = shared_models.evaluate(name, work_dir)
        self.assertNoCrash(ev.compile_result)
        operator = UNSUPPORTED.get(name)
        if operator is None:
            self.assertEqual(ev.compile_result.returncode, 0,
                             describe(ev.compile_result))
            self.assertEqual(
                ev.status, "pass",
                f"outputs {ev.mismatched} differ; max abs errors {ev.errors}\n"
                + describe(ev.run_result))
            return
        self.assertNotEqual(
            ev.compile_result.returncode, 0,
            f"{name} now compiles: move it to PASSING if it matches")
        self.assertCleanError(ev.compile_result, "autoglm-compile",
                              operator, "not supported")
        # Neither the artifact nor its header, nor any temporary file.
        self.assertEqual(os.listdir(work_dir), [])

    def test_tables_match_directory(self):
        # A model missing from the directory would silently drop its test.
        listed = set(PASSING) | set(UNSUPPORTED)
        missing = sorted(listed - set(shared_models.model_names()))
        self.assertEqual(missing, [], f"not found in {SHARED_MODELS_DIR}")


def add_model_tests():
    """One test method per model, so each shows up by name."""
    for name in shared_models.model_names():
        def test(self, name=name):
            self.check_model(name)
        setattr(SharedModelsTest, f"test_{name}", test)


add_model_tests()

if __name__ == "__main__":
    unittest.main(verbosity=2)
