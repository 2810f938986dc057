# Scratch RoPE packages for the H200 (issue 17, RoPE f32 at 1 GiB): the quad kernel's token-major loop with its head
# groups skewed in time. Group g of an invocation-row works on token (t + g * SKEW) mod T (a bijection of the
# tokens for each g), so the rows written at once are h * (S * 512 B) + g * SKEW * 512 B apart instead of an exact
# power of two (32 MiB at S = 65,536): a test of whether the token order's 11.7 us over the linear head-order sweep
# is DRAM channel/bank conflicts of power-of-two strides. G is the head group (heads an invocation loops over,
# cos/sin in registers; the shipped 8). TB: tokens a group takes in a row before the next group (the shipped 1:
# rows visited as (token block of TB, group, token in block), so a workgroup's rows of one head are TB tokens
# long). "_none" packages replace the cos/sin loads by constants behind a branch never
# taken (mkfloor.py of h200_2026-12-02e): wrong results, timing only. From the repository root:
#   python3 docs/perf/h200_2026-12-02f/scripts/mkskew.py .h200x/sk G:SKEW:TB[:none] ... (e.g. 8:0:1 8:37:1 8:0:16 8:37:1:none)
# then build/tools/wgk/wgk metadata on each folder printed; run with ROW_ORDER=token.
import sys
from scratch import QUAD, copy_package, without_cache_loads
out = sys.argv[1]
old = '''    let token = tg / groups;
    let firstHead = (tg - token * groups) * {{ headGroup }}u;
'''
new = '''    let totalTokens = groupQuads / params.headQuads / groups;
    let blk = tg / (TBu * groups);
    let t0 = blk * TBu;
    let len = min(TBu, totalTokens - t0);
    let rem = tg - blk * TBu * groups;
    let g = rem / len;
    let token = (t0 + rem - g * len + g * SKEWu) % totalTokens;
    let firstHead = g * {{ headGroup }}u;
'''
for spec in sys.argv[2:]:
    parts = spec.split(':')
    G, skew, tb, none = int(parts[0]), int(parts[1]), int(parts[2]), len(parts) > 3
    d = f'{out}/g{G}_s{skew}_tb{tb}{"_none" if none else ""}/ai.onnx.RotaryEmbedding'
    w = copy_package(d, G)
    f = w + QUAD
    t = open(f).read()
    assert t.count(old) == 1
    t = t.replace(old, new.replace('SKEW', str(skew)).replace('TB', str(tb)))
    if none:
        t = without_cache_loads(t)
    open(f, 'w').write(t)
    print(d)
