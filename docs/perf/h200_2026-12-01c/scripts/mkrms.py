# Scratch RMS experiment: ROW_PAIR "auto" from 2 rows, the two rows reduced and stored in turn (staggered).
import json, shutil
src = 'kernels/ai.onnx.RMSNormalization'
d = '.h200x/kx/stagger/ai.onnx.RMSNormalization'
shutil.rmtree(d, ignore_errors=True); shutil.copytree(src, d)
w = d + '/build/webgpu/'
m = open(w + 'manifest.json').read()
n = m.count('rowCount >= 2048')
m = m.replace('rowCount >= 2048', 'rowCount >= 2')
open(w + 'manifest.json', 'w').write(m)
print('rules relaxed', n)
t = open(w + 'rms-normalization.wgsl.jinja').read()
t = t.replace('{%- set sum = "vec2<f32>" if rowPair else "f32" %}', '{%- set sum = "f32" %}')
# second partial array + counter, second rowSum for the subgroup case and the tree case
t = t.replace('var<workgroup> partial: array<{{ sum }}, {{ rowWg }}>;',
              'var<workgroup> partial: array<{{ sum }}, {{ rowWg }}>;\nvar<workgroup> partialB: array<{{ sum }}, {{ rowWg }}>;')
t = t.replace('var<workgroup> partialCount: atomic<u32>;', 'var<workgroup> partialCount: atomic<u32>;\nvar<workgroup> partialCountB: atomic<u32>;')
sub = t[t.index('fn rowSum(local: {{ sum }}, lid: u32, lane: u32)'):]
sub = sub[:sub.index('\n}\n') + 3]
t = t.replace(sub, sub + '\n' + sub.replace('fn rowSum(', 'fn rowSumB(').replace('partialCount', 'partialCountB').replace('partial[', 'partialB['))
tree = t[t.index('fn rowSum(local: {{ sum }}, lid: u32, part: u32) -> {{ sum }} {\n  partial[lid] = local;\n  workgroupBarrier();\n  for'):]
tree = tree[:tree.index('\n}\n') + 3]
t = t.replace(tree, tree + '\n' + tree.replace('fn rowSum(', 'fn rowSumB(').replace('partial[', 'partialB['))
old_sum = '''  for (var k = 0u; k < {{ rowCache }}u; k++) {
{%- if rowPair %}
    local += vec2<f32>(squares(kept[k]), squares(kept2[k]));
{%- else %}
    local += squares(kept[k]);
{%- endif %}
  }
  let total = rowSum(local, lid, {{ "lane" if subgroupSum else "part" }});
  let inv = inverseSqrt(total / f32(params.rowLength) + params.epsilon);
{%- if rowPair %}
  let second = row + 1u < params.rowCount;
  for (var k = 0u; k < {{ rowCache }}u; k++) {
    let i = part + k * {{ lanes }}u;
    if (i < {{ fixedRowVecs }}u) {
      y[base + i] = {{ vector }}(kept[k] * inv.x * scaled[k]);
      if (second) {
        y[base + {{ fixedRowVecs }}u + i] = {{ vector }}(kept2[k] * inv.y * scaled[k]);
      }
    }
  }'''
assert old_sum in t
new_sum = '''  for (var k = 0u; k < {{ rowCache }}u; k++) {
    local += squares(kept[k]);
  }
  let total = rowSum(local, lid, {{ "lane" if subgroupSum else "part" }});
  let inv = inverseSqrt(total / f32(params.rowLength) + params.epsilon);
{%- if rowPair %}
  for (var k = 0u; k < {{ rowCache }}u; k++) {
    let i = part + k * {{ lanes }}u;
    if (i < {{ fixedRowVecs }}u) {
      y[base + i] = {{ vector }}(kept[k] * inv * scaled[k]);
    }
  }
  var local2 = 0.0;
  for (var k = 0u; k < {{ rowCache }}u; k++) {
    local2 += squares(kept2[k]);
  }
  let total2 = rowSumB(local2, lid, {{ "lane" if subgroupSum else "part" }});
  let inv2 = inverseSqrt(total2 / f32(params.rowLength) + params.epsilon);
  if (row + 1u < params.rowCount) {
    for (var k = 0u; k < {{ rowCache }}u; k++) {
      let i = part + k * {{ lanes }}u;
      if (i < {{ fixedRowVecs }}u) {
        y[base + {{ fixedRowVecs }}u + i] = {{ vector }}(kept2[k] * inv2 * scaled[k]);
      }
    }
  }'''
t = t.replace(old_sum, new_sum)
open(w + 'rms-normalization.wgsl.jinja', 'w').write(t)
