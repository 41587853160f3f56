#!/usr/bin/env python3
"""Fits the network's response to "no history here" and nothing else: the columns that read
staging's slot 7 in the layers that read the staged slots (lite: skip0, the pixel-level linear of
the decoder; --embed adds the level-1 embedding's four; full: embed0), trained on frames without
history (a clip's first frame, state None) with train.py's spatial and display terms; with
--frames N the clips run N frames from there and all of them are scored (plus the temporal term),
so that the fit also sees the first frame's output as the history of the next. Every other weight
stays as it is.

Why: slot 7 is 1 where a pixel has no history (the whole first frame, a camera cut, the strip a pan
reveals) and 0 elsewhere, so those columns act only there. The first frame has the largest error of
a sequence, and `swinup eval` pools squared errors, so its PSNR weighs most
(docs/journal/2026-12-01-gentler-continuations-9aa140b.md). With the uniform burn-in, training
scores it in one batch of 17. A replay of chunk 11's frame 0 with wider kernels (head_bias_sweep.py
--first-frame-only) gains 0.26 dB on that frame at 2x (lite, log2 sigma +0.3), but loses 0.006 dB
over 32 frames, because frame 0 is frame 1's history: the network itself, not a fixed shift, has to
choose frame 0's output (docs/journal/2026-12-01-first-frame-fit-3ee1481.md).

The fitted columns are clamped so that each row's power-of-two scale (quant.pow2_scale_for) stays
what it was: the other codes of the row, and so the network where slot 7 is 0, are unchanged
bit for bit. Runs on the CPU in minutes.

Usage: python3 python/scripts/research/fit_first_frame.py --variant lite --data DIR [--data DIR ...]
           [--frames 1] [--steps 200] [--batch 4] [--crop 96] [--lr 0.01] [--embed] --out CHECKPOINT
"""
import argparse
import datetime
import os
import random
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from swinup.data import batch_from_folders, load_sequence_folders  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.quant import pow2_scale_for, E4M3_MAX  # noqa: E402
from swinup.shipped import ROOT  # noqa: E402
from swinup.training.checkpoint import checkpoint_config, load_checkpoint, read_checkpoint, save_checkpoint  # noqa: E402
from swinup.training.held_out import HELD_OUT_SCENE, holds_held_out_scene  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402

NO_HISTORY_SLOT = 7  # staging's "history outside the screen / none" flag (docs/model-spec.md)
SLOTS = 16


def no_history_columns(variant, embed):
    """{weight name: [column, ...]}: where each layer that reads staged slots reads slot 7."""
    if variant == "lite":
        columns = {"skip0__weight": [NO_HISTORY_SLOT]}
        if embed:  # the embedding reads the 2x2 pixels' 16 slots each, concatenated
            columns["embed__weight"] = [pixel * SLOTS + NO_HISTORY_SLOT for pixel in range(4)]
        return columns
    return {"embed0__weight": [NO_HISTORY_SLOT]}


def movable_entries(w, cols):
    """1 where the fit may move weight w [out, in]: its columns `cols`, except in rows whose
    power-of-two scale those entries set (without them the row's scale would be smaller):
    lowering them there would lower the scale and re-round the row's other codes."""
    m = torch.zeros_like(w)
    m[:, cols] = 1.0
    held = pow2_scale_for(w * (1.0 - m)) < pow2_scale_for(w)
    m[held] = 0.0
    return m


