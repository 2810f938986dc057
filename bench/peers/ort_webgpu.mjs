// Times ONNX Runtime's WebGPU execution provider (onnxruntime-node) on the RotaryEmbedding bench cases.
//
// usage: node bench/peers/ort_webgpu.mjs [--filter S] [--iterations N] [--warmup N] [--json FILE]
//        [--models DIR] [--chain K] [--check-max N] [--case-budget-s S] [--profile]
//        [--spin-up-ms N] [--spin-elems N]
//   --filter S        the cases whose "<kernel>/<case>" (e.g. "ai.onnx.RotaryEmbedding/decode_r4_b1_h32x128_f32")
//                     contains S, or with S = "A|B|..." any of A, B, ...; a piece ending in "$" must equal the
//                     whole name (make_models.py reads it the same way)
//   --models DIR      cases.json + models from make_models.py (made with the same --chain K); default: made
//                     now into a temporary folder with $PYTHON or /usr/bin/python3
//   --chain K         K-node chained model to time against the 1-node model (default: the K that DIR's
//                     cases.json holds; 17 when the models are made now; 0 = only the 1-node host-IO time)
//   --iterations N    timed (1-node, K-node) pairs per case (default 50), after --warmup N pairs (default 5)
//   --check-max N     chain correctness check for the cases whose x has at most N elements (default 65536:
//                     the decode cases; 0 = none)
//   --case-budget-s S stop a case's timed pairs after S seconds (at least 5 pairs; default 0 = no limit)
//   --profile         also run the K-node model in a profiling session (a third session) and report ORT's own
//                     numbers: the median GPU timestamp duration per RotaryEmbedding kernel (whole us: ORT
//                     rounds; with profiling on, ORT puts each dispatch in its own compute pass unless the
//                     adapter has timestamps inside passes) and the median host time per node (the EP's
//                     encode cost); the first run is dropped (shader compilation), then the spin-up (below)
//                     runs again and the remaining runs are counted; gpu_kernel_us_by_run in the JSON holds
//                     each counted run's median, to show whether the clocks fall from run to run
//   --spin-up-ms N    keep the GPU busy for N ms before each case's warmup pairs, and again (after the
//                     profiling session's first run) right before the counted --profile runs: the spin model
//                     DIR/spin.onnx (make_models.py writes it) run back to back, `await session.run` in a loop
//                     until N ms have passed, through ORT itself (same process, same Dawn device: ORT's
//                     WebGPU EP shares one device between sessions). Default 1000; 0 = off. Why: on the H200
//                     (NVIDIA, Vulkan through Dawn) the GPU stays at idle clocks (SM 345-540 MHz, nvidia-smi
//                     clock event "GPU idle") unless the queue is kept full for about a second; `wgk bench`
//                     runs a 1 s spin-up of back-to-back copies before each case (its times fell 2.5x), so
//                     ORT's kernels are timed after the same kind of spin-up. The spin model: Expand of a
//                     float32 [1] input to [n], 32 elementwise nodes (Mul, Add, Sin) over the [n] tensor, two
//                     ReduceMax to a scalar; 12 bytes up and 4 back per run, all nodes on the WebGPU EP (CPU
//                     fallback disabled, checked when it is opened). n is calibrated once: the smallest
//                     power of 4 from 2^16 whose run (fastest of 3) takes at least max(20 ms, 10x the run at
//                     n = 1024, the host overhead), at most --spin-elems. If spin.onnx is missing or cannot be
//                     placed, the script says so and runs without spin-up. Each row records the spin-ups done
//                     (ms, runs).
//   --spin-elems N    largest n of the spin model (default 67108864 = 2^26: 256 MiB per float32 tensor, one
//                     run moves 32 x 512 MiB through memory; on lavapipe the calibration stops far below)
// env:   ORT_NODE = path of the onnxruntime-node package (default tests/oracles/node_modules/onnxruntime-node)
//
// What it measures. onnxruntime-node has no WebGPU GPU-buffer tensors (Tensor.fromGpuBuffer needs a
// browser GPUDevice), so every session.run() uploads the inputs, dispatches, and reads the output back.
//   run_1:  median session.run() wall time of the 1-node model (host IO + one node): the old column.
//   run_K:  the same for the K-node chain (node i's output is node i+1's x, cos/sin/position ids shared),
//           timed in the same process, interleaved pair by pair with run_1 (alternating which goes first),
//           so both see the same GPU clock state.
//   per_node_us = (run_K - run_1) / (K - 1): the EP's time per extra node with the inputs and the output on
//           the device (the uploads, the read-back and the run's fixed host cost cancel). It is the EP's
//           device-resident throughput per node, CPU encode included where it is not hidden behind the GPU;
//           an upper bound on its GPU time per node. per_node_paired_us: the median of per-pair differences.
// cos/sin are cos and sin of one set of random angles, so the chain is a rotation by K times the angle
// (bounded values, no f16 overflow). The check runs the K-node model on the WebGPU EP and the 1-node model
// K times on the CPU EP (output fed back as x) and prints the max abs difference, and max|Y_K - X| to show
// the chain is not a no-op. CPU fallback is disabled (session.disable_cpu_ep_fallback), so a case that the
// WebGPU EP cannot place fails ("not placed") instead of silently running on the CPU.
//
// stdout: one line per case "<kernel> <case>: <run_1> us (host IO) | K=..: run_K .. us, per node .. us"
// (bench/peers/perf_table.py reads the first number). --json FILE (rewritten after each case; complete: false
// until the last): {peer, K, spin_up_ms, complete, rows: [{kernel, case, dtype,
// run_ns (= run_1_ns), run_1_ns, run_K_ns, K, per_node_us, per_node_paired_us, pairs, check, profile,
// spin_up: {ms (the option), warmup: {ms, runs}, profile: {ms, runs}}, error}], spin: {model, n, run_ms,
// tiny_run_ms, calibration} or {error}}.
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
const chainArg = opt('--chain', undefined);
const checkMax = Number(opt('--check-max', '65536'));
const caseBudgetNs = Number(opt('--case-budget-s', '0')) * 1e9;
const profile = args.includes('--profile');
const spinUpMs = Number(opt('--spin-up-ms', '1000'));
const spinElemsMax = Number(opt('--spin-elems', String(2 ** 26)));
let models = opt('--models', '');
const madeNow = !models;
if (!models) {
  models = fs.mkdtempSync(path.join(os.tmpdir(), 'wgk-ort-models-'));
  const k = chainArg === undefined ? 17 : Number(chainArg);
  execFileSync(process.env.PYTHON || '/usr/bin/python3', [path.join(here, 'make_models.py'), models, '--filter', filter,
    ...(k >= 2 ? ['--chain', String(k)] : [])], { stdio: 'inherit' });
}
const index = JSON.parse(fs.readFileSync(path.join(models, 'cases.json'), 'utf8'))
  .filter((c) => filter.split('|').some((f) => (f.endsWith('$') ? `${c.kernel}/${c.case}` === f.slice(0, -1) : `${c.kernel}/${c.case}`.includes(f))));
