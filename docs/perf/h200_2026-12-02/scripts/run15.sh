# Seventh session, experiment call 15 (2026-12-02): is a linear sweep's speed on the H200 a matter of where its
# buffers are placed? Run from the repository root on the device machine with .gl and .h200x carried (.h200x:
# stripped wgk, bench_copy_sweep, bench_host and their libraries, libwebgpu_wrapper.so.xz). Writes $OUT/exp15.tgz.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 500 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
step copy_placement
PADS=0,0.0625,0.5,1,2,4,8,16,32,32.5,33,64,256
timeout 150 $B/bench_copy_sweep --mib 1024 --iterations 20 --spin-up-ms 300 --pad-mib $PADS --gap-mib 0,2,32.5 \
  > $R/copy_placement.txt 2>&1
timeout 60 $B/bench_copy_sweep --mib 64,512 --iterations 20 --spin-up-ms 300 --pad-mib 0,2,32.5 --gap-mib 0,32.5 \
  > $R/copy_placement_small.txt 2>&1
step torch_placement
timeout 90 python3 bench/peers/torch_copy.py --mib 1024 --pad-mib $PADS > $R/torch_placement.txt 2>&1
step rope_orders
for run in 1 2 3; do
  for order in token head; do
    timeout 100 $W bench webgpu-kernels/ai.onnx.RotaryEmbedding --filter prefill_r4_b1_s65536 --tunable ROW_ORDER=$order \
      --rounds 2 --spin-up-ms 300 --one-pass 20 > $R/rope_${order}_$run.txt 2>&1
  done
done
step bench_host
timeout 100 taskset -c 3 $B/bench_host --benchmark_filter='BM_Record|BM_BatchedCall' --benchmark_min_time=0.2 \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $R/bench_host.txt 2>&1
step end
kill $logger
tar czf $OUT/exp15.tgz -C /tmp r
cat $R/steps.txt
sort -k9 -n $R/copy_placement.txt | head -3; sort -k9 -n $R/copy_placement.txt | tail -3
cat $R/copy_placement_small.txt | grep MiB; grep MiB $R/torch_placement.txt
for f in $R/rope_*.txt; do echo "== $f"; grep -E "prefill.*us" $f | cut -c1-160; done
grep -E 'median' $R/bench_host.txt | awk '{print $1, $4, $5}'
