#!/bin/sh
# A test.json case's input dtype meets the input's type constraint, as a .npy file does: a copy of
# ai.onnx.RotaryEmbedding whose test.json gives positionIds (type M: int64) "dtype": "uint32" in one case and
# "int32" in another must FAIL both naming the case, the input, type M and the allowed int64 (before: uint32
# PASSED, the C++ API taking it as positions already narrowed; int32 was `unknown dtype int32`).
# Usage: test_json_dtype_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg="$tmp/ai.onnx.RotaryEmbedding"
cp -r "$src/kernels/ai.onnx.RotaryEmbedding" "$pkg"
case_of() {  # name, dtype of positionIds
  printf '{"name": "%s", "dtype": "float32", "inputs": {"x": {"shape": [1, 2, 3, 8]}, "cos": {"shape": [4, 4]},
    "sin": {"shape": [4, 4]}, "positionIds": {"shape": [1, 3], "dtype": "%s"}}, "tolerance": {"abs": 1e-6}}' "$1" "$2"
}
# pos_int64, the same case with the allowed dtype, passes: the refusals are the dtype's alone.
printf '{"cases": [%s, %s, %s]}\n' "$(case_of pos_uint32 uint32)" "$(case_of pos_int32 int32)" "$(case_of pos_int64 int64)" \
  > "$pkg/build/webgpu/test.json"
"$wgk" metadata "$pkg" > /dev/null
out=$("$wgk" test "$pkg" 2>&1 || true)
echo "$out"
for d in uint32 int32; do
  echo "$out" | grep -q "FAIL .* pos_$d: error: .*test.json: cases\[[01]\] (pos_$d).inputs.positionIds: input positionIds (position_ids): dtype $d is not allowed for type M (allowed: int64)$" ||
    { echo "FAIL: no type-constraint error for the $d case"; exit 1; }
done
echo "$out" | grep -q "^PASS .* pos_int64" || { echo "FAIL: the int64 case did not pass"; exit 1; }
echo "$out" | grep -q "^1 passed, 2 failed" || { echo "FAIL: expected 1 passed, 2 failed"; exit 1; }
