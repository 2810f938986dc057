#!/usr/bin/env bash
# Our copy and kernels against CUDA's copy of the same bytes, each timed back to back (docs/PERF.md "The copy
# baseline and CUDA's copy"), on the H200 device machine, from the repository root there, with .gl/ = the
# Vulkan loader .debs and $B = a folder holding stripped `wgk` and `bench_copy_sweep`, their shared libraries
# and libwebgpu_wrapper.so.xz. Writes into $OUT: sweep.txt (bench_copy_sweep: per pass, and per dispatch of 20
# in one pass), torch_copy.txt (torch copy_: back to back, and one between its events), rope_one_pass.{txt,json}
# (`wgk bench --one-pass 20` of both RoPE packages' prefill cases), clocks.csv.
set -uo pipefail
B=${B:-.h200o}
OUT=${OUT:-/tmp/copy-limit}
FILTER=${FILTER:-prefill}
mkdir -p "$OUT"
. scripts/h200_env.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv -lms 250 > "$OUT/clocks.csv" &
logger=$!
trap 'kill $logger' EXIT
timeout 200 "$B/bench_copy_sweep" --mib 64,256,1024 --spin-up-ms 500 2>&1 | grep -v '^Warning' | tee "$OUT/sweep.txt"
timeout 60 python3 bench/peers/torch_copy.py --mib 64,256,1024 2>&1 | tee "$OUT/torch_copy.txt"
timeout 240 "$B/wgk" bench webgpu-kernels/ai.onnx.RotaryEmbedding webgpu-kernels/com.microsoft.RotaryEmbedding \
  --filter "$FILTER" --rounds 2 --spin-up-ms 300 --one-pass 20 --json "$OUT/rope_one_pass.json" 2>&1 \
  | grep -v '^Warning' | tee "$OUT/rope_one_pass.txt"
