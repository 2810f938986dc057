#!/usr/bin/env python3
"""Writes one-node (and with --chain K, K-node chained) ONNX models for the bench.json cases of the
RotaryEmbedding and normalization packages (PACKAGES below).

usage: make_models.py OUT_DIR [--filter S] [--chain K]   (needs the `onnx` Python package: Debian python3-onnx)

For each case it writes OUT_DIR/<kernel>__<case>.onnx and an index OUT_DIR/cases.json with the input
specs (ONNX input names, shapes, dtypes, random-int ranges), which ort_webgpu.mjs and torch_rope.py read.
--filter S: the cases whose "<kernel>/<case>" (e.g. "ai.onnx.RotaryEmbedding/decode_r4_b1_h32x128_f32") contains
S, or with S = "A|B|..." any of A, B, ... (as ort_webgpu.mjs --filter); a piece ending in "$" must equal the
whole name.
--chain K (K >= 2) also writes OUT_DIR/<kernel>__<case>__chain<K>.onnx: K RotaryEmbedding nodes in series
(node i's output is node i+1's x; cos, sin and position ids are the shared graph inputs; same attributes;
graph inputs and output named as in the one-node model), recorded in cases.json as "chain": {"K": file}.
ort_webgpu.mjs times it against the one-node model: (run_K - run_1) / (K - 1) is the EP's per-node time
with the host transfers cancelled out.
Models: ai.onnx RotaryEmbedding opset 23 (X, cos_cache, sin_cache, position_ids; attrs interleaved,
num_heads, rotary_embedding_dim), com.microsoft RotaryEmbedding (input, position_ids, cos_cache,
sin_cache; same attrs), ai.onnx RMSNormalization opset 23 (X, scale) and com.microsoft
SkipSimplifiedLayerNormalization (input, skip, gamma, bias), as the ONNX spec and ORT's ContribOperators.md
define them; a chain feeds each node's output to the next one's first input.
Always (whatever --filter) it also writes OUT_DIR/spin.onnx, the model that ort_webgpu.mjs runs back to back
to keep the GPU busy before timing (--spin-up-ms): inputs x float32 [1] and n int64 [1]; Expand(x, n) ->
float32 [n]; SPIN_NODES elementwise nodes in series (Mul 0.75, Add 0.25, Sin, repeated; each reads and
writes the whole [n] tensor); Reshape [1024, -1]; ReduceMax axis 1 -> [1024]; ReduceMax -> scalar output y.
n (a multiple of 1024) is chosen at run time, so one model fits both a fast GPU and lavapipe; with n = 2^26
(256 MiB per tensor) one run moves SPIN_NODES * 512 MiB through memory with 12 bytes up and 4 bytes back.
Opset 17, IR 8 (onnx 1.12 knows them; no checker either).
"""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# package -> (domain, opset, op_type, ONNX input order, output name, bench.json name -> ONNX name)
PACKAGES = {
    "ai.onnx.RotaryEmbedding": ("", 23, "RotaryEmbedding", ["X", "cos_cache", "sin_cache", "position_ids"], "Y",
                                {"x": "X", "cos": "cos_cache", "sin": "sin_cache", "positionIds": "position_ids"}),
    "com.microsoft.RotaryEmbedding": ("com.microsoft", 1, "RotaryEmbedding",
                                      ["input", "position_ids", "cos_cache", "sin_cache"], "output",
                                      {"x": "input", "cos": "cos_cache", "sin": "sin_cache",
                                       "positionIds": "position_ids"}),
    # ONNX RMSNormalization-23: X, scale -> Y; attributes axis, epsilon, stash_type.
    "ai.onnx.RMSNormalization": ("", 23, "RMSNormalization", ["X", "scale"], "Y", {"x": "X"}),
    # ORT contrib SkipSimplifiedLayerNormalization-1: input, skip, gamma, [bias] -> output (the optional
    # mean, inv_std_var and input_skip_bias_sum outputs are not asked for); attribute epsilon.
    "com.microsoft.SkipSimplifiedLayerNormalization": ("com.microsoft", 1, "SkipSimplifiedLayerNormalization",
                                                       ["input", "skip", "gamma", "bias"], "output", {"x": "input"}),
}


SPIN_NODES = 32