def keep_within_scales(w, start, movable):
    """w with its movable entries clamped to what the rows' scales (those of `start`) can hold,
    and every other entry back at `start`: the e4m3 codes outside the movable entries, and the
    scales, stay what they were."""
    limit = (pow2_scale_for(start) * E4M3_MAX).reshape(-1, 1).expand_as(start)
    return torch.where(movable > 0, torch.maximum(torch.minimum(w, limit), -limit), start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="lite", choices=["lite", "full"])
    ap.add_argument("--checkpoint", default=None, help="default python/checkpoints/<variant>.pt")
    ap.add_argument("--data", action="append", default=[], required=True)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--crop", type=int, default=96)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--display-weight", type=float, default=1.0)
    ap.add_argument("--frames", type=int, default=1,
                    help="frames a clip, all scored, the first without history: with more than one the "
                         "fit also sees what the first frame's output does as the next frames' history")
    ap.add_argument("--temporal-weight", type=float, default=2.0,
                    help="weight of train.py's temporal term (L1 along the motion, display space), with --frames > 1")
    ap.add_argument("--embed", action="store_true", help="lite: fit the embedding's slot-7 columns too")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="the fitted checkpoint")
    args = ap.parse_args()
    if holds_held_out_scene(args.data):
        ap.error(f"{HELD_OUT_SCENE} is the held-out check: do not fit on it")
    if args.crop % 32:
        ap.error("--crop must be a multiple of 32")

    ckpt = args.checkpoint or os.path.join(ROOT, "python", "checkpoints", f"{args.variant}.pt")
    # The checkpoint's network (with the head MLP when it has one; its fc1 reads slot 7 too, and
    # stays as it is: the fit moves only the columns no_history_columns names).
    try:
        record = read_checkpoint(ckpt, args.variant)
    except ValueError as e:
        ap.error(str(e))
    model = SwinUp(checkpoint_config(record), exact=False)
    step, history = load_checkpoint(ckpt, model, record)
    model.requires_grad_(False)
    columns = no_history_columns(args.variant, args.embed)
    start = {name: model.params[name].detach().clone() for name in columns}
    masks = {}
    for name in columns:
        masks[name] = movable_entries(start[name], columns[name])
        held = (masks[name][:, columns[name]] == 0).any(dim=1).nonzero().flatten().tolist()
        if held:
            print(f"{name}: rows {held} keep their slot-7 entries (they set the row's scale)")
        model.params[name].requires_grad_(True)
    opt = torch.optim.Adam([model.params[name] for name in columns], lr=args.lr)

    seqs = load_sequence_folders(args.data, torch.device("cpu"))
    rng = random.Random(args.seed)
    t0 = time.time()
    losses = []
    for k in range(args.steps):
        clip = batch_from_folders(seqs, args.batch, args.frames, args.crop, rng, torch.device("cpu"))
        opt.zero_grad(set_to_none=True)
        _, spatial, temporal = unroll(model, clip, display_weight=args.display_weight, temporal_space="display")
        loss = spatial + args.temporal_weight * temporal
        loss.backward()
        for name in columns:  # only the slot-7 columns move
            model.params[name].grad *= masks[name]
        opt.step()
        with torch.no_grad():
            for name in columns:
                w = model.params[name]
                w.copy_(keep_within_scales(w, start[name], masks[name]))
        losses.append(float(loss))
        if (k + 1) % 20 == 0:
            recent = sum(losses[-20:]) / 20
            print(f"step {k + 1} loss {recent:.5f} ({time.time() - t0:.0f} s)", flush=True)

    with torch.no_grad():
        for name in columns:
            moved = (model.params[name].detach() - start[name]).abs().sum(0)
            print(f"{name}: columns {columns[name]} moved by {[round(float(moved[c]), 4) for c in columns[name]]}")
            assert torch.equal(pow2_scale_for(model.params[name].detach()), pow2_scale_for(start[name])), name
    note = {"date": datetime.date.today().isoformat(),
            "first_frame_fit": {"columns": columns, "frames": args.frames, "steps": args.steps,
                                "batch": args.batch, "crop": args.crop, "lr": args.lr, "seed": args.seed,
                                "data": sorted({os.path.basename(os.path.normpath(d)) for d in args.data})},
            "note": f"first-frame fit: the slot-7 (no history) columns of {', '.join(columns)} fitted on "
                    f"clips of {args.frames} frame(s) from a frame without history, {args.steps} steps of "
                    f"{args.batch} {args.crop}-pixel crops (python/scripts/research/fit_first_frame.py); every other "
                    f"weight unchanged"}
    save_checkpoint(args.out, model, step, history + [note])
    n = min(20, len(losses))
    print(f"saved {args.out} (step {step}; loss {sum(losses[:n]) / n:.5f} -> "
          f"{sum(losses[-n:]) / n:.5f} over the first and last {n} steps)")


if __name__ == "__main__":
    main()
