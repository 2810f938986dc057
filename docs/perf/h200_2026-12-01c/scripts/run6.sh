set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 120 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
for i in 1 2; do
bench rms_base_$i $K/base2/ai.onnx.RMSNormalization
bench rms_sgsum_$i $K/rms_sgsum/ai.onnx.RMSNormalization
done
step end
tar czf $OUT/exp6.tgz -C /tmp r
cat $R/steps.txt
