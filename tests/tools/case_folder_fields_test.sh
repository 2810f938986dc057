#!/bin/sh
# A case folder's case.json is held to what its files are (a breaker's findings; before, each of these PASSed or
# failed on tolerance): copies of ../shared/cases/onnx-node/test_rotary_embedding (ONNX's own case, which passes
# as it is) with one field changed each:
#   escape    inputs.x "../../outside.npy" (the same bytes, outside the case folder) is refused as leaving it;
#   dtype     "dtype": "float16" over the float32 files is refused naming the stated and the held dtype;
#   shapes    shapes.x [9, 9, 9, 9] is refused naming the stated and the held shape;
#   expdtype  y.npy as float16 for the float32 output is a dtype mismatch ("output y is float32, the case states
#             float16"), not only a tolerance failure;
#   op        "op": "RMSNormalization" for the RotaryEmbedding kernel is refused naming both (before: PASS).
# Usage: case_folder_fields_test.sh <wgk> <shared dir>
set -eu
wgk=$1
src=$2/cases/onnx-node/test_rotary_embedding
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
for c in control escape dtype shapes expdtype op; do
  mkdir -p "$tmp/cases/$c"
  cp "$src"/*.npy "$src/case.json" "$tmp/cases/$c/"
done
cp "$src/x.npy" "$tmp/outside.npy"
sed -i 's|"x": "x.npy"|"x": "../../outside.npy"|' "$tmp/cases/escape/case.json"
sed -i 's|"dtype": "float32"|"dtype": "float16"|' "$tmp/cases/dtype/case.json"
sed -i 's|"op": "RotaryEmbedding"|"op": "RMSNormalization"|' "$tmp/cases/op/case.json"
/usr/bin/python3 - "$tmp/cases/shapes/case.json" "$tmp/cases/expdtype/y.npy" <<'PY'
import json, sys, numpy as np
j = json.load(open(sys.argv[1])); j["shapes"]["x"] = [9, 9, 9, 9]; json.dump(j, open(sys.argv[1], "w"))
np.save(sys.argv[2], np.load(sys.argv[2]).astype(np.float16))
PY
check() {  # case, text its line must hold
  out=$(timeout 300 "$wgk" test --cases "$tmp/cases/$1" 2>&1) || true
  echo "$out" | grep -F -- "$2" >/dev/null || fail "$1: no line with '$2' in: $out"
}
check control "PASS webgpu-kernels/ai.onnx.RotaryEmbedding control [quad]"
check escape "FAIL  escape: error: $tmp/cases/escape/case.json inputs.x: \"../../outside.npy\" leaves the case folder"
check dtype "case.json dtype is float16 but inputs.cos's file holds float32"
check shapes "case.json shapes.x is [9, 9, 9, 9] but inputs.x's file holds [2, 4, 3, 8]"
check expdtype "FAIL webgpu-kernels/ai.onnx.RotaryEmbedding expdtype [quad]: output y is float32, the case states float16"
check op "case.json op is \"RMSNormalization\" but kernel webgpu-kernels/ai.onnx.RotaryEmbedding is ai.onnx::RotaryEmbedding"
echo ok
