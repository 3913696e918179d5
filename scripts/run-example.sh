#!/usr/bin/env bash
# The main job: build AutoGLM, compile the bundled GLM decoder layer to a
# shared library, run it on its example input, check it against the ONNX
# Runtime reference and time it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null

model=models/glm_layer
out=build/example
mkdir -p "$out"
echo "== compile $model.onnx"
/usr/bin/time -f "compile time: %es, peak memory %MKB" \
  build/bin/autoglm-compile "$model.onnx" -o "$out/glm_layer.so"
echo "== run (outputs summary and latency)"
build/bin/autoglm-run "$out/glm_layer.so" --input "$model/input_0.npy" --bench 50
echo "== check against the ONNX Runtime reference"
build/bin/autoglm-run "$out/glm_layer.so" --input "$model/input_0.npy" \
  --expect "$model/output_0.npy"
