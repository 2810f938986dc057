# Scratch package of exp17 (not committed; this script is its record; run from the repository root):
# .h200x/kx/rms_pipe/ai.onnx.RMSNormalization = the shipped package plus two variants of a new template
# rms-normalization-pipe.wgsl.jinja (below): PERSISTENT workgroups with a software-pipelined row loop. Workgroup
# g of G normalizes rows g, g + G, ...; it issues the loads of its next row into registers BEFORE reducing and
# storing the current one (one barrier a row), so that DRAM sees reads and writes at once (issue 16's diagnosis:
# at 512 rows, one wave, the shipped kernels read, reduce, then write). Scale is loaded once per workgroup.
#   row_pipe_packed_vec8: packed f16 (no shader-f16; F16_STORAGE=packed), 8 halves a vec4<u32> load;
#   row_pipe_vec4: f32, vec4<f32> loads.
# Tunables (run17.sh sets them with --tunable):
#   PIPE_ROWS=0, PIPE_GROUPS=0 (default): the shipped variants (the pipe variants are off);
#   PIPE_ROWS=R > 0: G = ceil(rows / R) workgroups, R rows each (the last ones fewer);
#   PIPE_GROUPS=N > 0 (wins over PIPE_ROWS): G = min(N, rows) workgroups, ceil(rows / G) rows each at most;
#   PIPE_SCALE=words (default): the packed scale kept as its u32 words, converted per use; f32: kept as f32 pairs
#     (as the shipped kernels do); f32 storage keeps vec4<f32> either way;
#   WORKGROUP_SIZE (shipped tunable): invocations a row, 0 = the shipped choice (128 at these sizes);
#   REDUCTION=workgroup (shipped tunable): a tree in workgroup memory instead of subgroupAdd.
# Registers: 2 * ceil(rowLength / width / WG) row loads (the current and the next row) plus as many scales an
# invocation: at most 8 loads a row (the variants' `when`), 4 at packed f16 4096 and f32 2048 with WG 128.
# The subgroup reduction makes no assumption on the subgroups' layout: three sets of slots and atomic counters
# used in turn (rowSum's comment), one barrier a row.
import json, shutil, copy, subprocess
R = 'ai.onnx.RMSNormalization'
D = f'.h200x/kx/rms_pipe/{R}'
shutil.rmtree(D, ignore_errors=True); shutil.copytree('kernels/' + R, D)
W = D + '/build/webgpu/'

