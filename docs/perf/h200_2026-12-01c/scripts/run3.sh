set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 250 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 120 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
bench rms_scalar $K/rms_scalar/ai.onnx.RMSNormalization
bench rms_scalar_wg128 $K/rms_scalar/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=128
bench rms_rows $K/rms_rows/ai.onnx.RMSNormalization
bench rms_rows_wg128 $K/rms_rows/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=128
bench rope_2d_head $K/rope_2d/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head
bench rope_2d_token $K/rope_2d/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=token
bench rope_nocache_2d_head $K/rope_nocache_2d/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head
bench rope_skew1 $K/rope_skew1/ai.onnx.RotaryEmbedding
bench rope_skew16 $K/rope_skew16/ai.onnx.RotaryEmbedding
bench rope_base $K/base/ai.onnx.RotaryEmbedding
step end; kill $logger
tar czf $OUT/exp3.tgz -C /tmp r
cat $R/steps.txt
