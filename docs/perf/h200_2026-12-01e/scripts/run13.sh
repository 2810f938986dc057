# Sixth session, exp13 (2026-12-01e): run from the repository root on the device machine, .gl and .h200x carried
# (.h200x: stripped wgk and bench_host of main, their libraries, Debian's libjemalloc.so.2 and
# libtcmalloc_minimal.so.4, and the scratch RoPE packages of docs/perf/h200_2026-12-01c/scripts/mkexp.py in kx/).
# Writes $OUT/exp13.tgz.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 500 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
# 1. host time per batched call, pinned to one core, by allocator (the same binary; LD_PRELOAD replaces malloc)
ARGS=(--benchmark_filter='BM_Record|BM_BatchedCall' --benchmark_min_time=0.2 --benchmark_repetitions=5
      --benchmark_report_aggregates_only=true)
for round in 1 2; do
  for a in glibc libjemalloc.so.2 libtcmalloc_minimal.so.4; do
    step "bench_host $a $round"
    pre=""; [ $a = glibc ] || pre=$PWD/$B/$a
    LD_PRELOAD=$pre timeout 100 taskset -c 3 $B/bench_host "${ARGS[@]}" > $R/host_${a}_$round.txt 2>&1
  done
done
# 2. RoPE (1, 32, 65536, 128): heads in groups per invocation against the shipped kernel, f32 and packed f16
bench() { local name=$1; shift; step $name; timeout 150 $W bench "$@" --filter s65536 --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
bench rope_base kernels/ai.onnx.RotaryEmbedding
bench rope_hg8 $K/hg8/ai.onnx.RotaryEmbedding
bench rope_hg8_wg128 $K/hg8/ai.onnx.RotaryEmbedding --tunable WORKGROUP_SIZE=128
bench rope_hg16 $K/hg16/ai.onnx.RotaryEmbedding
bench rope_base2 kernels/ai.onnx.RotaryEmbedding
bench rope_hg8_wg128b $K/hg8/ai.onnx.RotaryEmbedding --tunable WORKGROUP_SIZE=128
step torch
timeout 60 python3 bench/peers/torch_copy.py --mib 512,1024 > $R/torch_copy.txt 2>&1
step end
kill $logger
tar czf $OUT/exp13.tgz -C /tmp r
cat $R/steps.txt; tail -4 $R/torch_copy.txt
for f in $R/host_*.txt; do echo "== $f"; grep -E 'median|min ' $f | grep -v '^-' | awk '{print $1, $2, $3}'; done
for f in $R/rope*.txt; do echo "== $f"; sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass" | cut -c33-; done
