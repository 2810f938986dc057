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
#   test_integer_ranges  test.json integer fields past their ranges FAIL naming the field, the range and the value:
#                   positionIds values and randomInt bounds of 2^63 (int64), a uint32 value of 2^32, a dimension of -2,
#                   a seed of -1 and of 2^64; a case with the largest seed, 2^64 - 1, passes (before fixes7: 2^63 was
#                   wrapped to -2^63, randomInt [0, 2^63] drew from a distribution with lo > hi, uint32 values were
#                   generated as int64, -2 reached numel naming no field, the seeds ran as other seeds and PASSED).
#   bench_integer_ranges  `wgk bench` skips bench.json cases with a dimension of -2 or a randomInt bound of 2^63, naming
#                   the field and the range, and times the case beside them.
#   validate_case_rules  `wgk validate` refuses a test.json case whose num_heads is 3.0 or true, and a bench.json case
#                   whose WORKGROUP_SIZE is 64.0, naming the file, the case, the field and the rule, as `wgk test`
#                   fails them (before fixes7: validate dropped true, and counted 3.0 among its rejected signatures,
#                   naming neither the case nor the rule).
#   test_stated_outputs  (fixes8) what a test.json case states is checked, not dropped: tolerance.outputs keyed "Y"
#                   (the ONNX name) applies to y and "zz" FAILs listing the outputs; outputShapes of y [1, 2, 3, 9]
#                   FAILs stating both shapes even without `expected`, and "zz" FAILs; an input field "value" and a
#                   case field "tolerence" FAIL as unknown (before: each was ignored and the case PASSED).
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
ranged() {  # name, extra case keys (with a trailing comma) or "", x's shape, positionIds' spec, extra inputs or ""
  printf '{"name": "%s", "dtype": "float32", %s "inputs": {"x": {"shape": %s}, "cos": {"shape": [4, 4]},
    "sin": {"shape": [4, 4]}, "positionIds": %s %s}, "tolerance": {"abs": 1e-6}}' "$1" "$2" "$3" "$4" "$5"
}
on_copy() {  # wgk command [options]: re-digests the copy (wgk metadata), then runs the command on it; output in $out
  # (echoed), exit status in $rc
  "$wgk" metadata "$pkg" > /dev/null
  sub=$1
  shift
  rc=0
  out=$("$wgk" "$sub" "$pkg" "$@" 2>&1) || rc=$?
  echo "$out"
}
bench1() {  # wgk bench, one iteration a case, which must exit 0 (a skipped case does not fail the run)
  on_copy bench --rounds 1 --warmup 0 --iterations 1 --spin-up-ms 0
  [ "$rc" = 0 ] || fail "wgk bench exited $rc"
}
validate_refuses() {  # test.json text, bench.json text, the error line's fixed text
  printf '%s\n' "$1" > "$web/test.json"
  printf '%s\n' "$2" > "$web/bench.json"
  on_copy validate
  [ "$rc" != 0 ] || fail "wgk validate passed the case"
  expect_line "$out" "wgk: error: webgpu-kernels/ai.onnx.RotaryEmbedding: $3" "wgk validate: no error naming the case and the rule"
}
fail() { echo "FAIL: $1"; exit 1; }
tunable_rule="tunable 'WORKGROUP_SIZE' = 64.0 (float) is not an integer (its default is 256; a tunable takes its default's type, by the rule of an ONNX INT attribute: AttributeProto.i, an int64; a float is refused even when integral)"
int64_range="is not an integer in [-9223372036854775808, 9223372036854775807], int64's range"
int_rule="attribute 'num_heads': value 3.0 (float) is not an integer (ONNX INT attribute: AttributeProto.i, an int64; a float is refused even when integral)"
case $mode in
  test_stated_outputs)
    x4='"inputs": {"x": {"shape": [1, 2, 3, 8]}, "cos": {"shape": [4, 4]}, "sin": {"shape": [4, 4]}, "positionIds": {"shape": [1, 3], "randomInt": [0, 3]}}'
    c() { printf '{"name": "%s", "dtype": "float32", %s, %s}' "$1" "$x4" "$2"; }
    printf '{"cases": [%s, %s, %s, %s, %s, %s, %s]}\n' \
      "$(c tol_onnx_name '"tolerance": {"abs": 1e-6, "outputs": {"Y": {"abs": 1e-6}}}')" \
      "$(c tol_unknown '"tolerance": {"abs": 1e-6, "outputs": {"zz": {"abs": 1e-6}}}')" \
      "$(c shape_wrong '"tolerance": {"abs": 1e-6}, "outputShapes": {"y": [1, 2, 3, 9]}')" \
      "$(c shape_unknown '"tolerance": {"abs": 1e-6}, "outputShapes": {"zz": [1]}')" \
      "$(c shape_right '"tolerance": {"abs": 1e-6}, "outputShapes": {"Y": [1, 2, 3, 8]}')" \
      "$(c typo_case '"tolerence": {"abs": 1}, "tolerance": {"abs": 1e-6}')" \
      '{"name": "typo_input", "dtype": "float32", "inputs": {"x": {"shape": [1, 1, 1, 2], "value": [1, 2]}, "cos": {"shape": [1, 1]}, "sin": {"shape": [1, 1]}, "positionIds": {"shape": [1, 1], "values": [0]}}, "tolerance": {"abs": 1e-6}}' \
      > "$web/test.json"
    on_copy test
    k="webgpu-kernels/ai.onnx.RotaryEmbedding"
    expect_line "$out" "PASS $k tol_onnx_name" "tolerance.outputs keyed by the ONNX name Y did not pass"
    expect_line "$out" "FAIL $k tol_unknown: error: tolerance.outputs zz: ai.onnx.RotaryEmbedding has no output of that name; its outputs: y (Y)" "tolerance.outputs zz not refused"
    expect_line "$out" "output y has shape [1, 2, 3, 8], the case states [1, 2, 3, 9]" "a wrong outputShapes without expected not reported"
    expect_line "$out" "FAIL $k shape_unknown: error: output_shapes zz:" "outputShapes zz not refused"
    expect_line "$out" "PASS $k shape_right" "outputShapes keyed Y did not pass"
    expect_line "$out" "cases[5] (typo_case).tolerence: unknown field" "an unknown case field not refused"
    expect_line "$out" "cases[6] (typo_input).inputs.x.value: unknown field" "an unknown input field not refused"
    expect_line "$out" "2 passed, 5 failed" "expected 2 passed, 5 failed"
    ;;
  test_int_attr)
    printf '{"cases": [%s, %s]}\n' "$(rank3 heads_float 3.0)" "$(rank3 heads_int 3)" > "$web/test.json"
    on_copy test
    echo "$out" | grep -qF "FAIL webgpu-kernels/ai.onnx.RotaryEmbedding heads_float: error: ai.onnx.RotaryEmbedding: $int_rule" ||
      fail "no INT-attribute error for num_heads 3.0"
    echo "$out" | grep -q "^PASS .* heads_int" || fail "the num_heads 3 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  bench_int_attr)
    printf '{"cases": [%s, %s]}\n' "$(rank3 heads_float 3.0)" "$(rank3 heads_int 3)" > "$web/bench.json"
    bench1
    echo "$out" | grep -qF "heads_float skipped: ai.onnx.RotaryEmbedding: $int_rule" || fail "no INT-attribute error for num_heads 3.0"
    echo "$out" | grep -q "^1 ran, 1 skipped" || fail "expected 1 ran, 1 skipped"
    ;;
  bench_dtype)
    printf '{"cases": [%s, %s]}\n' "$(rank4 pos_int64 int64)" "$(rank4 pos_int32 int32)" > "$web/bench.json"
    rule="bench.json: cases[1] (pos_int32).inputs.positionIds: input positionIds (position_ids): dtype int32 is not allowed for type M (allowed: int64)"
    for cmd in bench validate; do
      if [ $cmd = bench ]; then
        on_copy bench --rounds 1 --warmup 0 --iterations 1 --spin-up-ms 0
      else
        on_copy validate
      fi
      [ "$rc" != 0 ] || fail "wgk $cmd accepted the int32 case"
      echo "$out" | grep -qF "wgk: error: webgpu-kernels/ai.onnx.RotaryEmbedding: $rule" || fail "wgk $cmd: no type-constraint error"
      ! echo "$out" | grep -q "pos_int64 \[" || fail "wgk $cmd timed a case before refusing the file"
    done
    ;;
  validate_test_dtype)
    printf '{"cases": [%s, %s]}\n' "$(rank4 pos_int64 int64)" "$(rank4 pos_uint32 uint32)" > "$web/test.json"
    on_copy validate
    [ "$rc" != 0 ] || fail "wgk validate accepted the uint32 case"
    echo "$out" | grep -qF "wgk: error: webgpu-kernels/ai.onnx.RotaryEmbedding: test.json: cases[1] (pos_uint32).inputs.positionIds: input positionIds (position_ids): dtype uint32 is not allowed for type M (allowed: int64)" ||
      fail "no type-constraint error"
    ;;
  test_bool_attr)
    printf '{"cases": [%s, %s]}\n' "$(interleaved flag_bool true)" "$(interleaved flag_int 1)" > "$web/test.json"
    on_copy test
    echo "$out" | grep -qF "FAIL webgpu-kernels/ai.onnx.RotaryEmbedding flag_bool: error: webgpu-kernels/ai.onnx.RotaryEmbedding: test.json: cases[0] (flag_bool).attrs.interleaved: true is a JSON boolean, which no ONNX attribute type holds (AttributeProto: INT, FLOAT, STRING and their lists); an INT flag is 0 or 1" ||
      fail "no error for interleaved true"
    echo "$out" | grep -q "^PASS .* flag_int" || fail "the interleaved 1 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  test_attr_past_int64)
    printf '{"cases": [%s, %s]}\n' "$(rms_axis axis_wraps 18446744073709551615)" "$(rms_axis axis_last -1)" > "$web/test.json"
    on_copy test
    echo "$out" | grep -qF "FAIL webgpu-kernels/ai.onnx.RMSNormalization axis_wraps: error: ai.onnx.RMSNormalization: attribute 'axis': value 1.8446744073709552e+19 (float) is not an integer (ONNX INT attribute: AttributeProto.i, an int64; a float is refused even when integral)" ||
      fail "no INT-attribute error for axis 2^64 - 1"
    echo "$out" | grep -q "^PASS .* axis_last" || fail "the axis -1 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  test_float_tunable)
    printf '{"cases": [%s, %s]}\n' "$(tunable_wg wg_float 6.4e1)" "$(tunable_wg wg_int 64)" > "$web/test.json"
    on_copy test
    expect_line "$out" "FAIL webgpu-kernels/ai.onnx.RotaryEmbedding wg_float: error: ai.onnx.RotaryEmbedding: $tunable_rule" \
      "no integer-tunable error for WORKGROUP_SIZE 6.4e1"
    echo "$out" | grep -q "^PASS .* wg_int" || fail "the WORKGROUP_SIZE 64 case did not pass"
    echo "$out" | grep -q "^1 passed, 1 failed" || fail "expected 1 passed, 1 failed"
    ;;
  test_integer_ranges)
    x='[1, 2, 3, 8]'
    pos='{"shape": [1, 3], "values": [0, 3, 1]}'
    printf '{"cases": [%s, %s, %s, %s, %s, %s, %s]}\n' \
      "$(ranged pos_past_int64 "" "$x" '{"shape": [1, 3], "values": [0, 9223372036854775808, 1]}' "")" \
      "$(ranged rand_past_int64 "" "$x" '{"shape": [1, 3], "randomInt": [0, 9223372036854775808]}' "")" \
      "$(ranged u32_past_range "" "$x" "$pos" ', "extra": {"shape": [1], "dtype": "uint32", "values": [4294967296]}')" \
      "$(ranged negative_dim "" '[1, -2, 3, 8]' "$pos" "")" \
      "$(ranged seed_negative '"seed": -1,' "$x" "$pos" "")" \
      "$(ranged seed_past_uint64 '"seed": 18446744073709551616,' "$x" "$pos" "")" \
      "$(ranged seed_largest '"seed": 18446744073709551615,' "$x" "$pos" "")" > "$web/test.json"
    on_copy test
    at="FAIL webgpu-kernels/ai.onnx.RotaryEmbedding"
    cases="error: webgpu-kernels/ai.onnx.RotaryEmbedding: test.json: cases"
    expect_line "$out" "$at pos_past_int64: $cases[0] (pos_past_int64).inputs.positionIds.values[1]: 9223372036854775808 $int64_range (the default dtype of \`values\`; name a float \`dtype\` for other numbers)" \
      "no range error for a value of 2^63"
    expect_line "$out" "$at rand_past_int64: $cases[1] (rand_past_int64).inputs.positionIds.randomInt[1]: 9223372036854775808 $int64_range" \
      "no range error for a randomInt bound of 2^63"
    expect_line "$out" "$at u32_past_range: $cases[2] (u32_past_range).inputs.extra.values[0]: 4294967296 is not an integer in [0, 4294967295], uint32's range" \
      "no range error for a uint32 value of 2^32"
    expect_line "$out" "$at negative_dim: $cases[3] (negative_dim).inputs.x.shape[1]: -2 is not an integer in [0, 9223372036854775807], a dimension's range (>= 0, an int64)" \
      "no range error for a dimension of -2"
    expect_line "$out" "$at seed_negative: $cases[4] (seed_negative).seed: -1 is not an integer in [0, 18446744073709551615], a seed's range (std::mt19937_64's uint64)" \
      "no range error for a seed of -1"
    expect_line "$out" "$at seed_past_uint64: $cases[5] (seed_past_uint64).seed: 1.8446744073709552e+19 is not an integer in [0, 18446744073709551615]" \
      "no range error for a seed of 2^64"
    echo "$out" | grep -q "^PASS .* seed_largest" || fail "the case with seed 2^64 - 1 did not pass"
    echo "$out" | grep -q "^1 passed, 6 failed" || fail "expected 1 passed, 6 failed"
    ;;
  bench_integer_ranges)
    printf '{"cases": [%s, %s, %s]}\n' "$(rank4 timed int64)" \
      "$(ranged negative_dim "" '[1, -2, 3, 8]' '{"shape": [1, 3], "randomInt": [0, 3]}' "")" \
      "$(ranged rand_past_int64 "" '[1, 2, 3, 8]' '{"shape": [1, 3], "randomInt": [9223372036854775808, 0]}' "")" > "$web/bench.json"
    bench1
    expect_line "$out" "negative_dim skipped: negative_dim.inputs.x.shape[1]: -2 is not an integer in [0, 9223372036854775807], a dimension's range (>= 0, an int64)" \
      "no range error for a dimension of -2"
    expect_line "$out" "rand_past_int64 skipped: rand_past_int64.inputs.positionIds.randomInt[0]: 9223372036854775808 $int64_range" \
      "no range error for a randomInt bound of 2^63"
    echo "$out" | grep -q "^1 ran, 2 skipped" || fail "expected 1 ran, 2 skipped"
    ;;
  validate_case_rules)
    ok_case=$(rank3 heads_int 3)
    validate_refuses "{\"cases\": [$ok_case, $(rank3 heads_float 3.0)]}" '{"cases": []}' \
      "test.json: cases[1] (heads_float).attrs.num_heads: $int_rule"
    validate_refuses "{\"cases\": [$(interleaved flag_bool true)]}" '{"cases": []}' \
      "test.json: cases[0] (flag_bool).attrs.interleaved: true is a JSON boolean, which no ONNX attribute type holds"
    validate_refuses "{\"cases\": [$ok_case]}" "{\"cases\": [$(tunable_wg wg_int 64), $(tunable_wg wg_float 64.0)]}" \
      "bench.json: cases[1] (wg_float).tunables.WORKGROUP_SIZE: $tunable_rule"
    ;;
  *) fail "unknown mode $mode" ;;
esac
