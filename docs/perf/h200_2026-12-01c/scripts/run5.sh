set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R
nproc > $R/host_cpu.txt; lscpu | grep -E "Model name|MHz" >> $R/host_cpu.txt
R=$R timeout 300 bash .h200h/run.sh > $R/host_run.txt 2>&1
tar czf $OUT/exp5.tgz -C /tmp r
tail -40 $R/bench_host.txt; tail -20 $R/bench_host_skip_validation.txt
