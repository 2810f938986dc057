#!/bin/sh
# wgk's exit status (tools/wgk/main.cpp): 0 for success, --help and --version; 1 for an error of the call
# (wgk::Error); 2 for a command line the parser refuses. Before, a refused command line exited with CLI11's own
# codes (105 for a value its validator refuses, 106 for a missing required option, 109 for an extra argument).
# Usage: exit_status_test.sh <wgk>
set -u
wgk=$1
fail=0
expect() {  # expect STATUS ARGS...
  want=$1; shift
  "$wgk" "$@" > /dev/null 2>&1
  got=$?
  if [ "$got" != "$want" ]; then echo "FAIL: wgk $* exited $got, expected $want"; fail=1; else echo "ok: wgk $* -> $got"; fi
}
expect 0 --help
expect 0 --version
expect 0 run --help
expect 2                                                             # no subcommand
expect 2 frobnicate                                                  # an unknown one, named
"$wgk" frobnicate 2>&1 | grep -q "^wgk: error: unknown command 'frobnicate'; commands: .*run" \
  || { echo "FAIL: wgk frobnicate does not name the command and list the commands"; fail=1; }
expect 2 run --no-such-option
expect 2 run webgpu-kernels/ai.onnx.RMSNormalization                  # --input is required
expect 2 run webgpu-kernels/ai.onnx.RMSNormalization -i x=x.npy --repeat 0x10
expect 2 devices extra-argument
expect 1 run webgpu-kernels/ai.onnx.RMSNormalization -i x=/nonexistent/x.npy
exit $fail
