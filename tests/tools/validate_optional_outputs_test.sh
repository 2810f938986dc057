#!/bin/sh
# wgk validate compiles the template paths of optional outputs too: a copy of
# com.microsoft.SkipSimplifiedLayerNormalization with WGSL that does not compile inside
# `{% if present.invStdVar %}` must fail validation (before: every signature asked for no optional
# output, so `validate: OK` and `wgk test` passed).
# Usage: validate_optional_outputs_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg="$tmp/com.microsoft.SkipSimplifiedLayerNormalization"
cp -r "$src/kernels/com.microsoft.SkipSimplifiedLayerNormalization" "$pkg"
"$wgk" validate "$pkg" > /dev/null
shader="$pkg/build/webgpu/skip-simplified-layer-normalization.wgsl.jinja"
sed 's/^{%- if present.invStdVar %}$/{%- if present.invStdVar %}\n  this is not wgsl @@@;/' "$shader" > "$tmp/shader" && mv "$tmp/shader" "$shader"
grep -q "this is not wgsl" "$shader"
"$wgk" metadata "$pkg" > /dev/null
if out=$("$wgk" validate "$pkg" 2>&1); then echo "FAIL: validate passed a shader that does not compile with invStdVar asked for"; exit 1; fi
echo "$out" | tail -5
echo "$out" | grep -q "validate: FAILED"
