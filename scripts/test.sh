#!/usr/bin/env bash
# Runs the whole test suite (unit, GPU on the default adapter — lavapipe on CPU machines — and the
# bundled packages' test.json) from the build that scripts/setup.sh made.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
cmake --build build
ctest --test-dir build --output-on-failure -j2 "$@"
