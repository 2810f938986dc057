#!/bin/sh
# wgk validate --plans and scripts/plan_diff.py on a copy of tests/packages/gelu: two runs of the same package
# compare equal (exit 0); after a change to its template (a WGSL comment line, digests rewritten) they differ
# in the WGSL of every call and nothing else (exit 1, the line shown in the diff); --device h200 plans for
# that preset's capabilities. The one edit changes the erf and the tanh shader alike: it is one distinct WGSL
# change, shown once (not once per shader pair). A missing or empty plans.jsonl, a plan line missing a key, a
# bad --show or two runs with no call signature in common (two devices) is a one-line error with exit status 2,
# not a traceback or a pass.
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
test "$(grep -c '^+// a changed template' "$tmp/changed")" = 1 || { echo "FAIL: one edit shown more than once"; exit 1; }
grep -q "^distinct WGSL changes: 1 ([2-9][0-9]* shader pairs)$" "$tmp/changed" || { echo "FAIL: expected 1 distinct change of several shader pairs"; exit 1; }
grep -q "^--- WGSL change 1 of 1 ([2-9][0-9]* shader pairs, $calls passes)$" "$tmp/changed"

# One-line errors, exit status 2: each case's stderr is one line naming the fault.
one_line_error() {  # expected-substring, plan_diff arguments...
  want=$1; shift
  rc=0; python3 "$src/scripts/plan_diff.py" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
  cat "$tmp/err"
  test "$rc" = 2 || { echo "FAIL: plan_diff $* exited $rc, not 2"; exit 1; }
  test "$(wc -l < "$tmp/err")" = 1 || { echo "FAIL: plan_diff $* printed more than one line"; exit 1; }
  grep -q "^plan_diff.py: error: .*$want" "$tmp/err" || { echo "FAIL: plan_diff $* does not say '$want'"; exit 1; }
}
one_line_error "cannot read $tmp/none/plans.jsonl: No such file or directory" "$tmp/none" "$tmp/a"
one_line_error "argument --show: invalid int value: 'x'" "$tmp/a" "$tmp/c" --show=x
one_line_error "argument --show: must be >= 0, got -1" "$tmp/a" "$tmp/c" --show -1
echo '{"caps": "here"}' > "$tmp/bad.jsonl"; mkdir "$tmp/bad"; mv "$tmp/bad.jsonl" "$tmp/bad/plans.jsonl"
one_line_error "$tmp/bad/plans.jsonl:1: not a plan line" "$tmp/a" "$tmp/bad"
cp -r "$tmp/c" "$tmp/nowgsl"; rm "$tmp"/nowgsl/wgsl/*.wgsl
one_line_error "cannot read $tmp/nowgsl/wgsl/[0-9a-f]*.wgsl: No such file or directory (plans.jsonl names it)" "$tmp/a" "$tmp/nowgsl"

# A plan line missing a key names the key and the line (before: a bare KeyError text, or a traceback for a key
# read after loading): line 2 of a copy of run a without its second call's first pass's "wgsl".
mkdir "$tmp/nokey"
python3 -c 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[1]); del r["passes"][0]["wgsl"]; lines[1] = json.dumps(r)
print("\n".join(lines))' "$tmp/a/plans.jsonl" > "$tmp/nokey/plans.jsonl"
one_line_error "$tmp/nokey/plans.jsonl:2: not a plan line of \`wgk validate --plans\` (no key passes\[0\].wgsl)$" "$tmp/a" "$tmp/nokey"
one_line_error "$tmp/bad/plans.jsonl:1: not a plan line of \`wgk validate --plans\` (no key signature)$" "$tmp/a" "$tmp/bad"
# An empty plans.jsonl compares nothing: an error (before: "0 in both ... every call: same shader", exit 1).
mkdir "$tmp/empty"; : > "$tmp/empty/plans.jsonl"
one_line_error "$tmp/empty/plans.jsonl holds no plan line" "$tmp/a" "$tmp/empty"

"$wgk" validate "$tmp/gelu" --device h200 --plans "$tmp/h" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
grep -q '"caps":"h200"' "$tmp/h/plans.jsonl"
# Plans of two devices share no call signature (the caps differ): nothing compared is an error, not a pass.
one_line_error "no call signature is in both runs ($calls before, [0-9]* after): nothing compared (plans of different devices or packages?)" "$tmp/a" "$tmp/h"
echo "plan_diff_test: ok"
