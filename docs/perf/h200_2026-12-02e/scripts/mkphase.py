# Scratch RoPE packages for the H200 (issue 17, RoPE f32 at 1 GiB): the quad kernel's token-major loop in token
# blocks of TB tokens, each block's head groups taken in P phases: rows visited as (token block, phase, token in
# block, group of the phase), an invocation looping over its group's heads as shipped. So only 1/P of the heads'
# streams are written at once, and a block's cos/sin rows are gathered P times (after the first from L2 if they
# stay). P falls back to 1 where it does not divide the group count. From the repository root:
#   python3 docs/perf/h200_2026-12-02e/scripts/mkphase.py .h200x/ph 2:1024 2:4096 4:1024 4:4096
# then build/tools/wgk/wgk metadata on each folder printed; run with ROW_ORDER=token.
import shutil, sys
out = sys.argv[1]
src = 'kernels/ai.onnx.RotaryEmbedding'
old = '''    let tg = index / params.headQuads;
    let k = index - tg * params.headQuads;
    let token = tg / groups;
    let firstHead = (tg - token * groups) * {{ headGroup }}u;
'''
for spec in sys.argv[2:]:
    p, tb = (int(v) for v in spec.split(':'))
    d = f'{out}/p{p}_tb{tb}/ai.onnx.RotaryEmbedding'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(src, d)
    f = d + '/build/webgpu/rotary-embedding-quad.wgsl.jinja'
    t = open(f).read()
    assert t.count(old) == 1
    new = f'''    let tg0 = index / params.headQuads;
    let k = index - tg0 * params.headQuads;
    let P = select(1u, {p}u, groups % {p}u == 0u);
    let gpp = groups / P;
    let totalTokens = groupQuads / params.headQuads / groups;
    let blk = tg0 / ({tb}u * groups);
    let t0 = blk * {tb}u;
    let len = min({tb}u, totalTokens - t0);
    let rem = tg0 - blk * {tb}u * groups;
    let phase = rem / (len * gpp);
    let rem2 = rem - phase * len * gpp;
    let tin = rem2 / gpp;
    let token = t0 + tin;
    let firstHead = (phase * gpp + rem2 - tin * gpp) * {{{{ headGroup }}}}u;
'''
    t = t.replace(old, new)
    open(f, 'w').write(t)
    print(d)
