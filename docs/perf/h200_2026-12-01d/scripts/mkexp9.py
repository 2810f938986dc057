# Scratch packages of exp9 and exp10 (not committed; this script is their record; run from the repository root): .h200x/kx/<name>/<package>
import json, shutil, copy
def pkg(name, src):
    d = f'.h200x/kx/{name}/{src}'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree('kernels/' + src, d); return d + '/build/webgpu/'
# RMS: rowCache kept in registers up to 16 loads an invocation (was 8), so WG 32/64 keep the row.
R = 'ai.onnx.RMSNormalization'
w = pkg('rms_rc16', R)
m = json.load(open(w + 'manifest.json'))
n = 0
for v in m['variants']:
    rc = v['derive'].get('rowCache', '')
    if '<= 8' in rc:
        v['derive']['rowCache'] = rc.replace('<= 8', '<= 16'); n += 1
assert n >= 2, n
json.dump(m, open(w + 'manifest.json', 'w'), indent=2)
b = json.load(open(w + 'bench.json'))
keep = ['prefill_1x512x4096_f32', 'prefill_1x512x4096_f16', 'prefill_4096x4096_f32', 'prefill_4096x4096_f16']
proto = {c['name']: c for c in b['cases']}
cases = [proto[k] for k in keep]
for dt in ('f32', 'f16'):
    for r in (256, 1024):
        c = copy.deepcopy(proto[f'prefill_1x512x4096_{dt}']); c['name'] = f'rows_{r}x4096_{dt}'
        c['inputs']['x']['shape'] = [r, 4096]; cases.append(c)
b['cases'] = cases; json.dump(b, open(w + 'bench.json', 'w'), indent=1)
# RoPE: head order in tiles of T tokens x all heads (tile-major, head within tile): cos/sin rows of a tile reused from L2.
P = 'ai.onnx.RotaryEmbedding'
for T in (16, 64, 256, 1024):
    w = pkg(f'rope_tile{T}', P)
    for f, hq in (('rotary-embedding-quad.wgsl.jinja', 'params.headQuads'), ('rotary-embedding-packed-quad.wgsl.jinja', 'params.headOcts')):
        t = open(w + f).read()
        old = f'    let r = index / {hq};\n    let k = index - r * {hq};'
        assert t.count(old) == 1, f
        new = f'''    let tileUnits = {T}u * {hq};
    let tile = index / tileUnits;
    let within = index - tile * tileUnits;
    let h = tile % params.numHeads;
    let rest = tile / params.numHeads;
    let chunks = params.sequenceLength / {T}u;
    let sc = rest % chunks;
    let bb = rest / chunks;
    let r = (bb * params.numHeads + h) * params.sequenceLength + sc * {T}u + within / {hq};
    let k = within % {hq};'''
        open(w + f, 'w').write(t.replace(old, new))
    b = json.load(open(w + 'bench.json'))
    keep = ['prefill_r4_b1_s65536_h32x128_f32', 'prefill_r4_b1_s65536_h32x128_f16', 'prefill_r4_b4_s8192_h32x128_f32', 'prefill_r4_b4_s8192_h32x128_f16', 'prefill_r4_b1_s4096_h32x128_f32']
    b['cases'] = [c for c in b['cases'] if c['name'] in keep]; assert len(b['cases']) == 5
    json.dump(b, open(w + 'bench.json', 'w'), indent=1)
# base RoPE with trimmed bench (token-major default, and head order)
w = pkg('rope_base', P)
b = json.load(open(w + 'bench.json'))
b['cases'] = [c for c in b['cases'] if c['name'] in keep]; json.dump(b, open(w + 'bench.json', 'w'), indent=1)
