# Scratch RMSNormalization packages for the seventeenth session's bound (not committed as packages; this script is
# their record; run from the repository root, then `wgk metadata` on each):
#   DEST/none/ai.onnx.RMSNormalization     each invocation scales its loads by its own partial sum: the shipped
#                                          loads, conversions and stores with no dependence between invocations
#   DEST/barrier/ai.onnx.RMSNormalization  the same after a workgroupBarrier(): the least a row kernel waits for
# (the row kernels' sum, `rowSum`, replaced where the row_vec4 / row_packed_vec8 kernels call it; the values are
# wrong by design). usage: python3 mkbound.py DEST
import shutil, sys
R = 'ai.onnx.RMSNormalization'
dest = sys.argv[1]
CALLS = {'rms-normalization-packed.wgsl.jinja': 'let total = rowSum(vec2<f32>(local, 0.0), lid, sumArg).x;',
         'rms-normalization.wgsl.jinja': 'let total = rowSum(local, lid, {{ "lane" if subgroupSum else "part" }});'}
for diag, repl in (('none', 'let total = local;'), ('barrier', 'workgroupBarrier();\n  let total = local;')):
    d = f'{dest}/{diag}/{R}'
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree('kernels/' + R, d)
    for name, old in CALLS.items():
        f = f'{d}/build/webgpu/{name}'
        t = open(f).read()
        assert old in t, (name, old)
        open(f, 'w').write(t.replace(old, repl))
