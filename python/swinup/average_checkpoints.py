"""Averages training checkpoints of one variant into one (python -m swinup.average_checkpoints).

Why: the end of a short training chunk is a noisy point near an optimum (chunks of a few minutes,
each ending at 5% of its learning rate, scatter breakfast_room's scores by about +-0.1 dB). The
mean of several such end points (branches continued from one checkpoint, or consecutive chunks)
can sit nearer the optimum than each of them (stochastic weight averaging, "model soups"); the
network is linear in none of its weights, so whether a mean is better is measured, not assumed.
Measured on 2026-12-01 (docs/journal/2026-12-01-four-more-levers-e78d0d8.md): every mean scored
between its inputs, none above the best of them. Later that day
(docs/journal/2026-12-01-interpolated-branches-16971cf.md), means of a
stabler and a sharper branch of one start lay above the straight line between the two on the
trade between PSNR and temporal error: lite's half-and-half mean was stabler than both branches
in three of breakfast_room's four rows, at PSNR in between.

What is averaged: the master weights (f16 in the checkpoint, averaged in f64 and rounded back)
and the f32 gains, biases and tables; the export quantises the mean to e4m3 as it does any
checkpoint. The history becomes the union of the inputs' entries (a chunk that several inputs
share, their common past, counts once; branches each count), plus a note naming the inputs, and
the step count becomes the total of the union's chunks (the training that the mean embodies).

`--weights` makes it a weighted mean (normalised to sum 1): with two checkpoints on either side of a
target, e.g. a stabler and a sharper branch of one start, it interpolates between them, a point of
the trade between PSNR and temporal error that neither branch's training reached.

Usage: python3 -m swinup.average_checkpoints --out soup.pt a.pt b.pt [c.pt ...] [--weights 3 1 ...]
"""
import argparse
import datetime
import json
import os

import torch

from .research import experiments
from .training.checkpoint import checkpoint_record, read_checkpoint, write_checkpoint
from .usage_errors import value_errors_as_usage


def average_checkpoints(paths, note=None, weights=None):
    """Returns the checkpoint dict of the mean of the checkpoints at paths (2 or more, one variant,
    the same tensors), weighted by `weights` (one positive number a path, normalised to sum 1;
    default equal)."""
    if len(paths) < 2:
        raise ValueError(f"averaging needs at least 2 checkpoints, got {len(paths)}")
    if weights is None:
        weights = [1.0] * len(paths)
    if len(weights) != len(paths):
        raise ValueError(f"{len(weights)} weights for {len(paths)} checkpoints: give one a checkpoint")
    if not all(w > 0.0 and w < float("inf") for w in weights):
        raise ValueError(f"weights {weights}: each must be a finite number > 0")
    shares = [float(w) / sum(weights) for w in weights]
    cks = [read_checkpoint(p) for p in paths]
    for path, ck in zip(paths, cks):
        for name in experiments.held(ck):  # the mean would drop their parameters without a word
            raise ValueError(f"{path}: holds {experiments.describe(name)}, which averaging does not carry")
    first, variant = cks[0], cks[0]["variant"]
    for path, ck in zip(paths[1:], cks[1:]):
        if ck["variant"] != variant:
            raise ValueError(f"{path}: variant {ck['variant']}, the others are {variant}")
        if ck["params"].keys() != first["params"].keys():
            differ = sorted(set(ck["params"]) ^ set(first["params"]))
            raise ValueError(f"{path}: tensors differ from {paths[0]}'s: {', '.join(differ[:4])}")
        for name, t in ck["params"].items():
            if t.shape != first["params"][name].shape or t.dtype != first["params"][name].dtype:
                raise ValueError(f"{path}: {name} is {t.dtype} {tuple(t.shape)}, {paths[0]} has "
                                 f"{first['params'][name].dtype} {tuple(first['params'][name].shape)}")
    params = {}
    for name, t in first["params"].items():
        # From the weights, not the shares: equal weights then give sum / n exactly, as before them.
        mean = sum(float(w) * ck["params"][name].double() for w, ck in zip(weights, cks)) / sum(weights)
        params[name] = mean.to(t.dtype)
        if not torch.isfinite(params[name]).all():
            raise ValueError(f"{name}: the mean is not finite (an input holds Inf or NaN)")
    history, seen = [], set()
    for ck in cks:
        for entry in ck["history"]:
            key = json.dumps(entry, sort_keys=True)
            if key not in seen:
                seen.add(key)
                history.append(entry)
    chunks = [h for h in history if "device" in h]
    steps = (sum(int(h["steps"]) for h in chunks) if chunks and all("steps" in h for h in chunks)
             else max(int(ck["step"]) for ck in cks))
    equal = len(set(shares)) == 1
    names = ", ".join(f"{os.path.basename(os.path.dirname(os.path.abspath(p)))}/{os.path.basename(p)} "
                      f"(step {ck['step']}{'' if equal else f', share {share:.3g}'})"
                      for p, ck, share in zip(paths, cks, shares))
    entry = {"date": datetime.date.today().isoformat(), "averaged": len(cks),
             "note": note or f"weights {'averaged' if equal else 'interpolated'} over {len(cks)} "
                             f"checkpoints: {names}; python/swinup/average_checkpoints.py"}
    if not equal:
        entry["shares"] = [round(share, 6) for share in shares]
    history.append(entry)
    return checkpoint_record(variant, steps, history, params, first["head_mlp"], first["masks"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoints", nargs="+", help="training checkpoints of one variant (2 or more)")
    ap.add_argument("--out", required=True, help="the averaged checkpoint (written atomically)")
    ap.add_argument("--note", default=None, help="the history note (default: names the inputs)")
    ap.add_argument("--weights", type=float, nargs="+", default=None,
                    help="one positive weight a checkpoint, in their order (default: equal)")
    args = ap.parse_args(argv)
    with value_errors_as_usage(ap):
        ck = average_checkpoints(args.checkpoints, args.note, args.weights)
    write_checkpoint(args.out, ck)
    kind = "weighted mean" if "shares" in ck["history"][-1] else "mean"
    print(f"wrote {args.out}: {ck['variant']}, {kind} of {len(args.checkpoints)} checkpoints, "
          f"{ck['step']} training steps in its history")


if __name__ == "__main__":
    main()
