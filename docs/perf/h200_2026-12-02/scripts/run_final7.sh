# Seventh session's final H200 call (2026-12-02): run from the repository root on the device machine with .gl and
# .h200f2 carried (.h200f2: stripped wgk and bench_host of the merged tree, bench_host_before = bench_host of
# e7fe785 (the sixth session's main), their libraries, libwebgpu_wrapper.so.xz). Every package's test.json and
# validate; bench_host before/after, pinned, in turn, twice; every package's bench.json (one pass of 20, --batch 64).
# Writes $OUT/final7.tgz.
set -uo pipefail
B=.h200f2; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 500 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
step tests
for p in kernels/*/; do [ -f "$p/build/webgpu/manifest.json" ] || continue; timeout 150 $W test "$p"; timeout 240 $W validate "$p"; done > $R/tests.txt 2>&1
step bench_host
ARGS=(--benchmark_filter='BM_Record|BM_BatchedCall' --benchmark_min_time=0.2 --benchmark_repetitions=5
      --benchmark_report_aggregates_only=true)
for round in 1 2; do
  for b in bench_host_before bench_host; do
    timeout 100 taskset -c 3 $B/$b "${ARGS[@]}" > $R/${b}_$round.txt 2>&1
  done
done
step rope
timeout 300 $W bench webgpu-kernels/ai.onnx.RotaryEmbedding webgpu-kernels/com.microsoft.RotaryEmbedding \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/rope.json > $R/rope.txt 2>&1
step norm
timeout 300 $W bench webgpu-kernels/ai.onnx.RMSNormalization webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/norm.json > $R/norm.txt 2>&1
step torch
timeout 60 python3 bench/peers/torch_copy.py --mib 64,512,1024 > $R/torch_copy.txt 2>&1
step end
kill $logger
tar czf $OUT/final7.tgz -C /tmp r
cat $R/steps.txt; grep -E "passed|validate:|FAIL" $R/tests.txt | grep -v "^PASS" | tail -12; tail -3 $R/torch_copy.txt
for f in $R/bench_host*_?.txt; do echo "== $f"; grep -E 'BatchedCall.*median|Record.*median' $f | awk '{print $1, $4, $5}'; done
sed -n "/^one pass/,/ran,/p" $R/rope.txt | grep prefill | cut -c1-140
for f in $R/rope.txt $R/norm.txt; do sed -n "/^batched calls/,/ran,/p" $f | cut -c1-32,81-200; done
