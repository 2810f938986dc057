# Scratch package of exp16 (not committed; this script is its record; run from the repository root):
# .h200x/kx/rms_sg/ai.onnx.RMSNormalization = the shipped package plus a variant `rows_packed_sg` (packed f16,
# one row a SUBGROUP: subgroupAdd only, no workgroup barrier on the fast path) and a tunable CONV for the
# f16 <-> f32 conversions of the packed kernels. run16.sh times it with --tunable settings:
#   SG_ROWS=0 (default): the shipped variants (rows_packed_sg is off);
#   SG_ROWS=1|2|4: rows_packed_sg, workgroups of SG_LANES * SG_ROWS invocations, SG_ROWS rows a workgroup,
#     SG_LANES (default 32, the H200's subgroup size; docs/h200.md) invocations a row, rowLength / 8 / SG_LANES
#     vec4<u32> loads of x an invocation kept in registers (16 at 4,096);
#   SG_SCALE=late (default): scale read after the row's sum (from cache; fewer registers); early: read with x,
#     kept as f32 pairs, as the shipped kernels do;
#   CONV=native (default): unpack2x16float / pack2x16float; unpack: f16 -> f32 by integer operations (exact for
#     every half incl. subnormals, inf, nan; no f32 subnormal intermediate); all: also f32 -> f16 by integer
#     operations (round to nearest even, overflow to inf, nan kept a quiet nan).
# The fast path needs each row's SG_LANES invocations to be one subgroup: taken when @builtin(subgroup_size) ==
# SG_LANES (a uniform value), trusting that subgroups are consecutive local_invocation_index ranges (true on
# NVIDIA and lavapipe, not promised by WGSL); otherwise the same kernel adds the row's partial sums in workgroup
# memory after one barrier (correct for any subgroup size). Lavapipe's subgroups are 8 wide: SG_LANES=8 checks the
# fast path there, SG_LANES=32 the fallback (test.json of the scratch package, `wgk test`).
import json, shutil, copy, re, sys
R = 'ai.onnx.RMSNormalization'
D = f'.h200x/kx/rms_sg/{R}'
shutil.rmtree(D, ignore_errors=True); shutil.copytree('kernels/' + R, D)
W = D + '/build/webgpu/'

# --- manifest: tunables, default derive names, the variant
m = json.load(open(W + 'manifest.json'))
m['tunables'].update({'SG_ROWS': {'default': 0}, 'SG_LANES': {'default': 32}, 'SG_SCALE': {'default': 'late'},
                      'CONV': {'default': 'native'}})
m['derive'].update({'sgRows': 'False', 'scaleLate': 'False', 'conv': 'tunables.CONV'})
proto = next(v for v in m['variants'] if v['id'] == 'rows_packed_vec8')
sg = copy.deepcopy(proto)
sg['id'] = 'rows_packed_sg'; sg['priority'] = 40
sg['when'] = ['dtypes.T == "f16"', 'not nativeStorage', 'packedVec8Ok', 'device.features.subgroups',
              'tunables.SG_ROWS > 0', 'ceilDiv(rowLength // 8, tunables.SG_LANES) <= 32',
              'tunables.SG_LANES * tunables.SG_ROWS <= device.limits.maxComputeInvocationsPerWorkgroup',
              'ceilDiv(ceilDiv(rowCount, tunables.SG_ROWS), 65535) <= min(device.limits.maxComputeWorkgroupsPerDimension, 65535)']
sg['derive'] = {'width': '8', 'words': '"vec4<u32>"', 'oddRow': 'False', 'lanes': 'tunables.SG_LANES',
                'rowWg': 'tunables.SG_LANES * tunables.SG_ROWS', 'rowCache': 'ceilDiv(rowLength // width, lanes)',
                'fixedRowVecs': 'rowLength // width', 'rowPair': 'False', 'sgRows': 'True',
                'scaleLate': 'tunables.SG_SCALE == "late"'}
p = sg['passes'][0]; p['name'] = 'RMSNormalization.RowsPackedSubgroup'; p.pop('fusion', None)
m['variants'].insert(0, sg)
json.dump(m, open(W + 'manifest.json', 'w'), indent=2)

# --- call-entry: the lane argument is subgroup_size for sgRows
t = open(W + 'call-entry.wgsl.jinja').read()
old = '@builtin(subgroup_invocation_id) lane: u32" if subgroupSum'
assert old in t
t = t.replace(old, '@builtin(" ~ (\"subgroup_size\" if sgRows else \"subgroup_invocation_id\") ~ ") lane: u32" if subgroupSum')
open(W + 'call-entry.wgsl.jinja', 'w').write(t)
for n in ('rms-normalization.wgsl.jinja', 'rms-normalization-general.wgsl.jinja'):  # they include call-entry
    u = open(W + n).read(); assert u.startswith('{#- #param '); open(W + n, 'w').write(u.replace('#param ', '#param sgRows ', 1))

