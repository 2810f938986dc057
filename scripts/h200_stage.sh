#!/bin/bash
# Stage binaries of a build for the H200 device machine (docs/h200.md): strip each into DEST, copy the shared
# libraries they link (ldd; glibc's own libraries stay: the device has them), and DEST/libwebgpu_wrapper.so.xz
# (Dawn, compressed to fit the device tool's carry limit; scripts/h200_env.sh unpacks it there).
# usage: scripts/h200_stage.sh DEST BINARY...   (e.g. scripts/h200_stage.sh .h200x build/tools/wgk/wgk build/bench/bench_host)
# DEST must be git-ignored (.git/info/exclude) and carried with .gl.
set -euo pipefail
dest=$1; shift
mkdir -p "$dest"
for bin in "$@"; do
  strip -o "$dest/$(basename "$bin")" "$bin"
  ldd "$bin" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|ld-linux*) ;;
      libwebgpu_wrapper.so)
        [ "$dest/libwebgpu_wrapper.so.xz" -nt "$lib" ] || xz -T2 -c "$lib" > "$dest/libwebgpu_wrapper.so.xz" ;;
      *) cp -L "$lib" "$dest/" ;;
    esac
  done
done
du -sh "$dest"
