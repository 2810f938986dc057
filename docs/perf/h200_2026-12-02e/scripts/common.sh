# Sourced by this folder's run_*.sh on the device machine, from the repository root, with R set to the results
# folder: the H200 environment (scripts/h200_env.sh, binaries in .h200x), `step` (a timestamped line in
# $R/steps.txt) and `one NAME PACKAGE-OR-FOLDER FILTER [wgk bench options...]` (one `wgk bench` process,
# --rounds 2 --spin-up-ms 300 --one-pass 20, its output in $R/NAME.txt and .json; prints the one-pass rows).
# LINE selects the columns printed (run_a printed 1-170, run_b and run_c 50-170).
B=.h200x; source scripts/h200_env.sh
mkdir -p $R; W=$B/wgk
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
one() {
  local n=$1 p=$2 f=$3; shift 3
  step "$n"
  timeout 90 $W bench $p --filter $f "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$n.json > $R/$n.txt 2>&1
  echo "rc=$?" >> $R/$n.txt
  echo "== $n $(grep '^rc=' $R/$n.txt) $(sed -n "/^one pass/,/ran,/p" $R/$n.txt | grep -v "^kernel\|^one pass\|ran," | cut -c${LINE:-50-170})"
}
