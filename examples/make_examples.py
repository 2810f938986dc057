#!/usr/bin/python3
"""Writes the example inputs that ship with the repository (run once; the .npy files are committed).

Llama-style rotary embedding: inv_freq[i] = theta^(-2i/d), angle[p, i] = p * inv_freq[i],
cos/sin caches of shape (max_position, d/2); x is random normal, positions a prefill offset.
The normalization ops: a residual stream and a layer's output of (batch, tokens, hidden) random normal values,
a learned scale near 1 (random normal, sd 0.1, around 1) and a small bias.
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

# ai.onnx RMSNormalization-23 over the last dim: x (2, 16, 256), scale (256); default axis, epsilon, stash_type.
x = rng.standard_normal((2, 16, 256)).astype(np.float32)
scale = (1 + 0.1 * rng.standard_normal(256)).astype(np.float32)
save("ai.onnx.RMSNormalization", x=x, scale=scale)

# com.microsoft SkipSimplifiedLayerNormalization: the residual add before a layer's RMS norm, x and skip
# (2, 16, 256), gamma and bias (256); the main job asks for y and inputSkipBiasSum (the next residual).
x = rng.standard_normal((2, 16, 256)).astype(np.float32)
skip = rng.standard_normal((2, 16, 256)).astype(np.float32)
gamma = (1 + 0.1 * rng.standard_normal(256)).astype(np.float32)
bias = (0.01 * rng.standard_normal(256)).astype(np.float32)
save("com.microsoft.SkipSimplifiedLayerNormalization", x=x, skip=skip, gamma=gamma, bias=bias)
