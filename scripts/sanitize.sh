#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (-DWGK_SANITIZE=ON) in
# build-asan and runs the whole ctest suite there, GPU tests included (lavapipe on CPU machines).
# Dawn (libwebgpu_wrapper.so) and Mesa are not instrumented; LeakSanitizer reports from inside them
# are suppressed by tests/sanitize/lsan.supp, which names only those libraries.
#
#   scripts/sanitize.sh [ctest args...]       e.g. scripts/sanitize.sh -R runtime
#   BUILD_DIR=build-asan-x JOBS=2 scripts/sanitize.sh
#
# Prints the wall time of the build and of the test run at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-2}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
# halt_on_error: the first ASan report fails the test; detect_leaks on with the suppressions above.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0:strict_string_checks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

start=$(date +%s)
if [[ ! -f $BUILD_DIR/build.ninja ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWGK_SANITIZE=ON -DWGK_BENCHMARKS=OFF
fi
cmake --build "$BUILD_DIR" -j"$JOBS"
built=$(date +%s)
rc=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" --timeout 1200 "$@" || rc=$?
done_at=$(date +%s)
echo "sanitize.sh: build $((built - start)) s, tests $((done_at - built)) s, total $((done_at - start)) s (ctest exit $rc)"
exit $rc
