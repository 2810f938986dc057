"""CUDA's copy (torch `y.copy_(x)`) of the sizes bench_copy_sweep times, for the same device call (docs/PERF.md
"The copy baseline"). CUDA events around `--iterations` back-to-back copies after a spin-up, median of 5; and
the median of single copies, each between its own two events.

  python3 bench/peers/torch_copy.py --mib 64,256,1024
"""
import argparse
import statistics

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", default="64,256,1024")
    ap.add_argument("--iterations", type=int, default=50)
    args = ap.parse_args()
    print("torch", torch.__version__, torch.cuda.get_device_name(0))
    for mib in (int(m) for m in args.mib.split(",")):
        n = (mib << 20) // 4
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
        print(f"{mib:5d} MiB  torch copy_  back to back {us:9.1f} us  {2 * (mib << 20) / us / 1e3:7.1f} GB/s"
              f"   one between events {one:9.1f} us", flush=True)


if __name__ == "__main__":
    main()
