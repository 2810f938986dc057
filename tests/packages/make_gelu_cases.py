#!/usr/bin/env python3
"""Writes tests/packages/gelu_cases/: case folders (../shared/cases/README.md format) for the test package
tests/packages/gelu, with expected outputs from ONNX Runtime's CPU execution provider (ONNX Gelu-20), run by
tests/oracles/ort_run.mjs. Run from the repository root: python3 tests/packages/make_gelu_cases.py"""
import json, os, random, struct, subprocess, tempfile

OUT = "tests/packages/gelu_cases"


def write_npy(path, values, shape):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "%d," % shape[0] if len(shape) == 1 else ", ".join(str(d) for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def main():
    rng = random.Random(20261201)
    cases = [("erf_rank3", "none", [2, 3, 5]), ("tanh_rank2", "tanh", [4, 33]), ("erf_rank1_wide", "none", [1000])]
    work = tempfile.mkdtemp()
    manifest = {"cases": []}
    for name, approximate, shape in cases:
        n = 1
        for d in shape:
            n *= d
        # f32-representable values in [-4, 4): multiples of 2^-20
        values = [rng.randrange(-4 << 20, 4 << 20) / (1 << 20) for _ in range(n)]
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        write_npy(os.path.join(folder, "x.npy"), values, shape)
        manifest["cases"].append({
            "name": name, "op_type": "Gelu", "domain": "", "opset": 20,
            "attributes": {"approximate": {"type": "STRING", "value": approximate}},
            "inputs": [{"name": "X", "path": os.path.abspath(os.path.join(folder, "x.npy"))}],
            "outputs": [{"name": "Y", "path": os.path.abspath(os.path.join(folder, "y.npy")), "dtype": "float32"}]})
        with open(os.path.join(folder, "case.json"), "w") as f:
            json.dump({"kernel": "wgk-tests/ai.onnx.Gelu", "domain": "ai.onnx", "op": "Gelu", "dtype": "float32",
                       "attributes": {"approximate": approximate}, "inputs": {"x": "x.npy"},
                       "expected": {"y": "y.npy"}, "output_shapes": {"y": shape}, "output_dtypes": {"y": "float32"},
                       "upstream_input_order": ["X"],
                       "oracle": "onnxruntime 1.30.0 CPUExecutionProvider (tests/packages/make_gelu_cases.py)",
                       "tolerance": {"abs": 2e-6, "rel": 0, "why": "two f32 Gelu implementations, |y| < 4: the "
                                     "kernel's erf is within 1.5e-7 (Abramowitz-Stegun 7.1.26), plus a few f32 ulps"}},
                      f, indent=1)
    path = os.path.join(work, "manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    subprocess.run(["node", "tests/oracles/ort_run.mjs", path], check=True)
    with open(os.path.join(work, "manifest.results.json")) as f:
        results = json.load(f)
    for name, r in results["results"].items():
        if not r["ok"]:
            raise SystemExit(name + ": " + r["error"])
    print("wrote", len(cases), "case folders under", OUT, "(onnxruntime", results["ort"] + ")")


main()
