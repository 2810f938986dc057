# Eleventh session's second H200 call (issue 17): RoPE (1, 32, 65536, 128) f32, the bench case (positions random
# in [0, 65535]), each setting in its own process: the shipped token order (first and last); mkslab.py's scratch
# package, token order with HEAD_GROUP 8 or 32 and the grid capped at GRID_CAP workgroups (grid-stride loop);
# mkblock.py's head-order loop in blocks of 64 and 256 tokens; CUDA's copy of 512 MiB and 1 GiB in the same call.
# Staging: as run_a.sh, plus mkslab.py .h200x/slab and mkblock.py .h200x/kb 64 256 (wgk metadata on each).
set -uo pipefail
R=/tmp/rb; source docs/perf/h200_2026-12-02e/scripts/common.sh
c=prefill_r4_b1_s65536_h32x128_f32
one token_1 webgpu-kernels/ai.onnx.RotaryEmbedding $c
S=$B/slab/ai.onnx.RotaryEmbedding
for hg in 8 32; do for cap in 528 792 1056 1584 2112; do
  one slab_hg${hg}_cap$cap $S $c --tunable ROW_ORDER=token,HEAD_GROUP=$hg,GRID_CAP=$cap
done; done
one slab_hg32_uncapped $S $c --tunable ROW_ORDER=token,HEAD_GROUP=32
for tb in 64 256; do one tb$tb $B/kb/tb$tb/ai.onnx.RotaryEmbedding $c --tunable ROW_ORDER=head; done
one token_2 webgpu-kernels/ai.onnx.RotaryEmbedding $c
step torch_copy; timeout 120 python3 bench/peers/torch_copy.py --mib 512,1024 > $R/torch_copy.txt 2>&1; cat $R/torch_copy.txt
step end
tar czf $OUT/run_b.tgz -C /tmp rb