PIPE = r'''
{#- #param reduction rowWg scaleMode rowCache fixedRowVecs packed pipeScale -#}
{#- Persistent workgroups with a software-pipelined row loop (issue 16): workgroup g of G = num_workgroups.x
    (1-D dispatch) normalizes rows g, g + G, g + 2G, ...; the loads of its next row are issued into registers
    BEFORE the current row is reduced and stored, so the reduction (one barrier) and the stores of row r overlap
    the loads of row r + G. rowWg invocations a row, rowCache = ceil(fixedRowVecs / rowWg) loads of x an
    invocation a row (a vec4: 8 packed halves when `packed`, else 4 f32), kept for the second pass; scale is
    loaded once per workgroup and kept: pipeScale "words" keeps the packed words (converted per use), "f32" as
    f32 pairs (packed only; f32 storage keeps vec4<f32>). scaleMode as rms-normalization.wgsl.jinja's. The loop
    bound and every branch around a barrier or subgroup operation depend only on workgroup_id, num_workgroups
    and the params: uniform control flow. One call a dispatch (fusedCalls 1: the pipeline is for prefill). -#}
{%- set vec = "vec4<u32>" if packed else "vec4<f32>" %}
{%- set kept = ("vec4<u32>" if pipeScale == "words" else "array<vec2<f32>, 4>") if packed else "vec4<f32>" %}
{%- set subgroupSum = reduction == "subgroup" %}
{%- if subgroupSum %}
enable subgroups;
{%- endif %}
{%- if subgroupSum %}
// Three sets of slots (one per subgroup) and counters, row iteration t using set t % 3: set t is written before
// barrier t and read after it; its counter is reset after barrier t + 1 (every reader of set t has passed it),
// before any invocation can reach row t + 3's atomicAdd (after barrier t + 2): one barrier a row.
var<workgroup> partial: array<f32, {{ 3 * rowWg }}>;
var<workgroup> partialCount: array<atomic<u32>, 3>;  // zero at the start (WGSL zero-initializes it)

// The sum over the workgroup of every invocation's `local` for row iteration t: subgroupAdd within each subgroup,
// one slot per subgroup (taken in arrival order: the order of the last additions, the same for every invocation,
// varies between runs), one barrier, every invocation adds the slots. Called by all invocations.
fn rowSum(local: f32, lid: u32, lane: u32, t: u32) -> f32 {
  let slots = t % 3u;
  let s = subgroupAdd(local);
  if (lane == 0u) {
    partial[slots * {{ rowWg }}u + atomicAdd(&partialCount[slots], 1u)] = s;
  }
  workgroupBarrier();
  let n = atomicLoad(&partialCount[slots]);
  var sum = 0.0;
  for (var i = 0u; i < n; i++) {
    sum += partial[slots * {{ rowWg }}u + i];
  }
  if (lid == 0u) {
    atomicStore(&partialCount[(t + 2u) % 3u], 0u);  // set t - 1's: every reader of it has passed barrier t
  }
  return sum;
}
{%- else %}
var<workgroup> partial: array<f32, {{ rowWg }}>;

// The sum over the workgroup of every invocation's `local` (a tree: log2(rowWg) barriers, and one more so that
// the next row's writes of `partial` wait for every read of this row's). Called by all invocations.
fn rowSum(local: f32, lid: u32, lane: u32, t: u32) -> f32 {
  partial[lid] = local;
  workgroupBarrier();
  for (var s = {{ rowWg // 2 }}u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      partial[lid] = partial[lid] + partial[lid + s];
    }
    workgroupBarrier();
  }
  let sum = partial[0];
  workgroupBarrier();
  return sum;
}
{%- endif %}

// scale of load i of a row, in the kept form.
fn scaleAt(i: u32) -> {{ kept }} {
{%- if packed %}
{%- if scaleMode == "one" %}
  let w = (scale[0].x & 0xffffu) * 0x10001u;  // the one half in both halves
  let v = vec4<u32>(w);
{%- elif scaleMode == "full" %}
  let v = scale[i];
{%- else %}
  let v = scale[i % params.scaleVecs];
{%- endif %}
{%- if pipeScale == "words" %}
  return v;
{%- else %}
  return array<vec2<f32>, 4>(unpack2x16float(v.x), unpack2x16float(v.y), unpack2x16float(v.z), unpack2x16float(v.w));
{%- endif %}
{%- else %}
{%- if scaleMode == "one" %}
  return vec4<f32>(scale[0].x);
{%- elif scaleMode == "full" %}
  return scale[i];
{%- else %}
  return scale[i % params.scaleVecs];
{%- endif %}
{%- endif %}
}
{%- if packed %}

// pair j (halves 2j, 2j + 1) of a kept scale, in f32.
fn scalePair(s: {{ kept }}, j: u32) -> vec2<f32> {
{%- if pipeScale == "words" %}
  return unpack2x16float(s[j]);
{%- else %}
  return s[j];
{%- endif %}
}

fn squares(w: vec4<u32>) -> f32 {
  let a = unpack2x16float(w.x);
  let b = unpack2x16float(w.y);
  let c = unpack2x16float(w.z);
  let d = unpack2x16float(w.w);
  return dot(a, a) + dot(b, b) + dot(c, c) + dot(d, d);
}

fn normalized(w: vec4<u32>, inv: f32, s: {{ kept }}) -> vec4<u32> {
  return vec4<u32>(pack2x16float(unpack2x16float(w.x) * inv * scalePair(s, 0u)),
                   pack2x16float(unpack2x16float(w.y) * inv * scalePair(s, 1u)),
                   pack2x16float(unpack2x16float(w.z) * inv * scalePair(s, 2u)),
                   pack2x16float(unpack2x16float(w.w) * inv * scalePair(s, 3u)));
}
{%- else %}

fn squares(v: vec4<f32>) -> f32 {
  return dot(v, v);
}

fn normalized(v: vec4<f32>, inv: f32, s: vec4<f32>) -> vec4<f32> {
  return v * inv * s;
}
{%- endif %}

@compute @workgroup_size({{ rowWg }})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32{{ ", @builtin(subgroup_invocation_id) lane: u32" if subgroupSum else "" }}) {
{%- if not subgroupSum %}
  let lane = 0u;
{%- endif %}
  let groups = nwg.x;
  if (wid.x >= params.rowCount) {
    return;
  }
  // scale, once per workgroup
  var sc: array<{{ kept }}, {{ rowCache }}>;
  for (var k = 0u; k < {{ rowCache }}u; k++) {
    let i = lid + k * {{ rowWg }}u;
    if (i < {{ fixedRowVecs }}u) {
      sc[k] = scaleAt(i);
    }
  }
  // row wid.x's loads
  var cur: array<{{ vec }}, {{ rowCache }}>;
  var base = wid.x * {{ fixedRowVecs }}u;
  for (var k = 0u; k < {{ rowCache }}u; k++) {
    let i = lid + k * {{ rowWg }}u;
    if (i < {{ fixedRowVecs }}u) {
      cur[k] = x[base + i];
    }
  }
  var t = 0u;
  for (var row = wid.x; row < params.rowCount; row += groups) {
    // issue the next row's loads first (its values are not needed until the next iteration)
    var nxt: array<{{ vec }}, {{ rowCache }}>;
    let nextBase = (row + groups) * {{ fixedRowVecs }}u;
    if (row + groups < params.rowCount) {
      for (var k = 0u; k < {{ rowCache }}u; k++) {
        let i = lid + k * {{ rowWg }}u;
        if (i < {{ fixedRowVecs }}u) {
          nxt[k] = x[nextBase + i];
        }
      }
    }
    var local = 0.0;
    for (var k = 0u; k < {{ rowCache }}u; k++) {
      local += squares(cur[k]);  // zero where i >= fixedRowVecs (never loaded)
    }
    let inv = inverseSqrt(rowSum(local, lid, lane, t) / f32(params.rowLength) + params.epsilon);
    for (var k = 0u; k < {{ rowCache }}u; k++) {
      let i = lid + k * {{ rowWg }}u;
      if (i < {{ fixedRowVecs }}u) {
        y[base + i] = normalized(cur[k], inv, sc[k]);
      }
    }
    cur = nxt;
    base = nextBase;
    t++;
  }
}
'''
open(W + 'rms-normalization-pipe.wgsl.jinja', 'w').write(PIPE.lstrip('\n'))

