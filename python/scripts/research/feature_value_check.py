#!/usr/bin/env python3
"""Would a new staged slot help the head? Candidate per-pixel features, measured by how much more of
the output-pass oracle's choices a head MLP predicts with them, before any backend computes them.

The head MLP fitted to the oracle (fit_head_mlp.py) leaves about 90% of the oracle's additions' mean
square (docs/journal/2026-12-02-head-mlp-fitted-to-the-oracle-03cf09f.md). Part of that is the
truth, which no feature carries; part may be information the network never sees. The network sees
the display-resolution history only as one Catmull-Rom sample per render pixel (slots 3-5), so
whether the history holds sub-render-pixel detail around that sample, which decides how much of it a
new sample may replace, is invisible to it (the plan of 2026-12-02 named "a staged slot that carries
the display-resolution history's local contrast"). This script computes two groups of candidate
features from the same state staging reads:
  history: the t-space range of the display history over the 3x3 and 5x5 display pixels around
           the reprojected sample position (mean over RGB) and the luma standard deviation over
           the 3x3; 0 where the history is invalid;
  box:     how far the history sample lies outside the per-channel range of this frame's 3x3
           render samples (TAAU's clipping box; summed over RGB), and that range (mean over RGB);
each rounded to e4m3 as a slot would be. `fit_head_mlp.py record --extras` stores them beside the
usual 48 features; this script then fits one MLP per feature set (the same seed and steps, width
64; and the usual features through a width of 128, to tell features from capacity), reports the share of the additions' mean square each leaves on the recordings it was fitted
on and on held-out ones, and scores each closed loop on evaluation sequences (never fitted on).

Usage: python3 python/scripts/research/feature_value_check.py F1.pt F2.pt ... --weights FORMAT2.safetensors
           --score-on SEQ1 SEQ2 ... [--held-out 6] [--steps 4000] [--frames 32] [--json OUT.json]
"""
import argparse
import json
import math
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import swinup.training.recurrence as recurrence  # noqa: E402
from oracle_head_fit import Standardised, head_features, scored  # noqa: E402
from oracle_output_pass import OUTPUT_PASS_CHANNELS, TEMPORAL, load_network, whole_sequence  # noqa: E402
from swinup import exact_math as xm  # noqa: E402
from swinup.output_pass import ALPHA_LOGIT  # noqa: E402
from swinup.sampling import gather, on_screen  # noqa: E402
from swinup.staging import slot_value  # noqa: E402

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
EXTRA_NAMES = ["history_range3", "history_range5", "history_luma_std3", "box_outside", "box_range"]
# arm -> (the extra features' columns, the MLP's hidden width); "base_wide": the usual features
# through a twice-wider MLP (is it the features or the capacity?).
ARMS = {"base": ([], 64), "base_wide": ([], 128), "history": ([0, 1, 2], 64), "box": ([3, 4], 64),
        "all": ([0, 1, 2, 3, 4], 64)}


class StateTap:
    """Within `with`, unroll()'s staging also leaves the frame and the state it staged from here, so
    that a heads callback can compute features from the same history (train.py's staging is
    wrapped, not changed)."""

    def __enter__(self):
        self.frame = self.state = None
        self._stage = recurrence.stage

        def stage(frame, state, dw, dh, exact):
            self.frame, self.state = frame, state
            return self._stage(frame, state, dw, dh, exact)
        recurrence.stage = stage
        return self

    def __exit__(self, *exc):
        recurrence.stage = self._stage


def _neighbourhood(img, ix, iy, radius):
    """[B, h, w, (2r+1)^2, C]: img's pixels around (ix, iy), reads clamped to the image."""
    hs, ws = img.shape[1], img.shape[2]
    taps = [gather(img, torch.clamp(ix + dx, 0, ws - 1), torch.clamp(iy + dy, 0, hs - 1))
            for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)]
    return torch.stack(taps, dim=-2)


