set -uo pipefail
B=.h200f2; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
step tests
for p in kernels/*/; do [ -f "$p/build/webgpu/manifest.json" ] || continue; timeout 90 $W test "$p"; timeout 90 $W validate "$p"; done > $R/tests.txt 2>&1
grep -E "passed|validate:|FAIL|OK" $R/tests.txt | grep -v "^PASS" | tail -12
$W devices > $R/devices.txt 2>&1; grep -E "toggles|NVIDIA" $R/devices.txt | head -3
step bench_host
taskset -c 3 $B/bench_host --benchmark_filter='BM_Flush/' --benchmark_min_time=0.2 --benchmark_repetitions=10 > $R/flush_reps.txt 2> $R/flush_reps.err; echo "flush reps rc=$?"
tail -5 $R/flush_reps.err; grep -E "_median|_mean" $R/flush_reps.txt | head -8
step end
tar czf $OUT/final5.tgz -C /tmp r
cat $R/steps.txt