# --- manifest: tunables and the two variants
m = json.load(open(W + 'manifest.json'))
m['tunables'].update({'PIPE_ROWS': {'default': 0}, 'PIPE_GROUPS': {'default': 0}, 'PIPE_SCALE': {'default': 'words'}})
common_when = ['tunables.PIPE_ROWS > 0 or tunables.PIPE_GROUPS > 0', 'rowCount > 0', 'rowCache <= 8',
               'pipeGroups <= min(device.limits.maxComputeWorkgroupsPerDimension, 65535)']
common_derive = {'lanes': 'rowWg', 'rowCache': 'ceilDiv(rowLength // width, rowWg)', 'fixedRowVecs': 'rowLength // width',
                 'pipeGroups': 'min(tunables.PIPE_GROUPS, rowCount) if tunables.PIPE_GROUPS > 0 else '
                               'ceilDiv(rowCount, max(tunables.PIPE_ROWS, 1))'}
def variant(vid, name, when, derive, bindings):
    return {'id': vid, 'priority': 40, 'when': when + common_when, 'derive': dict(common_derive, **derive),
            'passes': [{'id': 'main', 'name': name, 'shader': 'rms-normalization-pipe.wgsl.jinja', 'bindings': bindings,
                        'dispatch': {'x': 'pipeGroups', 'y': 1, 'z': 1}}]}
m['variants'][:0] = [
    variant('row_pipe_packed_vec8', 'RMSNormalization.RowPipePackedVec8',
            ['dtypes.T == "f16"', 'not nativeStorage', 'packedVec8Ok', 'fastPath'],
            {'width': '8', 'words': '"vec4<u32>"', 'packed': 'True', 'pipeScale': 'tunables.PIPE_SCALE'},
            ['x_words', 'scale_words', 'y_words', 'params']),
    variant('row_pipe_vec4', 'RMSNormalization.RowPipeVec4', ['dtypes.T == "f32"', 'vec4Ok', 'fastPath'],
            {'width': '4', 'vector': '"vec4<f32>"', 'packed': 'False', 'pipeScale': '"f32"'},
            ['x_t', 'scale_t', 'y_t', 'params'])]
