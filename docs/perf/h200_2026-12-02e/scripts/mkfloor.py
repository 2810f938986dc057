# Scratch RoPE packages for the H200 (issue 17, RoPE f32 at 1 GiB): what x and y cost without cos/sin, and what
# the vec4 kernel (one vec4 of y a thread, as the copy) does there. From the repository root:
#   python3 docs/perf/h200_2026-12-02e/scripts/mkfloor.py .h200x/floor   (after mkplace.py .h200x/place and
#   mkblock.py .h200x/kb 1024), then wgk metadata on each folder printed.
# read/: the shipped package with a KERNEL tunable ("vec4" makes vec4Preferred true, so the vec4 variant runs).
# none/: the same with every non-interleaved cos/sin load of the quad and vec4 kernels replaced by constants
#   (c = 1, s = 0, behind a branch on the cache index that is never taken: position ids are still read): wrong results, timing only.
# kb/tb1024/: mkblock.py's blocks of 1,024 tokens, given mkplace.py's bench cases.
import json, re, shutil, sys
out = sys.argv[1]
cases = json.load(open('.h200x/place/ai.onnx.RotaryEmbedding/build/webgpu/bench.json'))['cases']
cases = [c for c in cases if c['name'] in ('place_R65536_p8192', 'place_R65536_p65536')]
for kind in ('read', 'none'):
    d = f'{out}/{kind}/ai.onnx.RotaryEmbedding'
    shutil.rmtree(d, ignore_errors=True); shutil.copytree('kernels/ai.onnx.RotaryEmbedding', d)
    w = d + '/build/webgpu/'
    m = json.load(open(w + 'manifest.json'))
    m['tunables']['KERNEL'] = {"default": "quad"}
    m['derive']['vec4Preferred'] = '(' + m['derive']['vec4Preferred'] + ') or tunables.KERNEL == "vec4"'
    json.dump(m, open(w + 'manifest.json', 'w'), indent=1)
    json.dump({"cases": cases}, open(w + 'bench.json', 'w'), indent=1)
    if kind == 'none':
        for f, n in (('rotary-embedding-quad.wgsl.jinja', 2), ('rotary-embedding-vec4.wgsl.jinja', 4)):
            t = open(w + f).read()
            t, a = re.subn(r'vec4<f32>\(cos_cache\[([^\]]+)\]\)', r'cosAt(\1)', t)
            t, b = re.subn(r'vec4<f32>\(sin_cache\[([^\]]+)\]\)', r'sinAt(\1)', t)
            # The caches stay referenced (a branch never taken), so the auto layout keeps their bindings.
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
            assert a == n and b == n, (f, a, b)
            open(w + f, 'w').write(t)
    print(d)
json.dump({"cases": cases}, open(out + '/../kb/tb1024/ai.onnx.RotaryEmbedding/build/webgpu/bench.json', 'w'), indent=1)
print(out + '/../kb/tb1024/ai.onnx.RotaryEmbedding')
