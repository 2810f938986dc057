set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 120 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }

bench rope_head $K/base/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head
bench rope_nocache_head $K/rope_nocache/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head

step end
tar czf $OUT/exp8.tgz -C /tmp r
for f in $R/rope_*.txt; do echo "== $f"; grep -A3 "^one pass" $f | tail -2; done
