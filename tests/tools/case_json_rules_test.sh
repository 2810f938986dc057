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
# Usage: case_json_rules_test.sh <wgk> <source dir> <mode>
set -eu
wgk=$1
src=$2
mode=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg="$tmp/ai.onnx.RotaryEmbedding"
cp -r "$src/kernels/ai.onnx.RotaryEmbedding" "$pkg"
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
fail() { echo "FAIL: $1"; exit 1; }
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
  *) fail "unknown mode $mode" ;;
esac
