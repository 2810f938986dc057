#!/bin/sh
# A tolerance bound must be a finite number >= 0, refused when the case is read, naming the case, the field and the
# value (fixes6; before, abs = -1 was taken and every element, exact ones included, was "outside tolerance" beside
# "max abs error 0"). Case folders: copies of tests/tools/data/skip_norm (ONNX Runtime's outputs) with abs -1, rel
# "nan" (JSON has no NaN or infinity: nlohmann refuses 1e999 itself) and a per-output abs -0.5; the copy with its own tolerance passes. test.json: a
# copy of SkipSimplifiedLayerNormalization's expected_from_ort_f32 with abs -1 and one unchanged.
# Usage: tolerance_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
mkdir "$tmp/cases"
for c in ok neg_abs nan_rel neg_output_abs; do cp -r "$src/tests/tools/data/skip_norm" "$tmp/cases/$c"; done
python3 - "$tmp/cases" <<'PY'
import json, sys
d = sys.argv[1]
def edit(case, change):
    p = "%s/%s/case.json" % (d, case)
    j = json.load(open(p)); change(j["tolerance"]); json.dump(j, open(p, "w"))
edit("neg_abs", lambda t: t.update(abs=-1))
edit("nan_rel", lambda t: t.update(rel="nan"))
edit("neg_output_abs", lambda t: t.update(outputs={"invStdVar": {"abs": -0.5, "rel": 1e-5}}))
PY
out=$("$wgk" test --cases "$tmp/cases" 2>&1 || true)
echo "$out"
echo "$out" | grep -q "^PASS .* ok \[row\]: " || fail "the unchanged case did not pass"
echo "$out" | grep -q "^FAIL .* neg_abs: error: neg_abs.tolerance.abs: a tolerance must be a finite number >= 0, got -1$" ||
  fail "neg_abs: no error naming the case, the field and the value"
echo "$out" | grep -qF ' nan_rel: error: nan_rel.tolerance.rel: a tolerance must be a finite number >= 0, got "nan"' ||
  fail "nan_rel: no error naming the case, the field and the value"
echo "$out" | grep -q "^FAIL .* neg_output_abs: error: neg_output_abs.tolerance.outputs.invStdVar.abs: a tolerance must be a finite number >= 0, got -0.5$" ||
  fail "neg_output_abs: no error naming the output's field"
echo "$out" | grep -q "^1 passed, 3 failed" || fail "expected 1 passed, 3 failed"

pkg="$tmp/com.microsoft.SkipSimplifiedLayerNormalization"
cp -r "$src/kernels/com.microsoft.SkipSimplifiedLayerNormalization" "$pkg"
python3 - "$pkg/build/webgpu/test.json" <<'PY'
import copy, json, sys
p = sys.argv[1]
c = [c for c in json.load(open(p))["cases"] if c["name"] == "expected_from_ort_f32"][0]
bad = copy.deepcopy(c); bad["name"] = "neg_abs"; bad["tolerance"]["abs"] = -1
json.dump({"cases": [c, bad]}, open(p, "w"))
PY
"$wgk" metadata "$pkg" > /dev/null
out=$("$wgk" test "$pkg" 2>&1 || true)
echo "$out"
echo "$out" | grep -q "^PASS .* expected_from_ort_f32 \[row\]: " || fail "the unchanged test.json case did not pass"
echo "$out" | grep -q "^FAIL .* neg_abs: error: .*test.json: cases\[1\] (neg_abs).tolerance.abs: a tolerance must be a finite number >= 0, got -1$" ||
  fail "test.json neg_abs: no error naming the case, the field and the value"
