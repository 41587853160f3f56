#!/usr/bin/env python3
"""Checks that python/swinup/quant.py and exact_math.py are bit-identical to the C++ headers
(src/numeric/e4m3.h, half.h, exact_math.h): compiles scripts/cpp_reference.cpp with the project's
floating-point flags (-ffp-contract=off), evaluates both on every f16 value, on every e4m3
rounding tie and its neighbours, and on random float32 values, and compares the bits.

Usage: python3 python/scripts/check_against_cpp.py   (needs g++ and torch; prints a summary)
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup import exact_math, quant  # noqa: E402

NAMES = ["round_e4m3", "round_f16", "exp2", "log2", "tanh", "sigmoid", "gelu", "tonemap_t",
         "tonemap_t_inverse"]
PY = [quant.round_e4m3, quant.round_f16, exact_math.exp2, exact_math.log2, exact_math.tanh,
      exact_math.sigmoid, exact_math.gelu, exact_math.tonemap_t, exact_math.tonemap_t_inverse]


def inputs() -> np.ndarray:
    f16_all = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    # Every e4m3 value, the midpoints between neighbours (ties) and one f32 ulp either side.
    codes = np.arange(256, dtype=np.uint8)
    vals = quant.e4m3_decode(torch.from_numpy(codes)).numpy()
    vals = np.sort(vals[np.isfinite(vals)])
    mids = ((vals[1:].astype(np.float64) + vals[:-1]) / 2).astype(np.float32)
    ties = np.concatenate([mids, np.nextafter(mids, np.float32(np.inf)),
                           np.nextafter(mids, np.float32(-np.inf)), [464.0, 463.99, 448.01]]
                          ).astype(np.float32)
    rng = np.random.default_rng(1)
    rand = np.concatenate([
        rng.uniform(-10, 10, 200000), rng.uniform(-200, 200, 50000),
        np.exp(rng.uniform(-100, 80, 50000)) * rng.choice([-1, 1], 50000),
        rng.standard_normal(100000) * 1e-3,
    ]).astype(np.float32)
    bits = rng.integers(0, 2**32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 127.5, -126.5, -126.0, -125.5,
                        128.0, 1e-45, -1e-45], dtype=np.float32)
    return np.concatenate([f16_all, ties, rand, bits, special]).astype(np.float32)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "cpp_reference")
        subprocess.run(["g++", "-std=c++20", "-O2", "-ffp-contract=off", "-I", os.path.join(ROOT, "src"),
                        os.path.join(HERE, "cpp_reference.cpp"), "-o", exe], check=True)
        x = inputs()
        x.tofile(os.path.join(tmp, "in.f32"))
        subprocess.run([exe, os.path.join(tmp, "in.f32"), os.path.join(tmp, "out.f32")], check=True)
        ref = np.fromfile(os.path.join(tmp, "out.f32"), dtype=np.float32).reshape(len(NAMES), -1)
    failed = 0
    xt = torch.from_numpy(x)
    for i, (name, fn) in enumerate(zip(NAMES, PY)):
        got = fn(xt).numpy()
        both_nan = np.isnan(got) & np.isnan(ref[i])
        same = (got.view(np.uint32) == ref[i].view(np.uint32)) | both_nan
        bad = np.flatnonzero(~same)
        print(f"{name:18s} {len(x) - len(bad):7d}/{len(x)} bit-identical")
        for j in bad[:5]:
            print(f"    x={x[j]!r} ({x[j].view(np.uint32):08x}) python={got[j]!r} c++={ref[i][j]!r}")
        failed += len(bad)
    # The code path: e4m3_codes must decode back to round_e4m3.
    codes = quant.e4m3_codes(xt)
    dec = quant.e4m3_decode(codes).numpy()
    r = quant.round_e4m3(xt).numpy()
    ok = (dec.view(np.uint32) == r.view(np.uint32)) | (np.isnan(dec) & np.isnan(r))
    print(f"{'e4m3 codes':18s} {int(ok.sum()):7d}/{len(x)} decode to round_e4m3")
    failed += int((~ok).sum())
    print("OK" if failed == 0 else f"FAILED: {failed} mismatches")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
