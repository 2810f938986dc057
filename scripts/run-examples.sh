#!/usr/bin/env bash
# The main job: runs the four bundled kernels on the example inputs in examples/ (examples/make_examples.py
# wrote them) and writes each output as .npy to out/<package>/.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
wgk=${WGK:-build/tools/wgk/wgk}
$wgk devices
for id in ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding ai.onnx.RMSNormalization \
          com.microsoft.SkipSimplifiedLayerNormalization; do
  args=()
  for f in examples/$id/*.npy; do args+=(--input "$(basename "$f" .npy)=$f"); done
  case $id in
    com.microsoft.RotaryEmbedding) args+=(--attr num_heads=4 --attr rotary_embedding_dim=32) ;;
    com.microsoft.SkipSimplifiedLayerNormalization) args+=(--output y,inputSkipBiasSum) ;;  # an optional output too
  esac
  echo
  $wgk run "webgpu-kernels/$id" "${args[@]}" --out "out/$id"
done
