#!/usr/bin/env python3
"""How good can swinup's output pass get? An oracle for the quality issue (#4): the head outputs
that the output pass reads (reconstruction kernel: log sigma major, log sigma minor, angle; history
weight alpha; head channels 4-7) are optimised directly, per render pixel and per frame, against
the ground truth of a sequence, through the whole recurrence (history), starting from the trained
network's own outputs. No network can do better than this optimum with the v1 output pass (it
sees the ground truth), so:
- oracle far above TAAU: the formulation has room, the network is what falls short (train more);
- oracle near TAAU: the output pass itself limits quality (a model change is needed first).

Scores are PSNR on display-encoded values pooled over all frames, as `swinup eval` computes it
(LDR: clamp, sRGB; HDR: x / (1 + x), sRGB), so they compare with its TAAU and swinup rows. The
network row is the PyTorch reference in fast mode (float order differs from the library's exact
mode by about 0.01 dB). CPU is enough for small sequences (768x432 display, 16 frames: minutes).

--display-alpha also frees the history weight per display pixel: a logit added to the render
pixel's at every display pixel and frame (through the output pass's display refinement hook,
swinup/research/display_refine.py). The gap between the two oracles bounds what a history weight
at display resolution could add to one per render pixel (four display pixels share it at 2x, nine
at 3x).

Runs on a GPU when there is one.

Usage: python3 python/scripts/research/oracle_output_pass.py SEQ [--variant lite] [--iters 60] [--display-alpha]
"""
import argparse
import json
import math
import os
import random
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup.display_encode import display_encode  # noqa: E402
from swinup.data import SequenceFolder  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402

OUTPUT_PASS_CHANNELS = slice(4, 8)  # sigma major, sigma minor, angle, alpha (docs/model-spec.md)


def pooled_psnr(out, gt, hdr):
    mse = float(((display_encode(out, hdr) - display_encode(gt, hdr)) ** 2).mean())
    return 10.0 * math.log10(1.0 / max(mse, 1e-12))


def load_network(variant, weights=None):
    """The trained network (weights/<variant>.safetensors unless given), fast mode, frozen."""
    cfg, tensors, _ = read_weights(weights or os.path.join(ROOT, "weights", f"{variant}.safetensors"))
    if cfg.variant != variant:
        raise ValueError(f"{weights}: {cfg.variant} weights, not {variant}")
    model = SwinUp(cfg, exact=False)  # with the head MLP when the file has it
    model.load_tensors(tensors, fix_scales=True)
    model.requires_grad_(False)
    return model


# The temporal error every run reports, and --temporal-weight weighs: score_python.py's (RMS of the
# display-encoded change error along the motion on stable pixels, like `swinup eval`'s but along
# the network's dilated motion), so that the network's and the oracle's compare with each other.
TEMPORAL = {"temporal_norm": "rms", "temporal_space": "display"}


def add_network_arguments(ap):
    """The arguments every replay of a sequence through a trained network takes (this script's and
    the other diagnostics' that import it): the sequence, the variant and its weights."""
    ap.add_argument("sequence")
    ap.add_argument("--variant", default="lite", choices=["lite", "full"])
    ap.add_argument("--weights", default=None, help="default: weights/<variant>.safetensors")


