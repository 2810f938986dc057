# Scratch RoPE package for the H200 (issue 17, RoPE f32 at 1 GiB): the shipped ai.onnx.RotaryEmbedding with a
# bench.json whose cases differ only in the cos/sin caches' row count R (so in the bytes allocated between x and
# y: wgk bench allocates the inputs in order, then the output), all gathering positions in [0, 8191]; and the
# shipped case (R = 65,536, positions in [0, 65,535]). Kernels unchanged. From the repository root:
#   python3 docs/perf/h200_2026-12-02e/scripts/mkplace.py .h200x/place
#   build/tools/wgk/wgk metadata .h200x/place/ai.onnx.RotaryEmbedding
import json, shutil, sys
d = sys.argv[1] + '/ai.onnx.RotaryEmbedding'
shutil.rmtree(d, ignore_errors=True)
shutil.copytree('kernels/ai.onnx.RotaryEmbedding', d)
def case(name, rows, top):
    return {"name": name, "dtype": "float32", "attrs": {}, "tags": ["prefill"],
            "inputs": {"x": {"shape": [1, 32, 65536, 128]}, "cos": {"shape": [rows, 64]}, "sin": {"shape": [rows, 64]},
                       "positionIds": {"shape": [1, 65536], "randomInt": [0, top]}}}
cases = [case(f"place_R{r}_p8192", r, 8191) for r in (8192, 16384, 32768, 49152, 65536, 98304, 131072)]
cases.append(case("place_R65536_p65536", 65536, 65535))
json.dump({"cases": cases}, open(d + '/build/webgpu/bench.json', 'w'), indent=1)
print(d)
