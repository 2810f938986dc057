set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 120 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
bench rope_2dfix_head $K/rope_2dfix/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head
bench rope_nocache_2dfix_head $K/rope_nocache_2dfix/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head
bench skip_base $K/skip/com.microsoft.SkipSimplifiedLayerNormalization
bench skip_wg128 $K/skip/com.microsoft.SkipSimplifiedLayerNormalization --tunable WORKGROUP_SIZE=128
if [ -f .h200h/run.sh ]; then step host; R=$R B=$B timeout 200 bash .h200h/run.sh > $R/host.txt 2>&1; fi
step end
tar czf $OUT/exp4.tgz -C /tmp r
cat $R/steps.txt
