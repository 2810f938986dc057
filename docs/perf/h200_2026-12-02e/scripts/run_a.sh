# Eleventh session's H200 call (issue 17). (1) CUDA's copy of 512 MiB and 1 GiB, then the shipped RoPE
# (1, 32, 65536, 128) f32 and packed f16 (auto order) against the same-run WGSL copy, twice, then CUDA's copy
# again: the same-call ratio. (2) Placement: the scratch package of mkplace.py, every case in head and in token
# order, each case in its own process, once in each order, then once more in head order. (3) The WGSL copy of 1 GiB with the gaps those cases leave between x and y.
# Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk build/bench/bench_copy_sweep; mkplace.py .h200x/place
# and wgk metadata on it; carry .gl .h200x. On the device: bash docs/perf/h200_2026-12-02e/scripts/run_a.sh
set -uo pipefail
R=/tmp/ra; LINE=1-170; source docs/perf/h200_2026-12-02e/scripts/common.sh
step torch_copy_1; timeout 120 python3 bench/peers/torch_copy.py --mib 512,1024 > $R/torch_copy_1.txt 2>&1; cat $R/torch_copy_1.txt
R4=webgpu-kernels/ai.onnx.RotaryEmbedding
for run in 1 2; do for t in f32 f16; do one rope_auto_${t}_$run $R4 prefill_r4_b1_s65536_h32x128_$t; done; done
step torch_copy_2; timeout 120 python3 bench/peers/torch_copy.py --mib 512,1024 > $R/torch_copy_2.txt 2>&1; cat $R/torch_copy_2.txt
P=$B/place/ai.onnx.RotaryEmbedding
CASES="R8192_p8192 R16384_p8192 R32768_p8192 R49152_p8192 R65536_p8192 R98304_p8192 R131072_p8192 R65536_p65536"
for c in $CASES; do for o in head token; do one ${o}_${c}_1 $P place_$c --tunable ROW_ORDER=$o; done; done  # a process a case
for c in $CASES; do one head_${c}_2 $P place_$c --tunable ROW_ORDER=head; done
step copy_gaps; timeout 120 $B/bench_copy_sweep --mib 1024 --gap-mib 0,4.5,8.5,16.5,24.5,32.5,48.5,64.5 > $R/copy_gaps.txt 2>&1; cat $R/copy_gaps.txt
step end
tar czf $OUT/run_a.tgz -C /tmp ra
