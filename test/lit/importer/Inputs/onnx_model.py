"""Writes one small, deterministic ONNX model for the importer tests.

    onnx_model.py CASE OUTPUT.onnx

CASE names a function in one of the cases_*.py modules. The models are
built with onnx.helper from fixed values, so every run writes the same file.
"""

import sys

import cases_convpool  # noqa: F401
import cases_elementwise  # noqa: F401
import cases_graph  # noqa: F401
import cases_linalg  # noqa: F401
import cases_norm  # noqa: F401
import cases_shapes  # noqa: F401
from common import CASES


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit("usage: onnx_model.py CASE OUTPUT.onnx\ncases: " + " ".join(sorted(CASES)))
    with open(sys.argv[2], "wb") as f:
        f.write(CASES[sys.argv[1]]().SerializeToString())


if __name__ == "__main__":
    main()
