set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 150 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
bench rms_base $K/rms_base/ai.onnx.RMSNormalization
bench rms_noconv $K/rms_noconv/ai.onnx.RMSNormalization
bench rms_base2 $K/rms_base/ai.onnx.RMSNormalization
bench rms_noconv2 $K/rms_noconv/ai.onnx.RMSNormalization
step end
tar czf $OUT/exp11.tgz -C /tmp r
for f in $R/r*.txt; do echo "== $f"; grep -E "^\S+\s+\S+\s+\[?row" $f | head -0; sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass" | cut -c33-; done
