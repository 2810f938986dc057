# Scratch diagnostic packages (the scratch packages are not committed; this script is their record; run from the repository root): RoPE token-major without cos/sin or without the position gather;
# RMS without the reduction or without scale loads. Each measures one cost of the kernel on the H200.
import json, os, shutil
def copy(src, name):
    d = f'.h200x/kx/{name}/' + os.path.basename(src)
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(f'.h200x/kx/base/' + os.path.basename(src), d)
    return d + '/build/webgpu/'
def edit(path, old, new, count=1):
    t = open(path).read(); assert t.count(old) >= count, (path, old); open(path, 'w').write(t.replace(old, new))
# RoPE f32 quad + packed quad
w = copy('ai.onnx.RotaryEmbedding', 'rope_nocache')
edit(w + 'rotary-embedding-quad.wgsl.jinja', '''      let c = vec4<f32>(cos_cache[ci]);
      let s = vec4<f32>(sin_cache[ci]);''', '''      let c = vec4<f32>(1.0) + vec4<f32>(f32(ci & 0u));
      let s = vec4<f32>(0.0);''')
edit(w + 'rotary-embedding-packed-quad.wgsl.jinja', '''      let cw = cos_cache[ci];
      let sw = sin_cache[ci];''', '''      let cw = vec4<u32>(0x3c003c00u + (ci & 0u));
      let sw = vec4<u32>(0u);''')
w = copy('ai.onnx.RotaryEmbedding', 'rope_nopos')
for f in ('rotary-embedding-quad.wgsl.jinja', 'rotary-embedding-packed-quad.wgsl.jinja'):
    edit(w + f, 'let ci = cacheRow(row0) * ', 'let ci = (token % 4096u) * ')
# RMS f32 row_vec4 (rms-normalization.wgsl.jinja) and packed
w = copy('ai.onnx.RMSNormalization', 'rms_noreduce')
edit(w + 'rms-normalization.wgsl.jinja', '''  let total = rowSum(local, lid, {{ "lane" if subgroupSum else "part" }});
  let inv = inverseSqrt(total / f32(params.rowLength) + params.epsilon);
{%- if rowPair %}''', '''  let inv = inverseSqrt(local + params.epsilon);
{%- if rowPair %}''')
w = copy('ai.onnx.RMSNormalization', 'rms_noscale')
edit(w + 'rms-normalization.wgsl.jinja', '      scaled[k] = scaleAt(i);', '      scaled[k] = {{ fvector }}(1.0);')
w = '.h200x/kx/rms_noreduce/ai.onnx.RMSNormalization/build/webgpu/'
t = open(w + 'rms-normalization-packed.wgsl.jinja').read()
old = '''  let total = rowSum(vec2<f32>(local, 0.0), lid, sumArg).x;
  let inv = inverseSqrt(total / f32(params.rowLength) + params.epsilon);
  if (row < params.rowCount) {'''
assert t.count(old) == 1
open(w + 'rms-normalization-packed.wgsl.jinja', 'w').write(t.replace(old, '''  let inv = inverseSqrt(local + params.epsilon);
  if (row < params.rowCount) {'''))
w = '.h200x/kx/rms_noscale/ai.onnx.RMSNormalization/build/webgpu/'
edit(w + 'rms-normalization-packed.wgsl.jinja', '      scaled[k] = scaleAt(i);', '      scaled[k] = array<vec2<f32>, 4>(vec2<f32>(1.0), vec2<f32>(1.0), vec2<f32>(1.0), vec2<f32>(1.0));')
