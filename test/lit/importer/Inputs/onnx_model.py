"""Writes one small, deterministic ONNX model for the importer tests.

    onnx_model.py CASE OUTPUT.onnx

CASE names a function in one of the cases_*.py modules. The models are
built with onnx.helper from fixed values, so every run writes the same file.
"""

import sys

# Keep the source tree free of __pycache__ folders.
sys.dont_write_bytecode = True

import cases_convpool  # noqa: E402,F401
import cases_elementwise  # noqa: E402,F401
import cases_graph  # noqa: E402,F401
import cases_linalg  # noqa: E402,F401
import cases_norm  # noqa: E402,F401
import cases_recurrent  # noqa: E402,F401
import cases_sampling  # noqa: E402,F401
import cases_shapes  # noqa: E402,F401
import cases_symbolic  # noqa: E402,F401
import cases_types  # noqa: E402,F401
from common import CASES  # noqa: E402


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit("usage: onnx_model.py CASE OUTPUT.onnx\ncases: " + " ".join(sorted(CASES)))
    with open(sys.argv[2], "wb") as f:
        f.write(CASES[sys.argv[1]]().SerializeToString())


if __name__ == "__main__":
    main()
