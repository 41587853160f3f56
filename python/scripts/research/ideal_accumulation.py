#!/usr/bin/env python3
"""How far can a causal temporal upscaler go on a sequence if nothing is lost to the history?

A recurrent upscaler keeps one display-resolution history and resamples it once a frame, so detail
near the display's Nyquist limit fades along the recurrence (2026-12-04,
docs/journal/2026-12-04-where-fence-2x-loses-33e6af4.md). This estimator keeps every jittered render
sample it has seen instead, moves each one frame by frame with the sequence's own motion vectors (no
resampling: a sample keeps its colour and only its position moves), and estimates each display pixel
as the mean of the samples that lie inside it, the box filter the ground truth uses. It reads only
what an upscaler reads (colour, motion, jitter), never the ground truth, and is causal: frame t uses
frames 0..t.

It is not an upper bound in the strict sense (a learned method could denoise better, and the
motion vectors of thin geometry are those of whatever the pixel centre hit), but it measures
what the samples themselves carry when the history loses nothing: if it scores far above TAAU,
the information for a target is in the inputs and a model that stores history better could
reach it; if not, no causal upscaler is likely to.

  python3 python/scripts/research/ideal_accumulation.py SEQ [SEQ ...] [--decay 1 0.9] [--sigma 0 0.5] [--frames N]

prints one JSON line per sequence, decay and sigma: pooled PSNR (the evaluation's display
encoding) over all frames and over the second half, the share of display pixels that had a sample
of their own, and the mean samples per pixel.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from swinup.sequence_frames import read_frame  # noqa: E402


def srgb_encode(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1.0 / 2.4) - 0.055)


def display_encode(x: np.ndarray, hdr: bool, exposure: float) -> np.ndarray:
    """The evaluation's encoding (src/eval, docs/quality.md "How swinup is scored"): LDR clamp then
    sRGB; HDR x / (1 + x) per channel after exposure, then sRGB."""
    if hdr:
        x = x * exposure
        x = x / (1.0 + x)
    return srgb_encode(x)


def psnr(mse: float) -> float:
    return 10.0 * math.log10(1.0 / mse) if mse > 0 else float("inf")


def warp_to_current(pos: np.ndarray, motion: np.ndarray, scale: float, iterations: int = 3):
    """Display positions in the previous frame -> in the current one. motion [H, W, 2]: the current
    frame's vectors (current -> previous, render pixels), so the forward move is the q with
    q + s * mv(q / s) = pos, found by fixed-point iteration. -> (new positions, consistent mask)."""
    h, w, _ = motion.shape
    q = pos.copy()
    for _ in range(iterations):
        rx = np.clip(np.floor(q[:, 0] / scale).astype(np.int64), 0, w - 1)
        ry = np.clip(np.floor(q[:, 1] / scale).astype(np.int64), 0, h - 1)
        q = pos - scale * motion[ry, rx]
    rx = np.clip(np.floor(q[:, 0] / scale).astype(np.int64), 0, w - 1)
    ry = np.clip(np.floor(q[:, 1] / scale).astype(np.int64), 0, h - 1)
    residual = np.abs(q + scale * motion[ry, rx] - pos).max(axis=1)
    return q, residual < 0.25  # a sample whose move does not close (a disocclusion edge) is dropped


def splat_estimate(pos, col, weight, wd, hd, sigma: float):
    """Weighted mean of the samples around each display pixel: sigma 0 takes the samples inside
    the pixel (the ground truth's box), sigma > 0 those within 2 pixels, weighted by a Gaussian of
    their distance to the pixel centre (fewer samples make a noisy box mean; a wider kernel trades
    that noise for blur, as every real reconstruction does). -> (estimate [Hd, Wd, 3], samples
    inside each pixel)."""
    ix = np.floor(pos[:, 0]).astype(np.int64)
    iy = np.floor(pos[:, 1]).astype(np.int64)
    reach = 0 if sigma == 0 else 2
    wsum = np.zeros(wd * hd)
    est = np.zeros((wd * hd, 3))
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            px, py = ix + dx, iy + dy
            inside = (px >= 0) & (px < wd) & (py >= 0) & (py < hd)
            wgt = weight
            if sigma > 0:
                d2 = (pos[:, 0] - (px + 0.5)) ** 2 + (pos[:, 1] - (py + 0.5)) ** 2
                wgt = weight * np.exp(-0.5 * d2 / (sigma * sigma))
            idx = (py * wd + px)[inside]
            wsum += np.bincount(idx, weights=wgt[inside], minlength=wd * hd)
            for c in range(3):
                est[:, c] += np.bincount(idx, weights=(wgt * col[:, c])[inside], minlength=wd * hd)
    own = (ix >= 0) & (ix < wd) & (iy >= 0) & (iy < hd)
    count = np.bincount((iy * wd + ix)[own], minlength=wd * hd)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = est / wsum[:, None]
    est = np.where((wsum > 1e-12)[:, None], est, np.nan)
    return est.reshape(hd, wd, 3), count.reshape(hd, wd)


def nearest_sample(color, jitter, scale, wd, hd):
    """The current frame's render sample nearest each display pixel centre (the fallback where no
    sample lies inside a pixel yet)."""
    h, w, _ = color.shape
    ox = (np.arange(wd) + 0.5) / scale - 0.5 - jitter[0]
    oy = (np.arange(hd) + 0.5) / scale - 0.5 - jitter[1]
    rx = np.clip(np.rint(ox), 0, w - 1).astype(np.int64)
    ry = np.clip(np.rint(oy), 0, h - 1).astype(np.int64)
    return color[ry[:, None], rx[None, :]]


def run(seq: str, decays, sigmas, frames: int):
    with open(os.path.join(seq, "sequence.json")) as f:
        info = json.load(f)
    n = min(frames or info["frame_count"], info["frame_count"])
    w, h = info["render_size"]
    wd, hd = info["display_size"]
    scale = wd / w
    if abs(hd / h - scale) > 1e-6:
        raise SystemExit(f"{seq}: anisotropic scale {wd}/{w} vs {hd}/{h} is not supported here")
    conv = info["conventions"]
    jitter = np.stack([np.asarray(info["jitter_x"], np.float64), np.asarray(info["jitter_y"], np.float64)], -1)
    exposure = info.get("exposure", [1.0] * n)
    results = []
    for decay, sigma in [(d, g) for d in decays for g in sigmas]:
        pos = np.zeros((0, 2))
        col = np.zeros((0, 3))
        age = np.zeros((0,))
        sq_err = 0.0
        values = 0
        steady_sq_err = 0.0  # the second half of the frames, where the history has settled
        steady_values = 0
        own = 0
        samples_per_pixel = 0.0
        for t in range(n):
            color, _, motion, gt, *_ = read_frame(seq, t, conv["mv_sign"], conv["mv_jittered"], jitter)
            color = color.astype(np.float64)
            motion = motion.astype(np.float64)
            if t > 0 and not info["reset"][t] and len(pos):
                pos, keep = warp_to_current(pos, motion, scale)
                pos, col, age = pos[keep], col[keep], age[keep] + 1
            elif info["reset"][t]:
                pos, col, age = np.zeros((0, 2)), np.zeros((0, 3)), np.zeros((0,))
            ys, xs = np.mgrid[0:h, 0:w]
            new_pos = np.stack([(xs + 0.5 + jitter[t, 0]) * scale, (ys + 0.5 + jitter[t, 1]) * scale], -1).reshape(-1, 2)
            pos = np.concatenate([pos, new_pos])
            col = np.concatenate([col, color.reshape(-1, 3)])
            age = np.concatenate([age, np.zeros(len(new_pos))])
            on = (pos[:, 0] >= 0) & (pos[:, 0] < wd) & (pos[:, 1] >= 0) & (pos[:, 1] < hd)
            pos, col, age = pos[on], col[on], age[on]
            est, count = splat_estimate(pos, col, np.power(decay, age), wd, hd, sigma)
            fallback = nearest_sample(color, jitter[t], scale, wd, hd)
            est = np.where(np.isnan(est), fallback, est)
            e = display_encode(est, conv["hdr"], exposure[t]) - display_encode(gt.astype(np.float64), conv["hdr"], exposure[t])
            sq_err += float(np.sum(e * e))
            values += e.size
            if t >= n // 2:
                steady_sq_err += float(np.sum(e * e))
                steady_values += e.size
            own += int(np.sum(count > 0))
            samples_per_pixel += float(count.mean())
        results.append({"sequence": os.path.basename(os.path.normpath(seq)), "decay": decay, "sigma": sigma, "frames": n,
                        "psnr_db": psnr(sq_err / values),
                        "second_half_psnr_db": psnr(steady_sq_err / max(steady_values, 1)),
                        "pixels_with_a_sample": own / (n * wd * hd),
                        "mean_samples_per_pixel": samples_per_pixel / n})
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seq", nargs="+")
    ap.add_argument("--decay", type=float, nargs="+", default=[1.0],
                    help="weight of a sample per frame of age (1: every sample counts alike)")
    ap.add_argument("--sigma", type=float, nargs="+", default=[0.0],
                    help="0: the mean of the samples inside a pixel; > 0: a Gaussian of this many display "
                         "pixels around its centre")
    ap.add_argument("--frames", type=int, default=0, help="first N frames only (default all)")
    args = ap.parse_args(argv)
    for seq in args.seq:
        for r in run(seq, args.decay, args.sigma, args.frames):
            print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
