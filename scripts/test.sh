#!/usr/bin/env bash
# Builds AutoGLM (installing what is missing) and runs every test suite:
# lit/FileCheck, GoogleTest unit tests, end-to-end suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
