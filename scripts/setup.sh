#!/usr/bin/env bash
# Installs what is missing (Debian packages, Python packages), then configures
# and builds AutoGLM in ./build. Fast when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build ccache g++ python3 python3-pip time
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler libcli11-dev libgtest-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

python=${PYTHON:-python3}
# Pinned: the conformance suite is generated from this onnx release, and the
# references of its casts to 4- and 2-bit integers by ml_dtypes, whose
# results for values out of range (undefined in ONNX) changed in 0.7.
pins=(onnx==1.23.2 onnxruntime==1.32.0 ml_dtypes==0.5.4)
if ! "$python" - "${pins[@]}" >/dev/null 2>&1 <<'EOF'
import sys
from importlib.metadata import version
import numpy, onnx, onnxruntime, ml_dtypes
for pin in sys.argv[1:]:
    name, wanted = pin.split("==")
    assert version(name) == wanted, pin
EOF
then
  echo "setup: installing numpy ${pins[*]}"
  "$python" -m pip install -q numpy "${pins[@]}"
fi

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE="$(command -v "$python")" \
    -DLIT_EXECUTABLE=/usr/lib/llvm-22/bin/lit
fi
ninja -C build
