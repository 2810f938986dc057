"""A sparse CUDA keep-alive for measuring a Vulkan process at sustained clocks (docs/PERF.md "ONNX Runtime at
equal clocks"): one tiny kernel (one thread spinning `--cycles` GPU cycles, about 1 us) every `--period-ms`,
each waited for before the next, so that the GPU never looks idle to its clock governor while the keep-alive
itself holds the GPU for well under 1% of the time. A keep-alive that always has work queued (the first try,
issue 17) time-slices long Vulkan kernels against it; this one leaves at most one 1-us kernel in flight.

  python3 bench/peers/cuda_keepalive.py [--period-ms 1] [--cycles 2000] [--seconds 600]
"""
import argparse
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--period-ms", type=float, default=1.0)
    ap.add_argument("--cycles", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=600)
    args = ap.parse_args()
    torch.cuda.init()
    end = time.monotonic() + args.seconds
    launched = 0
    start = time.monotonic()
    while time.monotonic() < end:
        torch.cuda._sleep(args.cycles)
        torch.cuda.synchronize()
        launched += 1
        time.sleep(args.period_ms / 1e3)
        if launched % 5000 == 0:
            print(f"keep-alive: {launched} kernels, {launched / (time.monotonic() - start):.0f} per s", flush=True)


if __name__ == "__main__":
    main()
