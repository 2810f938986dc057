"""PyTorch peers of the normalization packages' bench cases (docs/PERF.md "Normalization"): eager and
torch.compile of torch.nn.functional.rms_norm (RMSNormalization, last axis) and of the skip-add form
(y = rms_norm(x + skip) * gamma), CUDA events around back-to-back calls after a warm-up, median of 5 (bound by
Python's host cost at small sizes), and the same calls captured in one CUDA graph and replayed (GPU time); and a
torch copy of x's bytes.

  python3 bench/peers/torch_norm.py [--iterations 50]
"""
import argparse
import statistics

import torch
import torch.nn.functional as F

CASES = [("prefill_4096x4096", (4096, 4096)), ("prefill_1x512x4096", (1, 512, 4096)),
         ("long_rows_64x16384", (64, 16384)), ("decode_1x4096", (1, 4096)), ("decode_8x4096", (8, 4096))]


def time_us(fn, iterations):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iterations):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / iterations)
    return statistics.median(times)


def time_graph_us(fn, iterations):
    """GPU time per call with the host out of the way: `iterations` calls captured in one CUDA graph, replayed."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(iterations):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / iterations)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=50)
    args = ap.parse_args()
    print("torch", torch.__version__, torch.cuda.get_device_name(0), flush=True)

    def rms(x, g):
        return F.rms_norm(x, (x.shape[-1],), g, 1e-5)

    def skip_rms(x, s, g):
        return F.rms_norm(x + s, (x.shape[-1],), g, 1e-5)

    for dtype, tag in ((torch.float32, "f32"), (torch.float16, "f16")):
        for name, shape in CASES:
            x = torch.randn(shape, dtype=dtype, device="cuda")
            s = torch.randn(shape, dtype=dtype, device="cuda")
            g = torch.randn(shape[-1], dtype=dtype, device="cuda")
            y = torch.empty_like(x)
            torch._dynamo.reset()  # one compilation per case: no recompile limit, no dynamic shapes
            rms_c, skip_c = torch.compile(rms), torch.compile(skip_rms)
            eager = time_us(lambda: rms(x, g), args.iterations)
            comp = time_us(lambda: rms_c(x, g), args.iterations)
            copy = time_us(lambda: y.copy_(x), args.iterations)
            s_eager = time_us(lambda: skip_rms(x, s, g), args.iterations)
            s_comp = time_us(lambda: skip_c(x, s, g), args.iterations)
            print(f"{name}_{tag}: rms eager {eager:.1f} us, compile {comp:.1f} us; skip eager {s_eager:.1f} us, "
                  f"compile {s_comp:.1f} us; copy of x {copy:.1f} us", flush=True)
            try:
                fns = (lambda: rms(x, g), lambda: rms_c(x, g), lambda: skip_rms(x, s, g), lambda: skip_c(x, s, g),
                       lambda: y.copy_(x))
                t = [time_graph_us(f, args.iterations) for f in fns]
                print(f"{name}_{tag} in a CUDA graph: rms eager {t[0]:.1f} us, compile {t[1]:.1f} us; skip eager "
                      f"{t[2]:.1f} us, compile {t[3]:.1f} us; copy of x {t[4]:.1f} us", flush=True)
            except Exception as e:  # capture can fail for a compiled function; say so
                print(f"{name}_{tag} in a CUDA graph: failed ({type(e).__name__}: {e})", flush=True)


if __name__ == "__main__":
    main()
