#!/usr/bin/env bash
# The main job: runs both bundled kernels on the example inputs in examples/ and writes y.npy to out/.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
wgk=${WGK:-build/tools/wgk/wgk}
$wgk devices
for id in ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding; do
  args=()
  for f in examples/$id/*.npy; do args+=(--input "$(basename "$f" .npy)=$f"); done
  attrs=()
  [ "$id" = com.microsoft.RotaryEmbedding ] && attrs=(--attr num_heads=4 --attr rotary_embedding_dim=32)
  echo
  $wgk run "webgpu-kernels/$id" "${args[@]}" "${attrs[@]}" --out "out/$id"
done
