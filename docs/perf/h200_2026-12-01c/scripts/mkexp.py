# Scratch RoPE experiment packages for the H200 (the scratch packages are not committed; this script is their record; run from the repository root): .h200x/kx/<name>/ai.onnx.RotaryEmbedding
import json, os, re, shutil, sys
src = 'kernels/ai.onnx.RotaryEmbedding'
def make(name, G):
    d = f'.h200x/kx/{name}/ai.onnx.RotaryEmbedding'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(src, d)
    w = d + '/build/webgpu/'
    m = json.load(open(w + 'manifest.json'))
    for v in m['variants']:
        if v['id'] in ('quad', 'packed_quad'):
            v['derive']['headGroup'] = (f'{G} if tokenMajorRows else 0') if G else 'headCount if tokenMajorRows else 0'
            for p in v['passes']:
                x = p['dispatch']['x']
                assert '(headCount if tokenMajorRows else 1)' in x
                if G: p['dispatch']['x'] = x.replace('(headCount if tokenMajorRows else 1)', f'(headCount // {G} if tokenMajorRows else 1)')
    json.dump(m, open(w + 'manifest.json', 'w'), indent=2)
    for f, unit, count in (('rotary-embedding-quad.wgsl.jinja', 'Quads', 'quadCount'), ('rotary-embedding-packed-quad.wgsl.jinja', 'Octs', 'octCount')):
        t = open(w + f).read()
        t = t.replace('tokenMajor interleaved', 'tokenMajor headGroup interleaved', 1)
        unitl = unit[:-1].lower()  # quad / oct
        hq = 'params.headQuads' if unit == 'Quads' else 'params.headOcts'
        if G:
            old_head = f'  let token{unit} = params.{count} / params.numHeads;'
            assert old_head in t
            t = t.replace(old_head, f'  let token{unit} = params.{count} / {G}u;  // (token, group of {G} heads, k)\n  let groups = params.numHeads / {G}u;')
            old = f'    let token = index / {hq};\n    let k = index - token * {hq};'
            assert old in t, f
            t = t.replace(old, f'    let tg = index / {hq};\n    let k = index - tg * {hq};\n    let token = tg / groups;\n    let g = tg - token * groups;')
            hv = 'params.headVec4' if unit == 'Quads' else 'params.headVec8'
            # base of the group's first head
            t = t.replace(f'row0 * {hv} + n * headStride', f'row0 * {hv} + (g * {G}u + n) * headStride')
        t = t.replace('for (var n = 0u; n < params.numHeads; n++)', 'for (var n = 0u; n < {{ headGroup }}u; n++)')
        open(w + f, 'w').write(t)
make('const', 0)
make('hg8', 8)
make('hg16', 16)
make('hg4', 4)
