# Sourced by this folder's run_*.sh on the device machine, from the repository root, with R set to the results
# folder: the eleventh session's helpers (docs/perf/h200_2026-12-02e/scripts/common.sh: the H200 environment,
# `step`, `one NAME PACKAGE-OR-FOLDER FILTER [wgk bench options...]`).
LINE=${LINE:-50-170}
source docs/perf/h200_2026-12-02e/scripts/common.sh