# --- the packed template
f = W + 'rms-normalization-packed.wgsl.jinja'
t = open(f).read()
def sub(old, new, count=1):
    global t
    assert t.count(old) == count, (old, t.count(old))
    t = t.replace(old, new)
sub('{#- #param reduction rowWg lanes rowPair', '{#- #param sgRows scaleLate conv reduction rowWg lanes rowPair')
sub('{%- set subgroupSum = reduction == "subgroup" and lanes == rowWg %}',
    '{%- set subgroupSum = (reduction == "subgroup" and lanes == rowWg) or sgRows %}')
# rowSum for one row a subgroup (first in the chain)
sub('var<workgroup> partial: array<vec2<f32>, {{ rowWg }}>;\n{%- if lanes < rowWg %}', '''var<workgroup> partial: array<vec2<f32>, {{ rowWg }}>;
{%- if sgRows %}

// The sum of `local` over the {{ lanes }} invocations of this invocation's row (lid - lid % {{ lanes }} ..). A row is
// one subgroup when subgroups are {{ lanes }} wide (sgSize, uniform): subgroupAdd, no barrier. Otherwise the
// partial sums in workgroup memory, one barrier. Called by all invocations (uniform control flow).
fn rowSum(local: vec2<f32>, lid: u32, sgSize: u32) -> vec2<f32> {
  let s = subgroupAdd(local);
  if (sgSize == {{ lanes }}u) {
    return s;
  }
  partial[lid] = local;
  workgroupBarrier();
  let first = lid - lid % {{ lanes }}u;
  var t = vec2<f32>(0.0, 0.0);
  for (var k = 0u; k < {{ lanes }}u; k++) {
    t += partial[first + k];
  }
  return t;
}
{%- elif lanes < rowWg %}''')
# conversions by integer operations
sub('''fn half(words: u32, k: u32) -> f32 {
  return unpack2x16float(words)[k];
}''', '''{%- if conv != "native" %}

// unpack2x16float by integer operations, exact for every half: the exponent rebiased by 112 (normal), by 224
// (inf, nan: mantissa kept); a zero or subnormal m * 2^-24 as 2^-14 * (1 + m / 1024) - 2^-14 (exact, a normal
// f32 or 0: no f32 subnormal is ever formed, so denormal flushing cannot change it); the sign or'ed in.
fn unpackBits(w: u32) -> vec2<f32> {
  let h = vec2<u32>(w & 0xffffu, w >> 16u);
  let mag = (h & vec2<u32>(0x7fffu)) << vec2<u32>(13u);
  let e = mag & vec2<u32>(0x0f800000u);
  let b = mag + select(vec2<u32>(0x38000000u), vec2<u32>(0x70000000u), e == vec2<u32>(0x0f800000u));
  let f = select(bitcast<vec2<f32>>(b), bitcast<vec2<f32>>(b + vec2<u32>(0x00800000u)) - vec2<f32>(6.103515625e-05),
                 e == vec2<u32>(0u));
  return bitcast<vec2<f32>>(bitcast<vec2<u32>>(f) | ((h & vec2<u32>(0x8000u)) << vec2<u32>(16u)));
}
{%- endif %}
{%- if conv == "all" %}

// pack2x16float by integer operations, round to nearest even: |v| >= 65520 (a >= 2^16 after rounding) -> inf,
// nan -> 0x7e00; |v| < 2^-14 -> the subnormal by adding 0.5 (the FPU rounds the mantissa; an f32 subnormal
// input flushed to 0 gives 0, its correct half); normal: exponent rebiased by -112, + 0xfff + the kept lsb.
fn packBits(v: vec2<f32>) -> u32 {
  let u = bitcast<vec2<u32>>(v);
  let sign = (u >> vec2<u32>(16u)) & vec2<u32>(0x8000u);
  let a = u & vec2<u32>(0x7fffffffu);
  let big = select(vec2<u32>(0x7c00u), vec2<u32>(0x7e00u), a > vec2<u32>(0x7f800000u));
  let small = bitcast<vec2<u32>>(bitcast<vec2<f32>>(a) + vec2<f32>(0.5)) - vec2<u32>(0x3f000000u);
  let normal = (a + vec2<u32>(0xc8000fffu) + ((a >> vec2<u32>(13u)) & vec2<u32>(1u))) >> vec2<u32>(13u);
  let r = select(select(normal, small, a < vec2<u32>(0x38800000u)), big, a >= vec2<u32>(0x47800000u)) | sign;
  return r.x | (r.y << 16u);
}
{%- endif %}
{%- set unpackFn = "unpack2x16float" if conv == "native" else "unpackBits" %}
{%- set packFn = "packBits" if conv == "all" else "pack2x16float" %}

fn half(words: u32, k: u32) -> f32 {
  return unpack2x16float(words)[k];
}''')
# every conversion after the definitions goes through unpackFn / packFn
i = t.index('fn half(words: u32, k: u32)') + 10
t = t[:i] + re.sub(r'(?<![\w])pack2x16float\(', '{{ packFn }}(', re.sub(r'unpack2x16float\(', '{{ unpackFn }}(', t[i:]))
# scale read after the sum (scaleLate): not kept between the passes
sub('''      scaled[k] = scaleAt(i);''', '''{%- if not scaleLate %}
      scaled[k] = scaleAt(i);
{%- endif %}''')
sub('''  var scaled: array<array<vec2<f32>, 4>, {{ rowCache }}>;''', '''{%- if not scaleLate %}
  var scaled: array<array<vec2<f32>, 4>, {{ rowCache }}>;
{%- endif %}''')
sub('''        y{{ at }}[base + i] = normalized(kept[k], inv, scaled[k]);''',
    '''        y{{ at }}[base + i] = normalized(kept[k], inv, {{ "scaleAt(i)" if scaleLate else "scaled[k]" }});''')
