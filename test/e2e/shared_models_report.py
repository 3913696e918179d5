#!/usr/bin/env python3
"""Compile and check every model in <repo>/../shared/models and write the
results as a Markdown table (docs/shared-models.md by default).

Usage: python3 test/e2e/shared_models_report.py [--output FILE]

The tools are found as in the end-to-end tests (AUTOGLM_TOOLS_DIR, default
<repo>/build/bin); AUTOGLM_SHARED_MODELS overrides the models' location.
"""

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shared_models  # noqa: E402
from e2e_common import ATOL, COMPILE, REPO_ROOT, RTOL  # noqa: E402

HEADER = """\
# Real-world models

Status of the models in `../shared/models` (see its `MANIFEST.md` for their
sources), as produced by `test/e2e/shared_models_report.py`; the end-to-end
test `test/e2e/test_shared_models.py` holds the same expectations.

Each model is compiled to a shared library with the symbolic dimensions its
`meta.json` lists, run by `autoglm-run` on the stored inputs, and every
output compared with the onnxruntime reference: fp32 outputs within
rtol {rtol:g}, atol {atol:g}; integer outputs exact or off by one; models
with a quantized tolerance (see `test/e2e/shared_models.py`) within a few
quantization steps in a small fraction of elements. Compile time is the wall
time of `autoglm-compile` (optimization level and target as default).

| model | category | status | max abs error per output | compile time |
|---|---|---|---|---:|
"""


def status_text(ev):
    if ev.status == "pass":
        return "pass (quantized tolerance)" if ev.quantized_tolerance else "pass"
    if ev.status == "compile-error":
        # The diagnostic without the tool's prefix, on one table line.
        message = ev.message.splitlines()[-1] if ev.message else ""
        message = message.replace("autoglm-compile: error: ", "")
        return "compile error: " + message.replace("|", "\\|")
    if ev.status == "mismatch":
        return "mismatch: " + ", ".join(f"`{n}`" for n in ev.mismatched)
    return "run error: " + ev.message.replace("|", "\\|")


def errors_text(ev):
    if not ev.errors:
        return "-"
    return "<br>".join(f"`{name}`: {error:.3g}"
                       for name, error in ev.errors.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=os.path.join(
        REPO_ROOT, "docs", "shared-models.md"))
    args = parser.parse_args()

    if not shared_models.available():
        sys.exit(f"error: shared models not found in "
                 f"{shared_models.SHARED_MODELS_DIR}")
    if not os.access(COMPILE, os.X_OK):
        sys.exit(f"error: {COMPILE} not built")

    categories = shared_models.categories()
    rows = []
    work_dir = tempfile.mkdtemp(prefix="autoglm-report-")
    try:
        for name in shared_models.model_names():
            print(f"{name} ...", end=" ", flush=True)
            ev = shared_models.evaluate(name, work_dir)
            print(ev.status)
            rows.append(f"| {name} | {categories.get(name, '')} | "
                        f"{status_text(ev)} | {errors_text(ev)} | "
                        f"{ev.compile_s:.1f} s |")
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)

    with open(args.output, "w") as f:
        f.write(HEADER.format(rtol=RTOL, atol=ATOL))
        f.write("\n".join(rows) + "\n")
    print(f"wrote {os.path.relpath(args.output)}")


if __name__ == "__main__":
    main()
