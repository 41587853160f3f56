#!/usr/bin/env python3
"""Would the output pass gain from a choice for the history: another motion, or clipped?
Staging and the output pass reproject the history with the dilated motion (the motion of the
nearest-depth pixel of each 3x3 neighbourhood, model.md), which on a thin foreground (the fence's
chain-link mesh in front of its wall) gives the background behind it the foreground's motion.
This replays a sequence with the shipped weights and, at every frame with history, forms the
output three more times: once with the
history reprojected by each render pixel's own (undilated) motion, once with the history clamped to
the range of the 3x3 samples around its render pixel (swinup/research/history_clip.py at
strength 1), once as specified but with the history weight's logit lowered by 1 (the control: a
choice that carries no motion or range information).
The truth then picks, per display pixel or per render pixel (the pixels that share its head
outputs), whichever of specified and alternative is closer: a ceiling for a network that would
choose between them, without retraining and without feeding the choice back into the recurrence
(the history stays the specified output's).

Scores are pooled PSNR of display-encoded values (as `swinup eval` pools them), PyTorch fast mode.

Usage: python3 python/scripts/research/motion_choice_check.py SEQ [--variant lite] [--frames N]
(CPU: about 4 minutes for 32 frames at 960x540.)
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import swinup.output_pass as op  # noqa: E402
import swinup.training.recurrence as recurrence  # noqa: E402
from swinup.display_encode import display_encode  # noqa: E402
from oracle_output_pass import load_replay, parse_replay_arguments, replay_result  # noqa: E402

specified_output_pass = op.output_pass
specified_stage = recurrence.stage
ALTERNATIVES = ("own_motion", "history_clipped", "alpha_logit_minus_1")


def full_clip(head_at_n):
    """history_clip.py's strength at 1 everywhere: the history clamped to the 3x3 samples' range."""
    return torch.ones(head_at_n.shape[:-1], dtype=head_at_n.dtype, device=head_at_n.device)


def squared_error(out, gt, hdr):
    """Per display pixel: the squared error of the display-encoded colour, summed over channels."""
    return (display_encode(out, hdr) - display_encode(gt, hdr)).square().sum(-1)


def render_pixel_sums(e, nx, ny, w, h):
    """e [B, Hd, Wd] summed over the display pixels that read each render pixel's head."""
    b = e.shape[0]
    index = (torch.arange(b).view(b, 1, 1) * (h * w) + ny * w + nx).reshape(-1)
    return torch.zeros(b * h * w, dtype=e.dtype).index_add_(0, index, e.reshape(-1))


def replay(model, clip, hdr):
    """-> per frame {name: mean squared error per channel}, names: specified, each alternative,
    and each alternative's best-of (display pixel, render pixel)."""
    rows = []
    raw = {}

    def stage(frame, state, dw, dh, exact):
        m = frame.motion.float()
        raw["motion"] = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        return specified_stage(frame, state, dw, dh, exact)

    def output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, valid, exact, refine=None, **frame):
        # frame: what the recurrence passes for the frame (still_shift, masks), kept in every variant
        result = specified_output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, valid, exact,
                                       refine=refine, **frame)
        gt = clip["gt"][:, len(rows)]
        e_spec = squared_error(result[0], gt, hdr)
        row = {"specified": float(e_spec.mean()) / 3}
        if valid and history is not None:
            lowered = head.clone()
            lowered[..., 7] -= 1.0
            alternatives = {
                "own_motion": specified_output_pass(head, tc, raw["motion"], jitter, history, dw, dh, sx, sy,
                                                    valid, exact, **frame)[0],
                "history_clipped": specified_output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy,
                                                         valid, exact, clip=full_clip, **frame)[0],
                "alpha_logit_minus_1": specified_output_pass(lowered, tc, motion, jitter, history, dw, dh, sx,
                                                             sy, valid, exact, **frame)[0]}
            b, h, w, _ = head.shape
            _, _, _, _, nx, ny = op.display_grid(b, dw, dh, w, h, sx, sy, head.device)
            spec_sums = render_pixel_sums(e_spec, nx, ny, w, h)
            for name, out in alternatives.items():
                e_alt = squared_error(out, gt, hdr)
                row[name] = float(e_alt.mean()) / 3
                row[name + "_best_display_pixel"] = float(torch.minimum(e_spec, e_alt).mean()) / 3
                best = torch.minimum(spec_sums, render_pixel_sums(e_alt, nx, ny, w, h)).sum()
                row[name + "_best_render_pixel"] = float(best) / e_spec.numel() / 3
        rows.append(row)
        return result

    recurrence.stage, recurrence.output_pass = stage, output_pass  # unroll() calls them through recurrence's namespace
    try:
        with torch.no_grad():
            recurrence.unroll(model, clip, exact=False)
    finally:
        recurrence.stage, recurrence.output_pass = specified_stage, specified_output_pass
    return rows


def pooled(rows, name):
    """Pooled PSNR of one column; frames without history count with the specified output."""
    mse = sum(r.get(name, r["specified"]) for r in rows) / len(rows)
    return 10.0 * math.log10(1.0 / max(mse, 1e-12))


def main():
    args = parse_replay_arguments(__doc__)
    model, seq, clip = load_replay(args)
    rows = replay(model, clip, seq.hdr)
    result = replay_result(args, seq, specified=round(pooled(rows, "specified"), 3))
    for name in ALTERNATIVES:
        for suffix in ("", "_best_display_pixel", "_best_render_pixel"):
            result[name + suffix] = round(pooled(rows, name + suffix), 3)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
