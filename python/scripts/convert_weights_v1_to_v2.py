#!/usr/bin/env python3
"""Converts weights of format_version 1 (training checkpoint version 1) to format_version 2
(checkpoint version 2), whose two changes (2026-11-30, docs/model-spec.md) are:
1. staging slots 3-5 hold t(history) - t(colour) instead of t(history): converted exactly;
2. the output pass gives the current frame the share (1 - alpha) * min(1, sum of the kernel's
   weights) instead of 1 - alpha, so pixels that this frame's samples missed keep their history:
   not convertible exactly; the history-weight logit (head output 7) is shifted by
   ALPHA_LOGIT_SHIFT, the best global shift measured by replaying the version-1 lite network's
   heads through the new blend (docs/quality.md, "Format 2"), and training continues
   from there.

Why the slots changed: a slot is rounded to e4m3 (3 mantissa bits), so t(history) and t(colour)
near 1 each carry up to +-0.03 of rounding, and their difference, the cue for trusting or
rejecting history, was lost below about 0.06 in t-space. Rounding the difference itself keeps its
relative precision (docs/model-spec.md, "Staging").

For 1: the layers that read the slots (lite: embed over 4 pixels x 16 slots, skip0; full: embed0) are
linear before their rounding, so W_c * c + W_h * h = (W_c + W_h) * c + W_h * (h - c): adding each
history column to its colour column gives the same pre-activation. It differs only where the
history is invalid (slots 3-5 are 0 in both versions; slot 7 says so), and by the weights'
re-rounding to e4m3; training resumes from the converted checkpoint.

Usage: python3 python/scripts/convert_weights_v1_to_v2.py python/checkpoints/lite.pt [more ...]
       (a checkpoint is rewritten in place; a .safetensors weights file is written next to it as
       NAME.v2.safetensors)
"""
import argparse
import datetime
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup.model import SwinUp  # noqa: E402
from swinup.output_pass import ALPHA_LOGIT  # noqa: E402
from swinup.spec import SLOTS, ModelConfig  # noqa: E402
from swinup.train import CHECKPOINT_VERSION, save_checkpoint  # noqa: E402
from swinup.weights_io import read_weights, write_weights  # noqa: E402

COLOUR, HISTORY = (0, 1, 2), (3, 4, 5)  # slot indices (docs/model-spec.md)
ALPHA_LOGIT_SHIFT = -2.0
NOTE = ("format 2: staging slots 3-5 became t(history) - t(colour) (history columns of the "
        "slot-reading layers added to the colour columns) and the blend became jitter-aware "
        f"(alpha logit shifted by {ALPHA_LOGIT_SHIFT:+g}); python/scripts/convert_weights_v1_to_v2.py")


def slot_reading_layers(variant):
    """(weight name, number of 16-slot groups in its input) of the layers that read slots."""
    return [("embed.weight", 4), ("skip0.weight", 1)] if variant == "lite" else [("embed0.weight", 1)]


def fold_history_into_colour(model):
    with torch.no_grad():
        for name, groups in slot_reading_layers(model.cfg.variant):
            w = model.p(name)
            assert w.shape[1] == groups * SLOTS, (name, tuple(w.shape))
            for g in range(groups):
                for c, h in zip(COLOUR, HISTORY):
                    w[:, g * SLOTS + c] += w[:, g * SLOTS + h]


def shift_alpha_logit(model):
    with torch.no_grad():
        model.p("head.linear.bias")[ALPHA_LOGIT] += ALPHA_LOGIT_SHIFT


def convert_checkpoint(path):
    ck = torch.load(path, map_location="cpu")
    if ck.get("format") != "swinup-train-checkpoint":
        raise SystemExit(f"{path}: not a swinup training checkpoint")
    if ck.get("version") != 1:
        raise SystemExit(f"{path}: checkpoint version {ck.get('version')}, only version 1 converts")
    model = SwinUp(ModelConfig.make(ck["variant"]))
    with torch.no_grad():
        for name, p in model.params.items():
            p.copy_(ck["params"][name].to(torch.float32))
    fold_history_into_colour(model)
    shift_alpha_logit(model)
    history = ck.get("history", []) + [{"date": datetime.date.today().isoformat(), "note": NOTE}]
    save_checkpoint(path, model, int(ck["step"]), history)
    print(f"{path}: {ck['variant']} at step {ck['step']} -> checkpoint version {CHECKPOINT_VERSION}")


def convert_weights(path):
    cfg, tensors, desc = read_weights(path, version=1)
    model = SwinUp(cfg)
    model.load_tensors(tensors, fix_scales=False)
    fold_history_into_colour(model)
    shift_alpha_logit(model)
    out = path[:-len(".safetensors")] + ".v2.safetensors"
    write_weights(out, cfg, model.export_tensors(), desc, version=2)
    read_weights(out)  # the written file passes the version-2 checks
    print(f"{path} -> {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="training checkpoints (.pt) or weights files")
    for path in ap.parse_args().paths:
        if path.endswith(".safetensors"):
            convert_weights(path)
        else:
            convert_checkpoint(path)


if __name__ == "__main__":
    main()
