// ONNX Runtime oracle for `wgk diff`: runs a batch of one-node models, of any op, on onnxruntime-node's CPU
// execution provider.
//
//   node tests/oracles/ort_run.mjs MANIFEST.json
//
// MANIFEST.json (written by tools/wgk/diff.cpp from the op's plug-in, src/reference/op.h):
//   {"cases": [{"name": "...", "op_type": "RotaryEmbedding", "domain": "" | "com.microsoft", "opset": 23,
//               "attributes": {"interleaved": {"type": "INT", "value": 0}, ...}   (INT, FLOAT, STRING, INTS, FLOATS, STRINGS: value a list; absent = default)
//               "inputs": [{"name": "X", "path": "x.npy"}, {"name": ""}, ...]     (node order; "" = omitted)
//               "outputs": [{"name": "Y", "path": "y.npy", "dtype": "float32"}, {"name": ""}, ...]}]}
//                                                                  (node order; "" = an output not asked for)
// Input element types come from the .npy files. Writes each output as .npy (ORT's dtype) and
// MANIFEST.results.json:
//   {"ort": "1.30.0", "results": {"<name>": {"ok": true} | {"ok": false, "error": "..."}}}
// Environment: WGK_ORT_PERTURB=1 corrupts every output (a self-test; see below).
// Exit status: 0 when the batch ran (individual ORT failures are in the results), 2 on a bad manifest.
//
// Models are written here as ONNX protobuf bytes (onnx.proto: ModelProto / GraphProto / NodeProto /
// AttributeProto / ValueInfoProto / TypeProto), one node each, with symbolic dimensions so one model serves
// every shape of the same (op, dtypes, attributes, input ranks); sessions are cached by that key.
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

// AttributeProto: name(1), f(2), i(3), s(4), floats(7), ints(8), strings(9), type(20): FLOAT = 1, INT = 2,
// STRING = 3, FLOATS = 6, INTS = 7, STRINGS = 8. Lists as repeated fields, one key per element.
function attribute(name, { type, value }) {
  const list = (kind) => {
    if (!Array.isArray(value)) throw new Error(`attribute ${name}: type ${type} needs a list, got ${JSON.stringify(value)}`);
    return value.flatMap(kind);
  };
  if (type === 'INT') return [...str(1, name), ...int(3, value), ...int(20, 2)];
  if (type === 'FLOAT') return [...str(1, name), ...f32(2, value), ...int(20, 1)];
  if (type === 'STRING') return [...str(1, name), ...str(4, value), ...int(20, 3)];
  if (type === 'INTS') return [...str(1, name), ...list((v) => int(8, v)), ...int(20, 7)];
  if (type === 'FLOATS') return [...str(1, name), ...list((v) => f32(7, v)), ...int(20, 6)];
  if (type === 'STRINGS') return [...str(1, name), ...list((v) => str(9, v)), ...int(20, 8)];
  throw new Error(`attribute ${name}: type ${type} is not INT, FLOAT, STRING, INTS, FLOATS or STRINGS`);
}

function buildModel(c, feeds) {
  const graphInputs = [];
  const nodeInputs = c.inputs.map((i) => i.name);
  while (nodeInputs.length && nodeInputs[nodeInputs.length - 1] === '') nodeInputs.pop();  // trailing omitted
  const nodeOutputs = c.outputs.map((o) => o.name);
  while (nodeOutputs.length && nodeOutputs[nodeOutputs.length - 1] === '') nodeOutputs.pop();
  for (const i of c.inputs)
    if (i.name) graphInputs.push(valueInfo(i.name, ELEM[feeds[i.name].type], feeds[i.name].dims.length, i.name));
  const node = [
    ...nodeInputs.flatMap((n) => str(1, n)),
    ...nodeOutputs.flatMap((n) => str(2, n)),
    ...str(3, 'node'),
    ...str(4, c.op_type),
    ...Object.entries(c.attributes ?? {}).flatMap(([k, v]) => bytes(5, attribute(k, v))),
    ...(c.domain ? str(7, c.domain) : []),
  ];
  const graph = [
    ...bytes(1, node),
    ...str(2, 'one_node'),
    ...graphInputs.flatMap((vi) => bytes(11, vi)),
    ...c.outputs.filter((o) => o.name).flatMap((o) => bytes(12, valueInfo(o.name, ELEM[o.dtype], null, o.name))),
  ];
  // OperatorSetIdProto: domain(1), version(2). The default domain at opset 23, plus the node's own domain.
  const opsets = [bytes(8, [...str(1, ''), ...int(2, c.domain ? 23 : c.opset)])];
  if (c.domain) opsets.push(bytes(8, [...str(1, c.domain), ...int(2, c.opset)]));
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
      for (const i of c.inputs) if (i.name) feeds[i.name] = readNpy(i.path);
      const signature = c.inputs.map((i) => (i.name ? [i.name, feeds[i.name].type, feeds[i.name].dims.length] : ''));
      const cacheKey = JSON.stringify([c.op_type, c.domain, c.opset, c.attributes ?? {}, signature, c.outputs.map((o) => [o.name, o.dtype])]);
      let session = sessions.get(cacheKey);
      if (!session) {
        session = await ort.InferenceSession.create(buildModel(c, feeds), options);
        sessions.set(cacheKey, session);
      }
      const out = await session.run(feeds);
      for (const o of c.outputs.filter((o) => o.name)) {
        const t = out[o.name];
        if (perturb) t.data[0] = t.type === 'float16' ? t.data[0] ^ 0x4000 : t.data[0] + 0.25;
        writeNpy(o.path, t);
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
