# Scratch packages of exp11 (not committed; this script is their record; run from the repository root): .h200x/kx/<name>/ai.onnx.RMSNormalization
import json, shutil, copy
R = 'ai.onnx.RMSNormalization'
def pkg(name):
    d = f'.h200x/kx/{name}/{R}'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree('kernels/' + R, d); return d + '/build/webgpu/'
base = json.load(open(f'kernels/{R}/build/webgpu/bench.json'))
proto = {c['name']: c for c in base['cases']}
def case(name, dt, shape):
    c = copy.deepcopy(proto[f'prefill_1x512x4096_{dt}']); c['name'] = name
    c['inputs']['x']['shape'] = shape; c['inputs']['scale']['shape'] = [shape[-1]]; return c
cases = [case('f16_512x4096', 'f16', [512, 4096]), case('f32_512x2048', 'f32', [512, 2048]),
         case('f32_512x4096', 'f32', [512, 4096]), case('f16_512x8192', 'f16', [512, 8192]),
         case('f16_1024x4096', 'f16', [1024, 4096]), case('f32_1024x2048', 'f32', [1024, 2048])]
for name in ('rms_base', 'rms_noconv'):
    w = pkg(name)
    b = json.load(open(w + 'bench.json')); b['cases'] = cases; json.dump(b, open(w + 'bench.json', 'w'), indent=1)
# rms_noconv: the packed width-8 kernel without f16 <-> f32 conversions (wrong output on purpose): squares and the
# store use integer ops on the words, the store still depends on the row's sum.
w = '.h200x/kx/rms_noconv/' + R + '/build/webgpu/'
t = open(w + 'rms-normalization-packed.wgsl.jinja').read()
old_sq = '''fn squares(w: vec4<u32>) -> f32 {
  let a = unpack2x16float(w.x);
  let b = unpack2x16float(w.y);
  let c = unpack2x16float(w.z);
  let d = unpack2x16float(w.w);
  return dot(a, a) + dot(b, b) + dot(c, c) + dot(d, d);
}'''
assert old_sq in t
t = t.replace(old_sq, '''fn squares(w: vec4<u32>) -> f32 {
  return bitcast<f32>((w.x ^ w.y ^ w.z ^ w.w) & 0x3effffffu);
}''')
old_n = '''fn normalized(w: vec4<u32>, inv: f32, s: array<vec2<f32>, 4>) -> vec4<u32> {'''
i = t.index(old_n); j = t.index('\n}\n', i) + 3
t = t[:i] + '''fn normalized(w: vec4<u32>, inv: f32, s: array<vec2<f32>, 4>) -> vec4<u32> {
  return w ^ vec4<u32>(bitcast<u32>(inv));
}
''' + t[j:]
old_sc = '''  return array<vec2<f32>, 4>(unpack2x16float(w.x), unpack2x16float(w.y), unpack2x16float(w.z),
                             unpack2x16float(w.w));'''
assert old_sc in t
t = t.replace(old_sc, '''  return array<vec2<f32>, 4>(vec2<f32>(bitcast<f32>(w.x)), vec2<f32>(bitcast<f32>(w.y)), vec2<f32>(bitcast<f32>(w.z)),
                             vec2<f32>(bitcast<f32>(w.w)));''')
open(w + 'rms-normalization-packed.wgsl.jinja', 'w').write(t)
# rms_keep: the shipped package after this session's change (each half converted once), with the cases above
# (made by copying kernels/ai.onnx.RMSNormalization and rms_base's bench.json).
