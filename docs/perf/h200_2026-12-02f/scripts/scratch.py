# Helpers of mkskew.py and mkhoist.py (scratch RoPE packages for the H200, issue 17).
import json, shutil

SRC = 'kernels/ai.onnx.RotaryEmbedding'
QUAD = 'rotary-embedding-quad.wgsl.jinja'


def copy_package(d, head_group):
    """Copy the shipped ai.onnx package to `d` with the token-major head group `head_group` instead of 8; returns
    the folder of its build/webgpu/ files."""
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(SRC, d)
    w = d + '/build/webgpu/'
    m = json.load(open(w + 'manifest.json'))
    hg = m['derive']['headGroup']
    assert hg.startswith('(8 if headCount % 8 == 0 else headCount)'), hg
    m['derive']['headGroup'] = hg.replace('(8 if headCount % 8 == 0', f'({head_group} if headCount % {head_group} == 0', 1)
    json.dump(m, open(w + 'manifest.json', 'w'), indent=1)
    return w


def without_cache_loads(t):
    """The quad template `t` with its two non-interleaved cos/sin loads replaced by c = 1, s = 0 behind a branch on
    the cache index that is never taken (the bindings stay; position ids are still read): wrong results, timing
    only (h200_2026-12-02e's mkfloor.py)."""
    for a, b in (('vec4<f32>(cos_cache[ci])', 'cosAt(ci)'), ('vec4<f32>(sin_cache[ci])', 'sinAt(ci)')):
        assert t.count(a) == 2, a
        t = t.replace(a, b)
    inc = '{% include "cache-row.wgsl.jinja" %}\n'
    assert t.count(inc) == 1
    return t.replace(inc, inc + '''fn cosAt(i: u32) -> vec4<f32> {
  if (i == 0xffffffffu) { return vec4<f32>(cos_cache[0]); }
  return vec4<f32>(1.0);
}
fn sinAt(i: u32) -> vec4<f32> {
  if (i == 0xffffffffu) { return vec4<f32>(sin_cache[0]); }
  return vec4<f32>(0.0);
}
''')
