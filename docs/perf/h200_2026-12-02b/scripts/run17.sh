# exp17 on the H200 (docs/perf/h200_2026-12-02b/scripts/mkexp17.py makes .h200x/kx/rms_pipe): RMSNormalization in
# persistent workgroups with a software-pipelined row loop (the next row's loads issued before the current row's
# reduction and stores), packed f16 and f32, each setting timed against the same-run copy; the shipped kernel
# first and last. 13 runs of ~3-4 s (exp16: 12 in one call), each at most 15 s.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk; P=$B/kx/rms_pipe/ai.onnx.RMSNormalization
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
bench() { local name=$1; shift; step $name; timeout 15 $W bench $P "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$name.json > $R/$name.txt 2>&1; }
$W devices > $R/devices.txt 2>&1
bench base
bench r2 --tunable PIPE_ROWS=2
bench r4 --tunable PIPE_ROWS=4
bench r8 --tunable PIPE_ROWS=8
bench r2_f32 --tunable PIPE_ROWS=2 --tunable PIPE_SCALE=f32
bench r4_f32 --tunable PIPE_ROWS=4 --tunable PIPE_SCALE=f32
bench g132 --tunable PIPE_GROUPS=132
bench g264 --tunable PIPE_GROUPS=264
bench r2_wg256 --tunable PIPE_ROWS=2 --tunable WORKGROUP_SIZE=256
bench r4_wg256 --tunable PIPE_ROWS=4 --tunable WORKGROUP_SIZE=256
bench g264_wg256 --tunable PIPE_GROUPS=264 --tunable WORKGROUP_SIZE=256
bench r4_tree --tunable PIPE_ROWS=4 --tunable REDUCTION=workgroup
bench base2
step end
tar czf $OUT/exp17.tgz -C /tmp r
grep -i subgroups $R/devices.txt | head -2
for f in $R/*.txt; do case $f in *steps.txt|*devices.txt) continue;; esac; echo "== $f"; grep -E "^ai\.onnx" $f | head -5 | cut -c33-106; sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass" | cut -c33-; done
