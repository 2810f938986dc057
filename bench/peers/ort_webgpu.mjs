// Times ONNX Runtime's WebGPU execution provider (onnxruntime-node) on the RotaryEmbedding bench cases.
//
// usage: node bench/peers/ort_webgpu.mjs [--filter S] [--iterations N] [--warmup N] [--json FILE]
//        [--models DIR]   (DIR from make_models.py; default: made now with $PYTHON or /usr/bin/python3)
// env:   ORT_NODE = path of the onnxruntime-node package (default tests/oracles/node_modules/onnxruntime-node)
//
// What it measures: the wall-clock median of session.run() with host (CPU) tensors in and out:
// onnxruntime-node has no WebGPU GPU-buffer tensors (Tensor.fromGpuBuffer needs a browser GPUDevice),
// so each run uploads the inputs, dispatches, and reads Y back. CPU fallback is disabled
// (session.disable_cpu_ep_fallback), so a case that the WebGPU EP cannot place fails instead of
// silently running on the CPU.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const require = createRequire(import.meta.url);
const ort = require(process.env.ORT_NODE || path.join(root, 'tests/oracles/node_modules/onnxruntime-node'));

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const filter = opt('--filter', '');
const iterations = Number(opt('--iterations', '50'));
const warmup = Number(opt('--warmup', '5'));
const jsonOut = opt('--json', '');
let models = opt('--models', '');
if (!models) {
  models = fs.mkdtempSync(path.join(os.tmpdir(), 'wgk-ort-models-'));
  execFileSync(process.env.PYTHON || '/usr/bin/python3', [path.join(here, 'make_models.py'), models, '--filter', filter],
    { stdio: 'inherit' });
}
const index = JSON.parse(fs.readFileSync(path.join(models, 'cases.json'), 'utf8')).filter((c) => c.case.includes(filter));

// Seeded xorshift so runs are reproducible; floats uniform in [-1, 1).
let seed = 0x9e3779b9;
const rand = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
function toHalf(f) {  // float32 -> IEEE binary16 bits (round to nearest; values here are in [-1, 1))
  const b = new Float32Array([f]); const u = new Uint32Array(b.buffer)[0];
  const sign = (u >>> 16) & 0x8000; let e = ((u >>> 23) & 0xff) - 127 + 15; let m = u & 0x7fffff;
  if (e <= 0) return sign;  // flush tiny values (|f| < 2^-14) to zero: harmless for timing
  let h = sign | (e << 10) | (m >>> 13); if ((m & 0x1fff) > 0x1000 || ((m & 0x1fff) === 0x1000 && (h & 1))) h += 1;
  return h;
}
function makeTensor(spec) {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  if (spec.dtype === 'int64') {
    const a = new BigInt64Array(n);
    for (let i = 0; i < n; ++i) {
      a[i] = BigInt(spec.values ? spec.values[i] : spec.randomInt[0] + Math.floor(rand() * (spec.randomInt[1] - spec.randomInt[0] + 1)));
    }
    return new ort.Tensor('int64', a, spec.shape);
  }
  if (spec.dtype === 'float16') {
    const a = new Uint16Array(n); for (let i = 0; i < n; ++i) a[i] = toHalf(rand() * 2 - 1);
    return new ort.Tensor('float16', a, spec.shape);
  }
  const a = new Float32Array(n); for (let i = 0; i < n; ++i) a[i] = rand() * 2 - 1;
  return new ort.Tensor('float32', a, spec.shape);
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const rows = [];
for (const c of index) {
  const row = { kernel: c.kernel, case: c.case, dtype: c.dtype };
  try {
    const session = await ort.InferenceSession.create(path.join(models, c.model), {
      executionProviders: ['webgpu'],
      extra: { session: { disable_cpu_ep_fallback: '1' } },
    });
    const feeds = {};
    for (const [name, spec] of Object.entries(c.inputs)) feeds[name] = makeTensor(spec);
    for (let i = 0; i < warmup; ++i) await session.run(feeds);
    const times = [];
    for (let i = 0; i < iterations; ++i) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0));
    }
    row.run_ns = median(times);
    row.what = 'session.run wall time, host IO (upload + dispatch + readback)';
    await session.release();
  } catch (e) {
    row.error = String(e.message || e).split('\n')[0];
  }
  rows.push(row);
  console.log(`${c.kernel} ${c.case}: ${row.error ? 'error: ' + row.error : (row.run_ns / 1e3).toFixed(1) + ' us'}`);
}
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ peer: 'onnxruntime-node ' + (ort.env.versions?.common ?? ''), rows }, null, 1));
