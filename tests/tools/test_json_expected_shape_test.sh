#!/bin/sh
# A test.json `expected` output without `outputShapes` takes the shape the contract infers for the call, not an
# input's: a copy of com.microsoft.SkipSimplifiedLayerNormalization whose test.json holds expected_from_ort_f32's
# inputs and ONNX Runtime's values (x [2, 3], skip [2, 3], gamma [3]; values as in the package's own case) with no
# outputShapes. y (6 values, shape [2, 3]) and invStdVar (2 values, [2, 1]) pass; 4 values for y fail naming the
# case, the output, the count and the inferred shape; `mean`, which the op does not produce, fails listing its
# outputs. Before: every shape was the alphabetically first input's (gamma [3]): "expected.y: 6 values for shape [3]".
# Usage: test_json_expected_shape_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg="$tmp/com.microsoft.SkipSimplifiedLayerNormalization"
cp -r "$src/kernels/com.microsoft.SkipSimplifiedLayerNormalization" "$pkg"
y='[0.5703518390655518, 1.9011728763580322, 3.9924631118774414, 0.7348469495773315, 1.9595918655395508, 3.6742348670959473]'
case_of() {  # name, expected object
  printf '{"name": "%s", "dtype": "float32", "inputs": {"x": {"shape": [2, 3], "dtype": "float32", "values": [1, 2, 3, 4, 5, 6]},
    "skip": {"shape": [2, 3], "dtype": "float32", "values": [0.5, 0.5, 0.5, -1, -1, -1]},
    "gamma": {"shape": [3], "dtype": "float32", "values": [1, 2, 3]}}, "expected": %s,
    "tolerance": {"abs": 1e-6, "rel": 1e-5}}' "$1" "$2"
}
printf '{"cases": [%s, %s, %s, %s]}\n' \
  "$(case_of y_only "{\"y\": $y}")" \
  "$(case_of y_and_inv_std_var "{\"y\": $y, \"inv_std_var\": [0.38023456931114197, 0.24494898319244385]}")" \
  "$(case_of y_four_values '{"y": [0.5703518390655518, 1.9011728763580322, 3.9924631118774414, 0.7348469495773315]}')" \
  "$(case_of mean_not_an_output "{\"y\": $y, \"mean\": [1, 2]}")" > "$pkg/build/webgpu/test.json"
"$wgk" metadata "$pkg" > /dev/null
out=$("$wgk" test "$pkg" 2>&1 || true)
echo "$out"
fail() { echo "FAIL: $1"; exit 1; }
echo "$out" | grep -q "^PASS .* y_only \[row\]: 6 elements: max abs" || fail "y_only did not pass"
echo "$out" | grep -q "^PASS .* y_and_inv_std_var \[row\]: invStdVar: 2 elements: .*; y: 6 elements: " || fail "y_and_inv_std_var did not pass"
echo "$out" | grep -q "^FAIL .* y_four_values \[row\]: expected.y: 4 values for output y's shape \[2, 3\] (the contract's for this call; the case states no outputShapes.y)$" ||
  fail "y_four_values: no value-count error naming the inferred shape [2, 3]"
echo "$out" | grep -q "^FAIL .* mean_not_an_output: error: expected output mean: com.microsoft.SkipSimplifiedLayerNormalization has no output of that name; its outputs: y (output), invStdVar (inv_std_var) \[optional\], inputSkipBiasSum (input_skip_bias_sum) \[optional\]" ||
  fail "mean_not_an_output: no error listing the op's outputs"
echo "$out" | grep -q "^2 passed, 2 failed" || fail "expected 2 passed, 2 failed"
