# Thirteenth session's first H200 call (issue 17): RoPE f32 with mkshuffle.py's vec4 kernel (a subgroup's loads and
# stores one contiguous row each, the partner half by subgroupShuffle), head order (g1) and token order in head groups
# of 4 / 8 / 16, and g1 / g8 without cos/sin (_none), against the shipped package (first and last) at the 1 GiB
# shape; g1 and g8 at 512 MiB and 64 MiB; CUDA's copy before; `wgk test` of g1 and g8 (KERNEL=vec4) for the values
# (variant-expectation failures are expected: the scratch tunable moves cases to the vec4 variant; g8 also fails on
# head counts that are not multiples of 8, rank 3 and the interleaved/partial 2-D dispatch cases).
# Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk; python3 docs/perf/h200_2026-12-03/scripts/mkshuffle.py
# .h200x/sh 1 4 8 16 1:none 8:none and wgk metadata on each; carry .gl .h200x. On the device: bash this file.
set -uo pipefail
R=/tmp/ra; source docs/perf/h200_2026-12-03/scripts/common.sh
step torch_copy; timeout 120 python3 bench/peers/torch_copy.py --mib 64,512,1024 > $R/torch_copy.txt 2>&1; cat $R/torch_copy.txt
P=ai.onnx.RotaryEmbedding; c=prefill_r4_b1_s65536_h32x128_f32
one shipped_1 webgpu-kernels/$P $c
for run in 1 2; do for v in g1 g4 g8 g16 g1_none g8_none; do
  one ${v}_$run $B/sh/$v/$P $c --tunable KERNEL=vec4
done; done
for c2 in prefill_r4_b4_s8192_h32x128_f32 prefill_r4_b1_s4096_h32x128_f32; do
  one shipped_$c2 webgpu-kernels/$P $c2
  for v in g1 g8; do one ${v}_$c2 $B/sh/$v/$P $c2 --tunable KERNEL=vec4; done
done
one shipped_2 webgpu-kernels/$P $c
for v in g1 g8; do
  step test_$v; timeout 240 $W test $B/sh/$v/$P --tunable KERNEL=vec4 > $R/test_$v.txt 2>&1
  echo "== test $v: $(tail -1 $R/test_$v.txt); value failures: $(grep '^FAIL' $R/test_$v.txt | grep -vc ' 0 outside tolerance, 0 NaN mismatches, 0 Inf mismatches')"
done
step end
tar czf $OUT/run_a.tgz -C /tmp ra
