#!/usr/bin/env python3
"""Does the network trust a young history too little or too much? A temporal accumulator that
averages k frames gives the history the weight k / (k + 1) after k frames (TAAU's running mean,
capped later). This replays a sequence with the shipped weights and, over the first 16 frames,
bounds the history weight by that running mean: `cap` lowers alpha to k / (k + c) where it is
above, `floor` raises it to k / (k + c) where it is below (k = frames since the start, c = 1 by
default), with the recurrence rerun (the history is the replayed output). It prints the mean alpha
per frame and the pooled and per-frame PSNR of each mode (display-encoded, as `swinup eval` pools
it; PyTorch fast mode), without retraining.

Usage: python3 python/scripts/research/history_age_replay.py SEQ [--modes specified,cap,floor] [--c 1] [--frames 16]
(CPU: about 2 minutes a mode for 16 frames at 960x540.)
"""
import argparse
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import swinup.output_pass as op  # noqa: E402
import swinup.training.recurrence as recurrence  # noqa: E402
from swinup.display_encode import display_encode  # noqa: E402
from oracle_output_pass import add_network_arguments, load_replay  # noqa: E402

specified_output_pass = op.output_pass
MODES = ("specified", "cap", "floor")
BOUNDED_FRAMES = 16


def running_mean_logit(k: int, c: float) -> float:
    """The logit of k / (k + c), the running mean's history weight after k frames (k >= 1)."""
    return math.log(k / c)


def replay(model, clip, mode, c):
    """-> (outputs [B, T, Hd, Wd, 3], mean alpha per frame as the network gave it)."""
    alphas = []

    def output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, valid, exact, refine=None, **frame):
        k = len(alphas)
        alphas.append(round(float(torch.sigmoid(head[..., 7]).mean()), 3))
        if mode != "specified" and valid and k < BOUNDED_FRAMES:
            bound = torch.full_like(head[..., 7], running_mean_logit(k, c))
            head = head.clone()
            head[..., 7] = torch.minimum(head[..., 7], bound) if mode == "cap" else torch.maximum(head[..., 7], bound)
        return specified_output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, valid, exact,
                                     refine=refine, **frame)  # frame: still_shift, masks

    recurrence.output_pass = output_pass  # unroll() calls it through recurrence's namespace
    try:
        with torch.no_grad():
            out, _, _ = recurrence.unroll(model, clip, exact=False)
    finally:
        recurrence.output_pass = specified_output_pass
    return out, alphas


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_network_arguments(ap)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--c", type=float, default=1.0, help="the bound is k / (k + c)")
    ap.add_argument("--frames", type=int, default=BOUNDED_FRAMES, help="the first N frames (0: all)")
    args = ap.parse_args()
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        ap.error(f"--modes: unknown {unknown}; expected some of {list(MODES)}")
    if not args.c > 0:
        ap.error(f"--c {args.c}: expected a value > 0")
    model, seq, clip = load_replay(args)
    for mode in modes:
        out, alphas = replay(model, clip, mode, args.c)
        mse = (display_encode(out, seq.hdr) - display_encode(clip["gt"], seq.hdr)).square().mean(dim=(0, 2, 3, 4))
        print(json.dumps({"sequence": args.sequence, "mode": mode,
                          "pooled_psnr": round(10 * math.log10(1 / float(mse.mean())), 3),
                          "frame_psnr": [round(10 * math.log10(1 / float(m)), 2) for m in mse],
                          "mean_alpha": alphas}), flush=True)


if __name__ == "__main__":
    main()
