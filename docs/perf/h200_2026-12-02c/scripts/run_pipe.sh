# Issue 16 on the H200: RMSNormalization's row_pipe_packed_vec8 (two rows a workgroup, the second's loads issued
# before the first is reduced; docs/normalization.md) against row_packed_vec8, packed f16, to set the variant's
# row-count window (now fixed at [768, 2048) rows, the device caps having no SM count). Each bench.json case below
# is timed with --tunable ROW_PIPE=off and ROW_PIPE=on, in turn, twice (off, on, off, on), against the same-run copy
# (--one-pass 20). Cases: rows x 4096 at 512 .. 3072 rows and x 2048, x 8192 at 1,024 .. 2,048.
# On the H200, from the repository root (staged: scripts/h200_stage.sh .h200x build/tools/wgk/wgk; carry .gl .h200x):
#   bash docs/perf/h200_2026-12-02c/scripts/run_pipe.sh              writes $OUT/run_pipe.tgz and prints % copy
# Here (lavapipe: the local wgk, no h200_env.sh; F16_STORAGE=packed makes it take the packed kernels as the H200 does):
#   WGK_LOCAL=1 WGK_PIPE_CASES="prefill_768x4096_f16" OUT=/tmp/pipe bash docs/perf/h200_2026-12-02c/scripts/run_pipe.sh
# Each run at most WGK_RUN_TIMEOUT_S seconds (default 15; about 3-4 s each on the H200: 52 runs).
set -uo pipefail
if [ "${WGK_LOCAL:-0}" = 1 ]; then
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}; W=${WGK_BIN:-build/tools/wgk/wgk}
else
  B=.h200x; source scripts/h200_env.sh; W=$B/wgk
fi
OUT=${OUT:?OUT must name the folder the results go to}
R=$(mktemp -d); P=webgpu-kernels/ai.onnx.RMSNormalization
CASES=${WGK_PIPE_CASES:-"prefill_1x512x4096_f16 prefill_640x4096_f16 prefill_768x4096_f16 prefill_1024x4096_f16
  prefill_1536x4096_f16 prefill_2048x4096_f16 prefill_3072x4096_f16 prefill_1024x2048_f16 prefill_1536x2048_f16
  prefill_2048x2048_f16 prefill_1024x8192_f16 prefill_1536x8192_f16 prefill_2048x8192_f16"}
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
$W devices > $R/devices.txt 2>&1
for c in $CASES; do
  for run in off on off2 on2; do
    step "$c $run"
    # --filter is a substring: each name above is in no other case's name
    timeout ${WGK_RUN_TIMEOUT_S:-15} $W bench $P --filter $c --tunable F16_STORAGE=packed --tunable ROW_PIPE=${run%2} \
      --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/${c}_$run.json > $R/${c}_$run.txt 2>&1
    echo "rc=$?" >> $R/${c}_$run.txt
  done
done
step end
mkdir -p $OUT; tar czf $OUT/run_pipe.tgz -C $R .
grep -i "adapter\|subgroups" $R/devices.txt | head -2
# one line a run: the case, ROW_PIPE, the variant and the one-pass line's time and % copy (wgk bench's table)
for c in $CASES; do for run in off on off2 on2; do
  f=$R/${c}_$run.txt; echo "== $c ROW_PIPE=$run $(grep -o 'row_[a-z_0-9]*' $f | head -1) $(grep '^rc=' $f)"
  sed -n "/^one pass/,/ran,/p" $f | grep -v "^kernel\|^one pass\|ran," | cut -c1-160
done; done
