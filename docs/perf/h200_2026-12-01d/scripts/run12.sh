set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 150 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
for i in 1 2; do bench rms_base$i $K/rms_base/ai.onnx.RMSNormalization; bench rms_keep$i $K/rms_keep/ai.onnx.RMSNormalization; done
step end
tar czf $OUT/exp12.tgz -C /tmp r
for f in $R/r*.txt; do echo "== $f"; sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass" | cut -c33-; done
