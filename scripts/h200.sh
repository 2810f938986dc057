#!/usr/bin/env bash
# The benchmark run behind docs/PERF.md, on the H200 device machine. Run from the repository root there,
# with .gl/ = the Vulkan loader .debs and $B = a folder holding stripped `wgk`, libwebgpu_wrapper.so.xz
# and (optional) ort.tar.xz = node + onnxruntime-node (docs/PERF.md "Reproduce" says how they are made).
# Writes into $OUT: clocks.csv, wgk.{txt,json,csv}, ort.{txt,json}, torch.{txt,json}.
#   PEERS=0  only wgk bench (about 2.5 min; the peers add about 5 min)
set -uo pipefail
B=${B:-.h200c}
OUT=${OUT:-/tmp/h200-out}
mkdir -p "$OUT"
. scripts/h200_env.sh
# The clocks while everything runs: under Vulkan the H200 stays at idle clocks unless its queue is kept
# full, which `wgk bench` and ort_webgpu.mjs do before each case (--spin-up-ms); this log shows it.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active \
  --format=csv -lms 250 > "$OUT/clocks.csv" &
logger=$!
trap 'kill $logger' EXIT

# 1. our kernels against the same-round vec4 copy and an empty dispatch
timeout 320 "$B/wgk" bench --rounds 3 --warmup 10 --iterations 50 --json "$OUT/wgk.json" --csv "$OUT/wgk.csv" 2>&1 \
  | grep -v '^Warning' | tee "$OUT/wgk.txt"
[ "${PEERS:-1}" = 0 ] && exit 0
python3 bench/peers/make_models.py /tmp/models --chain 17 > /dev/null
# 2. ONNX Runtime's WebGPU EP: its own GPU timestamps per kernel (--profile), time per chained node
if [ -f "$B/ort.tar.xz" ]; then
  python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall('/tmp')" "$B/ort.tar.xz"
  ORT_NODE=/tmp/ort/node_modules/onnxruntime-node timeout 300 /tmp/ort/node bench/peers/ort_webgpu.mjs \
    --models /tmp/models --warmup 1 --iterations 5 --case-budget-s 1 --profile --json "$OUT/ort.json" 2>&1 \
    | grep -v '^Warning' | tee "$OUT/ort.txt"
fi
# 3. PyTorch eager and torch.compile (CUDA events; decode sizes are bound by Python launch overhead)
timeout 300 python3 bench/peers/torch_rope.py /tmp/models/cases.json --json "$OUT/torch.json" 2>&1 | tee "$OUT/torch.txt"
