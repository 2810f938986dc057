#!/bin/sh
# wgk run --repeat waits for each call, so --gpu-timeout-s bounds one call, not all N. The call: RMSNormalization of
# a 7000 x 7 float16 x in packed storage (one workgroup a row: about 90 ms on lavapipe here, 2026-12-01). With
# --gpu-timeout-s 1, 40 repeats take about 3.6 s: before the fix one read-back after all 40 waited for them and
# timed out ("gpu: timed out after 1 s waiting for read back"); now each call is waited for (11x within it).
# Usage: run_repeat_test.sh <wgk>
set -eu
wgk=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# .npy files (format 1.0: magic, header length, the header dict padded with spaces to 64 bytes minus the final
# newline, little-endian data), values from a fixed 16-bit LCG mapped to [-2, 2) in steps of 1/16 (exact in f16).
python3 - "$tmp" <<'EOF'
import struct, sys
def save(path, shape, values):
    header = "{'descr': '<f2', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{d}, " for d in shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(b"".join(struct.pack("<e", v) for v in values))
state = 1
def value():
    global state
    state = (state * 25173 + 13849) % 65536
    return (state % 64) / 16 - 2
save(f"{sys.argv[1]}/x.npy", (7000, 7), [value() for _ in range(7000 * 7)])
save(f"{sys.argv[1]}/scale.npy", (7,), [value() for _ in range(7)])
EOF
"$wgk" run webgpu-kernels/ai.onnx.RMSNormalization -i x="$tmp/x.npy" -i scale="$tmp/scale.npy" --tunable F16_STORAGE=packed \
  --repeat 40 --gpu-timeout-s 1 > "$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: wgk run --repeat 40 failed"; exit 1; }
cat "$tmp/out"
grep -q "^variant: row_packed$" "$tmp/out"
grep -q "repeat [0-9.e+-]* ms per call over 40 calls (upload + run, each waited for, wall clock)" "$tmp/out"
grep -q "^check:   y: max abs .*: ok at tolerance" "$tmp/out"
echo "run_repeat_test: ok"
