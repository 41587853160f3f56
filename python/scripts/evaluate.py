#!/usr/bin/env python3
"""Held-out check of the PyTorch reference on sequence folders with ground truth (for training
runs; the library's own `swinup eval` is the product's evaluation): runs the whole recurrence on
each sequence at full frame and prints, per sequence, the PSNR of the output and of a bilinear
upscale of the current frame, both on x / (1 + x) (a tonemap that keeps HDR in [0, 1]), and the
temporal error (mean |change of output - change of ground truth| in t-space), as JSON lines.

Usage: python3 python/scripts/evaluate.py SEQ [SEQ...] [--variant lite] [--weights FILE |
       --checkpoint FILE] [--exact]"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup.data import SequenceFolder  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.training.checkpoint import checkpoint_config, load_checkpoint, read_checkpoint  # noqa: E402
from swinup.training.losses import t_space  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402


def psnr(a, b):
    mse = float(((a / (1 + a) - b / (1 + b)) ** 2).mean())
    return 10 * math.log10(1.0 / max(mse, 1e-12))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sequences", nargs="+")
    ap.add_argument("--variant", default="lite", choices=["lite", "full"])
    ap.add_argument("--weights", default=None)
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--exact", action="store_true")
    args = ap.parse_args()
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if args.checkpoint:
        record = read_checkpoint(args.checkpoint, args.variant)
        model = SwinUp(checkpoint_config(record), exact=args.exact)
        load_checkpoint(args.checkpoint, model, record)
    else:
        cfg, tensors, _ = read_weights(args.weights or os.path.join(ROOT, "weights", f"{args.variant}.safetensors"))
        model = SwinUp(cfg, exact=args.exact)
        model.load_tensors(tensors, fix_scales=True)
    model.to(dev).requires_grad_(False)
    for path in args.sequences:
        seq = SequenceFolder(path, dev)
        clip = seq.clip(seq.n, seq.w, seq.h, __import__("random").Random(0))
        # Full frame: pad the render size up to the grid inside staging; crops are not needed.
        batch = {k: v[None].to(dev) if torch.is_tensor(v) else v for k, v in clip.items()}
        with torch.no_grad():
            out, l1, temporal = unroll(model, batch, exact=args.exact)
        gt = batch["gt"][0]
        bil = F.interpolate(batch["color"][0].permute(0, 3, 1, 2), size=gt.shape[1:3], mode="bilinear",
                            align_corners=False).permute(0, 2, 3, 1)
        if not seq.hdr:
            bil = bil.clamp(0, 1)
        tb = t_space(bil)
        tg = t_space(gt)
        temporal_bil = float(((tb[1:] - tb[:-1]) - (tg[1:] - tg[:-1])).abs().mean()) if seq.n > 1 else 0.0
        print(json.dumps({"sequence": path, "frames": seq.n, "variant": args.variant,
                          "psnr": round(psnr(out[0], gt), 3), "psnr_bilinear": round(psnr(bil, gt), 3),
                          "temporal": round(float(temporal), 5), "temporal_bilinear": round(temporal_bil, 5)}),
              flush=True)


if __name__ == "__main__":
    main()
