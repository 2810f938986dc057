set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; K=$B/kx
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 150 $W bench "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
bench rms_base $K/rms_rc16/ai.onnx.RMSNormalization
WGK_DAWN_ENABLE_TOGGLES=disable_robustness bench rms_norobust $K/rms_rc16/ai.onnx.RMSNormalization
bench rms_base2 $K/rms_rc16/ai.onnx.RMSNormalization
WGK_DAWN_ENABLE_TOGGLES=disable_robustness bench rope_norobust $K/rope_base/ai.onnx.RotaryEmbedding
step end
tar czf $OUT/exp10.tgz -C /tmp r
cat $R/steps.txt
for f in $R/r*.txt; do echo "== $f"; sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass" | cut -c33-; done
