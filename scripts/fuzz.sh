#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, -DWGK_FUZZ=ON: ASan + UBSan + coverage) and runs each for
# SECONDS seconds (default 600) on its corpus in tests/fuzz/corpus/<name>.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      TARGET: expr, template, manifest (default: all three)
#   JOBS=2 scripts/fuzz.sh 600                 run two targets at a time (default: one)
#   BUILD_DIR=build-fuzz-x scripts/fuzz.sh     build folder (default build-fuzz-script)
#   FUZZ_FLAGS="-fork=1 -ignore_timeouts=1 -ignore_crashes=1" scripts/fuzz.sh 600 expr
#                                              extra libFuzzer flags (here: keep going past findings;
#                                              by default libFuzzer stops at the first crash or timeout)
#
# New corpus units go to $WORK/corpus/<name> (outside git; merge interesting small ones by hand with
# `fuzz_<name> -merge=1 tests/fuzz/corpus/<name> $WORK/corpus/<name>`); crash inputs to
# $WORK/crashes/<name>/ (copy them to tests/fuzz/crashes/ to keep them); logs to $WORK/<name>.log.
# Each run ends with a summary line per target: executions, exec/s, cov, corpus units, findings.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-600}
shift || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -eq 0 ]] && TARGETS=(expr template manifest)
BUILD_DIR=${BUILD_DIR:-build-fuzz-script}
WORK=${WORK:-$BUILD_DIR/fuzz-work}
JOBS=${JOBS:-1}
CXX_FUZZ=${CXX_FUZZ:-clang++-14}

if [[ ! -f $BUILD_DIR/build.ninja ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CXX_FUZZ" \
    -DWGK_FUZZ=ON -DWGK_BENCHMARKS=OFF
fi
cmake --build "$BUILD_DIR" -j"${BUILD_JOBS:-2}" --target "${TARGETS[@]/#/fuzz_}"

run_one() {
  local name=$1
  local bin=$BUILD_DIR/tests/fuzz/fuzz_$name
  # Findings of earlier runs would be counted as this run's: start each run with an empty crash folder.
  rm -rf "$WORK/crashes/$name"
  mkdir -p "$WORK/corpus/$name" "$WORK/crashes/$name"
  # The first folder receives new units; the checked-in corpus is read only.
  local rc=0
  "$bin" "$WORK/corpus/$name" "tests/fuzz/corpus/$name" -max_total_time="$SECONDS_PER_TARGET" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$WORK/crashes/$name/" ${FUZZ_FLAGS:-} \
    >"$WORK/$name.log" 2>&1 || rc=$?
  summarize "$name" "$rc"
  return 0
}

summarize() {
  local name=$1 rc=$2 log=$WORK/$1.log
  local execs rate cov units findings
  execs=$(grep -oE 'stat::number_of_executed_units:[[:space:]]*[0-9]+' "$log" | awk '{print $2}' | tail -1 || true)
  rate=$(grep -oE 'stat::average_exec_per_sec:[[:space:]]*[0-9]+' "$log" | awk '{print $2}' | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | awk '{print $2}' | tail -1 || true)
  # Fork mode and early stops print no final stats: take the last status line ("#N ... exec/s: R").
  [[ -z $execs ]] && execs=$(grep -o '^#[0-9]*' "$log" | tr -d '#' | tail -1 || true)
  [[ -z $rate || $rate == 0 ]] && rate=$(grep -oE 'exec/s:? [0-9]+' "$log" | awk '{print $2}' | tail -1 || true)
  units=$(ls "$WORK/corpus/$name" | wc -l)
  findings=$(ls "$WORK/crashes/$name" | wc -l)
  echo "fuzz_$name: rc=$rc executions=${execs:-?} exec/s=${rate:-?} cov=${cov:-?} new_corpus_units=$units" \
       "checked_in_units=$(ls tests/fuzz/corpus/$name | wc -l) findings=$findings ($WORK/crashes/$name)"
}

for name in "${TARGETS[@]}"; do
  run_one "$name" &
  while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || true; done
done
wait
