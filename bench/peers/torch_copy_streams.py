# Diagnostic for docs/PERF.md "The 1 GiB RoPE shape": what the token-major head loop's access pattern costs CUDA.
#   python3 bench/peers/torch_copy_streams.py   (torch with CUDA; the H200 run: docs/perf/h200_2026-12-01c/)
# CUDA copies of 1 GiB (f32 1x32x65536x128) and 512 MiB (f16) in two access patterns, CUDA events around 50
# back-to-back copies: linear (y.copy_(x)), and reading the 32 head streams token-major as RoPE's head loop
# does (out[s, h, :] = x[h, s, :]: the output contiguous, the input read 32 MiB apart per head), and writing them.
import torch
def timed(fn, n=50):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = 1e9
    for _ in range(3):
        a.record()
        for _ in range(n): fn()
        b.record(); b.synchronize()
        best = min(best, a.elapsed_time(b) * 1000 / n)
    return best
for dt in (torch.float32, torch.float16):
    H, S, D = 32, 65536, 128
    x = torch.randn(H, S, D, device='cuda', dtype=dt)
    y = torch.empty_like(x)
    t = torch.empty(S, H, D, device='cuda', dtype=dt)
    lin = timed(lambda: y.copy_(x))
    rd = timed(lambda: t.copy_(x.transpose(0, 1)))          # reads 32 streams, writes linear
    wr = timed(lambda: y.transpose(0, 1).copy_(t))          # reads linear, writes 32 streams
    mb = x.numel() * x.element_size() / 2**20
    print(f"{dt} {mb:.0f} MiB: linear {lin:.1f} us, read 32 head streams {rd:.1f} us, write 32 head streams {wr:.1f} us")
