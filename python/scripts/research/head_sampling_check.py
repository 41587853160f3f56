#!/usr/bin/env python3
"""Would the output pass gain from reading the head's kernel and history weight bilinearly between
render pixels, instead of at each display pixel's nearest render pixel (model.md, "Output pass")?
At 2x four display pixels share one kernel and one alpha, at 3x nine. This scores a sequence twice
with the shipped weights, once as specified and once with the head interpolated, in the PyTorch
reference (fast mode; pooled PSNR as `swinup eval` computes it). Without retraining the network
has not learnt to use the interpolation, so the difference is a first look, not the ceiling.

Usage: python3 python/scripts/research/head_sampling_check.py SEQ [--variant lite] [--frames N]
(CPU: about 5 minutes for 32 frames at 960x540.)
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import swinup.output_pass as op  # noqa: E402
import swinup.training.recurrence as recurrence  # noqa: E402
from oracle_output_pass import load_replay, parse_replay_arguments, pooled_psnr, replay_result  # noqa: E402

specified_output_pass = op.output_pass
specified_gather = op.gather


def bilinear_head(head, rx, ry):
    """head [B, H, W, C] read at render positions (rx, ry) [B, Hd, Wd], clamped at the edges."""
    _, h, w, _ = head.shape
    x0, y0 = torch.floor(rx), torch.floor(ry)
    fx, fy = (rx - x0)[..., None], (ry - y0)[..., None]

    def at(x, y):
        return specified_gather(head, torch.clamp(x, 0, w - 1).long(), torch.clamp(y, 0, h - 1).long())
    return ((1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0)) +
            fy * ((1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1)))


def interpolated_output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, history_valid, exact,
                             refine=None, **frame):
    """output_pass with its one read of the head (at the nearest render pixel) made bilinear; every
    other read (colour taps, motion, the masks) stays as specified. frame: the recurrence's other
    arguments (still_shift, masks)."""
    b, h, w, _ = head.shape
    _, _, rx, ry, _, _ = op.display_grid(b, dw, dh, w, h, sx, sy, head.device)
    interpolated = bilinear_head(head, rx, ry)

    def gather(t, x, y):
        return interpolated if t is head else specified_gather(t, x, y)
    op.gather = gather
    try:
        return specified_output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, history_valid, exact,
                                     refine=refine, **frame)
    finally:
        op.gather = specified_gather


def main():
    args = parse_replay_arguments(__doc__)
    model, seq, clip = load_replay(args)
    result = replay_result(args, seq)
    for name, output_pass in (("nearest", specified_output_pass), ("bilinear", interpolated_output_pass)):
        recurrence.output_pass = output_pass  # unroll() calls it through recurrence's namespace
        with torch.no_grad():
            out, _, _ = recurrence.unroll(model, clip, exact=False)
        result[f"{name}_psnr"] = round(pooled_psnr(out, clip["gt"], seq.hdr), 4)
    recurrence.output_pass = specified_output_pass
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
