#!/usr/bin/env bash
# The benchmark run behind docs/PERF.md, on the H200 device machine (run from the repository root
# there, with .gl/ = the Vulkan loader .debs and $B = stripped wgk + bench_host, libwebgpu_wrapper.so.xz
# and ort.tar.xz = node + onnxruntime-node; docs/PERF.md "Reproduce" says how they are made).
# Writes into $OUT: gpu.txt, wgk.{txt,json,csv}, host.txt, ort.{txt,json}, torch.{txt,json}.
set -uo pipefail
B=${B:-.h200b}
OUT=${OUT:-/tmp/h200-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp
export LD_LIBRARY_PATH=$PWD/$B PYTHONUNBUFFERED=1
[ -f "$B/libwebgpu_wrapper.so" ] || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" \
  "$B/libwebgpu_wrapper.so.xz" "$B/libwebgpu_wrapper.so"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
python3 bench/peers/make_models.py /tmp/models

# 1. our kernels against the same-run vec4 copy and empty dispatch
timeout 200 "$B/wgk" bench --warmup 10 --iterations ${ITER:-100} --json "$OUT/wgk.json" --csv "$OUT/wgk.csv" 2>&1 \
  | grep -v '^Warning' | tee "$OUT/wgk.txt"
# 2. host cost of one decode call
timeout 60 "$B/bench_host" --benchmark_min_time=0.2 2>&1 | grep -v '^Warning' | tee "$OUT/host.txt"
# 3. ONNX Runtime WebGPU EP (onnxruntime-node, host IO)
if [ -f "$B/ort.tar.xz" ]; then
  python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall('/tmp')" "$B/ort.tar.xz"
  ORT_NODE=/tmp/ort/node_modules/onnxruntime-node timeout 150 /tmp/ort/node bench/peers/ort_webgpu.mjs \
    --models /tmp/models --iterations 30 --json "$OUT/ort.json" 2>&1 | grep -v '^Warning' | tee "$OUT/ort.txt"
fi
# 4. PyTorch eager and torch.compile
timeout 300 python3 bench/peers/torch_rope.py /tmp/models/cases.json --json "$OUT/torch.json" 2>&1 | tee "$OUT/torch.txt"
