# Scratch RoPE packages for the H200 (issue 17, RoPE f32 at 1 GiB): the quad kernel's token-major loop with the x
# loads of all G heads of the group issued before any store (two loops over the group: loads into registers, then
# rotate and store), instead of load-rotate-store per head: whether the driver keeps the shipped loop's loads behind
# the previous head's stores (x and y are distinct bindings, but nothing tells the compiler they do not alias).
# Non-interleaved rotation only (interleaved keeps the shipped loop). "_none": cos/sin replaced by constants behind a
# branch never taken (mkskew.py's _none). From the repository root:
#   python3 docs/perf/h200_2026-12-02f/scripts/mkhoist.py .h200x/ho G[:none] ... (e.g. 8 4 16 8:none)
# then build/tools/wgk/wgk metadata on each folder printed; run with ROW_ORDER=token.
import sys
from scratch import QUAD, copy_package, without_cache_loads
out = sys.argv[1]
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
    w = copy_package(d, G)
    f = w + QUAD
    t = open(f).read()
    assert t.count(old) == 1
    t = t.replace(old, new)
    if none:
        t = without_cache_loads(t)
    open(f, 'w').write(t)
    print(d)
