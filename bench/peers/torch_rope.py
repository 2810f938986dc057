#!/usr/bin/env python3
"""PyTorch eager and torch.compile RotaryEmbedding on the bench.json cases (CUDA), for docs/PERF.md.

usage: torch_rope.py CASES_JSON [--filter S] [--iterations N] [--warmup N] [--json FILE] [--no-compile]
CASES_JSON: the cases.json that make_models.py writes (shapes, dtypes, attrs, position-id ranges).

Semantics: ONNX RotaryEmbedding opset 23 (and com.microsoft's, the same math): positions gather rows of
cos/sin (shape [max_position, rotary_dim/2]); the first rotary_dim features of each head rotate, halves
(x1 = x[:r/2], x2 = x[r/2:r]) or interleaved pairs (x[0::2], x[1::2]); y1 = x1*cos - x2*sin,
y2 = x2*cos + x1*sin; the remaining features pass through. 4D x is [batch, heads, seq, head_size],
3D x is [batch, seq, heads*head_size]. A single position id is an offset: positions offset + 0..seq-1.

Timing: CUDA events around each call, all calls queued back to back, median of the per-call times
(GPU time including the gaps between the eager kernels of one call). Also a same-run torch copy
(y.copy_(x)) of x's bytes.
"""
import json
import statistics
import sys

import torch


def rope(x, cos, sin, pos, rot, interleaved, num_heads):
    three_d = x.dim() == 3
    if three_d:
        b, s, hidden = x.shape
        x4 = x.view(b, s, num_heads, hidden // num_heads)  # [b, s, h, d]
        c = cos[pos].unsqueeze(2)                            # [b, s, 1, r/2]
        sn = sin[pos].unsqueeze(2)
    else:
        x4 = x                                               # [b, h, s, d]
        c = cos[pos].unsqueeze(1)                            # [b, 1, s, r/2]
        sn = sin[pos].unsqueeze(1)
    xr = x4[..., :rot]
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
    else:
        x1, x2 = xr[..., : rot // 2], xr[..., rot // 2:]
    o1 = x1 * c - x2 * sn
    o2 = x2 * c + x1 * sn
    out = torch.stack([o1, o2], -1).flatten(-2) if interleaved else torch.cat([o1, o2], -1)
    if rot < x4.shape[-1]:
        out = torch.cat([out, x4[..., rot:]], -1)
    return out.reshape(x.shape)


def time_ms(fn, warmup, iterations):
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    torch.cuda.synchronize()
    for i in range(iterations):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def main():
    args = sys.argv[1:]
    opt = lambda n, d: args[args.index(n) + 1] if n in args else d
    cases = json.load(open(args[0]))
    filt, iterations, warmup = opt("--filter", ""), int(opt("--iterations", "50")), int(opt("--warmup", "5"))
    compile_too = "--no-compile" not in args
    torch._dynamo.config.cache_size_limit = 512
    compiled = torch.compile(rope, dynamic=False) if compile_too else None
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(1)
    rows, done = [], {}
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}", flush=True)
    for c in cases:
        if filt not in c["case"]:
            continue
        dtype = torch.float32 if c["dtype"] == "float32" else torch.float16
        spec = c["inputs"]
        xs = spec[c["x"]]
        key = json.dumps([xs["shape"], c["dtype"], c["attrs"], spec["position_ids"]["shape"],
                          spec["cos_cache"]["shape"], spec["position_ids"].get("values")])
        row = {"kernel": c["kernel"], "case": c["case"], "dtype": c["dtype"]}
        if key in done:
            row.update(done[key])
            rows.append(row)
            continue
        x = torch.rand(xs["shape"], generator=gen, device=dev, dtype=torch.float32).mul_(2).sub_(1).to(dtype)
        cos = torch.rand(spec["cos_cache"]["shape"], generator=gen, device=dev).to(dtype)
        sin = torch.rand(spec["sin_cache"]["shape"], generator=gen, device=dev).to(dtype)
        ps = spec["position_ids"]
        seq = xs["shape"][2] if len(xs["shape"]) == 4 else xs["shape"][1]
        batch = xs["shape"][0]
        if ps.get("values") is not None:
            pos = (torch.arange(seq, device=dev) + ps["values"][0]).expand(batch, seq)
        else:
            lo, hi = ps["randomInt"]
            pos = torch.randint(lo, hi + 1, ps["shape"], generator=gen, device=dev)
        rot = c["attrs"].get("rotary_embedding_dim", 0) or (cos.shape[1] * 2)
        inter = bool(c["attrs"].get("interleaved", 0))
        heads = c["attrs"].get("num_heads", 0)
        y = torch.empty_like(x)
        res = {"x_bytes": x.numel() * x.element_size()}
        res["eager_ns"] = 1e6 * time_ms(lambda: rope(x, cos, sin, pos, rot, inter, heads), warmup, iterations)
        if compiled is not None:
            try:
                res["compile_ns"] = 1e6 * time_ms(lambda: compiled(x, cos, sin, pos, rot, inter, heads), max(warmup, 3),
                                                  iterations)
            except Exception as e:  # noqa: BLE001 - report and go on
                res["compile_error"] = str(e).splitlines()[0]
        res["copy_ns"] = 1e6 * time_ms(lambda: y.copy_(x), warmup, iterations)
        done[key] = res
        row.update(res)
        rows.append(row)
        print(f"{c['kernel']} {c['case']}: eager {res['eager_ns']/1e3:.1f} us, compile "
              f"{res.get('compile_ns', float('nan'))/1e3:.1f} us, copy {res['copy_ns']/1e3:.1f} us", flush=True)
        del x, cos, sin, pos, y
    if "--json" in args:
        json.dump({"peer": f"torch {torch.__version__}", "device": torch.cuda.get_device_name(), "rows": rows},
                  open(opt("--json", ""), "w"), indent=1)


if __name__ == "__main__":
    main()
