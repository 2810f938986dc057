# Scratch RoPE packages for the H200 (issue 17, RoPE f32 at 1 GiB): the quad kernel's token-major loop with the x
# loads of all G heads of the group issued before any store (two loops over the group: loads into registers, then
# rotate and store), instead of load-rotate-store per head: whether the driver keeps the shipped loop's loads behind
# the previous head's stores (x and y are distinct bindings, but nothing tells the compiler they do not alias).
# Non-interleaved rotation only (interleaved keeps the shipped loop). "_none": cos/sin replaced by constants behind a
# branch never taken (mkskew.py's _none). From the repository root:
#   python3 docs/perf/h200_2026-12-02f/scripts/mkhoist.py .h200x/ho G[:none] ... (e.g. 8 4 16 8:none)
# then build/tools/wgk/wgk metadata on each folder printed; run with ROW_ORDER=token.
import json, shutil, sys
out = sys.argv[1]
src = 'kernels/ai.onnx.RotaryEmbedding'
old = '''      for (var n = 0u; n < {{ headGroup }}u; n++) {
        quadRow{{ at }}(row0 * params.headVec4 + (firstHead + n) * headStride, k, c, s);
      }
'''
new = '''{%- if interleaved %}
      for (var n = 0u; n < {{ headGroup }}u; n++) {
        quadRow{{ at }}(row0 * params.headVec4 + (firstHead + n) * headStride, k, c, s);
      }
{%- else %}
      let a0 = row0 * params.headVec4 + firstHead * headStride + k;
      var xa: array<vec4<f32>, {{ headGroup }}>;
      var xb: array<vec4<f32>, {{ headGroup }}>;
      for (var n = 0u; n < {{ headGroup }}u; n++) {
        xa[n] = vec4<f32>(x{{ at }}[a0 + n * headStride]);
        xb[n] = vec4<f32>(x{{ at }}[a0 + n * headStride + params.halfRotaryVec4]);
      }
      for (var n = 0u; n < {{ headGroup }}u; n++) {
        let a = a0 + n * headStride;
        y{{ at }}[a] = {{ vector }}(xa[n] * c - xb[n] * s);
        y{{ at }}[a + params.halfRotaryVec4] = {{ vector }}(xb[n] * c + xa[n] * s);
      }
{%- endif %}
'''
for spec in sys.argv[2:]:
    parts = spec.split(':')
    G, none = int(parts[0]), len(parts) > 1
    d = f'{out}/g{G}{"_none" if none else ""}/ai.onnx.RotaryEmbedding'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(src, d)
    w = d + '/build/webgpu/'
    m = json.load(open(w + 'manifest.json'))
    hg = m['derive']['headGroup']
    assert hg.startswith('(8 if headCount % 8 == 0 else headCount)'), hg
    m['derive']['headGroup'] = hg.replace('(8 if headCount % 8 == 0', f'({G} if headCount % {G} == 0', 1)
    json.dump(m, open(w + 'manifest.json', 'w'), indent=1)
    f = w + 'rotary-embedding-quad.wgsl.jinja'
    t = open(f).read()
    assert t.count(old) == 1
    t = t.replace(old, new)
    if none:
        for a, b in (('vec4<f32>(cos_cache[ci])', 'cosAt(ci)'), ('vec4<f32>(sin_cache[ci])', 'sinAt(ci)')):
            assert t.count(a) == 2, a
            t = t.replace(a, b)
        inc = '{% include "cache-row.wgsl.jinja" %}\n'
        assert t.count(inc) == 1
        t = t.replace(inc, inc + '''fn cosAt(i: u32) -> vec4<f32> {
  if (i == 0xffffffffu) { return vec4<f32>(cos_cache[0]); }
  return vec4<f32>(1.0);
}
fn sinAt(i: u32) -> vec4<f32> {
  if (i == 0xffffffffu) { return vec4<f32>(sin_cache[0]); }
  return vec4<f32>(0.0);
}
''')
    open(f, 'w').write(t)
    print(d)
