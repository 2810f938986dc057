#!/usr/bin/python3
"""Writes the example inputs that ship with the repository (run once; the .npy files are committed).

Llama-style rotary embedding: inv_freq[i] = theta^(-2i/d), angle[p, i] = p * inv_freq[i],
cos/sin caches of shape (max_position, d/2); x is random normal, positions a prefill offset.
Needs numpy (Debian python3-numpy)."""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)


def caches(max_position, rotary_dim, theta=10000.0):
    inv_freq = theta ** (-np.arange(0, rotary_dim, 2, dtype=np.float64) / rotary_dim)
    angles = np.outer(np.arange(max_position, dtype=np.float64), inv_freq)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def save(folder, **arrays):
    os.makedirs(os.path.join(here, folder), exist_ok=True)
    for name, a in arrays.items():
        np.save(os.path.join(here, folder, name + ".npy"), a)


# ai.onnx RotaryEmbedding-23, rank 4 (batch 2, 8 heads, 32 tokens, head 64), table of positions.
cos, sin = caches(256, 64)
x = rng.standard_normal((2, 8, 32, 64)).astype(np.float32)
pos = np.stack([np.arange(32), np.arange(100, 132)]).astype(np.int64)
save("ai.onnx.RotaryEmbedding", x=x, cos=cos, sin=sin, positionIds=pos)

# com.microsoft RotaryEmbedding, rank 3 (batch 1, 16 tokens, 4 heads of 96), partial rotation 32,
# base offset 40 (token s reads cache row 40 + s).
cos, sin = caches(128, 32)
x = rng.standard_normal((1, 16, 4 * 96)).astype(np.float32)
save("com.microsoft.RotaryEmbedding", x=x, cos=cos, sin=sin, positionIds=np.array([40], dtype=np.int64))