def extra_features(tap, st, w, h):
    """The candidate features [h * w, 5] (EXTRA_NAMES) of the frame staging just staged."""
    tc = st.tc  # [1, h, w, 3]
    dev = tc.device
    xs = torch.arange(w, device=dev, dtype=torch.float32).view(1, 1, w).expand(1, h, w)
    ys = torch.arange(h, device=dev, dtype=torch.float32).view(1, h, 1).expand(1, h, w)
    # This frame's 3x3 render samples: the box TAAU clips to.
    box = _neighbourhood(tc, xs.long(), ys.long(), 1)
    lo, hi = box.min(dim=-2).values, box.max(dim=-2).values
    state, frame = tap.state, tap.frame
    if state is None or frame.reset:
        zero = torch.zeros_like(xs)
        feats = [zero, zero, zero, zero, (hi - lo).mean(-1)]
        return torch.stack([slot_value(f) for f in feats], dim=-1).reshape(-1, 5)
    # The reprojected sample position in display pixels, as staging's slots 3-5.
    jx, jy = float(frame.jitter[0, 0]), float(frame.jitter[0, 1])
    hx = ((xs + 0.5) + jx) * st.scale_x + st.motion[..., 0] * st.scale_x
    hy = ((ys + 0.5) + jy) * st.scale_y + st.motion[..., 1] * st.scale_y
    dh, dw = state.history.shape[1], state.history.shape[2]
    valid = (on_screen(hx, dw) & on_screen(hy, dh)).float()
    th = xm.fn("tonemap_t", state.history.float(), False)
    ix = torch.clamp(torch.floor(torch.clamp(hx, -8.0, dw + 8.0)), 0, dw - 1).long()
    iy = torch.clamp(torch.floor(torch.clamp(hy, -8.0, dh + 8.0)), 0, dh - 1).long()
    n5 = _neighbourhood(th, ix, iy, 2)  # [1, h, w, 25, 3]; the 3x3 are taps 6-8, 11-13, 16-18
    n3 = n5[..., [6, 7, 8, 11, 12, 13, 16, 17, 18], :]
    range3 = (n3.max(dim=-2).values - n3.min(dim=-2).values).mean(-1)
    range5 = (n5.max(dim=-2).values - n5.min(dim=-2).values).mean(-1)
    luma = n3 @ torch.tensor([0.2126, 0.7152, 0.0722], device=dev)
    std3 = luma.std(dim=-1, unbiased=False)
    sample = tc + st.slots[:, :h, :w, 3:6]  # t(history) at the sample, as slots 3-5 carry it
    outside = (torch.relu(sample - hi) + torch.relu(lo - sample)).sum(-1)
    feats = [range3 * valid, range5 * valid, std3 * valid, outside * valid,
             (hi - lo).mean(-1)]
    return torch.stack([slot_value(f) for f in feats], dim=-1).reshape(-1, 5)


def fit_mlp(x, add, steps, batch, hidden=64, seed=0, lr=2e-3):
    """A float ReLU MLP (x -> hidden -> hidden -> 4) on standardised features, fitted to add by Adam
    on the mean square; the same seed gives every feature set the same initial draw of the shared
    shapes and the same batches."""
    torch.manual_seed(seed)
    mean, std = x.mean(0), x.std(0).clamp(min=1e-6)
    body = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 4))
    with torch.no_grad():
        body[-1].weight.zero_()
        body[-1].bias.zero_()
    model = Standardised(mean, std, body).to(x.device)
    opt = torch.optim.Adam(body.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    for step in range(steps):
        for group in opt.param_groups:  # cosine decay: the last steps settle instead of jitter
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * step / steps))
        idx = torch.randint(0, x.shape[0], (batch,), generator=g).to(x.device)
        loss = (model(x[idx]) - add[idx]).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.requires_grad_(False)
    return model