const chainInDir = index.find((c) => c.chain)?.chain;
const K = chainArg !== undefined ? Number(chainArg) : chainInDir ? Number(Object.keys(chainInDir)[0]) : madeNow ? 17 : 0;
if (chainArg === undefined && !K) console.log(`no chained models in ${models} (make_models.py --chain K): host-IO times only`);

// Seeded xorshift so runs are reproducible; floats uniform in [-1, 1).
let seed = 0x9e3779b9;
const rand = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const halfF = new Float32Array(1), halfU = new Uint32Array(halfF.buffer);  // shared: no allocation per element
function toHalf(f) {  // float32 -> IEEE binary16 bits (round to nearest; values here are in [-1, 1])
  halfF[0] = f; const u = halfU[0];
  const sign = (u >>> 16) & 0x8000; let e = ((u >>> 23) & 0xff) - 127 + 15; let m = u & 0x7fffff;
  if (e <= 0) return sign;  // flush tiny values (|f| < 2^-14) to zero: harmless for timing
  let h = sign | (e << 10) | (m >>> 13); if ((m & 0x1fff) > 0x1000 || ((m & 0x1fff) === 0x1000 && (h & 1))) h += 1;
  return h;
}
function fromHalf(h) {
  const s = h & 0x8000 ? -1 : 1; const e = (h >>> 10) & 0x1f; const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
function floatTensor(dtype, n, shape, gen) {
  if (dtype === 'float16') {
    const a = new Uint16Array(n); for (let i = 0; i < n; ++i) a[i] = toHalf(gen(i));
    return new ort.Tensor('float16', a, shape);
  }
  const a = new Float32Array(n); for (let i = 0; i < n; ++i) a[i] = gen(i);
  return new ort.Tensor('float32', a, shape);
}
function makeFeeds(c) {
  const feeds = {};
  let angles = null;
  for (const [name, spec] of Object.entries(c.inputs)) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    if (spec.dtype === 'int64') {
      const a = new BigInt64Array(n);
      for (let i = 0; i < n; ++i) {
        a[i] = BigInt(spec.values ? spec.values[i] : spec.randomInt[0] + Math.floor(rand() * (spec.randomInt[1] - spec.randomInt[0] + 1)));
      }
      feeds[name] = new ort.Tensor('int64', a, spec.shape);
    } else if (name === 'cos_cache' || name === 'sin_cache') {
      if (!angles) { angles = new Float32Array(n); for (let i = 0; i < n; ++i) angles[i] = rand() * 2 * Math.PI; }
      feeds[name] = floatTensor(spec.dtype, n, spec.shape, name === 'cos_cache' ? (i) => Math.cos(angles[i]) : (i) => Math.sin(angles[i]));
    } else {
      feeds[name] = floatTensor(spec.dtype, n, spec.shape, () => rand() * 2 - 1);
    }
  }
  return feeds;
}
const toNumbers = (t) => (t.type === 'float16' ? Float64Array.from(t.data, fromHalf) : Float64Array.from(t.data));
const maxAbsDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; ++i) { const d = Math.abs(a[i] - b[i]); if (!(d <= m)) m = d; } return m; };
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const webgpu = { executionProviders: ['webgpu'], extra: { session: { disable_cpu_ep_fallback: '1' } } };
const notPlaced = (e) => /fallback|assigned to the default CPU|not supported|NOT_IMPLEMENTED|Could not find an implementation/i.test(e);
const timeRun = async (s, feeds) => { const t0 = process.hrtime.bigint(); await s.run(feeds); return Number(process.hrtime.bigint() - t0); };

