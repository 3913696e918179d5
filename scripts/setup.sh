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
if ! "$python" -c "import numpy, onnx, onnxruntime" >/dev/null 2>&1; then
  echo "setup: installing numpy onnx onnxruntime"
  # Pinned: the conformance suite is generated from this onnx release.
  "$python" -m pip install -q numpy onnx==1.23.2 onnxruntime==1.32.0
fi

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE="$(command -v "$python")" \
    -DLIT_EXECUTABLE=/usr/lib/llvm-22/bin/lit
fi
ninja -C build
