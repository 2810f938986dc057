set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 500 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 150 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
for wg in 0 32 64 128 256; do bench rms_wg$wg $K/rms_rc16/ai.onnx.RMSNormalization --tunable WORKGROUP_SIZE=$wg; done
bench rope_base $K/rope_base/ai.onnx.RotaryEmbedding
bench rope_head $K/rope_base/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head
for T in 16 64 256 1024; do bench rope_tile$T $K/rope_tile$T/ai.onnx.RotaryEmbedding --tunable ROW_ORDER=head; done
step torch
timeout 60 python3 bench/peers/torch_copy.py --mib 8,1024 > $R/torch_copy.txt 2>&1
step end
kill $logger
tar czf $OUT/exp9.tgz -C /tmp r
cat $R/steps.txt; cat $R/torch_copy.txt | tail -5
for f in $R/r*.txt; do echo "== $f"; sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass" | cut -c33-; done