// Chain check: K-node model on the WebGPU EP vs the 1-node model applied K times on the CPU EP.
async function check(c, gpuK, feeds) {
  const r = { ref: 'CPU EP, 1-node model applied K times' };
  const x = toNumbers(feeds[c.x]);
  const yK = toNumbers((await gpuK.run(feeds))[c.output]);
  let ref = null;
  try {
    const cpu = await ort.InferenceSession.create(path.join(models, c.model), { executionProviders: ['cpu'] });
    let y = feeds[c.x];
    for (let i = 0; i < K; ++i) y = (await cpu.run({ ...feeds, [c.x]: y }))[c.output];
    ref = toNumbers(y);
    await cpu.release();
  } catch (e) {  // the CPU EP may lack a kernel (f16): same check against the WebGPU EP's 1-node model
    r.ref = `WebGPU EP, 1-node model applied K times (CPU EP: ${String(e.message || e).split('\n')[0].slice(0, 80)})`;
    const g1 = await ort.InferenceSession.create(path.join(models, c.model), webgpu);
    let y = feeds[c.x];
    for (let i = 0; i < K; ++i) y = (await g1.run({ ...feeds, [c.x]: y }))[c.output];
    ref = toNumbers(y);
    await g1.release();
  }
  let refMax = 0; for (const v of ref) refMax = Math.max(refMax, Math.abs(v));
  r.max_abs_diff = maxAbsDiff(yK, ref);
  r.max_abs_change = maxAbsDiff(ref, x);  // Y_K vs X: > 0 means the chain did something
  r.max_abs_ref = refMax;
  const tol = (c.dtype === 'float16' ? 2e-3 : 1e-5) * K * Math.max(1, refMax);  // rounding grows with K
  r.ok = r.max_abs_diff <= tol && r.max_abs_change > 10 * tol;
  return r;
}

// ORT's own GPU timestamps (session profiling): median duration of the RotaryEmbedding kernels, us.
async function profiled(c, feeds, runs, row) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgk-ort-prof-'));
  const s = await ort.InferenceSession.create(path.join(models, c.chain[String(K)]),
    { ...webgpu, enableProfiling: true, profileFilePrefix: path.join(dir, 'p') });
  await s.run(feeds);  // dropped below (shader compilation, first allocations)
  const spun = await spinUp();
  if (spun && row.spin_up) row.spin_up.profile = spun;
  for (let i = 1; i < runs; ++i) await s.run(feeds);
  s.endProfiling();
  await s.release();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  if (!file) return { error: 'no profile file' };
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  // GPU kernel events: category "Api" with a shapes/cache_key arg; host kernel events: cat "Node", name *_kernel_time
  // (the first run's K events of each kind are dropped: shader compilation, first allocations)
  const gpu = events.filter((e) => e.cat === 'Api' && e.args?.cache_key !== undefined).map((e) => e.dur).slice(K);
  const host = events.filter((e) => e.cat === 'Node' && /^node\d+_kernel_time$/.test(e.name)).map((e) => e.dur).slice(K);
  const byRun = []; for (let i = 0; i + K <= gpu.length; i += K) byRun.push(median(gpu.slice(i, i + K)));
  return { gpu_kernel_us: gpu.length ? median(gpu) : null, gpu_kernels: gpu.length, gpu_kernel_us_by_run: byRun,
    host_kernel_us: host.length ? median(host) : null, programs: [...new Set(events.filter((e) => e.args?.cache_key).map((e) => e.name))] };
}

