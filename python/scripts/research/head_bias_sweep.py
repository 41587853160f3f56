#!/usr/bin/env python3
"""Does the trained network trust the history too little, or choose the wrong kernel size? A
diagnostic for the quality gap to TAAU at 3x: the network's head outputs are recorded once per
frame, then replayed through the output pass (swinup.training.recurrence.unroll with a `heads` callback) with
one global change at a time, and each replay is scored:
- history weight: a bias b added to the alpha logit (head channel 7, alpha = sigmoid(h7) is the
  weight of the reprojected history, 1 - alpha that of the current frame's kernel reconstruction);
  b > 0 trusts the history more;
- kernel size: a shift s added to both log2 sigma channels (4: major, 5: minor; sigma =
  exp2(clamp(h, -4, 2)) in render pixels, docs/model-spec.md), so s > 0 widens (blurs) the
  reconstruction kernel by 2^s and s < 0 narrows (sharpens) it.
If a global bias gains a lot, the network is off in that direction everywhere and training (or a
loss term) should be pushed that way; if every change loses, the network's choices are locally
right and the gap lies elsewhere (the oracle, scripts/research/oracle_output_pass.py, bounds what is left).

Limitation, accepted for a diagnostic: a replay with a changed alpha (or kernel) changes the
outputs and so the history of the later frames, as it should (the recurrence is rerun), but the
network's recurrent features and head outputs stay the recorded ones: a network trained to that
bias would see its own changed history and could adapt its heads to it.

Scores: pooled PSNR on display-encoded values as `swinup eval` computes it (display_encode and
pooled_psnr of the oracle script, imported from it) and the training's temporal term (unroll's third
value: since 2026-12-01 the mean |change error| along the motion on stable pixels,
swinup/temporal_loss.py; the numbers of 2026-11-30 in docs/journal/ used the term of that time, each
pixel against itself in the previous frame). Also printed: the unmodified network's mean alpha per
frame, and over the 10% of display pixels with the largest ground-truth gradient (edges) against the
rest (flat), with the log2 sigma statistics for the same split. CPU is enough (768x432 display, 16
frames).

--first-frame-only changes the heads of frame 0 alone (no history there, so only the kernel
matters) and adds wider kernels to the sweep: is the first frame's kernel, which the pooled PSNR
weighs most (docs/journal/2026-12-01-gentler-continuations-9aa140b.md), off in one direction? With
--frames 1 a one-frame sequence is enough.

Usage: python3 python/scripts/research/head_bias_sweep.py SEQ [--variant lite] [--frames N] [--first-frame-only]
                                                 [--sigma-shifts 0.15,0.3] [--json out.json]
"""
import argparse
import importlib.util
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# The oracle script puts python/ on sys.path and holds the eval-compatible scoring and the network
# and sequence loading; it is imported as a module rather than copied, so the two diagnostics
# load and score alike.
_spec = importlib.util.spec_from_file_location("oracle_output_pass", os.path.join(HERE, "oracle_output_pass.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)

from swinup.output_pass import ALPHA_LOGIT, display_grid  # noqa: E402
from swinup.sampling import gather  # noqa: E402
from swinup.staging import scale_of  # noqa: E402
from swinup.training.losses import t_space  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402

LOG_SIGMA_MAJOR, LOG_SIGMA_MINOR = 4, 5
LOG_SIGMA_RANGE = (-4.0, 2.0)  # the output pass clamps log2 sigma to this range
ALPHA_BIASES = [-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0]
# -0.6 and -1.0: the first run at 3x gained from a narrower kernel; where does that stop?
SIGMA_SHIFTS = [-1.0, -0.6, -0.3, -0.15, 0.15, 0.3]
# The first frame has no history to sharpen it: how much wider does it want its kernel?
FIRST_FRAME_SIGMA_SHIFTS = [-0.3, -0.15, 0.15, 0.3, 0.5, 0.75, 1.0, 1.5]
EDGE_FRACTION = 0.10


def nearest_render_pixel(seq):
    """The render pixel whose head a display pixel reads (output_pass.display_grid)."""
    grid = display_grid(1, seq.dw, seq.dh, seq.w, seq.h, scale_of(seq.dw, seq.w), scale_of(seq.dh, seq.h), "cpu")
    return grid[4], grid[5]


def edge_mask(gt_frame):
    """Top EDGE_FRACTION of display pixels by ground-truth gradient magnitude (central
    differences of the channel mean in t-space, the space the output pass blends in)."""
    t = t_space(gt_frame).mean(-1)  # [1, Hd, Wd]
    gx = torch.zeros_like(t)
    gy = torch.zeros_like(t)
    gx[:, :, 1:-1] = 0.5 * (t[:, :, 2:] - t[:, :, :-2])
    gy[:, 1:-1, :] = 0.5 * (t[:, 2:, :] - t[:, :-2, :])
    g = (gx * gx + gy * gy).sqrt()
    return g >= torch.quantile(g.flatten(), 1.0 - EDGE_FRACTION)


def network_statistics(seq, heads, gt):
    """Mean alpha per frame (render pixels), and alpha / log2 sigma on edges vs flat (display
    pixels through the nearest render pixel, frames 1.. where a history exists)."""
    per_frame = [round(float(torch.sigmoid(h[..., ALPHA_LOGIT]).mean()), 4) for h in heads]
    nx, ny = nearest_render_pixel(seq)
    sums = {"edge": {}, "flat": {}}
    lo, hi = LOG_SIGMA_RANGE
    for k in range(1, len(heads)):
        hn = gather(heads[k], nx, ny)  # [1, Hd, Wd, C]
        edges = edge_mask(gt[:, k])
        values = {"alpha": torch.sigmoid(hn[..., ALPHA_LOGIT]),
                  "log2_sigma_major": hn[..., LOG_SIGMA_MAJOR].clamp(lo, hi),
                  "log2_sigma_minor": hn[..., LOG_SIGMA_MINOR].clamp(lo, hi),
                  "sigma_major_at_clamp": ((hn[..., LOG_SIGMA_MAJOR] <= lo) | (hn[..., LOG_SIGMA_MAJOR] >= hi)).float(),
                  "sigma_minor_at_clamp": ((hn[..., LOG_SIGMA_MINOR] <= lo) | (hn[..., LOG_SIGMA_MINOR] >= hi)).float()}
        for part, mask in (("edge", edges), ("flat", ~edges)):
            for name, v in values.items():
                s, n = sums[part].get(name, (0.0, 0))
                sums[part][name] = (s + float(v[mask].sum()), n + int(mask.sum()))
    split = {part: {name: round(s / n, 4) for name, (s, n) in d.items()} for part, d in sums.items()}
    return per_frame, split


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    oracle.add_network_arguments(ap)
    ap.add_argument("--frames", type=int, default=0, help="score the first N frames (default: all)")
    ap.add_argument("--first-frame-only", action="store_true",
                    help="change frame 0's heads alone, and sweep wider kernels")
    ap.add_argument("--sigma-shifts", default=None,
                    help="comma-separated log2 sigma shifts to replay instead of the built-in list")
    ap.add_argument("--json", default=None, help="also write the result here")
    args = ap.parse_args()
    shifts = FIRST_FRAME_SIGMA_SHIFTS if args.first_frame_only else SIGMA_SHIFTS
    if args.sigma_shifts:
        try:
            shifts = [float(v) for v in args.sigma_shifts.split(",")]
        except ValueError:
            ap.error(f"--sigma-shifts: expected numbers separated by commas, got {args.sigma_shifts!r}")
    torch.manual_seed(0)
    t0 = time.time()

    model, seq, clip = oracle.load_replay(args)
    gt = clip["gt"]
    network_heads = []
    record = oracle.head_recorder(model, seq, network_heads)

    def score(out, temporal):
        return {"psnr": round(oracle.pooled_psnr(out, gt, seq.hdr), 3), "temporal": round(float(temporal), 5)}

    with torch.no_grad():
        out, _, temporal = unroll(model, clip, exact=False, heads=record)
        result = oracle.replay_result(args, seq, render=[seq.w, seq.h], display=[seq.dw, seq.dh],
                                      network=score(out, temporal))
        print(f"network: {result['network']} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        per_frame, split = network_statistics(seq, network_heads, gt)
        result["mean_alpha_per_frame"] = per_frame
        result["edge_vs_flat"] = split
        print(f"mean alpha per frame: {per_frame}", file=sys.stderr, flush=True)
        print(f"edges ({EDGE_FRACTION:.0%}) vs flat: {json.dumps(split)}", file=sys.stderr, flush=True)

        def replay(channels, delta):
            def modified(k, st):
                h = network_heads[k].clone()
                if k == 0 or not args.first_frame_only:
                    h[..., channels] += delta
                return h
            out, _, temporal = unroll(None, clip, exact=False, heads=modified)
            return score(out, temporal)

        rows = []
        for b in [] if args.first_frame_only else ALPHA_BIASES:  # frame 0 has no history to weigh
            rows.append({"change": f"alpha logit {b:+g}", **replay([ALPHA_LOGIT], b)})
            print(f"{rows[-1]} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        for s in shifts:
            rows.append({"change": f"log2 sigma {s:+g}", **replay([LOG_SIGMA_MAJOR, LOG_SIGMA_MINOR], s)})
            print(f"{rows[-1]} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        # Reference: no history at all (alpha -> 0: sigmoid(-30) ~ 1e-13), the network's kernels only.
        if not args.first_frame_only:
            rows.append({"change": "alpha -> 0 (no history)", **replay([ALPHA_LOGIT], -1e4)})
        result["replays"] = rows
    result["seconds"] = round(time.time() - t0, 1)

    print(f"{'change':<26} {'PSNR':>8} {'dPSNR':>7} {'temporal':>9}")
    base = result["network"]["psnr"]
    for r in rows:
        print(f"{r['change']:<26} {r['psnr']:8.3f} {r['psnr'] - base:+7.3f} {r['temporal']:9.5f}")
    print(json.dumps(result), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
