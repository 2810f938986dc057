# Scratch RoPE packages for the H200 (issue 17, RoPE f32 at 1 GiB): the head-order loop of the quad (f32) and
# packed_quad (f16) kernels visits its rows (b, n, s) in blocks of TB tokens: (b, token block, head n, token in
# block), so each run of invocations sweeps TB contiguous rows of one head and a block's TB cos/sin rows are read
# by its heads close together (L2). The last block of a sequence may be shorter. Run with --tunable ROW_ORDER=head
# (the token-major loop is unchanged). Not committed as packages; this script is their record. From the repository
# root: python3 docs/perf/h200_2026-12-02d/scripts/mkblock.py .h200x/kb 1024 4096 8192, then for each:
# build/tools/wgk/wgk metadata .h200x/kb/tb<TB>/ai.onnx.RotaryEmbedding
import shutil, sys
out, tbs = sys.argv[1], [int(v) for v in sys.argv[2:]]
src = 'kernels/ai.onnx.RotaryEmbedding'
for tb in tbs:
    d = f'{out}/tb{tb}/ai.onnx.RotaryEmbedding'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(src, d)
    w = d + '/build/webgpu/'
    for f, count, unit in (('rotary-embedding-quad.wgsl.jinja', 'quadCount', 'headQuads'),
                           ('rotary-embedding-packed-quad.wgsl.jinja', 'octCount', 'headOcts')):
        t = open(w + f).read()
        old = (f'index < params.{count}; index += stride) {{\n    let r = index / params.{unit};\n'
               f'    let k = index - r * params.{unit};\n')
        assert old in t, f
        new = (f'index < params.{count}; index += stride) {{\n    let v = index / params.{unit};\n'
               f'    let k = index - v * params.{unit};\n'
               f'    // v = (b, token block, head, token in block) -> the row r = (b, head, token)\n'
               f'    let S = params.sequenceLength;\n    let N = params.numHeads;\n'
               f'    let b = v / (N * S);\n    let vb = v - b * N * S;\n'
               f'    let blk = vb / (N * {tb}u);\n    let s0 = blk * {tb}u;\n    let len = min({tb}u, S - s0);\n'
               f'    let rem = vb - blk * N * {tb}u;\n    let n = rem / len;\n'
               f'    let r = (b * N + n) * S + s0 + (rem - n * len);\n')
        t = t.replace(old, new)
        open(w + f, 'w').write(t)
    print(d)
