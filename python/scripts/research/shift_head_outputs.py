#!/usr/bin/env python3
"""Writes a copy of a weights file whose head outputs are shifted by constants: the history
weight's logit (output 7) and the kernel's log2 sigmas (outputs 4 and 5, both alike). The shift
goes into the last bias that feeds those outputs (head_mlp.fc3's when the network has the head
MLP, else head.linear's): an exact f32 addition to each output, nothing else changes. It was
swept on 2026-12-03 on the CPU backend (`swinup eval --weights`) after the output pass's
history became Lanczos-3: is the shipped history weight, chosen for Catmull-Rom, still the right
one? (docs/journal/2026-12-03-lanczos3-history-706d643.md.)

Usage: python3 python/scripts/research/shift_head_outputs.py IN OUT [--alpha-logit D] [--log-sigma D]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from swinup.weights_io import read_weights, write_weights  # noqa: E402

ALPHA_LOGIT, LOG_SIGMA_MAJOR, LOG_SIGMA_MINOR = 7, 4, 5


def shifted(tensors, head_mlp: bool, alpha_logit: float, log_sigma: float):
    """The tensors with the output biases moved (a new dict; the input is not changed)."""
    out = dict(tensors)
    name = "head_mlp.fc3.bias" if head_mlp else "head.linear.bias"
    bias = out[name].copy()
    bias[ALPHA_LOGIT] += alpha_logit
    bias[LOG_SIGMA_MAJOR] += log_sigma
    bias[LOG_SIGMA_MINOR] += log_sigma
    out[name] = bias
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("weights_in")
    ap.add_argument("weights_out")
    ap.add_argument("--alpha-logit", type=float, default=0.0, help="added to the history weight's logit")
    ap.add_argument("--log-sigma", type=float, default=0.0, help="added to both log2 sigmas of the kernel")
    args = ap.parse_args()
    cfg, tensors, description = read_weights(args.weights_in)
    note = f" + head outputs shifted (alpha logit {args.alpha_logit:+g}, log2 sigma {args.log_sigma:+g})"
    write_weights(args.weights_out, cfg, shifted(tensors, cfg.head_mlp, args.alpha_logit, args.log_sigma),
                  description + note)


if __name__ == "__main__":
    main()