// Spin-up: the spin model run back to back for spinUpMs (see the header). Opened and calibrated once.
let spin = null, spinFeeds = null;
const spinInfo = { model: path.join(models, 'spin.onnx') };
const spinInput = (n) => ({ x: new ort.Tensor('float32', new Float32Array([0.5]), [1]),
  n: new ort.Tensor('int64', new BigInt64Array([BigInt(n)]), [1]) });
async function spinUp() {
  if (!spin) return null;
  const t0 = process.hrtime.bigint(); let runs = 0, ms = 0;
  do { await spin.run(spinFeeds); ++runs; ms = Number(process.hrtime.bigint() - t0) / 1e6; } while (ms < spinUpMs);
  return { ms: Math.round(ms), runs };
}
if (spinUpMs > 0) {
  try {
    if (!fs.existsSync(spinInfo.model)) throw new Error(`${spinInfo.model} is missing (make_models.py writes it)`);
    try { spin = await ort.InferenceSession.create(spinInfo.model, webgpu); } catch (e) {
      const msg = String(e.message || e).split('\n')[0];
      throw new Error(notPlaced(msg) ? `not placed on the WebGPU EP: ${msg}` : msg);
    }
    const timeSpin = async (n) => {
      const f = spinInput(n); await spin.run(f);  // first run at this n: allocations (and, at n = 1024, shaders)
      let best = Infinity;  // the fastest of 3 runs: a busy host (lavapipe) would otherwise pick n too small
      for (let i = 0; i < 3; ++i) {
        const t0 = process.hrtime.bigint(); const y = (await spin.run(f)).y;
        best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
        if (!Number.isFinite(y.data[0])) throw new Error(`spin model output ${y.data[0]}`);
      }
      return best;
    };
    spinInfo.tiny_run_ms = await timeSpin(1024);
    const target = Math.max(20, 10 * spinInfo.tiny_run_ms);
    spinInfo.calibration = [];
    let n = Math.max(1024, Math.min(2 ** 16, Math.floor(spinElemsMax / 1024) * 1024)), ms = 0;
    for (;;) {
      ms = await timeSpin(n);
      spinInfo.calibration.push([n, +ms.toFixed(2)]);
      if (ms >= target || n * 4 > spinElemsMax) break;
      n *= 4;
    }
    spinInfo.n = n; spinInfo.run_ms = +ms.toFixed(2); spinInfo.tiny_run_ms = +spinInfo.tiny_run_ms.toFixed(2);
    spinFeeds = spinInput(n);
    console.log(`spin-up: ${spinUpMs} ms of spin.onnx runs before each case${profile ? ' and before the profiled runs' : ''}; n = ${n} ` +
      `(${n * 4 / 2 ** 20} MiB per tensor): ${spinInfo.run_ms} ms per run (n = 1024: ${spinInfo.tiny_run_ms} ms)`);
  } catch (e) {
    spinInfo.error = String(e.message || e).split('\n')[0];
    if (spin) { await spin.release(); spin = null; }
    console.log(`spin-up: off (${spinInfo.error})`);
  }
}

console.log(`onnxruntime-node ${ort.env.versions?.common ?? ''}, WebGPU EP, CPU fallback disabled; ` +
  (K >= 2 ? `chain K=${K}, ${iterations} interleaved (1-node, K-node) pairs per case` : `${iterations} runs per case`));
const rows = [];
const writeJson = () => jsonOut && fs.writeFileSync(jsonOut, JSON.stringify({
  peer: 'onnxruntime-node ' + (ort.env.versions?.common ?? ''), K: K >= 2 ? K : null,
  what: 'run_*_ns: median session.run wall time with host IO; per_node_us = (run_K_ns - run_1_ns) / (K - 1) / 1e3: ' +
    'the WebGPU EP time per chained node with inputs and output on the device',
  spin_up_ms: spin ? spinUpMs : 0, spin: spinUpMs > 0 ? spinInfo : null, complete: rows.length === index.length, rows }, null, 1));
