set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 250 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 120 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
bench rms_base $K/base/ai.onnx.RMSNormalization
bench rms_wg128 $K/base/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=128
bench rms_wg512 $K/base/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=512
bench rms_wg1024 $K/base/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=1024
bench rms_stagger $K/stagger/ai.onnx.RMSNormalization --tunable ROW_PAIR=auto
bench rms_stagger_wg128 $K/stagger/ai.onnx.RMSNormalization --tunable ROW_PAIR=auto,WORKGROUP_SIZE=128
bench rms_pairvec2 $K/pairvec2/ai.onnx.RMSNormalization --tunable ROW_PAIR=auto
bench rope_base $K/base/ai.onnx.RotaryEmbedding
bench rope_const $K/const/ai.onnx.RotaryEmbedding
bench rope_hg4 $K/hg4/ai.onnx.RotaryEmbedding
bench rope_hg8 $K/hg8/ai.onnx.RotaryEmbedding
bench rope_hg16 $K/hg16/ai.onnx.RotaryEmbedding
bench rope_hg8_wg128 $K/hg8/ai.onnx.RotaryEmbedding --tunable WORKGROUP_SIZE=128
bench rope_hg8_wg64 $K/hg8/ai.onnx.RotaryEmbedding --tunable WORKGROUP_SIZE=64
bench rope_base2 $K/base/ai.onnx.RotaryEmbedding
bench rms_base2 $K/base/ai.onnx.RMSNormalization
if [ -f .h200h/run.sh ]; then step host; (cd . && R=$R B=$B timeout 240 bash .h200h/run.sh) > $R/host.txt 2>&1; fi
step end; kill $logger
tar czf $OUT/exp1.tgz -C /tmp r
for f in $R/*.txt; do echo "== $f"; grep -E "^\|? ?(prefill|ai\.onnx)|prefill_" $f | head -8; done 2>/dev/null | cut -c1-220
cat $R/steps.txt