open(f, 'w').write(t)

# --- test.json: lavapipe correctness (F16_STORAGE=packed; lavapipe's subgroups are 8 wide)
tol = {'abs': 1e-05, 'rel': 0.001, 'why': 'as the shipped packed f16 cases: f32 arithmetic, one rounding on store'}
def tcase(name, shape, scale, tun, variant, seed=5):
    return {'name': name, 'dtype': 'float16', 'seed': seed, 'tunables': dict({'F16_STORAGE': 'packed'}, **tun),
            'inputs': {'x': {'shape': shape}, 'scale': {'shape': scale}}, 'variant': variant, 'tolerance': tol}
tests = []
for rows in (1, 2, 4):
    for lanes in (8, 32):
        for sc in ('late', 'early'):
            for conv in ('native', 'unpack', 'all'):
                n = 4096 if lanes == 32 else 2048  # at most 32 loads an invocation
                tests.append(tcase(f'sg_r{rows}_l{lanes}_{sc}_{conv}', [37, n], [n],
                                   {'SG_ROWS': rows, 'SG_LANES': lanes, 'SG_SCALE': sc, 'CONV': conv},
                                   'rows_packed_sg'))
tests.append(tcase('sg_r4_l8_one_scale', [13, 2, 64], [1], {'SG_ROWS': 4, 'SG_LANES': 8}, 'rows_packed_sg'))
tests.append(tcase('sg_r2_l8_repeat_scale', [9, 2, 256], [256], {'SG_ROWS': 2, 'SG_LANES': 8, 'CONV': 'all'},
                   'rows_packed_sg'))
for conv in ('unpack', 'all'):
    tests.append(tcase(f'shipped_{conv}', [64, 4096], [4096], {'CONV': conv}, 'row_packed_vec8'))
    tests.append(tcase(f'shipped_rows_{conv}', [300, 64], [64], {'CONV': conv}, 'rows_packed_vec8'))
json.dump({'cases': tests}, open(W + 'test.json', 'w'), indent=1)

# --- bench.json: the cases to time (as exp11's)
base = json.load(open(f'kernels/{R}/build/webgpu/bench.json'))
bp = {c['name']: c for c in base['cases']}
def case(name, dt, shape):
    c = copy.deepcopy(bp[f'prefill_1x512x4096_{dt}']); c['name'] = name
    c['inputs']['x']['shape'] = shape; c['inputs']['scale']['shape'] = [shape[-1]]; return c
cases = [case('f16_512x4096', 'f16', [512, 4096]), case('f32_512x4096', 'f32', [512, 4096]),
         case('f16_1024x4096', 'f16', [1024, 4096]), case('f16_4096x4096', 'f16', [4096, 4096]),
         case('f32_512x2048', 'f32', [512, 2048])]
b = json.load(open(W + 'bench.json')); b['cases'] = cases; json.dump(b, open(W + 'bench.json', 'w'), indent=1)
import subprocess; subprocess.run(['build/tools/wgk/wgk', 'metadata', D], check=True)
print('made', D, len(tests), 'test cases,', len(cases), 'bench cases')
