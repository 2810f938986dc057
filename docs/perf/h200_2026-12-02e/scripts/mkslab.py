# Scratch RoPE package for the H200 (issue 17, RoPE f32 at 1 GiB): the shipped ai.onnx.RotaryEmbedding with two
# more tunables for the quad and packed-quad kernels' token-major loop: HEAD_GROUP (heads an invocation loops
# over; 0 = the shipped 8) and GRID_CAP (the most workgroups dispatched; the grid-stride loop does the rest, so a
# capped grid keeps every workgroup resident and their head loops in step). Kernels unchanged. From the
# repository root: python3 docs/perf/h200_2026-12-02e/scripts/mkslab.py .h200x/slab, then
# build/tools/wgk/wgk metadata .h200x/slab/ai.onnx.RotaryEmbedding
import json, shutil, sys
d = sys.argv[1] + '/ai.onnx.RotaryEmbedding'
shutil.rmtree(d, ignore_errors=True)
shutil.copytree('kernels/ai.onnx.RotaryEmbedding', d)
p = d + '/build/webgpu/manifest.json'
m = json.load(open(p))
m['tunables']['HEAD_GROUP'] = {"default": 0}
m['tunables']['GRID_CAP'] = {"default": 65535}
old = '(8 if headCount % 8 == 0 else headCount) if tokenMajorRows else 1'
assert m['derive']['headGroup'] == old
m['derive']['headGroup'] = ('(tunables.HEAD_GROUP if tunables.HEAD_GROUP > 0 and headCount % tunables.HEAD_GROUP == 0 '
                            'else (8 if headCount % 8 == 0 else headCount)) if tokenMajorRows else 1')
for v in m['variants']:
    if v['id'] in ('quad', 'packed_quad'):
        x = v['passes'][0]['dispatch']['x']
        assert x.endswith(', 65535)'), x
        v['passes'][0]['dispatch']['x'] = x[:-len('65535)')] + 'min(65535, max(1, tunables.GRID_CAP)))'
json.dump(m, open(p, 'w'), indent=1)
print(d)
