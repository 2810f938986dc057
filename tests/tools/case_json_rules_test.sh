#!/bin/sh
# test.json and bench.json cases meet the contract's rules as a call does, in a copy of ai.onnx.RotaryEmbedding
# whose case files this script writes (then `wgk metadata` re-digests the copy). One check per MODE:
#   test_int_attr   a test.json case with num_heads 3.0 (ONNX INT) FAILs naming the attribute, the value and the
#                   rule; the same case with 3 passes (before fixes5: 3.0 was taken as 3 and PASSED).
#   bench_int_attr  `wgk bench` skips a bench.json case with num_heads 3.0 with the same error (a skipped case does
#                   not fail the run: bench's rule) and times the same case with 3 (before: 3.0 was timed as 3).
#   bench_dtype     a bench.json case with positionIds "dtype": "int32" (type M: int64) is refused by `wgk bench`
#                   and `wgk validate`, naming the case, the input, type M and the allowed int64, before any case is
#                   timed (before: int32 was "unknown dtype" only when generated, and validate passed it).
#   validate_test_dtype  `wgk validate` refuses a test.json case with positionIds "dtype": "uint32" as `wgk test`
#                   does (before: validate planned it, the C++ API taking uint32 as positions already narrowed).
#   test_bool_attr  a test.json case with interleaved true FAILs: a JSON boolean is no ONNX attribute value, as the
#                   contract refuses a bool and --attr reads "true" as text; the same case with 1 passes (before:
#                   true was read as 1 and PASSED).
#   test_attr_past_int64  (ai.onnx.RMSNormalization) a test.json case with axis 18446744073709551615 FAILs as a float
#                   for ONNX INT, as --attr refuses it; the same case with -1 passes (before: nlohmann's unsigned
#                   2^64 - 1 was read into an int64 as -1, and the case PASSED as axis -1).
#   test_float_tunable  a test.json case with WORKGROUP_SIZE 6.4e1 (an integer tunable) FAILs naming the tunable, the
#                   value, its default and the rule, as an ONNX INT attribute refuses a float; the same case with 64
#                   passes (before fixes7: 6.4e1 ran as 64 and PASSED).
# Usage: case_json_rules_test.sh <wgk> <source dir> <mode>
set -eu
wgk=$1
src=$2
mode=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
op=ai.onnx.RotaryEmbedding
[ "$mode" != test_attr_past_int64 ] || op=ai.onnx.RMSNormalization
pkg="$tmp/$op"
cp -r "$src/kernels/$op" "$pkg"
web="$pkg/build/webgpu"
rank3() {  # name, num_heads as written: a rank-3 x of 3 heads of 8 (hidden 24), positions in [0, 3]
  printf '{"name": "%s", "dtype": "float32", "attrs": {"num_heads": %s}, "inputs": {"x": {"shape": [1, 3, 24]},
    "cos": {"shape": [4, 4]}, "sin": {"shape": [4, 4]}, "positionIds": {"shape": [1, 3], "randomInt": [0, 3]}},
    "tolerance": {"abs": 1e-6}}' "$1" "$2"
}
rank4() {  # name, dtype of positionIds
  printf '{"name": "%s", "dtype": "float32", "inputs": {"x": {"shape": [1, 2, 3, 8]}, "cos": {"shape": [4, 4]},
    "sin": {"shape": [4, 4]}, "positionIds": {"shape": [1, 3], "dtype": "%s"}}, "tolerance": {"abs": 1e-6}}' "$1" "$2"
}
interleaved() {  # name, interleaved as written: the rank-4 x of rank4 below, int64 positions
  printf '{"name": "%s", "dtype": "float32", "attrs": {"interleaved": %s}, "inputs": {"x": {"shape": [1, 2, 3, 8]},
    "cos": {"shape": [4, 4]}, "sin": {"shape": [4, 4]}, "positionIds": {"shape": [1, 3], "randomInt": [0, 3]}},
    "tolerance": {"abs": 1e-6}}' "$1" "$2"
}
rms_axis() {  # name, axis as written: rows of 8 normalized over the last axis
  printf '{"name": "%s", "dtype": "float32", "attrs": {"axis": %s}, "inputs": {"x": {"shape": [2, 8]},
    "scale": {"shape": [8]}}, "tolerance": {"abs": 1e-6, "rel": 1e-5}}' "$1" "$2"
}
tunable_wg() {  # name, WORKGROUP_SIZE as written: the rank-4 case of rank4 with int64 positions in [0, 3]
  printf '{"name": "%s", "dtype": "float32", "tunables": {"WORKGROUP_SIZE": %s}, "inputs": {"x": {"shape": [1, 2, 3, 8]},
    "cos": {"shape": [4, 4]}, "sin": {"shape": [4, 4]}, "positionIds": {"shape": [1, 3], "randomInt": [0, 3]}},
    "tolerance": {"abs": 1e-6}}' "$1" "$2"
}
expect_line() {  # output, fixed text a line must hold, what is missing
  echo "$1" | grep -qF -- "$2" || fail "$3"
}
fail() { echo "FAIL: $1"; exit 1; }
tunable_rule="tunable 'WORKGROUP_SIZE' = 64.0 (float) is not an integer (its default is 256; a tunable takes its default's type, by the rule of an ONNX INT attribute: AttributeProto.i, an int64; a float is refused even when integral)"
int_rule="attribute 'num_heads': value 3.0 (float) is not an integer (ONNX INT attribute: AttributeProto.i, an int64; a float is refused even when integral)"
case $mode in
  test_int_attr)
    printf '{"cases": [%s, %s]}\n' "$(rank3 heads_float 3.0)" "$(rank3 heads_int 3)" > "$web/test.json"
    "$wgk" metadata "$pkg" > /dev/null
    out=$("$wgk" test "$pkg" 2>&1 || true)
    echo "$out"
    echo "$out" | grep -qF "FAIL webgpu-kernels/ai.onnx.RotaryEmbedding heads_float: error: ai.onnx.RotaryEmbedding: $int_rule" ||
      fail "no INT-attribute error for num_heads 3.0"
    echo "$out" | grep -q "^PASS .* heads_int" || fail "the num_heads 3 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  bench_int_attr)
    printf '{"cases": [%s, %s]}\n' "$(rank3 heads_float 3.0)" "$(rank3 heads_int 3)" > "$web/bench.json"
    "$wgk" metadata "$pkg" > /dev/null
    out=$("$wgk" bench "$pkg" --rounds 1 --warmup 0 --iterations 1 --spin-up-ms 0 2>&1)
    echo "$out"
    echo "$out" | grep -qF "heads_float skipped: ai.onnx.RotaryEmbedding: $int_rule" || fail "no INT-attribute error for num_heads 3.0"
    echo "$out" | grep -q "^1 ran, 1 skipped" || fail "expected 1 ran, 1 skipped"
    ;;
  bench_dtype)
    printf '{"cases": [%s, %s]}\n' "$(rank4 pos_int64 int64)" "$(rank4 pos_int32 int32)" > "$web/bench.json"
    "$wgk" metadata "$pkg" > /dev/null
    rule="bench.json: cases[1] (pos_int32).inputs.positionIds: input positionIds (position_ids): dtype int32 is not allowed for type M (allowed: int64)"
    for cmd in bench validate; do
      rc=0
      if [ $cmd = bench ]; then
        out=$("$wgk" bench "$pkg" --rounds 1 --warmup 0 --iterations 1 --spin-up-ms 0 2>&1) || rc=$?
      else
        out=$("$wgk" validate "$pkg" 2>&1) || rc=$?
      fi
      echo "$out"
      [ "$rc" != 0 ] || fail "wgk $cmd accepted the int32 case"
      echo "$out" | grep -qF "wgk: error: webgpu-kernels/ai.onnx.RotaryEmbedding: $rule" || fail "wgk $cmd: no type-constraint error"
      ! echo "$out" | grep -q "pos_int64 \[" || fail "wgk $cmd timed a case before refusing the file"
    done
    ;;
  validate_test_dtype)
    printf '{"cases": [%s, %s]}\n' "$(rank4 pos_int64 int64)" "$(rank4 pos_uint32 uint32)" > "$web/test.json"
    "$wgk" metadata "$pkg" > /dev/null
    rc=0
    out=$("$wgk" validate "$pkg" 2>&1) || rc=$?
    echo "$out"
    [ "$rc" != 0 ] || fail "wgk validate accepted the uint32 case"
    echo "$out" | grep -qF "wgk: error: webgpu-kernels/ai.onnx.RotaryEmbedding: test.json: cases[1] (pos_uint32).inputs.positionIds: input positionIds (position_ids): dtype uint32 is not allowed for type M (allowed: int64)" ||
      fail "no type-constraint error"
    ;;
  test_bool_attr)
    printf '{"cases": [%s, %s]}\n' "$(interleaved flag_bool true)" "$(interleaved flag_int 1)" > "$web/test.json"
    "$wgk" metadata "$pkg" > /dev/null
    out=$("$wgk" test "$pkg" 2>&1 || true)
    echo "$out"
    echo "$out" | grep -qF "FAIL webgpu-kernels/ai.onnx.RotaryEmbedding flag_bool: error: webgpu-kernels/ai.onnx.RotaryEmbedding: test.json: cases[0] (flag_bool).attrs.interleaved: true is a JSON boolean, which no ONNX attribute type holds (AttributeProto: INT, FLOAT, STRING and their lists); an INT flag is 0 or 1" ||
      fail "no error for interleaved true"
    echo "$out" | grep -q "^PASS .* flag_int" || fail "the interleaved 1 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  test_attr_past_int64)
    printf '{"cases": [%s, %s]}\n' "$(rms_axis axis_wraps 18446744073709551615)" "$(rms_axis axis_last -1)" > "$web/test.json"
    "$wgk" metadata "$pkg" > /dev/null
    out=$("$wgk" test "$pkg" 2>&1 || true)
    echo "$out"
    echo "$out" | grep -qF "FAIL webgpu-kernels/ai.onnx.RMSNormalization axis_wraps: error: ai.onnx.RMSNormalization: attribute 'axis': value 1.8446744073709552e+19 (float) is not an integer (ONNX INT attribute: AttributeProto.i, an int64; a float is refused even when integral)" ||
      fail "no INT-attribute error for axis 2^64 - 1"
    echo "$out" | grep -q "^PASS .* axis_last" || fail "the axis -1 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  test_float_tunable)
    printf '{"cases": [%s, %s]}\n' "$(tunable_wg wg_float 6.4e1)" "$(tunable_wg wg_int 64)" > "$web/test.json"
    "$wgk" metadata "$pkg" > /dev/null
    out=$("$wgk" test "$pkg" 2>&1 || true)
    echo "$out"
    expect_line "$out" "FAIL webgpu-kernels/ai.onnx.RotaryEmbedding wg_float: error: ai.onnx.RotaryEmbedding: $tunable_rule" \
      "no integer-tunable error for WORKGROUP_SIZE 6.4e1"
    echo "$out" | grep -q "^PASS .* wg_int" || fail "the WORKGROUP_SIZE 64 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  *) fail "unknown mode $mode" ;;
esac
