// Oracle for the expression language and the template renderer: @huggingface/jinja.
// stdin: JSON lines {"kind": "expr" | "template", "text": ..., "context": {...}}
// stdout: one JSON line each:
//   expr:     {"type": "int"|"float"|"bool"|"str"|"list"|"none"|"undefined"|"dict", "value": ...}
//             (lists: "value" holds typed items) or {"error": message}
//   template: {"output": text} or {"error": message}; "files": {name: text} resolves `{% include "name" %}`
// Templates are tokenized with Jinja2's defaults (trim_blocks and lstrip_blocks off); the Template
// class of @huggingface/jinja turns both on (the transformers chat-template settings), so this script
// swaps in its own parse. The builtins of docs/design.md are JS functions in the context.
import { Template, Interpreter, tokenize, parse } from "@huggingface/jinja";
import { createInterface } from "node:readline";

function unwrap(v) {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, unwrap(x)]));
  if (Array.isArray(v)) return v.map(unwrap);
  if (v !== null && typeof v === "object" && "type" in v && "value" in v) return unwrap(v.value);
  return v;
}

function builtins(context) {
  const shaderF16 = () => Boolean(context?.device?.features?.shader_f16);
  return {
    ceilDiv: (a, b) => Math.ceil(unwrap(a) / unwrap(b)),
    numel: (s, start) => {
      const shape = unwrap(s);
      if (start === undefined) return shape.reduce((p, d) => p * d, 1);
      const k = unwrap(start) < 0 ? unwrap(start) + shape.length : unwrap(start);
      if (k < 0 || k > shape.length) throw new Error(`numel start ${unwrap(start)} out of range`);
      return shape.slice(k).reduce((p, d) => p * d, 1);
    },
    dim: (s, i) => {
      const shape = unwrap(s);
      const k = unwrap(i) < 0 ? unwrap(i) + shape.length : unwrap(i);
      if (k < 0 || k >= shape.length) throw new Error(`dim index ${unwrap(i)} out of range`);
      return shape[k];
    },
    sameShape: (a, b) => JSON.stringify(unwrap(a)) === JSON.stringify(unwrap(b)),
    broadcastable: (a, b) => {
      const from = unwrap(a), to = unwrap(b);
      if (from.length > to.length) return false;
      return from.every((d, i) => d === 1 || d === to[to.length - from.length + i]);
    },
    f16Ok: (t) => unwrap(t) !== "f16" || shaderF16(),
    min: (...xs) => Math.min(...xs.map(unwrap)),
    max: (...xs) => Math.max(...xs.map(unwrap)),
  };
}

function typed(r) {
  switch (r.type) {
    case "IntegerValue": return { type: "int", value: r.value };
    case "FloatValue": return { type: "float", value: r.value };
    case "BooleanValue": return { type: "bool", value: r.value };
    case "StringValue": return { type: "str", value: r.value };
    case "NullValue": return { type: "none", value: null };
    case "UndefinedValue": return { type: "undefined", value: null };
    case "ArrayValue":
    case "TupleValue": return { type: "list", value: r.value.map(typed) };
    case "ObjectValue": return { type: "dict", value: Object.fromEntries([...r.value].map(([k, x]) => [k, typed(x)])) };
    default: return { type: r.type, value: String(r.value) };
  }
}

// Template.render builds the environment (globals such as range) and calls Interpreter.run; for an
// expression, run evaluates the single output node and keeps the typed runtime value.
let captured = null;
const run = Interpreter.prototype.run;
// `derive`: [[name, text], ...] evaluated first, in order, each bound as a runtime value (so that a
// float such as 8.0 stays a float, which a plain JS context cannot say).
const parsedExpressions = new Map();
function parseExpression(text) {
  if (!parsedExpressions.has(text)) parsedExpressions.set(text, parse(tokenize(`{{ (${text}) }}`, {})));
  return parsedExpressions.get(text);
}
function evaluateExpression(text, context, derive) {
  const t = new Template("");
  t.parsed = parseExpression(text);
  const derived = derive.map(([name, d]) => [name, parseExpression(d).body[0]]);
  Interpreter.prototype.run = function (program) {
    for (const [name, node] of derived) this.global.variables.set(name, this.evaluate(node, this.global));
    captured = this.evaluate(program.body[0], this.global);
    return { value: "" };
  };
  try {
    t.render({ ...context, ...builtins(context) });
  } finally {
    Interpreter.prototype.run = run;
  }
  return typed(captured);
}

// @huggingface/jinja 0.5.11 has no `include`: expand it textually as Jinja2 renders it. The included
// file (one trailing newline dropped, as Jinja2's loader does) goes inside `{% if true %}...{% endif %}`
// carrying the include tag's own '-' markers, so whitespace control acts on the includer's text only.
// (Jinja2 keeps an included file's `set` names inside it; this expansion does not, so the compared
// templates must not depend on that.)
function expandIncludes(text, files, depth = 0) {
  if (depth > 8) throw new Error("includes nested deeper than 8");
  return text.replace(/\{%([-+]?)\s*include\s+(["'])([^"']*)\2\s*([-+]?)%\}/g, (_, open, _q, name, close) => {
    if (!(name in files)) throw new Error(`include: no file ${name}`);
    const body = files[name].replace(/\r\n?/g, "\n").replace(/\n$/, "");
    return `{%${open} if true %}${expandIncludes(body, files, depth + 1)}{% endif ${close}%}`;
  });
}

function renderTemplate(text, context, files) {
  const t = new Template("");
  t.parsed = parse(tokenize(expandIncludes(text, files ?? {}), { lstrip_blocks: false, trim_blocks: false }));
  return t.render({ ...context, ...builtins(context) });
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let out;
  try {
    const req = JSON.parse(line);
    out = req.kind === "expr" ? evaluateExpression(req.text, req.context ?? {}, req.derive ?? []) : { output: renderTemplate(req.text, req.context ?? {}, req.files) };
  } catch (e) {
    out = { error: String(e?.message ?? e) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
