#!/bin/sh
# wgk assemble on a copy of kernels/: a changed family source (a template or a manifest fragment) makes
# --check fail naming each package file built from it; assemble writes them (a template byte-identical to its
# source, a manifest merged from its fragments) and the metadata, after which --check passes and the package
# still validates. A fault anywhere (a missing package, a block in two fragments, an assembled manifest that
# does not load) fails before anything is written: every package file stays as it was and no temporary file
# is left behind.
# Usage: assemble_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/kernels" "$tmp/kernels"
family="$tmp/kernels/families/RotaryEmbedding"
onnx="$tmp/kernels/ai.onnx.RotaryEmbedding/build/webgpu"
ms="$tmp/kernels/com.microsoft.RotaryEmbedding/build/webgpu"
"$wgk" assemble --check "$family"

# A template source.
printf '// a change to the shared source\n' >> "$family/rotary-embedding.wgsl.jinja"
if out=$("$wgk" assemble --check "$family"); then echo "FAIL: --check passed with a changed source"; exit 1; fi
echo "$out"
echo "$out" | grep -q "com.microsoft.RotaryEmbedding/build/webgpu/rotary-embedding.wgsl.jinja differs from"
echo "$out" | grep -q "ai.onnx.RotaryEmbedding/build/webgpu/rotary-embedding.wgsl.jinja differs from"
"$wgk" assemble "$family"
cmp "$family/rotary-embedding.wgsl.jinja" "$ms/rotary-embedding.wgsl.jinja"
cmp "$family/rotary-embedding.wgsl.jinja" "$onnx/rotary-embedding.wgsl.jinja"
"$wgk" assemble --check "$family"
"$wgk" metadata --check "$tmp/kernels/com.microsoft.RotaryEmbedding"

# A shared manifest fragment: both manifests are rebuilt from it.
grep -q '"WORKGROUP_SIZE": {' "$family/manifest.shared.json"
grep -c '"default": 256' "$onnx/manifest.json" | grep -qx 1
sed -i 's/"default": 256/"default": 128/' "$family/manifest.shared.json"
if out=$("$wgk" assemble --check "$family"); then echo "FAIL: --check passed with a changed fragment"; exit 1; fi
echo "$out"
echo "$out" | grep -q "ai.onnx.RotaryEmbedding/build/webgpu/manifest.json differs from manifest.ai.onnx.RotaryEmbedding.json + manifest.shared.json"
echo "$out" | grep -q "com.microsoft.RotaryEmbedding/build/webgpu/manifest.json differs from manifest.com.microsoft.RotaryEmbedding.json + manifest.shared.json"
"$wgk" assemble "$family"
grep -c '"default": 128' "$onnx/manifest.json" | grep -qx 1
grep -c '"default": 128' "$ms/manifest.json" | grep -qx 1
# The package's own part stays in the assembled manifest (its identity, and checks before the shared ones).
grep -q '"domain": "ai.onnx"' "$onnx/manifest.json"
grep -q '"domain": "com.microsoft"' "$ms/manifest.json"
"$wgk" assemble --check "$family"
"$wgk" validate "$tmp/kernels/ai.onnx.RotaryEmbedding" > "$tmp/validate.txt" 2>&1 || { cat "$tmp/validate.txt"; exit 1; }

snapshot() { (cd "$tmp/kernels" && find . -type f | sort | xargs sha256sum) > "$1"; }
unchanged() {
  snapshot "$tmp/after"
  # Only the family folder may differ (the test changed it); every package file is as it was.
  if diff "$tmp/before" "$tmp/after" | grep -v '^[<>] [0-9a-f]*  ./families/' | grep -q '^[<>]'; then
    echo "FAIL: $1 changed a package"; diff "$tmp/before" "$tmp/after"; exit 1
  fi
  if find "$tmp/kernels" -name '*.wgk-assemble' | grep -q .; then echo "FAIL: $1 left a temporary file"; exit 1; fi
}
cp "$family/family.json" "$tmp/family.json"
cp "$family/manifest.ai.onnx.RotaryEmbedding.json" "$tmp/onnx-part.json"
cp "$family/manifest.com.microsoft.RotaryEmbedding.json" "$tmp/ms-part.json"
# Each fault below comes with a changed template, so a non-atomic assemble would rewrite the packages.
printf '// another change\n' >> "$family/rotary-embedding-quad.wgsl.jinja"
snapshot "$tmp/before"

# A package listed after others that has no folder.
sed 's/"com.microsoft.RotaryEmbedding": {/"com.microsoft.RotaryEmbedding": {"x.wgsl.jinja": "rotate-adjacent.wgsl.jinja"}, "no.SuchPackage": {/' \
  "$tmp/family.json" > "$family/family.json"
if "$wgk" assemble "$family" 2> "$tmp/err"; then echo "FAIL: a missing package was accepted"; exit 1; fi
cat "$tmp/err"
grep -q "package no.SuchPackage has no folder" "$tmp/err"
unchanged "a missing package"
cp "$tmp/family.json" "$family/family.json"

# A block in two fragments.
sed 's/"derive": {/"derive": {\n    "rotaryOutputWg": "1",/' "$tmp/onnx-part.json" > "$family/manifest.ai.onnx.RotaryEmbedding.json"
if "$wgk" assemble "$family" 2> "$tmp/err"; then echo "FAIL: a derive in two fragments was accepted"; exit 1; fi
cat "$tmp/err"
grep -q "derive.rotaryOutputWg is in both manifest.ai.onnx.RotaryEmbedding.json and manifest.shared.json" "$tmp/err"
unchanged "a block in two fragments"
cp "$tmp/onnx-part.json" "$family/manifest.ai.onnx.RotaryEmbedding.json"

# The second package's assembled manifest does not load.
sed 's/"derive": {/"derive": {\n    "broken": "1 +",/' "$tmp/ms-part.json" > "$family/manifest.com.microsoft.RotaryEmbedding.json"
if "$wgk" assemble "$family" 2> "$tmp/err"; then echo "FAIL: a manifest that does not load was accepted"; exit 1; fi
cat "$tmp/err"
grep -q "derive.broken" "$tmp/err"
grep -q "assembling com.microsoft.RotaryEmbedding" "$tmp/err"
unchanged "a manifest that does not load"
cp "$tmp/ms-part.json" "$family/manifest.com.microsoft.RotaryEmbedding.json"

# A family.json naming a path outside kernels/ is refused.
printf '{"packages": {"../x": {"a": "b"}}}' > "$family/family.json"
if "$wgk" assemble --check "$family" 2> "$tmp/err"; then echo "FAIL: a package path was accepted"; exit 1; fi
grep -q "must be a plain name" "$tmp/err"
echo "assemble_test: ok"
