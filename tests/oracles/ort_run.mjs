// ONNX Runtime oracle for `wgk diff` and the reference tests: runs a batch of one-node models (RotaryEmbedding
// of both domains, RMSNormalization-23, com.microsoft SkipSimplifiedLayerNormalization) on onnxruntime-node's
// CPU execution provider.
//
//   node tests/oracles/ort_run.mjs MANIFEST.json
//
// MANIFEST.json (written by tools/wgk/diff.cpp):
//   {"cases": [{"name": "...", "domain": "ai.onnx" | "com.microsoft", "dtype": "float32" | "float16",
//               "attributes": {"interleaved": 0, ...}          (INT attributes; absent = ONNX default)
//               "inputs": {"x": "x.npy", "cos": ..., "sin": ..., "positionIds": ...}   (paths; positionIds optional)
//               "output": "y.npy"}]}
//   optional per case: "op" (default "RotaryEmbedding"; "RMSNormalization", "SkipSimplifiedLayerNormalization"),
//   "outputs": {"y": "y.npy", "invStdVar": ...} instead of "output" (the node produces exactly these),
//   "floatAttributes": ["epsilon"] (written as FLOAT even when integral).
// Writes each case's output as .npy (ORT's dtype) and MANIFEST.results.json:
//   {"ort": "1.30.0", "results": {"<name>": {"ok": true} | {"ok": false, "error": "..."}}}
// Environment: WGK_ORT_PERTURB=1 corrupts every output (a self-test; see below).
// Exit status: 0 when the batch ran (individual ORT failures are in the results), 2 on a bad manifest.
//
// Models are written here as ONNX protobuf bytes (onnx.proto: ModelProto / GraphProto / NodeProto /
// AttributeProto / ValueInfoProto / TypeProto), one node each, with symbolic dimensions so one model serves
// every shape of the same (domain, dtype, attributes, input ranks); sessions are cached by that key.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const ortVersion = require('onnxruntime-node/package.json').version;

// ---- protobuf writer (wire types 0 = varint, 2 = length-delimited) ----
function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;  // int64 two's complement, as protobuf encodes negative int64
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, n) => [...key(field, 0), ...varint(n)];
const bytes = (field, arr) => [...key(field, 2), ...varint(arr.length), ...arr];
const str = (field, s) => bytes(field, [...Buffer.from(s, 'utf8')]);
const f32 = (field, x) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(x);
  return [...key(field, 5), ...b];
};

// onnx.proto TensorProto.DataType
const ELEM = { float32: 1, int64: 7, float16: 10 };

// TypeProto{tensor_type(1): Tensor{elem_type(1), shape(2): TensorShapeProto{dim(1): Dimension{dim_param(2)}}}}
function valueInfo(name, elem, rank, prefix) {
  const dims = [];
  if (rank !== null) for (let i = 0; i < rank; i++) dims.push(...bytes(1, str(2, `${prefix}_${i}`)));
  const tensor = [...int(1, elem), ...(rank !== null ? bytes(2, dims) : [])];
  return [...str(1, name), ...bytes(2, bytes(1, tensor))];
}

// AttributeProto: name(1), f(2), i(3), type(20): FLOAT = 1, INT = 2. A name listed in the case's
// "floatAttributes" is FLOAT whatever its value (epsilon = 1).
function attribute(name, value, floats) {
  if (Number.isInteger(value) && !floats.includes(name)) return [...str(1, name), ...int(3, value), ...int(20, 2)];
  return [...str(1, name), ...f32(2, value), ...int(20, 1)];
}

// Each op's node inputs and outputs in order, [argument name, ONNX name] (ONNX Operators.md; ORT
// ContribOperators.md). A case names its op with "op" (default RotaryEmbedding).
const RMS_ORDER = [['x', 'X'], ['scale', 'scale']];
const SKIP_ORDER = [['x', 'input'], ['skip', 'skip'], ['gamma', 'gamma'], ['bias', 'bias']];
const OPS = {
  'ai.onnx.RotaryEmbedding': {
    inputs: [['x', 'X'], ['cos', 'cos_cache'], ['sin', 'sin_cache'], ['positionIds', 'position_ids']],
    outputs: [['y', 'Y']] },
  'com.microsoft.RotaryEmbedding': {
    inputs: [['x', 'input'], ['positionIds', 'position_ids'], ['cos', 'cos_cache'], ['sin', 'sin_cache']],
    outputs: [['y', 'Y']] },
  'ai.onnx.RMSNormalization': { inputs: RMS_ORDER, outputs: [['y', 'Y']] },
  'com.microsoft.SkipSimplifiedLayerNormalization': {
    inputs: SKIP_ORDER,
    outputs: [['y', 'output'], ['mean', 'mean'], ['invStdVar', 'inv_std_var'], ['inputSkipBiasSum', 'input_skip_bias_sum']] },
};
const opOf = (c) => {
  const spec = OPS[`${c.domain}.${c.op ?? 'RotaryEmbedding'}`];
  if (!spec) throw new Error(`no ONNX node layout for ${c.domain}.${c.op}`);
  return spec;
};
// The outputs a case asks for: {"y": path, ...} in "outputs", or the one "output" (y).
const wantedOutputs = (c) => c.outputs ?? { y: c.output };
// ORT's dtype of each output (the contrib op's mean and inv_std_var are float32 whatever T is).
const outputElem = (c, arg) => (arg === 'mean' || arg === 'invStdVar' ? ELEM.float32 : ELEM[c.dtype]);

