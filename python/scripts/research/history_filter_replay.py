#!/usr/bin/env python3
"""Is the history resampling what holds the quality back? Each frame the output pass reads the
previous output at a fractional position under a moving camera, one resampling per frame, so a
filter's loss of detail compounds along the recurrence. This replays a sequence through trained
weights, the network unchanged, and swaps the output pass's history filter (the staging's history
slots keep their Catmull-Rom, except in the modes ending in "+stage", which swap both):

  spec          as specified: Lanczos-3 from the fitted weight polynomials (since
                2026-12-03, chosen with this script;
                docs/journal/2026-12-03-lanczos3-history-706d643.md)
  catmull-rom   Catmull-Rom (Keys a = -0.5), clamped to the central 2x2 taps' min/max: the
                specified filter until then
  noclamp       Catmull-Rom without the clamp (only clamped at zero)
  keys75        Keys a = -0.75 (sharper), clamped
  keys75-free   Keys a = -0.75, not clamped
  keys100       Keys a = -1 (sharper still), clamped
  lanczos2      Lanczos-2 (4x4 taps, as many as Catmull-Rom), clamped
  lanczos3      Lanczos-3 evaluated as sinc(d) sinc(d / 3) (6x6 taps), clamped to the central 2x2
  lanczos3-free Lanczos-3, not clamped
  lanczos4      Lanczos-4 (8x8 taps), clamped
  keys75+stage, lanczos3+stage
  bfecc         Lanczos-3 with back-and-forth error compensation (2026-12-04): the
                history is moved by the motion, moved back, and half the difference to itself
                is added before the final move, which undoes part of each move's blur
  linear-blend  the specified filter, but the output pass averages the samples and blends the
                history in linear colour instead of t = log2(1 + x) (2026-12-04: t is
                concave, so a t-space mean of a dark and a bright sample is darker than the
                ground truth's box filter, which averages linear colour)
  still+X       the specified pass with X added to the history-weight logit of every render
                pixel whose dilated motion is exactly zero (2026-12-04): such a pixel's
                history is read at whole-pixel offsets, so nothing is lost by resampling it, and a
                still camera's image should settle as TAAU's running mean does; X = 0.5, 1, ...

It prints the pooled and per-frame PSNR of each mode (display-encoded, as `swinup eval` pools it;
PyTorch fast mode) and score_python.py's temporal error; on the GPU when there is one. A network
trained with another filter than the one replayed never saw it: a gain here is a lower bound on
what training with it could do, and a loss says little.

Usage: python3 python/scripts/research/history_filter_replay.py SEQ [--modes spec,keys75] [--frames 0]
(H200: a few seconds a mode for 32 frames at 960x540; the CPU takes about 20 s a frame.)
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
import swinup.exact_math as xm  # noqa: E402
import swinup.output_pass as op  # noqa: E402
import swinup.staging as staging  # noqa: E402
import swinup.training.recurrence as recurrence  # noqa: E402
from swinup.display_encode import display_encode  # noqa: E402
from swinup.sampling import catmull_rom_sample, lanczos3_sample, separable_taps_batched  # noqa: E402
from oracle_output_pass import add_network_arguments, load_replay  # noqa: E402


def keys_weights(f, a, radius):
    """The taps' weights at offsets 1 - radius .. radius from the cell start (f in [0, 1))."""
    out = []
    for k in range(1 - radius, radius + 1):
        d = (f - k).abs()
        if a != 0.0:  # Keys cubic with parameter a (radius 2)
            near = ((a + 2) * d - (a + 3)) * d * d + 1
            far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
            out.append(torch.where(d <= 1, near, torch.where(d < 2, far, torch.zeros_like(d))))
        else:  # Lanczos with `radius` lobes
            x = math.pi * d
            sinc = torch.where(d < 1e-6, torch.ones_like(d), torch.sin(x) * torch.sin(x / radius) / (x * x / radius))
            out.append(torch.where(d < radius, sinc, torch.zeros_like(d)))
    total = sum(out)
    return [w / total for w in out]


def filtered_sample(img, px, py, a, radius, clamp):
    """The history sampled with `keys_weights` (2 * radius taps per axis), clamped to the central
    taps' range or, unclamped, at zero; the training's batched sums (sampling.py)."""
    total, lo, hi = separable_taps_batched(img, px, py, lambda f: keys_weights(f, a, radius), 2 * radius)
    return torch.minimum(torch.maximum(total, lo), hi) if clamp else torch.clamp(total, min=0.0)


def bfecc_sample(img, px, py, exact=True):
    """Back and forth error compensation (as in semi-Lagrangian advection): forward = the
    specified Lanczos-3 sample at o + d, back = that image sampled at o - d, and the final sample
    reads img + (img - back) / 2, so that the error of one move there and back, twice a move's
    blur, is half taken out. The motion is the display pixel's own (d = position - pixel centre)."""
    b, h, w, _ = img.shape
    ox = (torch.arange(w, device=img.device, dtype=torch.float32) + 0.5).view(1, 1, w)
    oy = (torch.arange(h, device=img.device, dtype=torch.float32) + 0.5).view(1, h, 1)
    forward = lanczos3_sample(img, px, py, exact)
    back = lanczos3_sample(forward, 2 * ox - px, 2 * oy - py, exact)
    return lanczos3_sample(torch.clamp(img + 0.5 * (img - back), min=0.0), px, py, exact)


