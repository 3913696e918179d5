#!/usr/bin/env bash
# Runs the ONNX backend node tests through autoglm-compile and autoglm-run and
# regenerates docs/conformance.md. Extra arguments go to the runner
# (e.g. --filter test_conv).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
python3 test/conformance/generate_node_tests.py build/conformance/cases
# The report covers the whole suite: only an unfiltered run rewrites it.
report=()
[ $# -eq 0 ] && report=(--markdown docs/conformance.md)
python3 test/conformance/run_conformance.py --cases build/conformance/cases \
  --tools build/bin --work build/conformance/work "${report[@]}" "$@"
