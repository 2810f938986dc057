#!/bin/sh
# A folder that is not a package (no build/webgpu/metadata.json) is refused as such by every subcommand that
# loads a package folder, before its files are walked (before: the reason was the first odd file met, "<file>:
# 17825792 bytes, over the 16777216-byte limit for a package file" or "<link> links outside the package").
# The folder here holds both: a 17 MiB sparse file and a dangling link; `wgk contract ..` is run from an empty
# folder inside it, as the tester did.
# Usage: not_a_package_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/notpkg/empty"
truncate -s 17M "$tmp/notpkg/big.bin"
ln -s "$tmp/nowhere" "$tmp/notpkg/dangling"
why="no build/webgpu/metadata.json, so not a package folder"
refused() {  # folder-as-given, wgk arguments...
  given=$1; shift
  rc=0; "$wgk" "$@" > "$tmp/out" 2>&1 || rc=$?
  cat "$tmp/out"
  test "$rc" != 0 || { echo "FAIL: wgk $* exited 0"; exit 1; }
  grep -qF "wgk: error: $given: $why" "$tmp/out" || { echo "FAIL: wgk $* does not say '$given: $why'"; exit 1; }
}
refused "$tmp/notpkg" contract "$tmp/notpkg"
refused "$tmp/notpkg" validate "$tmp/notpkg"
refused "$tmp/notpkg" test "$tmp/notpkg"
refused "$tmp/notpkg" bench "$tmp/notpkg"
refused "$tmp/notpkg" card "$tmp/notpkg"  # fixes3; before: "<folder>/build/webgpu/manifest.json: cannot open the manifest"
refused "$tmp/notpkg" card --check "$tmp/notpkg"
refused "$tmp/notpkg" run "$tmp/notpkg" -i "X=$src/tests/tools/data/skip_norm/x.npy"
refused "$tmp/notpkg" run --package "$tmp/notpkg" webgpu-kernels/ai.onnx.RMSNormalization -i "X=$src/tests/tools/data/skip_norm/x.npy"
cd "$tmp/notpkg/empty"
refused ".." contract ..
echo "not_a_package_test: ok"