class _LinearColour:
    """exact_math for the output pass with t and its inverse as the identity: given linear
    samples, it then averages and blends in linear colour (mode linear-blend)."""

    def __getattr__(self, name):
        return getattr(xm, name)

    @staticmethod
    def fn(name, x, exact):
        return x if name in ("tonemap_t", "tonemap_t_inverse") else xm.fn(name, x, exact)


def linear_blend_output_pass(head, tc, *args, **kwargs):
    return op.output_pass(head, xm.fn("tonemap_t_inverse", tc, False), *args, **kwargs)


class StillShift:
    """The output pass with `shift` added to the history-weight logit (head output 7) of the
    render pixels whose dilated motion is exactly zero (mode still+X); counts those pixels."""

    def __init__(self, shift):
        self.shift = shift
        self.still = 0
        self.pixels = 0

    def __call__(self, head, tc, motion, *args, **kwargs):
        still = (motion == 0).all(dim=-1)
        self.still += int(still.sum())
        self.pixels += still.numel()
        head = head.clone()
        head[..., op.ALPHA_LOGIT] = head[..., op.ALPHA_LOGIT] + self.shift * still.to(head.dtype)
        return op.output_pass(head, tc, motion, *args, **kwargs)


def still_shift_of(mode):
    """still+X -> X; None for the other modes."""
    return float(mode[len("still+"):]) if mode.startswith("still+") else None


MODES = {  # (Keys a, radius, clamp to the central taps); a = 0: Lanczos
    "spec": None,
    "catmull-rom": "catmull-rom",
    "noclamp": (-0.5, 2, False),
    "keys75": (-0.75, 2, True),
    "keys75-free": (-0.75, 2, False),
    "keys100": (-1.0, 2, True),
    "lanczos2": (0.0, 2, True),
    "lanczos3": (0.0, 3, True),
    "lanczos3-free": (0.0, 3, False),
    "lanczos4": (0.0, 4, True),
    "keys75+stage": (-0.75, 2, True),
    "lanczos3+stage": (0.0, 3, True),
    "bfecc": "bfecc",
    "linear-blend": "linear-blend",
}


def replay(model, clip, mode):
    """-> (outputs [B, T, Hd, Wd, 3], temporal error, share of still render pixels or None) with
    the output pass's history read by `mode`'s filter (or, still+X, its history weight shifted)."""
    still_shift = None
    if still_shift_of(mode) is not None:
        still_shift = StillShift(still_shift_of(mode))
        recurrence.output_pass = still_shift
    elif MODES[mode] == "catmull-rom":
        op.use_history_filter("catmull-rom")
    elif MODES[mode] == "bfecc":
        op.history_sample = bfecc_sample
    elif MODES[mode] == "linear-blend":
        op.xm = _LinearColour()
        recurrence.output_pass = linear_blend_output_pass  # unroll() calls it through recurrence's namespace
    elif MODES[mode] is not None:
        a, radius, clamp = MODES[mode]
        swapped = lambda img, px, py, exact=True: filtered_sample(img, px, py, a, radius, clamp)  # noqa: E731
        op.history_sample = swapped  # a filter of this script's own, not in HISTORY_FILTERS
        if mode.endswith("+stage"):
            staging.catmull_rom_sample = swapped
    try:
        with torch.no_grad():
            out, _, temporal = recurrence.unroll(model, clip, exact=False, temporal_norm="rms",
                                             temporal_space="display")
    finally:
        op.use_history_filter("lanczos3")
        staging.catmull_rom_sample = catmull_rom_sample
        op.xm = xm
        recurrence.output_pass = op.output_pass
    still = still_shift.still / max(still_shift.pixels, 1) if still_shift is not None else None
    return out, float(temporal), still


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_network_arguments(ap)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--frames", type=int, default=0, help="the first N frames (0: all)")
    args = ap.parse_args()
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in MODES and still_shift_of(m) is None]
    if unknown:
        ap.error(f"--modes: unknown {unknown}; expected some of {list(MODES)}")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model, seq, clip = load_replay(args, device)
    for mode in modes:
        out, temporal, still = replay(model, clip, mode)
        mse = (display_encode(out, seq.hdr) - display_encode(clip["gt"], seq.hdr)).square().mean(dim=(0, 2, 3, 4))
        row = {"sequence": args.sequence, "mode": mode,
               "variant": args.variant, "pooled_psnr": round(10 * math.log10(1 / float(mse.mean())), 3),
               "temporal": round(temporal, 5),
               "frame_psnr": [round(10 * math.log10(1 / float(m)), 2) for m in mse]}
        if still is not None:
            row["still_share"] = round(still, 4)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
