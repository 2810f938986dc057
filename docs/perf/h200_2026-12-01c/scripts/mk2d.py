# Scratch: quad / packed_quad dispatched 2-D (no grid-stride loop), and skewed head loops.
import json, shutil, os
def pkg(src, name):
    d = f'.h200x/kx/{name}/ai.onnx.RotaryEmbedding'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(src, d); return d + '/build/webgpu/'
def two_d(w):
    m = json.load(open(w + 'manifest.json'))
    for v in m['variants']:
        if v['id'] in ('quad', 'packed_quad'):
            for p in v['passes']:
                x = p['dispatch']['x']
                inner = x[len('min('):x.rindex(', 65535)')]
                p['dispatch']['y'] = f'ceilDiv({inner}, 65535)'
    json.dump(m, open(w + 'manifest.json', 'w'), indent=2)
def edit(path, old, new):
    t = open(path).read(); assert old in t, (path, old); open(path, 'w').write(t.replace(old, new))
two_d(pkg('.h200x/kx/base/ai.onnx.RotaryEmbedding', 'rope_2d'))
two_d(pkg('.h200x/kx/rope_nocache/ai.onnx.RotaryEmbedding', 'rope_nocache_2d'))
for name, skew in (('rope_skew1', 'token'), ('rope_skew16', '(token / 16u)')):
    w = pkg('.h200x/kx/base/ai.onnx.RotaryEmbedding', name)
    for f, fn in (('rotary-embedding-quad.wgsl.jinja', 'quad'), ('rotary-embedding-packed-quad.wgsl.jinja', 'oct')):
        t = open(w + f).read()
        for kind in ('Row', 'Tail'):
            hv = 'params.headVec4' if fn == 'quad' else 'params.headVec8'
            old = f'        {fn}{kind}(row0 * {hv} + n * headStride, k'
            assert old in t, (f, old)
            t = t.replace(old, f'        let h = (n + {skew}) % params.numHeads;\n        {fn}{kind}(row0 * {hv} + h * headStride, k')
        open(w + f, 'w').write(t)
