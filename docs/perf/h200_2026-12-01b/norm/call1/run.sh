#!/usr/bin/env bash
# perf helper's device call: wgk test of the changed packages, then wgk bench after (this branch) and before (main).
set -uo pipefail
B=.h200p
for f in .gl/*.deb; do dpkg -x "$f" / ; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$PWD/$B XDG_RUNTIME_DIR=/tmp HF_HUB_OFFLINE=1
[ -f "$B/libwebgpu_wrapper.so" ] || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$B/libwebgpu_wrapper.so.xz" "$B/libwebgpu_wrapper.so"
W=$B/wgk
RA=$B/after/ai.onnx.RMSNormalization; SA=$B/after/com.microsoft.SkipSimplifiedLayerNormalization
start=$(date +%s)
t() { echo "== $(( $(date +%s) - start ))s $*" >> $OUT/log.txt; }
$W devices > $OUT/devices.txt 2>&1
t test
timeout 25 $W test $RA $SA > $OUT/test.txt 2>&1
bench() {  # name, timeout, args...
  local n=$1 to=$2; shift 2; t "$n"
  timeout $to $W bench "$@" --rounds 2 --spin-up-ms 500 --json $OUT/$n.json > $OUT/$n.txt 2>&1 || echo "$n: rc $?" >> $OUT/log.txt
}
bench after_rms_decode 35 $RA --filter decode
bench after_rms_prefill 40 $RA --filter prefill
bench after_rms_rows 25 $RA --filter _rows_
bench after_skip_decode 30 $SA --filter decode
bench after_skip_prefill 35 $SA --filter prefill
bench before 45 $B/before/ai.onnx.RMSNormalization $B/before/com.microsoft.SkipSimplifiedLayerNormalization
t done
grep -h "FAIL\|passed" $OUT/test.txt | cut -c1-300
cat $OUT/log.txt
for f in $OUT/after_*.txt $OUT/before.txt; do echo "# $f"; grep -h "empty dispatch\|^ai.onnx\|^com.microsoft" $f | sed 's/  */ /g' | cut -c1-150; done
