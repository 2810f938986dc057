#!/bin/sh
# `--device FILE` (a limits JSON file) of `wgk contract` and `wgk validate` is refused when FILE is not a regular file,
# naming the option, the path and what it is (a breaker's finding, fixes8; before: a named pipe with no writer blocked
# for ever and /dev/zero was read without end, growing the process by gigabytes). `timeout` bounds each call should
# that come back.
# Usage: device_file_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
mkfifo "$tmp/limits.json"
expect_refused() {  # device file, what it is; runs contract and validate
  for sub in contract validate; do
    rc=0
    if [ $sub = contract ]; then
      out=$(timeout 60 "$wgk" contract webgpu-kernels/ai.onnx.RMSNormalization --inputs x=float32:2x8,scale=float32:8 --device "$1" 2>&1) || rc=$?
    else
      out=$(timeout 60 "$wgk" validate "$src/kernels/ai.onnx.RMSNormalization" --device "$1" 2>&1) || rc=$?
    fi
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$sub --device $1: exit $rc (accepted, or hung until killed)"
    echo "$out" | grep -qF -- "--device: '$1' is neither a preset (webgpu-default, lavapipe, h200) nor a readable limits JSON file: $1: $2, not a regular file" ||
      fail "$sub --device $1: no error saying what it is: $out"
  done
}
expect_refused "$tmp/limits.json" "a named pipe (FIFO)"
expect_refused /dev/zero "a device"
echo ok