json.dump(m, open(W + 'manifest.json', 'w'), indent=2)

# --- test.json: lavapipe correctness (lavapipe's subgroups are 8 wide: 16 or 32 subgroups a workgroup)
tol16 = {'abs': 1e-05, 'rel': 0.001, 'why': 'as the shipped packed f16 cases: f32 arithmetic, one rounding on store'}
tol32 = {'abs': 1e-06, 'rel': 1e-05, 'why': 'as the shipped f32 cases: f32 sums of at most 8 squares an invocation, '
         'then at most 256 subgroup sums, inverseSqrt and two products: well under 1e-5 relative of |y|'}
def tcase(name, dtype, shape, scale, tun, attrs=None, seed=7):
    c = {'name': name, 'dtype': dtype, 'seed': seed, 'tunables': dict(tun), 'inputs': {'x': {'shape': shape},
         'scale': {'shape': scale}}, 'variant': 'row_pipe_packed_vec8' if dtype == 'float16' else 'row_pipe_vec4',
         'tolerance': tol16 if dtype == 'float16' else tol32}
    if dtype == 'float16': c['tunables']['F16_STORAGE'] = 'packed'
    if attrs: c['attrs'] = attrs
    return c
tests = []
for dt, n in (('float16', 4096), ('float32', 2048)):
    k = 'p' if dt == 'float16' else 'f'
    tests += [
        tcase(f'{k}_r4_37rows', dt, [37, n], [n], {'PIPE_ROWS': 4}),             # 37 % 4, 37 % 10 (G) != 0
        tcase(f'{k}_r2_37rows_scale_f32', dt, [37, n], [n], {'PIPE_ROWS': 2, 'PIPE_SCALE': 'f32'}),
        tcase(f'{k}_r8_37rows_wg256', dt, [37, n], [n], {'PIPE_ROWS': 8, 'WORKGROUP_SIZE': 256}),  # G = 5
        tcase(f'{k}_g132_7rows', dt, [7, n], [n], {'PIPE_GROUPS': 132}),         # rows < workgroups
        tcase(f'{k}_r4_1row', dt, [1, n], [n], {'PIPE_ROWS': 4}),
        tcase(f'{k}_g3_100rows', dt, [100, n], [n], {'PIPE_GROUPS': 3}),         # 34 rows a workgroup: sets reused
        tcase(f'{k}_g3_100rows_tree', dt, [100, n], [n], {'PIPE_GROUPS': 3, 'REDUCTION': 'workgroup'}),
        tcase(f'{k}_r4_8000_partial_loads', dt, [19, 8000], [8000], {'PIPE_ROWS': 4}),  # last load a row partial
        tcase(f'{k}_r2_one_scale', dt, [13, 2, 64], [1], {'PIPE_ROWS': 2}),
        tcase(f'{k}_r4_repeat_scale', dt, [9, 2, 256], [256], {'PIPE_ROWS': 4, 'WORKGROUP_SIZE': 64}, {'axis': -2}),
    ]
json.dump({'cases': tests}, open(W + 'test.json', 'w'), indent=1)

# --- bench.json: the five cases of exp16
base = json.load(open(f'kernels/{R}/build/webgpu/bench.json'))
bp = {c['name']: c for c in base['cases']}
def case(name, dt, shape):
    c = copy.deepcopy(bp[f'prefill_1x512x4096_{dt}']); c['name'] = name
    c['inputs']['x']['shape'] = shape; c['inputs']['scale']['shape'] = [shape[-1]]; return c
cases = [case('f16_512x4096', 'f16', [512, 4096]), case('f32_512x4096', 'f32', [512, 4096]),
         case('f16_1024x4096', 'f16', [1024, 4096]), case('f16_4096x4096', 'f16', [4096, 4096]),
         case('f32_512x2048', 'f32', [512, 2048])]
b = json.load(open(W + 'bench.json')); b['cases'] = cases; json.dump(b, open(W + 'bench.json', 'w'), indent=1)
subprocess.run(['build/tools/wgk/wgk', 'metadata', D], check=True)
print('made', D, len(tests), 'test cases,', len(cases), 'bench cases')
