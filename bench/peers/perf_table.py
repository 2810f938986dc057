#!/usr/bin/env python3
"""Markdown table + gnuplot SVG for docs/PERF.md from `wgk bench --json`, torch_rope.py --json and
ort_webgpu.mjs output.  usage: perf_table.py WGK_JSON TORCH_JSON ORT_TXT SVG_OUT > table.md"""
import json, os, re, subprocess, sys, tempfile

wgk = json.load(open(sys.argv[1]))
torch = {(r["kernel"], r["case"]): r for r in json.load(open(sys.argv[2]))["rows"]}
ort = {}
for line in open(sys.argv[3]):
    m = re.match(r"(\S+) (\S+): ([\d.]+) us", line)
    if m:
        ort[(m[1], m[2])] = float(m[3]) * 1e3
print(f"Adapter: {wgk['adapter']}; empty dispatch {wgk['empty_dispatch_ns']/1e3:.2f} us\n")
print("| package | case | variant | GPU us | GB/s | % copy | x empty | torch eager us | torch.compile us | vs compile | ORT run us (host IO) |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
series = {}
for r in wgk["cases"]:
    if "error" in r:
        continue
    k = r["kernel"].split("/")[-1]
    t = torch.get((k, r["case"]), {})
    o = ort.get((k, r["case"]))
    us = r["gpu_ns"] / 1e3
    comp = t.get("compile_ns")
    pkg = "ai.onnx" if k.startswith("ai.onnx") else "com.microsoft"
    print(f"| {pkg} | {r['case']} | {r['variant']} | {us:.1f} | {r['gbps']:.0f} | {r['pct_of_copy']:.0f} | "
          f"{r['x_empty_dispatch']:.2f} | {t.get('eager_ns', float('nan'))/1e3:.1f} | "
          f"{(comp or float('nan'))/1e3:.1f} | {(comp / r['gpu_ns']) if comp else float('nan'):.2f}x | "
          f"{(o/1e3 if o else float('nan')):.0f} |")
    series.setdefault(f"{pkg} {r['variant']} {r['dtype']}", []).append((r["bytes"] / 1e6, r["gbps"]))
    series.setdefault("vec4 copy (same run)", []).append((r["copy_bytes"] / 1e6, r["copy_gbps"]))
d = tempfile.mkdtemp()
plots = []
for i, (name, pts) in enumerate(sorted(series.items())):
    f = os.path.join(d, f"s{i}.dat")
    open(f, "w").write("".join(f"{a} {b}\n" for a, b in sorted(set(pts))))
    style = " dt 2 lc rgb 'black'" if name.startswith("vec4") else ""
    plots.append(f"'{f}' using 1:2 with linespoints title '{name.replace('_', '-')}'{style}")
gp = (f"set terminal svg size 1000,600 dynamic font 'sans,11'\nset output '{sys.argv[4]}'\n"
      f"set title 'RotaryEmbedding on {wgk['adapter'].split(' (')[0]} (WebGPU/Vulkan): effective bandwidth'\n"
      "set logscale x\nset xlabel 'bytes moved per call (MB)'\nset ylabel 'GB/s'\nset key left top\nset grid\n"
      "plot " + ", ".join(plots) + "\n")
subprocess.run(["gnuplot"], input=gp.encode(), check=True)