def save_spin(out):
    one = lambda name, v: helper.make_tensor(name, TensorProto.FLOAT, [], [v])
    inits = [one("c_mul", 0.75), one("c_add", 0.25), helper.make_tensor("rows", TensorProto.INT64, [2], [1024, -1])]
    nodes = [helper.make_node("Expand", ["x", "n"], ["e0"], name="expand")]
    for i in range(SPIN_NODES):
        op = ("Mul", "Add", "Sin")[i % 3]
        ins = [f"e{i}"] + ({"Mul": ["c_mul"], "Add": ["c_add"]}.get(op, []))
        nodes.append(helper.make_node(op, ins, [f"e{i + 1}"], name=f"{op.lower()}{i}"))
    nodes += [helper.make_node("Reshape", [f"e{SPIN_NODES}", "rows"], ["r"], name="reshape"),
              helper.make_node("ReduceMax", ["r"], ["m"], name="reduce_rows", axes=[1], keepdims=0),
              helper.make_node("ReduceMax", ["m"], ["y"], name="reduce_all", keepdims=0)]
    graph = helper.make_graph(nodes, "spin", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1]),
                                              helper.make_tensor_value_info("n", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "spin.onnx"))


def main():
    out = sys.argv[1]
    filt = sys.argv[sys.argv.index("--filter") + 1] if "--filter" in sys.argv else ""
    chain = int(sys.argv[sys.argv.index("--chain") + 1]) if "--chain" in sys.argv else 0
    if chain == 1 or chain < 0:
        sys.exit("--chain K needs K >= 2")
    os.makedirs(out, exist_ok=True)
    index = []
    for pkg, (domain, opset, op_type, order, output, rename) in PACKAGES.items():
        bench = json.load(open(os.path.join(ROOT, "kernels", pkg, "build", "webgpu", "bench.json")))
        for case in bench["cases"]:
            name = f"{pkg}/{case['name']}"
            if not any(name == f[:-1] if f.endswith("$") else f in name for f in filt.split("|")):
                continue
            ftype = TensorProto.FLOAT if case["dtype"] == "float32" else TensorProto.FLOAT16
            specs = {}
            for name, spec in case["inputs"].items():
                n = rename.get(name, name)
                is_int = "randomInt" in spec or "values" in spec
                specs[n] = {"shape": spec["shape"], "dtype": "int64" if is_int else case["dtype"],
                            "randomInt": spec.get("randomInt"), "values": spec.get("values")}
            inputs = [helper.make_tensor_value_info(n, TensorProto.INT64 if specs[n]["dtype"] == "int64" else ftype,
                                                    specs[n]["shape"]) for n in order if n in specs]
            node_inputs = [n if n in specs else "" for n in order]
            while node_inputs and node_inputs[-1] == "":
                node_inputs.pop()
            x_name = order[0]
            y = helper.make_tensor_value_info(output, ftype, specs[x_name]["shape"])
            opsets = [helper.make_opsetid("", 23 if domain == "" else 17)]
            if domain:
                opsets.append(helper.make_opsetid(domain, opset))

            def save(k, file):
                # k nodes in series: node i reads x_name (i = 0) or h<i>, writes h<i+1> (the last one y.name)
                nodes = []
                for i in range(k):
                    ins = list(node_inputs)
                    ins[0] = x_name if i == 0 else f"h{i}"
                    nodes.append(helper.make_node(op_type, ins, [y.name if i == k - 1 else f"h{i + 1}"],
                                                  name=f"node{i}", domain=domain, **case["attrs"]))
                graph = helper.make_graph(nodes, op_type if k == 1 else f"{op_type}_chain{k}", inputs, [y])
                model = helper.make_model(graph, opset_imports=opsets)
                model.ir_version = 10 if domain == "" else 8
                onnx.save(model, os.path.join(out, file))  # no onnx.checker: onnx 1.12 does not know opset 23

            file = f"{pkg}__{case['name']}.onnx"
            save(1, file)
            entry = {"kernel": pkg, "case": case["name"], "dtype": case["dtype"], "attrs": case["attrs"],
                     "model": file, "inputs": specs, "output": y.name, "x": x_name, "tags": case.get("tags", [])}
            if chain:
                entry["chain"] = {str(chain): f"{pkg}__{case['name']}__chain{chain}.onnx"}
                save(chain, entry["chain"][str(chain)])
            index.append(entry)
    json.dump(index, open(os.path.join(out, "cases.json"), "w"), indent=1)
    save_spin(out)
    print(f"{len(index)} cases in {out}" + (f" (1-node and {chain}-node chained models)" if chain else "") +
          f", and spin.onnx ({SPIN_NODES} elementwise nodes on an [n] float32 tensor)")


if __name__ == "__main__":
    main()
