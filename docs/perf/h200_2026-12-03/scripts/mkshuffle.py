# Scratch RoPE packages for the H200 (issue 17, RoPE f32 at 1 GiB): the vec4 kernel (one vec4 of y a thread, so a
# subgroup's loads and stores are one contiguous 512-byte row, as the copy's) with the partner half of the head
# taken from the partner lane by subgroupShuffle instead of a second load. From the repository root:
#   python3 docs/perf/h200_2026-12-03/scripts/mkshuffle.py OUT G[:none] ...
# then wgk metadata on each folder printed. G = 1: head order (a thread a vec4); G > 1: token order, a thread loops
# over G heads of its token with its cos/sin in registers (numel / 4 / G threads). `:none`: the cos/sin loads
# replaced by c = 1, s = 0 behind a branch never taken (wrong results, timing only). Interleaved and partial
# rotation, and fused calls (timed wrong with G > 1: the dispatch is divided by G), keep the shipped vec4 kernel (renamed rotary-embedding-vec4-shipped.wgsl.jinja). The package gets a KERNEL
# tunable; KERNEL=vec4 makes the vec4 variant (this kernel) run. Lanes are given their vec4s by a workgroup atomic
# per subgroup (no assumption on how invocations map to subgroups); a subgroup whose size is not a multiple of the
# head's vec4 count (or a partial one) loads the partner from memory instead.
import json, shutil, sys

SRC = 'kernels/ai.onnx.RotaryEmbedding'
KERNEL = r'''{#- #param vecHead vecRotary vecHalfRotary vecHeads positionMode rank rotaryOutputWg interleaved vector fusedCalls -#}
{%- if interleaved or vecRotary < vecHead or fusedCalls > 1 %}
{% include "rotary-embedding-vec4-shipped.wgsl.jinja" %}
{%- else %}
enable subgroups;
{%- set numHeadsExpr = "NUM_HEADS" %}
const HEAD_VEC4: u32 = {{ vecHead }}u;
const HALF_ROTARY_VEC4: u32 = {{ vecHalfRotary }}u;
const NUM_HEADS: u32 = {{ vecHeads }}u;
const GROUP: u32 = @GROUP@u;

{% include "cache-row.wgsl.jinja" %}
@CACHE_FNS@
var<workgroup> subgroupSlots: atomic<u32>;

@compute @workgroup_size({{ rotaryOutputWg }})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sgSize: u32) {
  let ballot = subgroupBallot(true);
  let count = countOneBits(ballot.x) + countOneBits(ballot.y) + countOneBits(ballot.z) + countOneBits(ballot.w);
  var first = 0u;
  if (subgroupElect()) {
    first = atomicAdd(&subgroupSlots, count);
  }
  first = subgroupMax(first);
  let total = params.vecCount / GROUP;
  let chunk = (wid.x + wid.y * nwg.x) * {{ rotaryOutputWg }}u + first;
  let index = chunk + lane;
  // This subgroup's vec4s are whole heads: lane l's partner half is lane l +- HALF_ROTARY_VEC4.
  let full = count == sgSize && sgSize % HEAD_VEC4 == 0u && chunk % HEAD_VEC4 == 0u;
  let valid = index < total;
  let tg = index / HEAD_VEC4;
  let j = index - tg * HEAD_VEC4;
  let second = j >= HALF_ROTARY_VEC4;
  let partnerLane = select(lane + HALF_ROTARY_VEC4, lane - HALF_ROTARY_VEC4, second);
{%- if @GROUP@ == 1 %}
  let row0 = tg;
  let headStride = 0u;
{%- else %}
  let groups = NUM_HEADS / GROUP;
  let token = tg / groups;
  let firstHead = (tg - token * groups) * GROUP;
  let bb = token / params.sequenceLength;
  let row0 = bb * NUM_HEADS * params.sequenceLength + token - bb * params.sequenceLength + firstHead * params.sequenceLength;
  let headStride = params.sequenceLength * HEAD_VEC4;
{%- endif %}
  let ci = cacheRow(min(row0, params.vecCount / HEAD_VEC4 - 1u)) * HALF_ROTARY_VEC4 + select(j, j - HALF_ROTARY_VEC4, second);
  let c = cosAt(select(0u, ci, valid));
  let s = sinAt(select(0u, ci, valid));
  for (var n = 0u; n < GROUP; n++) {
    let at = min(row0 * HEAD_VEC4 + j + n * headStride, params.vecCount - 1u);
    let v = vec4<f32>(x[at]);
    // In uniform control flow (WGSL's subgroup_uniformity); used only where the partner is in this subgroup.
    var p = subgroupShuffle(v, min(partnerLane, sgSize - 1u));
    if (!full) {
      p = vec4<f32>(x[min(select(at + HALF_ROTARY_VEC4, at - HALF_ROTARY_VEC4, second), params.vecCount - 1u)]);
    }
    if (valid) {
      // first half: v * c - p * s; second half: v * c + p * s
      y[at] = {{ vector }}(v * c + select(-(p * s), p * s, second));
    }
  }
}
{%- endif %}
'''
READ = '''fn cosAt(i: u32) -> vec4<f32> { return vec4<f32>(cos_cache[i]); }
fn sinAt(i: u32) -> vec4<f32> { return vec4<f32>(sin_cache[i]); }'''
NONE = '''fn cosAt(i: u32) -> vec4<f32> {
  if (i == 0xffffffffu) { return vec4<f32>(cos_cache[0]); }
  return vec4<f32>(1.0);
}
fn sinAt(i: u32) -> vec4<f32> {
  if (i == 0xffffffffu) { return vec4<f32>(sin_cache[0]); }
  return vec4<f32>(0.0);
}'''

out = sys.argv[1]
for spec in sys.argv[2:]:
    g, _, kind = spec.partition(':')
    name = f'g{g}' + (f'_{kind}' if kind else '')
    d = f'{out}/{name}/ai.onnx.RotaryEmbedding'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(SRC, d)
    w = d + '/build/webgpu/'
    m = json.load(open(w + 'manifest.json'))
    m['tunables']['KERNEL'] = {"default": "quad"}
    m['derive']['vec4Preferred'] = '(' + m['derive']['vec4Preferred'] + ') or tunables.KERNEL == "vec4"'
    v = [v for v in m['variants'] if v['id'] == 'vec4'][0]
    dx = v['passes'][0]['dispatch']
    for k in ('x', 'y'):
        assert 'numel(shapes.x) // 4,' in dx[k], dx[k]
        dx[k] = dx[k].replace('numel(shapes.x) // 4,', f'numel(shapes.x) // 4 // {g},')
    json.dump(m, open(w + 'manifest.json', 'w'), indent=1)
    t = KERNEL.replace('@GROUP@', g).replace('@CACHE_FNS@', NONE if kind == 'none' else READ)
    shipped = open(w + 'rotary-embedding-vec4.wgsl.jinja').read()
    assert shipped.startswith('{#- #param ')  # the header stays in the pass's template (below)
    open(w + 'rotary-embedding-vec4-shipped.wgsl.jinja', 'w').write(shipped[shipped.index('-#}') + 3:])
    open(w + 'rotary-embedding-vec4.wgsl.jinja', 'w').write(t)
    print(d)
