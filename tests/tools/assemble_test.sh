#!/bin/sh
# wgk assemble on a copy of kernels/: a changed family source makes --check fail naming the package
# copy and its metadata.json; assemble writes the copies (byte-identical to the source) and the
# metadata, after which --check passes and the package still validates (loads, #param headers included).
# Usage: assemble_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/kernels" "$tmp/kernels"
family="$tmp/kernels/families/RotaryEmbedding"
"$wgk" assemble --check "$family"
printf '// a change to the shared source\n' >> "$family/rotary-embedding.wgsl.jinja"
if out=$("$wgk" assemble --check "$family"); then echo "FAIL: --check passed with a changed source"; exit 1; fi
echo "$out"
echo "$out" | grep -q "com.microsoft.RotaryEmbedding/build/webgpu/rotary-embedding-slices.wgsl.jinja differs from"
echo "$out" | grep -q "ai.onnx.RotaryEmbedding/build/webgpu/rotary-embedding.wgsl.jinja differs from"
"$wgk" assemble "$family"
cmp "$family/rotary-embedding.wgsl.jinja" "$tmp/kernels/com.microsoft.RotaryEmbedding/build/webgpu/rotary-embedding-slices.wgsl.jinja"
cmp "$family/rotary-embedding.wgsl.jinja" "$tmp/kernels/ai.onnx.RotaryEmbedding/build/webgpu/rotary-embedding.wgsl.jinja"
"$wgk" assemble --check "$family"
"$wgk" metadata --check "$tmp/kernels/com.microsoft.RotaryEmbedding"
# A family.json naming a path outside kernels/ is refused.
printf '{"packages": {"../x": {"a": "b"}}}' > "$family/family.json"
if "$wgk" assemble --check "$family" 2> "$tmp/err"; then echo "FAIL: a package path was accepted"; exit 1; fi
grep -q "must be a plain name" "$tmp/err"
echo "assemble_test: ok"