function buildModel(c, ranks) {
  const graphInputs = [];
  const nodeInputs = [];
  const spec = opOf(c);
  for (const [arg, onnxName] of spec.inputs) {
    if (!(arg in c.inputs)) {
      nodeInputs.push('');  // an omitted optional input (trailing ones are dropped below)
      continue;
    }
    nodeInputs.push(onnxName);
    const elem = arg === 'positionIds' ? ELEM.int64 : ELEM[c.dtype];
    graphInputs.push(valueInfo(onnxName, elem, ranks[arg], onnxName));
  }
  while (nodeInputs.length && nodeInputs[nodeInputs.length - 1] === '') nodeInputs.pop();
  // Node outputs: the ones asked for by their ONNX names, '' for skipped optional ones before them.
  const wanted = wantedOutputs(c);
  const nodeOutputs = spec.outputs.map(([arg, onnxName]) => (arg in wanted ? onnxName : ''));
  while (nodeOutputs.length && nodeOutputs[nodeOutputs.length - 1] === '') nodeOutputs.pop();
  const floats = c.floatAttributes ?? [];
  const node = [
    ...nodeInputs.flatMap((n) => str(1, n)),
    ...nodeOutputs.flatMap((n) => str(2, n)),
    ...str(3, 'node'),
    ...str(4, c.op ?? 'RotaryEmbedding'),
    ...Object.entries(c.attributes ?? {}).flatMap(([k, v]) => bytes(5, attribute(k, v, floats))),
    ...(c.domain === 'com.microsoft' ? str(7, 'com.microsoft') : []),
  ];
  const graph = [
    ...bytes(1, node),
    ...str(2, 'one_node'),
    ...graphInputs.flatMap((vi) => bytes(11, vi)),
    ...spec.outputs.filter(([arg]) => arg in wanted)
      .flatMap(([arg, onnxName]) => bytes(12, valueInfo(onnxName, outputElem(c, arg), null, onnxName))),
  ];
  // OperatorSetIdProto: domain(1), version(2). The default domain at opset 23 (RotaryEmbedding-23).
  const opsets = [bytes(8, [...str(1, ''), ...int(2, 23)])];
  if (c.domain === 'com.microsoft') opsets.push(bytes(8, [...str(1, 'com.microsoft'), ...int(2, 1)]));
  // ModelProto: ir_version(1) = 11 (IR of opset 23), producer_name(2), graph(7), opset_import(8).
  return Uint8Array.from([...int(1, 11), ...str(2, 'wgk-diff'), ...bytes(7, graph), ...opsets.flat()]);
}

// ---- .npy (numpy.lib.format 1.0) ----
const DESCR = { '<f4': 'float32', '<f2': 'float16', '<i8': 'int64' };
function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.readUInt32BE(0) !== 0x934e554d || buf.readUInt16BE(4) !== 0x5059) throw new Error(`${path}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!(descr in DESCR) || shapeText === undefined || /True/.test(header)) throw new Error(`${path}: unsupported header ${header}`);
  const dims = shapeText.split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const data = buf.subarray(start + hlen);
  const copy = new Uint8Array(data).buffer;  // aligned copy
  const type = DESCR[descr];
  const array = type === 'float32' ? new Float32Array(copy) : type === 'float16' ? new Uint16Array(copy) : new BigInt64Array(copy);
  return new ort.Tensor(type, array, dims);
}

function writeNpy(path, tensor) {
  const descr = { float32: '<f4', float16: '<f2', int64: '<i8' }[tensor.type];
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.writeUInt32BE(0x934e554d, 0);
  pre.writeUInt16BE(0x5059, 4);
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(path, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

// WGK_ORT_PERTURB=1 corrupts the first element of every output (f32: +0.25; f16: an exponent bit flipped):
// the harness's own test (tests/ort/CMakeLists.txt) that `wgk diff` reports such a mismatch.
const perturb = process.env.WGK_ORT_PERTURB === '1';

async function main() {
  const manifestPath = process.argv[2];
  if (!manifestPath) {
    console.error('usage: node ort_run.mjs MANIFEST.json');
    process.exit(2);
  }
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const sessions = new Map();
  const results = {};
  // One thread each: the one-node models are tiny, and a session's thread pools cost more than its run.
  const options = { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', logSeverityLevel: 4,
                    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };
  for (const c of manifest.cases) {
    try {
      const feeds = {};
      const ranks = {};
      const spec = opOf(c);
      for (const [arg, onnxName] of spec.inputs) {
        if (!(arg in c.inputs)) continue;
        feeds[onnxName] = readNpy(c.inputs[arg]);
        ranks[arg] = feeds[onnxName].dims.length;
      }
      const cacheKey = JSON.stringify([c.domain, c.op, c.dtype, c.attributes ?? {}, c.floatAttributes ?? [], ranks,
                                       Object.keys(wantedOutputs(c)).sort()]);
      let session = sessions.get(cacheKey);
      if (!session) {
        session = await ort.InferenceSession.create(buildModel(c, ranks), options);
        sessions.set(cacheKey, session);
      }
      const out = await session.run(feeds);
      for (const [arg, onnxName] of spec.outputs) {
        const path = wantedOutputs(c)[arg];
        if (path === undefined) continue;
        const t = out[onnxName];
        if (perturb) t.data[0] = t.type === 'float16' ? t.data[0] ^ 0x4000 : t.data[0] + 0.25;
        writeNpy(path, t);
      }
      results[c.name] = { ok: true };
    } catch (e) {
      results[c.name] = { ok: false, error: String(e?.message ?? e) };
    }
  }
  fs.writeFileSync(manifestPath.replace(/\.json$/, '') + '.results.json',
                   JSON.stringify({ ort: ortVersion, sessions: sessions.size, results }));
}

main().catch((e) => {
  console.error(e?.stack ?? String(e));
  process.exit(2);
});
