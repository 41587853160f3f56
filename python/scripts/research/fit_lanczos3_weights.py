#!/usr/bin/env python3
"""Fits the polynomials that define the output pass's Lanczos-3 history weights
(src/frame/pixel_ops.h kLanczos3Poly, python/swinup/sampling.py LANCZOS3_POLY) and prints them as
float32 literals, with the largest error of the weights evaluated as the backends evaluate them.

Lanczos-3 weighs the history tap at distance d by sinc(d) sinc(d / 3); the six taps of a fraction
f in [0, 1) (taps -2 .. +3) are normalised to sum 1. Evaluating that per display pixel costs two
sincos and seven divisions per axis, which on the GPU cost more than the 36 taps' sums. So the
normalised weights are written with u = f - 1/2 and h = f (1 - f) = 1/4 - u^2 as
  w(-2) = h q0(u),  w(-1) = h q1(u),  w(0) = (1/2 - u) + h q2(u),
  w(+1) = (1/2 + u) + h q2(-u),  w(+2) = h q1(-u),  w(+3) = h q0(-u)
(the mirror symmetry w_k(f) = w_{1-k}(1 - f) makes three polynomials enough, and h makes every
weight exact at f = 0: 1 at tap 0, 0 elsewhere). q0..q2 are degree-7 minimax fits (iteratively
reweighted least squares) of the exact normalised weights.

Usage: python3 python/scripts/research/fit_lanczos3_weights.py
"""
import numpy as np

DEGREE = 7


def lanczos3(f):
    """[N, 6] normalised weights of taps -2 .. +3 for fractions f [N] (float64)."""
    d = f[:, None] - np.arange(-2, 4)[None, :]
    w = np.sinc(d) * np.sinc(d / 3)
    return w / w.sum(1, keepdims=True)


def fit():
    f = np.linspace(0, 1, 40001)
    exact = lanczos3(f)
    u = f - 0.5
    h = 0.25 - u * u
    inside = h > 1e-12
    a = np.vander(u[inside], DEGREE + 1) * h[inside, None]  # columns u^7 .. u^0, times h
    polys = []
    for t in range(3):
        target = exact[inside, t] - ((0.5 - u[inside]) if t == 2 else 0.0)
        weights = np.ones(inside.sum())
        for _ in range(200):  # Lawson's iteration: least squares weighted toward the largest errors
            c = np.linalg.lstsq(a * np.sqrt(weights)[:, None], target * np.sqrt(weights), rcond=None)[0]
            weights = np.maximum(weights * np.abs(a @ c - target), 1e-300)
            weights /= weights.sum()
        polys.append(c.astype(np.float32))
    return polys


def evaluate_f32(polys, f):
    """The six weights as pixel_ops.h's lanczos3_weights computes them (float32 products and sums,
    no fused multiply-add), for one fraction f."""
    f32 = np.float32
    u = f32(f32(f) - f32(0.5))
    u2 = f32(u * u)
    h = f32(f32(0.25) - u2)
    plus, minus = [], []
    for c in polys:
        even, odd = c[1], c[0]
        for i in range(1, 4):
            even = f32(f32(even * u2) + c[2 * i + 1])
            odd = f32(f32(odd * u2) + c[2 * i])
        uo = f32(u * odd)
        plus.append(f32(even + uo))
        minus.append(f32(even - uo))
    half = f32(0.5)
    return np.array([h * plus[0], h * plus[1], f32(half - u) + f32(h * plus[2]),
                     f32(half + u) + f32(h * minus[2]), h * minus[1], h * minus[0]], dtype=np.float64)


def main():
    polys = fit()
    fractions = np.concatenate([np.linspace(0, 1, 5001, endpoint=False), [1e-7, 0.99999994]]).astype(np.float32)
    worst = max(np.abs(evaluate_f32(polys, x) - lanczos3(np.array([float(x)]))[0]).max() for x in fractions)
    worst_sum = max(abs(evaluate_f32(polys, x).sum() - 1.0) for x in fractions)
    for t, c in enumerate(polys):
        print(f"q{t} (u^7 .. u^0): " + ", ".join(f"{v:.9e}f" for v in c))
    print(f"largest weight error in float32: {worst:.2e}; largest |sum - 1|: {worst_sum:.2e}")


if __name__ == "__main__":
    main()
