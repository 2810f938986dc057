# exp16 on the H200 (docs/perf/h200_2026-12-02b/scripts/mkexp16.py makes .h200x/kx/rms_sg): packed f16
# RMSNormalization, one row a subgroup (SG_ROWS rows a workgroup) and integer f16 <-> f32 conversions (CONV),
# each setting timed against the same-run copy; the shipped kernel first and last. 12 runs of ~3 s (exp11: 3 s a run of 6 cases), each at most 18 s.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; P=$B/kx/rms_sg/ai.onnx.RMSNormalization
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 18 $W bench $P "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
$W devices > $R/devices.txt 2>&1
bench base
bench sg1 --tunable SG_ROWS=1
bench sg2 --tunable SG_ROWS=2
bench sg4 --tunable SG_ROWS=4
bench sg1_early --tunable SG_ROWS=1 --tunable SG_SCALE=early
bench sg4_early --tunable SG_ROWS=4 --tunable SG_SCALE=early
bench conv_unpack --tunable CONV=unpack
bench conv_all --tunable CONV=all
bench sg1_unpack --tunable SG_ROWS=1 --tunable CONV=unpack
bench sg4_unpack --tunable SG_ROWS=4 --tunable CONV=unpack
bench sg4_all --tunable SG_ROWS=4 --tunable CONV=all
bench base2
step end
tar czf $OUT/exp16.tgz -C /tmp r
grep -i subgroups $R/devices.txt | head -2
for f in $R/*.txt; do case $f in *steps.txt|*devices.txt) continue;; esac; echo "== $f"; grep -E "^ai\.onnx" $f | head -5 | cut -c33-106; sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass" | cut -c33-; done
