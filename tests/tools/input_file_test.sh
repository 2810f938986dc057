#!/bin/sh
# `wgk run -i NAME=FILE` names the input as well as the file when the file cannot be read as a .npy (fixes7; before:
# the reader's message, naming the file only): a missing file, a file that is not a .npy (this script) and a .npy cut
# short (the first 130 of data/overflow_f16/x.npy's 132 bytes: its header, then 2 of its 4 data bytes). Each error is
# "--input x=FILE: input x (X): FILE: <the reader's message>"; the uncut file runs. A named pipe with no writer is
# refused as not a regular file (before: open() blocked for ever; `timeout` bounds the call should that come back).
# Usage: input_file_test.sh <wgk> <source dir>
set -eu
wgk=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data="$src/tests/tools/data/overflow_f16"
head -c 130 "$data/x.npy" > "$tmp/x_cut.npy"
fail() { echo "FAIL: $1"; exit 1; }
run_x() {  # the file given for x; prints wgk's output, the exit status in $rc
  rc=0
  out=$(timeout 120 "$wgk" run webgpu-kernels/ai.onnx.RotaryEmbedding -i "x=$1" -i "cos=$data/cos.npy" -i "sin=$data/sin.npy" \
    -i "positionIds=$data/positionIds.npy" --repeat 0 2>&1) || rc=$?
  echo "$out"
}
expect_named() {  # the file given for x, the reader's message (fixed text)
  run_x "$1"
  [ "$rc" != 0 ] || fail "wgk run accepted $1"
  echo "$out" | grep -qF -- "wgk: error: --input x=$1: input x (X): $1: $2" || fail "no error naming input x for $1"
}
expect_named "$tmp/missing.npy" "cannot open for reading (No such file or directory)"
expect_named "$0" "not a .npy file: bad magic (expected \\x93NUMPY)"
expect_named "$tmp/x_cut.npy" "truncated .npy data: shape"
mkfifo "$tmp/fifo.npy"
run_x "$tmp/fifo.npy"
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "wgk run accepted or hung on a FIFO (exit $rc)"
echo "$out" | grep -qF -- "wgk: error: --input x=$tmp/fifo.npy: input x (X): $tmp/fifo.npy: a named pipe (FIFO), not a regular file" ||
  fail "no error naming input x for the FIFO: $out"
run_x "$data/x.npy"
[ "$rc" = 0 ] || fail "the uncut x.npy did not run"
echo "ok"
