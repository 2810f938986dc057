#!/usr/bin/env bash
# Set up a fresh Debian 12 (bookworm) machine, as root, to build and test webgpu-kernels.
# Idempotent: a second run checks what is there and does nothing slow.
#   scripts/setup.sh            packages, Dawn, npm oracles, configure and build
#   WGK_SKIP_BUILD=1 scripts/setup.sh   everything but the build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export DEBIAN_FRONTEND=noninteractive

# --- Debian packages ---------------------------------------------------------------------------
# mesa-vulkan-drivers comes from bookworm-backports: Dawn rejects bookworm's own lavapipe (Mesa 22.3).
packages=(build-essential cmake ninja-build pkg-config git ca-certificates nodejs npm
  nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev libssl-dev libcurl4-openssl-dev
  clang-14 libclang-rt-14-dev python3 python3-numpy python3-onnx libvulkan1 gnuplot-nox)
backports=/etc/apt/sources.list.d/wgk-bookworm-backports.list
need_apt=0
[ -f "$backports" ] || need_apt=1
for p in "${packages[@]}"; do
  # nodejs/npm may come from another source than Debian's; any working install is fine.
  case $p in nodejs) command -v node >/dev/null && continue ;; npm) command -v npm >/dev/null && continue ;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || { need_apt=1; break; }
done
mesa_version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
case $mesa_version in 2[3-9].*|[3-9][0-9].*) ;; *) need_apt=1 ;; esac
if [ $need_apt = 1 ]; then
  echo "deb http://deb.debian.org/debian bookworm-backports main" > "$backports"
  apt-get update -qq
  install=()
  for p in "${packages[@]}"; do
    case $p in nodejs) command -v node >/dev/null && continue ;; npm) command -v npm >/dev/null && continue ;; esac
    install+=("$p")
  done
  apt-get install -y -qq --no-install-recommends "${install[@]}"
  apt-get install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers
fi

# --- Dawn (WebGPU) from npm, pinned and integrity-checked ----------------------------------------
# bun-webgpu-linux-x64@0.1.7: libwebgpu_wrapper.so, Dawn built natively (docs/platform.md).
# react-native-webgpu@0.5.11: webgpu.h (Dawn chromium/7770); its ABI differences are in src/gpu/abi.h.
dawn=third_party/dawn
fetch_npm() { # name@version integrity dest-dir
  local spec=$1 integrity=$2 dest=$3 tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
  local tgz=("$tmp"/*.tgz)
  local got="sha512-$(openssl dgst -sha512 -binary "${tgz[0]}" | openssl base64 -A)"
  if [ "$got" != "$integrity" ]; then
    echo "setup: $spec integrity mismatch: expected $integrity, got $got" >&2
    rm -rf "$tmp"; exit 1
  fi
  mkdir -p "$dest"
  mv "${tgz[0]}" "$dest/"
  rm -rf "$tmp"
}
if [ ! -f "$dawn/lib/libwebgpu_wrapper.so" ]; then
  rm -rf "$dawn/tmp"
  fetch_npm bun-webgpu-linux-x64@0.1.7 \
    'sha512-UEP7UZdEhx9otvkZczjsszL8ZVlrODANQvgl+C88/bNVmxDoFi7w1fWzGi1sZyakiETjmtFDq2/xCLhbSZxjqw==' "$dawn/tmp"
  mkdir -p "$dawn/lib"
  tar -xzf "$dawn"/tmp/bun-webgpu-linux-x64-0.1.7.tgz -C "$dawn/tmp"
  mv "$dawn/tmp/package/libwebgpu_wrapper.so" "$dawn/tmp/package/LICENSE" "$dawn/lib/"
  rm -rf "$dawn/tmp"
fi
if [ ! -f "$dawn/include/webgpu/webgpu.h" ]; then
  rm -rf "$dawn/tmp"
  fetch_npm react-native-webgpu@0.5.11 \
    'sha512-lIqILvel3muHomuzM3nJqhq8hEGtWNmgA3ZjSBR/9n68nZxdggc16udViZD03Zm+F0LwW1gP8Hj3X3HYrC39Dw==' "$dawn/tmp"
  mkdir -p "$dawn/include/webgpu"
  tar -xzf "$dawn"/tmp/react-native-webgpu-0.5.11.tgz -C "$dawn/tmp" package/cpp/webgpu/webgpu.h
  mv "$dawn/tmp/package/cpp/webgpu/webgpu.h" "$dawn/include/webgpu/webgpu.h"
  rm -rf "$dawn/tmp"
fi

# --- npm oracles (tests only): @huggingface/jinja, onnxruntime-node, @huggingface/hub (Hub cache interop) ---
# onnxruntime-node's postinstall downloads from a host this machine cannot reach; its CPU provider
# ships in the package, so the download is skipped (docs/platform.md).
if [ ! -d tests/oracles/node_modules/@huggingface/jinja ] || [ ! -d tests/oracles/node_modules/onnxruntime-node ] \
   || [ ! -d tests/oracles/node_modules/@huggingface/hub ] \
   || [ tests/oracles/package-lock.json -nt tests/oracles/node_modules/.package-lock.json ]; then
  (cd tests/oracles && ONNXRUNTIME_NODE_INSTALL=skip npm ci --silent --no-audit --no-fund)
fi

# --- configure and build ------------------------------------------------------------------------
if [ "${WGK_SKIP_BUILD:-0}" != 1 ]; then
  [ -f build/build.ninja ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build build
fi