for (const c of index) {
  const row = { kernel: c.kernel, case: c.case, dtype: c.dtype };
  const sessions = [];
  try {
    const chainFile = K >= 2 ? c.chain?.[String(K)] : null;
    if (K >= 2 && !chainFile) throw new Error(`no ${K}-node model in ${models}: run make_models.py with --chain ${K}`);
    const open = async (file, what) => {
      try { const s = await ort.InferenceSession.create(path.join(models, file), webgpu); sessions.push(s); return s; } catch (e) {
        const msg = String(e.message || e).split('\n')[0];
        throw new Error(notPlaced(msg) ? `not placed on the WebGPU EP (${what}): ${msg}` : `${what}: ${msg}`);
      }
    };
    const s1 = await open(c.model, '1-node model');
    const sK = chainFile ? await open(chainFile, `${K}-node model`) : null;
    const feeds = makeFeeds(c);
    const xElems = c.inputs[c.x].shape.reduce((a, b) => a * b, 1);
    if (sK && xElems <= checkMax) row.check = await check(c, sK, feeds);
    if (spin) row.spin_up = { ms: spinUpMs, warmup: await spinUp() };
    for (let i = 0; i < warmup; ++i) { await s1.run(feeds); if (sK) await sK.run(feeds); }
    const t1 = [], tK = [], diff = [];
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; ++i) {
      if (!sK) { t1.push(await timeRun(s1, feeds)); } else if (i % 2 === 0) {
        t1.push(await timeRun(s1, feeds)); tK.push(await timeRun(sK, feeds));
      } else {
        tK.push(await timeRun(sK, feeds)); t1.push(await timeRun(s1, feeds));
      }
      if (sK) diff.push(tK[i] - t1[i]);
      if (caseBudgetNs && i >= 4 && Number(process.hrtime.bigint() - start) > caseBudgetNs) break;
    }
    row.run_ns = row.run_1_ns = median(t1);
    row.pairs = t1.length;
    if (sK) {
      row.K = K;
      row.run_K_ns = median(tK);
      row.per_node_us = (row.run_K_ns - row.run_1_ns) / (K - 1) / 1e3;
      row.per_node_paired_us = median(diff) / (K - 1) / 1e3;
      if (profile) row.profile = await profiled(c, feeds, Math.max(3, Math.min(warmup + 5, 20)), row);
    }
    row.what = sK ? `session.run wall time, host IO; per_node_us = (run_K - run_1) / (K - 1), device-resident`
      : 'session.run wall time, host IO (upload + dispatch + readback)';
  } catch (e) {
    row.error = String(e.message || e).split('\n')[0];
  }
  for (const s of sessions) await s.release();
  rows.push(row);
  const us = (ns) => (ns / 1e3).toFixed(1);
  let line = `${c.kernel} ${c.case}: `;
  if (row.error) line += 'error: ' + row.error;
  else {
    line += `${us(row.run_1_ns)} us (host IO)`;
    if (row.K) line += ` | K=${K}: run_K ${us(row.run_K_ns)} us, per node ${row.per_node_us.toFixed(2)} us (paired ${row.per_node_paired_us.toFixed(2)}), ${row.pairs} pairs`;
    if (row.profile) {
      line += ` | ORT profile: GPU kernel ${row.profile.gpu_kernel_us ?? '-'} us (n=${row.profile.gpu_kernels}; ` +
        `by run ${row.profile.gpu_kernel_us_by_run?.join('/') ?? '-'}), host per node ${row.profile.host_kernel_us ?? '-'} us`;
    }
  }
  if (row.spin_up) line += ` | spin-up ${row.spin_up.warmup.ms} ms` + (row.spin_up.profile ? `, ${row.spin_up.profile.ms} ms` : '');
  console.log(line);
  if (row.check) {
    const k = row.check;
    console.log(`  chain check: ${K}-node model on WebGPU vs ${k.ref}: max|diff| ${k.max_abs_diff.toExponential(2)}, ` +
      `max|Y_K - X| ${k.max_abs_change.toFixed(3)} (max|Y_K| ${k.max_abs_ref.toFixed(3)}) -> ${k.ok ? 'ok' : 'MISMATCH'}`);
  }
  writeJson();  // after every case, so a run cut short (timeout) keeps the cases done
}
writeJson();
if (spin) await spin.release();
