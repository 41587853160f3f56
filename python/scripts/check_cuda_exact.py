#!/usr/bin/env python3
"""On a CUDA machine: checks that the reference's exact mode gives the same bits on the GPU as on
the CPU (torch's CUDA float32 ops must be IEEE-rounded, the float64 sums exact): the rounding and
exact-math functions on all f16 values and random floats, then the network on the golden staged
slots against tests/data's golden head. Usage: python3 python/scripts/check_cuda_exact.py"""
import json
import os
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "scripts"))
from swinup import exact_math, quant  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.quant import e4m3_decode  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402
from make_golden import perturb_weights  # noqa: E402


def main() -> int:
    if not torch.cuda.is_available():
        print("no CUDA device")
        return 2
    dev = torch.device("cuda")
    rng = np.random.default_rng(3)
    x = np.concatenate([np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32),
                        rng.uniform(-30, 30, 200000).astype(np.float32)])
    xt = torch.from_numpy(x)
    bad = 0
    for name, fn in [("round_e4m3", quant.round_e4m3), ("round_f16", quant.round_f16),
                     ("exp2", exact_math.exp2), ("log2", exact_math.log2), ("tanh", exact_math.tanh),
                     ("sigmoid", exact_math.sigmoid), ("gelu", exact_math.gelu)]:
        a = fn(xt).numpy()
        b = fn(xt.to(dev)).cpu().numpy()
        same = (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
        print(f"{name:12s} cpu == cuda on {int(same.sum())}/{len(x)}")
        bad += int((~same).sum())
    for variant in ("lite", "full"):
        idx = json.load(open(os.path.join(ROOT, "tests", "data", f"golden_{variant}.json")))
        blob = open(os.path.join(ROOT, "tests", "data", f"golden_{variant}.bin"), "rb").read()

        def tensor(name):
            e = next(e for e in idx["tensors"] if e["name"] == name)
            dt = {"f16": np.float16, "f32": np.float32, "e4m3": np.uint8}[e["dtype"]]
            return np.frombuffer(blob[e["offset"]:e["offset"] + e["bytes"]], dt).reshape(e["shape"])
        cfg, t, _ = read_weights(os.path.join(ROOT, idx["weights"]))
        m = SwinUp(cfg, exact=True)
        m.load_tensors(perturb_weights(cfg, t), fix_scales=True)
        m.to(dev).requires_grad_(False)
        f = idx["layer_frame"]
        staged = e4m3_decode(torch.from_numpy(tensor(f"frame{f}/staged").copy()))[None].to(dev)
        with torch.no_grad():
            head = m(staged, f)[0].cpu().numpy()
        want = tensor(f"frame{f}/layer/head")
        same = head.view(np.uint32) == want.view(np.uint32)
        print(f"{variant} head on CUDA == golden on {int(same.sum())}/{same.size}, "
              f"max |diff| {float(np.abs(head - want).max()):.3g}")
        bad += int((~same).sum())
    print("OK" if bad == 0 else f"{bad} differences")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
