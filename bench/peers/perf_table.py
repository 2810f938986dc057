#!/usr/bin/env python3
"""Markdown table + gnuplot SVG for docs/PERF.md from `wgk bench --json`, torch_rope.py --json and
ort_webgpu.mjs --json output.

usage: perf_table.py --wgk A.json [B.json ...] [--torch T.json] [--ort O.json ...] [--svg OUT.svg] > table.md

Several wgk JSON files (separate processes of one device call): each case keeps the process where it ran
fastest, with that process's same-round copy (the H200's clocks change between processes, and noise only
slows a kernel down). Peer columns: torch.compile and eager (CUDA events, torch_rope.py), and ONNX Runtime's
WebGPU EP: per ORT file and case, its own profiler's GPU time per RotaryEmbedding kernel (ort_webgpu.mjs
--profile) when the file has it, else the time per chained node, marked "(chain)": (run of K nodes - run of 1
node) / (K - 1), which includes ORT's host time where the GPU does not hide it; across files, the fastest.
"vs" columns are peer time / our time (above 1: we are faster).
"""
import argparse
import json
import os
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--wgk", nargs="+", required=True)
ap.add_argument("--torch")
ap.add_argument("--ort", nargs="+", default=[])
ap.add_argument("--svg")
a = ap.parse_args()

runs = [json.load(open(f)) for f in a.wgk]
best = {}
for run in runs:
    for r in run["cases"]:
        if "error" in r:
            continue
        key = (r["kernel"].split("/")[-1], r["case"])
        if key not in best or r["gpu_ns"] < best[key]["gpu_ns"]:
            best[key] = r
torch = {(r["kernel"], r["case"]): r for r in json.load(open(a.torch))["rows"]} if a.torch else {}
nan = float("nan")
ort = {}


def ort_us(row):
    """ORT's profiled GPU time when the row has one, else its chained per-node time: (us, from the profile).
    (A chain resolves decode sizes only: at prefill sizes the host transfers' noise swamps it.)"""
    prof = (row.get("profile") or {}).get("gpu_kernel_us")
    return (prof, True) if prof is not None else (row.get("per_node_us", nan), False)


for f in a.ort:
    for r in json.load(open(f))["rows"]:
        key = (r["kernel"], r["case"])
        old = ort.get(key)
        us, prof = ort_us(r)
        if us != us:
            continue
        if old is None or us < ort_us(old)[0]:
            ort[key] = r

def num(v, spec, suffix=""):
    """v formatted, or a dash when it was not measured (NaN)."""
    return "-" if v != v else format(v, spec) + suffix


print(f"Adapter: {runs[0]['adapter']}; empty dispatch {min(r['empty_dispatch_ns'] for r in runs) / 1e3:.2f} us; "
      f"best of {len(runs)} process(es) per case\n")
print("| package | case | variant | GPU us | GB/s | % copy | x empty | torch.compile us | vs compile | eager us "
      "| ORT EP us | vs ORT |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
series = {}
order = list(dict.fromkeys((r["kernel"].split("/")[-1], r["case"]) for run in runs for r in run["cases"]))
for key in order:
    r = best.get(key)
    if r is None:
        continue
    k, case = key
    us = r["gpu_ns"] / 1e3
    t = torch.get(key, {})
    comp = t.get("compile_ns", nan) / 1e3
    eager = t.get("eager_ns", nan) / 1e3
    o, prof = ort_us(ort.get(key, {}))
    o_text = num(o, ".1f", "" if prof else " (chain)")
    pkg = "ai.onnx" if k.startswith("ai.onnx") else "com.microsoft"
    print(f"| {pkg} | {case} | {r['variant']} | {us:.1f} | {r['gbps']:.0f} | {r['pct_of_copy']:.0f} | "
          f"{r['x_empty_dispatch']:.2f} | {num(comp, '.1f')} | {num(comp / us, '.2f', 'x')} | {num(eager, '.1f')} | "
          f"{o_text} | {num(o / us, '.2f', 'x')} |")
    series.setdefault(f"{pkg} {r['variant']} {r['dtype']}", []).append((r["bytes"] / 1e6, r["gbps"]))
    series.setdefault("vec4 copy (same rounds)", []).append((r["copy_bytes"] / 1e6, r["copy_gbps"]))

if a.svg:
    d = tempfile.mkdtemp()
    plots = []
    for i, (name, pts) in enumerate(sorted(series.items())):
        f = os.path.join(d, f"s{i}.dat")
        open(f, "w").write("".join(f"{x} {y}\n" for x, y in sorted(set(pts))))
        style = " dt 2 lc rgb 'black'" if name.startswith("vec4") else ""
        plots.append(f"'{f}' using 1:2 with linespoints title '{name.replace('_', '-')}'{style}")
    gp = (f"set terminal svg size 1000,600 dynamic font 'sans,11'\nset output '{a.svg}'\n"
          f"set title 'RotaryEmbedding on {runs[0]['adapter'].split(' (')[0]} (WebGPU/Vulkan): effective bandwidth'\n"
          "set logscale x\nset xlabel 'bytes moved per call (MB)'\nset ylabel 'GB/s'\nset key left top\nset grid\n"
          "plot " + ", ".join(plots) + "\n")
    subprocess.run(["gnuplot"], input=gp.encode(), check=True)
