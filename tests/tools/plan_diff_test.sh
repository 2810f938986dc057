#!/bin/sh
# wgk validate --plans and scripts/plan_diff.py on a copy of tests/packages/gelu: two runs of the same package
# compare equal (exit 0); after a change to its template (a WGSL comment line, digests rewritten) they differ
# in the WGSL of every call and nothing else (exit 1, the line shown in the diff); --device h200 plans for
# that preset's capabilities.
# Usage: plan_diff_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/tests/packages/gelu" "$tmp/gelu"
"$wgk" validate "$tmp/gelu" --plans "$tmp/a" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
"$wgk" validate "$tmp/gelu" --plans "$tmp/b" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
test -s "$tmp/a/plans.jsonl"
python3 "$src/scripts/plan_diff.py" "$tmp/a" "$tmp/b" > "$tmp/same"
cat "$tmp/same"
grep -q "every call: same shader, dispatch, bindings, uniform bytes and WGSL" "$tmp/same"
calls=$(wc -l < "$tmp/a/plans.jsonl")
grep -q "signatures: $calls before, $calls after, $calls in both" "$tmp/same"

printf '// a changed template\n' >> "$tmp/gelu/build/webgpu/gelu.wgsl.jinja"
"$wgk" metadata "$tmp/gelu" > /dev/null
"$wgk" validate "$tmp/gelu" --plans "$tmp/c" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
if python3 "$src/scripts/plan_diff.py" "$tmp/a" "$tmp/c" > "$tmp/changed"; then
  echo "FAIL: plan_diff passed a changed template"; cat "$tmp/changed"; exit 1
fi
cat "$tmp/changed"
grep -q "^  wgsl: $calls$" "$tmp/changed"
if grep -q "^  \(shader\|dispatch\|uniform bytes\|bindings\)" "$tmp/changed"; then echo "FAIL: more than the WGSL differs"; exit 1; fi
grep -q "^+// a changed template" "$tmp/changed"

"$wgk" validate "$tmp/gelu" --device h200 --plans "$tmp/h" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
grep -q '"caps":"h200"' "$tmp/h/plans.jsonl"
echo "plan_diff_test: ok"
