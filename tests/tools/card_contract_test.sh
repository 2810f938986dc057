#!/bin/sh
# A model card says what the contract accepts (fixes6). On a copy of each normalization package, `wgk card`:
# - lists every type constraint manifest.json declares, with its dtypes (SkipSimplifiedLayerNormalization: T and U,
#   U = float32 the type of invStdVar);
# - lists as stash_type's allowed values exactly those a call accepts: each value the RMSNormalization card lists runs
#   through `wgk contract` (the boundary, the checks, a variant chosen), while 11 (ONNX's double) and 2 are refused
#   naming the same list (before: the card and the error listed 1, 10, 11, 16 and a later check refused 11);
# - names the CMake target a user links, wgk::runtime (README "Use it from CMake"), not the library's file name;
# - when README.md cannot be written (here a folder of that name), says why (the system's reason; before: only
#   "cannot write PATH").
# Usage: card_contract_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
for pkg in ai.onnx.RMSNormalization com.microsoft.SkipSimplifiedLayerNormalization; do
  cp -r "$src/kernels/$pkg" "$tmp/$pkg"
  "$wgk" card "$tmp/$pkg" > /dev/null
  card="$tmp/$pkg/README.md"
  # Each declared constraint as the card's table row: | `U` | `float32` |
  python3 -c 'import json, sys
for name, dtypes in json.load(open(sys.argv[1]))["typeConstraints"].items():
    print("| `%s` | %s |" % (name, ", ".join("`%s`" % d for d in dtypes)))' "$src/kernels/$pkg/build/webgpu/manifest.json" > "$tmp/rows"
  [ -s "$tmp/rows" ] || fail "$pkg: no typeConstraints read from manifest.json"
  while IFS= read -r row; do
    grep -qxF "$row" "$card" || fail "$pkg: the card lacks the type constraint row '$row'"
  done < "$tmp/rows"
  grep -qF 'Link the CMake target `wgk::runtime`' "$card" || fail "$pkg: the card does not name the CMake target wgk::runtime"
  if grep -qF 'wgk_runtime' "$card"; then fail "$pkg: the card names wgk_runtime, not the target a user links"; fi
done
grep -qxF '| `U` | `float32` |' "$tmp/com.microsoft.SkipSimplifiedLayerNormalization/README.md" || fail "Skip: no row for U"
rms="$tmp/ai.onnx.RMSNormalization"
listed=$(sed -n 's/^| `stash_type` | `1` | .*Allowed values: \(.*\)\. |$/\1/p' "$rms/README.md" | tr -d '`')
echo "card: stash_type allowed values: $listed"
[ "$listed" = "1, 10, 16" ] || fail "RMSNormalization card lists stash_type values '$listed', expected '1, 10, 16'"
call="--inputs x=float32:2x8,scale=float32:8"
for v in $(echo "$listed" | tr -d ','); do
  "$wgk" contract "$rms" $call --attr stash_type=$v > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "stash_type=$v, listed by the card, is refused"; }
done
for v in 11 2; do
  if "$wgk" contract "$rms" $call --attr stash_type=$v > "$tmp/out" 2>&1; then fail "stash_type=$v is accepted"; fi
  cat "$tmp/out"
  grep -qF "attribute 'stash_type' = $v is not allowed (attributeConstraints: allowed values $listed)" "$tmp/out" ||
    fail "stash_type=$v: the error does not name the card's list $listed"
done
rm "$rms/README.md" && mkdir "$rms/README.md"
if "$wgk" card "$rms" > "$tmp/out" 2>&1; then fail "wgk card wrote over a folder"; fi
grep -qF "wgk: error: $rms/README.md: cannot open for writing (Is a directory)" "$tmp/out" ||
  { cat "$tmp/out"; fail "wgk card does not say why README.md cannot be written"; }
echo "ok"
