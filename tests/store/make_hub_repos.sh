#!/usr/bin/env bash
# make_hub_repos.sh OUT SOURCE: git repositories for the loopback Hub (tests/oracles/hub_server.py),
# made from SOURCE/kernels/<pkg> with fixed names and dates, so commit ids are git's own and the same
# on every run:
#   OUT/kernels/webgpu-kernels/ai.onnx.RotaryEmbedding      (the Kernel Hub's repo type)
#   OUT/models/webgpu-kernels/ai.onnx.RotaryEmbedding       (the same repo, legacy model type)
#   OUT/models/webgpu-kernels/com.microsoft.RotaryEmbedding (legacy model type only)
# Each: "initial commit" (.gitattributes, as the Hub creates), then the package plus a file of another
# build variant on main and v1; branch v1-next (not listed by the server's refs) holds a fix of the
# card with regenerated metadata.json, for the moving-branch test.
set -euo pipefail
out=$1
src=$2
export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=fixture@example.invalid
export GIT_COMMITTER_NAME=fixture GIT_COMMITTER_EMAIL=fixture@example.invalid
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
rm -rf "$out"
for pkg in ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding; do
  type=models
  [ $pkg = ai.onnx.RotaryEmbedding ] && type=kernels
  repo=$out/$type/webgpu-kernels/$pkg
  mkdir -p "$repo"
  git -C "$repo" init -q -b main
  printf '*.bin filter=lfs diff=lfs merge=lfs -text\n*.safetensors filter=lfs diff=lfs merge=lfs -text\n' > "$repo/.gitattributes"
  git -C "$repo" add .gitattributes
  GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' git -C "$repo" commit -q -m "initial commit"
  cp -r "$src/kernels/$pkg/README.md" "$src/kernels/$pkg/build" "$repo/"
  mkdir -p "$repo/build/torch-cpu"
  echo "another build variant: not the WebGPU package" > "$repo/build/torch-cpu/NOTE.txt"
  git -C "$repo" add -A
  GIT_AUTHOR_DATE='2026-01-02T00:00:00Z' GIT_COMMITTER_DATE='2026-01-02T00:00:00Z' git -C "$repo" commit -q -m "$pkg v1"
  git -C "$repo" branch v1
  git -C "$repo" checkout -q -b v1-next
  echo "A fix of the card." >> "$repo/README.md"
  python3 - "$repo" <<'PY'
import hashlib, json, sys
root = sys.argv[1]
meta_path = root + "/build/webgpu/metadata.json"
meta = json.load(open(meta_path))
meta["files"]["README.md"]["sha256"] = hashlib.sha256(open(root + "/README.md", "rb").read()).hexdigest()
open(meta_path, "w").write(json.dumps(meta, indent=2) + "\n")
PY
  git -C "$repo" add -A
  GIT_AUTHOR_DATE='2026-01-03T00:00:00Z' GIT_COMMITTER_DATE='2026-01-03T00:00:00Z' git -C "$repo" commit -q -m "$pkg v1: card fix"
  git -C "$repo" checkout -q main
done
mkdir -p "$out/models/webgpu-kernels"
ln -s "../../kernels/webgpu-kernels/ai.onnx.RotaryEmbedding" "$out/models/webgpu-kernels/ai.onnx.RotaryEmbedding"