def parse_replay_arguments(doc):
    """The command line of a diagnostic that takes add_network_arguments' arguments and --frames
    and nothing else; `doc` its module docstring, whose first line describes it."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    add_network_arguments(ap)
    ap.add_argument("--frames", type=int, default=0, help="only the first N frames")
    return ap.parse_args()


def whole_sequence(path, frames=0, device=None):
    """(SequenceFolder, a batch of one clip holding every frame at full size, or the first
    `frames` of them, its tensors on `device` when given)."""
    seq = SequenceFolder(path)
    if frames:
        if not 1 <= frames <= seq.n:
            raise ValueError(f"{path}: --frames {frames}, the sequence has {seq.n}")
        seq.n = frames  # the clip below starts at frame 0 (seq.n frames from seq.n frames)
    clip = seq.clip(seq.n, seq.w, seq.h, random.Random(0))
    return seq, {k: (v[None] if device is None else v[None].to(device)) if torch.is_tensor(v) else v
                 for k, v in clip.items()}


def load_replay(args, device=None):
    """What a replay runs, from add_network_arguments' arguments and --frames: (the network,
    SequenceFolder, the whole_sequence clip), on `device` when given."""
    model = load_network(args.variant, args.weights)
    if device is not None:
        model = model.to(device)
    seq, clip = whole_sequence(args.sequence, args.frames, device)
    return model, seq, clip


def replay_result(args, seq, **scores):
    """The JSON line a replay prints: what was replayed, then `scores` in their order."""
    return {"sequence": args.sequence, "variant": args.variant, "frames": seq.n, **scores}


def head_recorder(model, seq, heads):
    """An unroll() heads callback that runs the network and appends each frame's head outputs
    (cropped to the render size, detached) to `heads`."""
    def record(k, st):
        head = model(st.slots, k)[:, :seq.h, :seq.w]
        heads.append(head.detach().clone())
        return head
    return record


def optimise_output_pass(clip, seq, network_heads, iters, lr, temporal_weight=0.0, display_alpha=False,
                         t0=None):
    """The oracle: the head channels the output pass reads (4-7) free per render pixel and frame,
    the rest as the network gave them (they do not reach the output pass), optimised by Adam
    against the truth through the whole recurrence. Loss: the squared error of the display-encoded
    output, the quantity PSNR pools, over all frames, plus temporal_weight times the temporal
    term's square. display_alpha also frees a history-weight logit per display pixel and frame.
    -> (heads callback for unroll, the refinement hook or None, the PSNR after each step)."""
    device = clip["gt"].device
    gt = clip["gt"]
    t0 = time.time() if t0 is None else t0
    free = [torch.nn.Parameter(h[..., OUTPUT_PASS_CHANNELS].clone()) for h in network_heads]
    frame = [0]

    def oracle(k, st):
        frame[0] = k  # the frame whose free display logits refine() below returns
        h = network_heads[k]
        return torch.cat([h[..., :4], free[k], h[..., 8:]], dim=-1)

    display_free = []
    refine = None
    if display_alpha:
        display_free = [torch.nn.Parameter(torch.zeros(1, seq.dh, seq.dw, device=device))
                        for _ in network_heads]

        def refine(inputs):  # the output pass's refinement hook: this frame's free logits
            return display_free[frame[0]]
    opt = torch.optim.Adam(free + display_free, lr=lr)
    history = []
    for it in range(iters):
        opt.zero_grad()
        out, _, temporal = unroll(None, clip, exact=False, heads=oracle, refine=refine, **TEMPORAL)
        mse = ((display_encode(out, seq.hdr) - display_encode(gt, seq.hdr)) ** 2).mean()
        loss = mse + temporal_weight * temporal.square() if temporal_weight else mse
        loss.backward()
        opt.step()
        psnr = 10.0 * math.log10(1.0 / max(float(mse), 1e-12))
        history.append(round(psnr, 3))
        print(f"iter {it}: psnr {psnr:.3f}, temporal {float(temporal):.5f} ({time.time() - t0:.0f} s)",
              file=sys.stderr, flush=True)
    return oracle, refine, history


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_network_arguments(ap)
    ap.add_argument("--iters", type=int, default=60, help="Adam steps over the whole sequence")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--frames", type=int, default=0,
                    help="only the first N frames (time and memory grow with the frames; compare with "
                         "`swinup eval`'s per-frame scores pooled over the same frames)")
    ap.add_argument("--display-alpha", action="store_true",
                    help="also free a history-weight logit per display pixel and frame")
    ap.add_argument("--temporal-weight", type=float, default=0.0,
                    help="add this weight times the temporal term (the mean square of the change error "
                         "along the motion, display-encoded, as score_python.py measures it) to the "
                         "oracle's loss: the oracle's PSNR at a given stability, not only at any")
    ap.add_argument("--no-history", action="store_true",
                    help="also score the oracle with alpha forced to 0 (spatial reconstruction only)")
    args = ap.parse_args()
    torch.manual_seed(0)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model, seq, clip = load_replay(args, device)
    gt = clip["gt"]

    # The network's own head outputs, frame by frame (also the oracle's starting point).
    network_heads = []
    record = head_recorder(model, seq, network_heads)

    t0 = time.time()
    with torch.no_grad():
        out, _, temporal = unroll(model, clip, exact=False, heads=record, **TEMPORAL)
    result = replay_result(args, seq, render=[seq.w, seq.h], display=[seq.dw, seq.dh],
                           network_psnr=round(pooled_psnr(out, gt, seq.hdr), 3),
                           network_temporal=round(float(temporal), 5))

    oracle, refine, history = optimise_output_pass(clip, seq, network_heads, args.iters, args.lr,
                                                   args.temporal_weight, args.display_alpha, t0)
    with torch.no_grad():
        out, _, temporal = unroll(None, clip, exact=False, heads=oracle, refine=refine, **TEMPORAL)
        result["display_alpha"] = bool(args.display_alpha)
        result["temporal_weight"] = args.temporal_weight
        result["oracle_psnr"] = round(pooled_psnr(out, gt, seq.hdr), 3)
        result["oracle_temporal"] = round(float(temporal), 5)
        if args.no_history:
            def spatial(k, st):  # alpha -> 0: sigmoid(-30) ~ 1e-13
                h = oracle(k, st).clone()
                h[..., 7] = -30.0
                return h
            out, _, _ = unroll(None, clip, exact=False, heads=spatial)
            result["oracle_no_history_psnr"] = round(pooled_psnr(out, gt, seq.hdr), 3)
    result["oracle_curve"] = history[:: max(1, len(history) // 10)] + history[-1:]
    result["seconds"] = round(time.time() - t0, 1)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