def left(model, x, add):
    """The share of add's mean square the model leaves (1: predicts nothing)."""
    with torch.no_grad():
        chunk = 1 << 20
        err = sum(float((model(x[i:i + chunk]) - add[i:i + chunk]).square().sum())
                  for i in range(0, x.shape[0], chunk))
    return round(err / float(add.square().sum().clamp(min=1e-12)), 4)


def closed_loop(network, variant, seq, clip, predictor, columns, shift):
    """[PSNR, temporal error] of the network with predictor's additions on its head's channels 4-7
    (and `shift` on the history-weight logit), on its own histories; predictor None: the network."""
    with StateTap() as tap:
        def heads(k, st):
            head, x = head_features(network, variant, seq, st, k)
            head = head.clone()
            if predictor is not None:
                if columns:
                    x = torch.cat([x, extra_features(tap, st, seq.w, seq.h)[:, columns]], dim=1)
                head[..., OUTPUT_PASS_CHANNELS] += predictor(x).reshape(*head.shape[:-1], 4)
                head[..., ALPHA_LOGIT] += shift
            return head
        with torch.no_grad(), network.weight_cache():
            out, _, temporal = recurrence.unroll(None, clip, exact=False, heads=heads, **TEMPORAL)
    return scored(out, temporal, clip, seq)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("features", nargs="+", help="fit_head_mlp.py record --extras files")
    ap.add_argument("--weights", required=True, help="the network the recordings were made on (no head MLP)")
    ap.add_argument("--variant", default="lite")
    ap.add_argument("--score-on", nargs="*", default=[], help="evaluation sequences, scored closed loop")
    ap.add_argument("--held-out", type=int, default=6, help="every n-th recording is held out of the fits")
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--frames", type=int, default=32, help="frames of each --score-on sequence")
    ap.add_argument("--shift", type=float, default=0.15, help="history-weight logit shift of every fitted arm")
    ap.add_argument("--json")
    args = ap.parse_args()
    t0 = time.time()
    data = [torch.load(f) for f in args.features]
    missing = [f for f, d in zip(args.features, data) if "extra" not in d]
    if missing:
        raise SystemExit(f"feature_value_check: recorded without --extras: {missing[:3]}")
    fit_idx = [i for i in range(len(data)) if (i + 1) % args.held_out]
    held_idx = [i for i in range(len(data)) if not (i + 1) % args.held_out]

    def stack(idx, columns):
        x = torch.cat([torch.cat([data[i]["x"], data[i]["extra"][:, columns]], 1) for i in idx]).to(DEVICE)
        return x, torch.cat([data[i]["add"] for i in idx]).to(DEVICE)
    network = load_network(args.variant, args.weights).to(DEVICE)
    sequences = [(p, *whole_sequence(p, args.frames, DEVICE)) for p in args.score_on]
    result = {"recordings": len(data), "fitted_on": [data[i]["sequence"] for i in fit_idx],
              "held_out": [data[i]["sequence"] for i in held_idx], "steps": args.steps, "shift": args.shift,
              "arms_columns_hidden": ARMS,
              "extra_features": EXTRA_NAMES, "network": {}, "arms": {}}
    for path, seq, clip in sequences:
        result["network"][os.path.basename(path)] = closed_loop(network, args.variant, seq, clip, None, [], 0.0)
    for name, (columns, hidden) in ARMS.items():
        x, add = stack(fit_idx, columns)
        model = fit_mlp(x, add, args.steps, args.batch, hidden=hidden)
        hx, hadd = stack(held_idx, columns)
        arm = {"left_fitted": left(model, x, add), "left_held_out": left(model, hx, hadd), "scores": {}}
        for path, seq, clip in sequences:
            arm["scores"][os.path.basename(path)] = closed_loop(network, args.variant, seq, clip, model, columns, args.shift)
        result["arms"][name] = arm
        print(json.dumps({name: arm, "seconds": round(time.time() - t0, 1)}), flush=True)
        del x, add, hx, hadd
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
