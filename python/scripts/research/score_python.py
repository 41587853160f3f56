#!/usr/bin/env python3
"""Scores training checkpoints on sequence folders with the PyTorch reference (fast mode), also
those holding what no backend runs: the experiments of swinup/research/experiments.py (the display
refinement, the pixel-level MLP). Prints one JSON line per checkpoint and sequence: the pooled PSNR
of the display-encoded output (as `swinup eval` pools it) and a temporal error of the same
construction as the evaluation's (RMS of the change error along the motion on stable pixels,
display-encoded), except that it follows the network's dilated motion rather than the sequence's
true motion. Compare checkpoints with each other on these numbers; `swinup eval` remains the
product's measurement. A checkpoint is scored as it would be exported: with the shipped
still-pixel shift (export.SHIPPED_STILL_HISTORY_SHIFT, weights format 4), which training does not
see, unless --still-history-shift says otherwise.

Usage: python3 python/scripts/research/score_python.py --variant lite CKPT [CKPT...] --seq SEQ [--seq SEQ...]
"""
import argparse
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from oracle_output_pass import pooled_psnr, whole_sequence  # noqa: E402
from swinup.export import SHIPPED_STILL_HISTORY_SHIFT  # noqa: E402
from swinup.training.checkpoint import model_for_checkpoint  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402


def load(variant, path, device, still_history_shift=None):
    model = model_for_checkpoint(path)
    if model.cfg.variant != variant:
        raise SystemExit(f"{path}: a {model.cfg.variant} checkpoint, not {variant}")
    model.cfg.still_history_shift = (SHIPPED_STILL_HISTORY_SHIFT[variant] if still_history_shift is None
                                     else still_history_shift)
    return model.to(device)


def score(model, seq_path, device, frames=0):
    seq, clip = whole_sequence(seq_path, frames, device)
    with torch.no_grad():
        out, _, temporal = unroll(model, clip, exact=False, temporal_norm="rms",
                                  temporal_space="display")
    return pooled_psnr(out, clip["gt"], seq.hdr), float(temporal)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoints", nargs="+")
    ap.add_argument("--variant", default="lite", choices=["lite", "full"])
    ap.add_argument("--seq", action="append", required=True)
    ap.add_argument("--frames", type=int, default=0, help="only the first N frames of each sequence")
    ap.add_argument("--still-history-shift", type=float, default=None,
                    help="the still-pixel shift to score with (default: the shipped one)")
    args = ap.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    for path in args.checkpoints:
        model = load(args.variant, path, device, args.still_history_shift)
        for s in args.seq:
            t0 = time.time()
            psnr, temporal = score(model, s, device, args.frames)
            print(json.dumps({"checkpoint": path, "sequence": os.path.basename(s.rstrip("/")),
                              "psnr": round(psnr, 4), "temporal": round(temporal, 5),
                              "seconds": round(time.time() - t0, 1)}), flush=True)


if __name__ == "__main__":
    main()
