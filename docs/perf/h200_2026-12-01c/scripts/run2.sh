set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 250 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 120 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
bench rms_base $K/base/ai.onnx.RMSNormalization
bench rms_noreduce $K/rms_noreduce/ai.onnx.RMSNormalization
bench rms_noscale $K/rms_noscale/ai.onnx.RMSNormalization
bench rms_base_wg128 $K/base/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=128
bench rms_noreduce_wg128 $K/rms_noreduce/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=128
bench rope_base $K/base/ai.onnx.RotaryEmbedding
bench rope_nocache $K/rope_nocache/ai.onnx.RotaryEmbedding
bench rope_nopos $K/rope_nopos/ai.onnx.RotaryEmbedding
bench rope_nocache_head $K/rope_nocache/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head
bench rope_base2 $K/base/ai.onnx.RotaryEmbedding
step torch; timeout 120 python3 $B/torch_streams.py > $R/torch_streams.txt 2>&1
step end; kill $logger
tar czf $OUT/exp2.tgz -C /tmp r
cat $R/torch_streams.txt $R/steps.txt
