#!/usr/bin/env python3
"""Is what the network's head sees enough to give the oracle's head outputs? A diagnostic for the
quality issue (#4), after the oracle (oracle_output_pass.py) showed that the output pass can go
far beyond the trained network on the procedural rows.

1. The oracle's head outputs (channels 4-7, what the output pass reads) are optimised per render
   pixel and frame against the truth, as oracle_output_pass.py does.
2. Along the oracle's own trajectory (its histories), each render pixel's features are recorded:
   what the head's linear layer reads (the RMSNorm of expand0's output for lite, of dec0's for
   full; 32 channels, e4m3) and the pixel's 16 staged slots.
3. Two per-pixel functions of those 48 features are fitted to the oracle's outputs (least squares
   on the same pixels, in sample): a linear one, of which the network's own head is one instance,
   and a ReLU MLP (48 -> H -> H -> 4) added to it.
4. Each fit replaces the network's channels 4-7 in a closed-loop run (its own histories) and is
   scored like the network and the oracle.

In sample, a fit is an upper bound on what a per-pixel head of its form on these features could
do here. If the MLP gets most of the way from the network to the oracle, a non-linear head is the
lever. If neither fit gets far, the features lack what the oracle's choice depends on. Then the
change has to be in what the network sees or computes upstream, not in its last layer.

With --score-on SEQ2 the fits are also scored on a second sequence they were not fitted on: an
in-sample gain that vanishes there was a fit to the one sequence, not a head worth training.

Usage: python3 python/scripts/research/oracle_head_fit.py SEQ [--variant lite] [--frames 8] [--iters 30]
       [--score-on SEQ2]
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
from oracle_output_pass import (OUTPUT_PASS_CHANNELS, TEMPORAL, add_network_arguments, head_recorder,  # noqa: E402
                                load_replay, optimise_output_pass, pooled_psnr, replay_result,
                                whole_sequence)
from swinup.training.recurrence import unroll  # noqa: E402

HEAD_INPUT = {"lite": "expand0", "full": "dec0"}  # the layer whose output the head normalises


def head_features(model, variant, seq, st, k):
    """(the network's head outputs [1, h, w, 16], the pixel features [h * w, 48]) for staged frame
    st: what head.linear reads (the head's RMSNorm of its input) and the staged slots, cropped to
    the render size."""
    seen = {}

    def capture(name, t):
        if name == HEAD_INPUT[variant]:
            seen["x"] = t
    head = model(st.slots, k, hook=capture)[:, :seq.h, :seq.w]
    normalised = model.rmsnorm_e4m3("head.norm", seen["x"])  # what head.linear reads
    x = torch.cat([normalised[:, :seq.h, :seq.w], st.slots[:, :seq.h, :seq.w]], dim=-1)
    return head, x.reshape(-1, x.shape[-1])


class Standardised(torch.nn.Module):
    """A per-pixel predictor of channels 4-7 on standardised features."""

    def __init__(self, mean, std, body):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.body = body

    def forward(self, x):
        return self.body((x - self.mean) / self.std)


def fit(x, y, hidden, steps, seed=0, batch=65536):
    """-> (linear predictor, MLP predictor), both fitted to y [N, 4] on x [N, 48] (MSE)."""
    mean, std = x.mean(0), x.std(0).clamp(min=1e-6)
    z = (x - mean) / std
    # Least squares by the normal equations in float64. torch.linalg.lstsq (float32, the CPU's
    # default driver) failed on the real features: at a million pixels of fence_2x its fit was
    # 1.8 dB below the network, whose own head is one of the linear functions it chooses from.
    # The normal equations put it 0.16 dB above. A synthetic test of the same size did not
    # reproduce the failure, so its cause is not known.
    a = torch.cat([z, torch.ones(z.shape[0], 1)], 1).double()
    gram = a.t() @ a
    solution = torch.linalg.solve(gram + 1e-9 * torch.eye(gram.shape[0], dtype=gram.dtype) * gram.diagonal().mean(),
                                  a.t() @ y.double()).float()  # [49, 4]
    linear = torch.nn.Linear(z.shape[1], y.shape[1])
    with torch.no_grad():
        linear.weight.copy_(solution[:-1].t())
        linear.bias.copy_(solution[-1])
    torch.manual_seed(seed)
    mlp = torch.nn.Sequential(torch.nn.Linear(z.shape[1], hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, y.shape[1]))
    with torch.no_grad():  # start from the linear fit's answer: the MLP adds to it
        mlp[-1].weight.zero_()
        mlp[-1].bias.zero_()
    opt = torch.optim.Adam(mlp.parameters(), lr=2e-3)
    g = torch.Generator().manual_seed(seed)
    residual_target = y - linear(z).detach()
    for step in range(steps):
        idx = torch.randint(0, z.shape[0], (batch,), generator=g)
        loss = (mlp(z[idx]) - residual_target[idx]).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    class LinearPlusMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear, self.mlp = linear, mlp

        def forward(self, v):
            return self.linear(v) + self.mlp(v)
    return Standardised(mean, std, linear), Standardised(mean, std, LinearPlusMLP())


def explained(pred, y, network_y):
    """Per channel, the share of the oracle's change from the network's outputs (mean square of
    y - network_y) that pred gets right: 1 - mean square(pred - y) / mean square(y - network_y).
    1 is the oracle, 0 no closer than the network, below 0 further away. (network_y is the
    network's output along its own trajectory, the oracle's start.)"""
    return [round(1.0 - float((pred[:, c] - y[:, c]).square().mean() /
                              (y[:, c] - network_y[:, c]).square().mean().clamp(min=1e-12)), 3)
            for c in range(y.shape[1])]


def scored(out, temporal, clip, seq):
    """[PSNR, temporal error] of an unrolled output, rounded as the results print them."""
    return [round(pooled_psnr(out, clip["gt"], seq.hdr), 3), round(float(temporal), 5)]


def oracle_features(model, variant, seq, clip, network_heads, iters, lr, t0=None, extras=None):
    """Runs the oracle (optimise_output_pass) and, along its own trajectory, records every render
    pixel's features (what the head reads, head_features) with the oracle's channels 4-7 and the
    network's own head's channels 4-7 on the same features. extras(staged frame), when given, is
    called on each frame of that trajectory after its features are recorded (feature_value_check.py
    records its candidate features so).
    -> (x [N, 48], y [N, 4], own [N, 4], the oracle's [PSNR, temporal error], its PSNR curve)."""
    oracle, _, history = optimise_output_pass(clip, seq, network_heads, iters, lr, t0=t0)
    xs, ys, own = [], [], []

    def along_the_oracle(k, st):  # the oracle's heads; records the features its histories give
        head, x = head_features(model, variant, seq, st, k)
        h = oracle(k, st).detach()
        xs.append(x)
        ys.append(h[..., OUTPUT_PASS_CHANNELS].reshape(-1, 4))
        own.append(head[..., OUTPUT_PASS_CHANNELS].reshape(-1, 4))  # the network's head on them
        if extras is not None:
            extras(st)
        return h
    with torch.no_grad(), model.weight_cache():
        out, _, temporal = unroll(None, clip, exact=False, heads=along_the_oracle, **TEMPORAL)
    return torch.cat(xs), torch.cat(ys), torch.cat(own), scored(out, temporal, clip, seq), history


def closed_loop(model, variant, seq, clip, predictor):
    """[PSNR, temporal error] of the network with its head's channels 4-7 replaced by predictor's,
    run on its own histories."""
    def fitted(k, st):
        head, feats = head_features(model, variant, seq, st, k)
        head = head.clone()
        head[..., OUTPUT_PASS_CHANNELS] = predictor(feats).reshape(*head.shape[:-1], 4)
        return head
    with torch.no_grad(), model.weight_cache():
        out, _, temporal = unroll(None, clip, exact=False, heads=fitted, **TEMPORAL)
    return scored(out, temporal, clip, seq)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_network_arguments(ap)
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--iters", type=int, default=30, help="the oracle's Adam steps")
    ap.add_argument("--lr", type=float, default=0.1, help="the oracle's learning rate")
    ap.add_argument("--hidden", type=int, default=64, help="the MLP's hidden width")
    ap.add_argument("--fit-steps", type=int, default=2000, help="the MLP's Adam steps")
    ap.add_argument("--score-on", metavar="SEQ",
                    help="also score the fits, closed loop, on this sequence (not fitted on: out of sample)")
    ap.add_argument("--fit-batch", type=int, default=16384,
                    help="pixels an MLP step (16384: about 0.13 s a step on one CPU thread)")
    args = ap.parse_args()
    torch.manual_seed(0)
    t0 = time.time()
    model, seq, clip = load_replay(args)

    network_heads = []
    with torch.no_grad(), model.weight_cache():
        out, _, temporal = unroll(model, clip, exact=False, heads=head_recorder(model, seq, network_heads), **TEMPORAL)
    result = replay_result(args, seq, network=scored(out, temporal, clip, seq))
    x, y, own, oracle_score, history = oracle_features(model, args.variant, seq, clip, network_heads,
                                                       args.iters, args.lr, t0)
    result["oracle"] = oracle_score
    network_y = torch.cat([h[..., OUTPUT_PASS_CHANNELS].reshape(-1, 4) for h in network_heads])
    result["oracle_change_std"] = [round(float(v), 4) for v in (y - network_y).std(0)]
    # The network's own head is a linear function of these features: the linear fit must explain
    # at least as much as it does, or the fit failed numerically.
    result["network_head_explained"] = explained(own, y, network_y)
    linear, mlp = fit(x, y, args.hidden, args.fit_steps, batch=args.fit_batch)
    held_out = None
    if args.score_on:  # the fits scored where they were not fitted: do they carry over?
        held_seq, held_clip = whole_sequence(args.score_on, args.frames)
        with torch.no_grad(), model.weight_cache():
            out, _, temporal = unroll(model, held_clip, exact=False, **TEMPORAL)
        held_out = result["held_out"] = {"sequence": args.score_on,
                                         "network": scored(out, temporal, held_clip, held_seq)}
    for name, predictor in (("linear_fit", linear), ("mlp_fit", mlp)):
        with torch.no_grad():
            result[name + "_explained"] = explained(predictor(x), y, network_y)
        result[name] = closed_loop(model, args.variant, seq, clip, predictor)
        if held_out is not None:
            held_out[name] = closed_loop(model, args.variant, held_seq, held_clip, predictor)
        print(f"{name}: {result[name]} {held_out[name] if held_out else ''} ({time.time() - t0:.0f} s)",
              file=sys.stderr, flush=True)
    result["oracle_curve"] = history[:: max(1, len(history) // 10)] + history[-1:]
    result["seconds"] = round(time.time() - t0, 1)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
