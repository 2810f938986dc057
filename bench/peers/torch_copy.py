"""CUDA's copy (torch `y.copy_(x)`) of the sizes bench_copy_sweep times, for the same device call (docs/PERF.md
"The copy baseline"). CUDA events around `--iterations` back-to-back copies after a spin-up, median of 5; and
the median of single copies, each between its own two events.

  python3 bench/peers/torch_copy.py --mib 64,256,1024
  python3 bench/peers/torch_copy.py --mib 1024 --pad-mib 0,2,32.5   # a tensor of that many MiB allocated before x

With --pad-mib, each size is timed once per pad (placement: bench_copy_sweep's --pad-mib does the same for WGSL).
"""
import argparse
import statistics

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", default="64,256,1024")
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--pad-mib", default="", help="comma-separated MiB allocated before x (placement)")
    args = ap.parse_args()
    print("torch", torch.__version__, torch.cuda.get_device_name(0))
    pads = [float(p) for p in args.pad_mib.split(",")] if args.pad_mib else [None]
    for mib, pad_mib in ((int(m), p) for m in args.mib.split(",") for p in pads):
        n = (mib << 20) // 4
        pad = torch.empty(int((pad_mib or 0) * 1048576) // 4, dtype=torch.float32, device="cuda")
        x = torch.ones(n, dtype=torch.float32, device="cuda")
        y = torch.empty_like(x)
        for _ in range(200):  # spin-up
            y.copy_(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(5):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(args.iterations):
                y.copy_(x)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3 / args.iterations)  # us per copy
        us = statistics.median(times)
        single = []  # one copy between its own events, the GPU idle before it (as one wgk pass is timed)
        for _ in range(args.iterations):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            y.copy_(x)
            end.record()
            end.synchronize()
            single.append(start.elapsed_time(end) * 1e3)
        one = statistics.median(single)
        where = "" if pad_mib is None else f"  pad {pad_mib:8.4f} MiB"
        del pad, x, y
        torch.cuda.empty_cache()  # the next pad and x come from cudaMalloc again, not the caching allocator
        print(f"{mib:5d} MiB{where}  torch copy_  back to back {us:9.1f} us  {2 * (mib << 20) / us / 1e3:7.1f} GB/s"
              f"   one between events {one:9.1f} us", flush=True)


if __name__ == "__main__":
    main()
