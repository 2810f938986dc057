#!/usr/bin/env bash
# ONNX Runtime's WebGPU EP against ours at equal clocks, on the H200 device machine (docs/PERF.md "ONNX Runtime at
# equal clocks"). From the repository root there, with .gl/ = the Vulkan loader .debs and $B = a folder holding
# stripped `wgk`, its shared libraries, libwebgpu_wrapper.so.xz and ort.tar.xz (node + onnxruntime-node as
# ort/{node,node_modules/...}). Phases, each logged with its start time in $OUT/phases.txt beside the clock log
# $OUT/clocks.csv: (A) ours, no keep-alive (wgk bench's own spin-up); (B) ours under the sparse CUDA keep-alive
# (bench/peers/cuda_keepalive.py): B against A is the keep-alive's distortion; (C) ORT under the keep-alive;
# (D) ORT without it (idle clocks, as before). CASES="<package>/<case> ..." picks the bench.json cases (default:
# four ai.onnx RoPE f32 cases); PERIOD_MS the keep-alive period (default 10).
set -uo pipefail
B=${B:-.h200o}
OUT=${OUT:-/tmp/ort-fair}
PERIOD_MS=${PERIOD_MS:-10}  # 1 ms time-sliced kernels over ~300 us on both sides (docs/PERF.md)
mkdir -p "$OUT"
. scripts/h200_env.sh
python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall('/tmp')" "$B/ort.tar.xz"
# CASES: "<package>/<bench.json case>" items, space-separated (default: four ai.onnx RoPE cases, f32)
read -r -a CASES <<< "${CASES:-ai.onnx.RotaryEmbedding/decode_r4_b1_h32x128_f32 ai.onnx.RotaryEmbedding/prefill_r4_b1_s4096_h32x128_f32 ai.onnx.RotaryEmbedding/prefill_r4_b4_s8192_h32x128_f32 ai.onnx.RotaryEmbedding/prefill_r4_b1_s65536_h32x128_f32}"
ORT_FILTER=$(printf '%s$|' "${CASES[@]}"); ORT_FILTER=${ORT_FILTER%|}  # "$": the whole name
python3 bench/peers/make_models.py /tmp/models --chain 17 --filter "$ORT_FILTER" > /dev/null
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv -lms 100 > "$OUT/clocks.csv" &
logger=$!
keeper=
trap 'kill $logger $keeper 2>/dev/null' EXIT
phase() { echo "$(date -u +%Y/%m/%d\ %H:%M:%S.%N) $1" >> "$OUT/phases.txt"; }
ours() {
  for item in "${CASES[@]}"; do
    timeout 120 "$B/wgk" bench "webgpu-kernels/${item%%/*}" --filter "${item#*/}" --rounds 3 --warmup 10 \
      --iterations 50 --json "$OUT/wgk_$1_${item//\//_}.json" 2>&1 | grep -E "^\| |us" | grep -v Warning
  done
}
ort() {
  ORT_NODE=/tmp/ort/node_modules/onnxruntime-node timeout 300 /tmp/ort/node bench/peers/ort_webgpu.mjs \
    --models /tmp/models --filter "$ORT_FILTER" --warmup 1 --iterations 5 --profile --json "$OUT/ort_$1.json" 2>&1 \
    | grep -v '^Warning'
}
phase "A ours, no keep-alive"; ours none
python3 bench/peers/cuda_keepalive.py --period-ms "$PERIOD_MS" > "$OUT/keepalive.txt" 2>&1 &
keeper=$!
sleep 3
phase "B ours, keep-alive every $PERIOD_MS ms"; ours keep
phase "C ORT, keep-alive every $PERIOD_MS ms"; ort keep
kill $keeper; keeper=
sleep 2
phase "D ORT, no keep-alive"; ort idle
phase "end"
