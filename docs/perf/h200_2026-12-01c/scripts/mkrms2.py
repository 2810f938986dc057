# Scratch RMS: packed width-8 rows reduced as f32 (not vec2); bench cases of 16..1024 rows x 4096 f32/f16.
import json, shutil, copy
def pkg(name):
    d = f'.h200x/kx/{name}/ai.onnx.RMSNormalization'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree('.h200x/kx/base/ai.onnx.RMSNormalization', d); return d + '/build/webgpu/'
w = pkg('rms_scalar')
t = open(w + 'rms-normalization-packed.wgsl.jinja').read()
sub_start = t.index('fn rowSum(local: vec2<f32>, lid: u32, lane: u32) -> vec2<f32> {')
sub = t[sub_start:t.index('\n}\n', sub_start) + 3]
one = sub.replace('fn rowSum(local: vec2<f32>, lid: u32, lane: u32) -> vec2<f32> {', 'fn rowSum1(local: f32, lid: u32, lane: u32) -> f32 {') \
         .replace('partialCount', 'partialCount1').replace('partial[', 'partial1[').replace('var t = vec2<f32>(0.0, 0.0);', 'var t = 0.0;')
t = t.replace(sub, sub + '\nvar<workgroup> partial1: array<f32, {{ rowWg }}>;\nvar<workgroup> partialCount1: atomic<u32>;\n' + one)
old = '''  let total = rowSum(vec2<f32>(local, 0.0), lid, sumArg).x;
  let inv = inverseSqrt(total / f32(params.rowLength) + params.epsilon);
  if (row < params.rowCount) {'''
assert t.count(old) == 1
t = t.replace(old, old.replace('rowSum(vec2<f32>(local, 0.0), lid, sumArg).x', 'rowSum1(local, lid, sumArg)'))
open(w + 'rms-normalization-packed.wgsl.jinja', 'w').write(t)
# bench cases: rows 16, 64, 256, 1024, 2048 of 4096
base = json.load(open('kernels/ai.onnx.RMSNormalization/build/webgpu/bench.json'))
proto = {c['name']: c for c in base['cases']}
cases = []
for dt in ('f32', 'f16'):
    for r in (16, 64, 256, 1024, 2048):
        c = copy.deepcopy(proto[f'prefill_1x512x4096_{dt}'])
        c['name'] = f'rows_{r}x4096_{dt}'
        s = json.dumps(c).replace('[1, 512, 4096]', f'[{r}, 4096]')
        cases.append(json.loads(s))
print(json.dumps(cases[0])[:400])
for name in ('rms_rows',):
    w2 = pkg(name)
    b = json.load(open(w2 + 'bench.json')); b['cases'] = cases; json.dump(b, open(w2 + 'bench.json', 'w'), indent=1)
