#!/usr/bin/env python3
"""The head MLP (docs/model-spec.md, "The head MLP") fitted to the output-pass oracle, instead of
trained from zero.

Trained by the loss from zero for minutes, the head MLP lost to its controls (2026-12-02,
docs/journal/2026-12-02-non-linear-head-trained-bbb6459.md). Fitted to the oracle on fence under the
orbit camera, a per-pixel MLP of the same features kept +0.58 dB on fence_2x (oracle_head_fit.py
--score-on). This script makes that fit in the head MLP's own form, so a training arm can start from
it:

  record SEQ --out F.pt   runs the oracle on SEQ (oracle_head_fit.oracle_features) and saves, per
                          render pixel along the oracle's trajectory, the head's features and what
                          the oracle adds to the network's own channels 4-7;
  fit F.pt... --checkpoint START --out OUT.pt
                          fits the network's head MLP (its e4m3 rounding included) to those
                          additions over all the files, its outputs 0-3 (the recurrent features)
                          held at zero, and writes START's network with the fitted head MLP
                          (score it with score_python.py, export it with swinup.export, train it
                          with train.py --experiment-lr-scale 0 to keep the fit).

Record on training sequences, never on the evaluation's: the fit is then scored out of sample.
Usage: python3 python/scripts/research/fit_head_mlp.py record SEQ --out F.pt [--variant lite] [--frames 8]
       python3 python/scripts/research/fit_head_mlp.py fit F1.pt F2.pt ... --checkpoint python/checkpoints/lite.pt --out X.pt
           [--steps 3000] [--history-logit-shift S]
       python3 python/scripts/research/fit_head_mlp.py shift FITTED.pt --by S --out Y.pt   (the same fit, its
           history-weight logit raised by S more)
(device_head_fit.sh runs both on the GPU machine over 24 training-like sequences.)
"""
import argparse
import contextlib
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from feature_value_check import StateTap, extra_features  # noqa: E402
from oracle_head_fit import oracle_features  # noqa: E402
from oracle_output_pass import (OUTPUT_PASS_CHANNELS, TEMPORAL, add_network_arguments, head_recorder,  # noqa: E402
                                load_network, whole_sequence)
from swinup.model import HEAD_MLP_PREFIX, SwinUp  # noqa: E402
from swinup.output_pass import ALPHA_LOGIT  # noqa: E402
from swinup.spec import HEAD_MLP_OUTPUTS, ModelConfig  # noqa: E402
from swinup.training.checkpoint import read_checkpoint, write_checkpoint  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402

HEAD_INPUT = 32  # the head's normalised channels, the first part of the head MLP's input

KERNEL = OUTPUT_PASS_CHANNELS  # the head MLP's outputs that reach the output pass (0-3 feed the recurrence)
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def record(args):
    t0 = time.time()
    model = load_network(args.variant, args.weights).to(DEVICE)
    if model.cfg.head_mlp:  # the additions must be the oracle's over the network the fit extends
        raise SystemExit(f"record: {args.weights or args.variant + ' weights'} has the head MLP, which the fit "
                         "replaces; record from the network without it (e.g. the weights before it, git history)")
    seq, clip = whole_sequence(args.sequence, args.frames, DEVICE)
    network_heads = []
    with torch.no_grad(), model.weight_cache():
        unroll(model, clip, exact=False, heads=head_recorder(model, seq, network_heads), **TEMPORAL)
    extra = []  # --extras: feature_value_check.py's candidate features along the same trajectory
    with StateTap() if args.extras else contextlib.nullcontext() as tap:
        x, y, own, score, _ = oracle_features(
            model, args.variant, seq, clip, network_heads, args.iters, args.lr, t0,
            extras=(lambda st: extra.append(extra_features(tap, st, seq.w, seq.h))) if args.extras else None)
    record = {"sequence": args.sequence, "variant": args.variant, "x": x.cpu(), "add": (y - own).cpu(),
              "oracle": score}
    if extra:
        record["extra"] = torch.cat(extra).cpu()
    torch.save(record, args.out)
    print(json.dumps({"sequence": args.sequence, "pixels": x.shape[0], "oracle": score,
                      "seconds": round(time.time() - t0, 1)}), flush=True)


def head_mlp_params(model) -> dict:
    """{parameter key: parameter} of the model's head MLP (fc1..fc3 weights and biases)."""
    return {k: p for k, p in model.params.items() if k.startswith(HEAD_MLP_PREFIX)}


def fit_head(x, add, steps, batch, lr=2e-3, seed=0, variant="lite"):
    """A network's head MLP fitted to add [N, 4] (what its outputs 4-7 should add) on x [N, 48] by
    Adam on the mean square, through its own e4m3 rounding (straight-through, fast mode as in
    training); outputs 0-3 stay zero. -> (a SwinUp with the head MLP, of which only the MLP is
    fitted, the share of add's mean square it leaves, 1 at the start)."""
    model = SwinUp(ModelConfig.make(variant, head_mlp=True), exact=False)
    model.init_head_mlp(seed)
    model.to(x.device)
    params = head_mlp_params(model)
    w3, b3 = params[HEAD_MLP_PREFIX + "fc3__weight"], params[HEAD_MLP_PREFIX + "fc3__bias"]
    mask = torch.zeros(HEAD_MLP_OUTPUTS, 1, device=x.device)
    mask[KERNEL] = 1.0
    opt = torch.optim.Adam(params.values(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        idx = torch.randint(0, x.shape[0], (batch,), generator=g).to(x.device)
        out = _forward(model, x[idx])[:, KERNEL]
        loss = (out - add[idx]).square().mean()
        opt.zero_grad()
        loss.backward()
        w3.grad *= mask  # outputs 0-3 feed the recurrence: not the oracle's to change
        b3.grad *= mask[:, 0]
        opt.step()
    with torch.no_grad():
        left = float((_forward(model, x)[:, KERNEL] - add).square().mean() / add.square().mean().clamp(min=1e-12))
    return model, left


def _forward(model, x):
    """The head MLP on the recorded features: the head's normalised channels, then the staged slots."""
    return model.head_mlp_add(x[:, :HEAD_INPUT], x[:, HEAD_INPUT:])


def fit(args):
    t0 = time.time()
    data = [torch.load(f) for f in args.features]
    variants = {d["variant"] for d in data}
    if len(variants) != 1:
        raise SystemExit(f"fit: the feature files come from different variants: {sorted(variants)}")
    x = torch.cat([d["x"] for d in data]).to(DEVICE)
    add = torch.cat([d["add"] for d in data]).to(DEVICE)
    variant = variants.pop()
    fitted, left = fit_head(x, add, args.steps, args.batch, variant=variant)
    ck = read_checkpoint(args.checkpoint, variant)
    ck["params"] = dict(ck["params"])
    ck["params"].update({k: p.detach().cpu().clone() for k, p in head_mlp_params(fitted).items()})
    ck["head_mlp"] = True
    # The fit buys sharpness with some stability; a higher history weight buys it back
    # (docs/journal/2026-12-02-head-mlp-fitted-to-the-oracle-03cf09f.md).
    raise_history_logit(ck, args.history_logit_shift)
    ck["history"] = list(ck.get("history", [])) + [{"note": "head_mlp fitted to the output-pass oracle",
                                                    "head_mlp_fit": {"sequences": [d["sequence"] for d in data],
                                                                     "pixels": int(x.shape[0]),
                                                                     "steps": args.steps,
                                                                     "left": round(left, 4),
                                                                     "history_logit_shift": args.history_logit_shift}}]
    write_checkpoint(args.out, ck)
    print(json.dumps({"out": args.out, "pixels": int(x.shape[0]), "left": round(left, 4),
                      "seconds": round(time.time() - t0, 1)}), flush=True)


def raise_history_logit(ck, by):
    """Adds `by` to the head's bias of the history weight's logit (output ALPHA_LOGIT) in a
    checkpoint record, on a copy of that tensor (the record's other tensors are shared)."""
    ck["params"] = dict(ck["params"])
    bias = ck["params"]["head__linear__bias"].clone()
    bias[ALPHA_LOGIT] += by
    ck["params"]["head__linear__bias"] = bias


def shift(args):
    """A copy of a fitted checkpoint with its history-weight logit raised by args.by (the fit's
    --history-logit-shift, applied again): one fit, several shifts to score."""
    ck = read_checkpoint(args.checkpoint)
    if not ck.get("head_mlp"):
        raise SystemExit(f"shift: {args.checkpoint} has no head MLP; the shift belongs to a head MLP fit")
    raise_history_logit(ck, args.by)
    ck["history"] = list(ck.get("history", [])) + [{"note": "history-weight logit raised after the head MLP fit",
                                                    "history_logit_shift": args.by}]
    write_checkpoint(args.out, ck)
    print(json.dumps({"out": args.out, "history_logit_shift": args.by}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="the oracle's additions on one sequence")
    add_network_arguments(r)
    r.add_argument("--out", required=True)
    r.add_argument("--frames", type=int, default=8)
    r.add_argument("--iters", type=int, default=30, help="the oracle's Adam steps")
    r.add_argument("--lr", type=float, default=0.1, help="the oracle's learning rate")
    r.add_argument("--extras", action="store_true",
                   help="also record feature_value_check.py's candidate features (key 'extra')")
    f = sub.add_parser("fit", help="the head MLP fitted to recorded additions")
    f.add_argument("features", nargs="+")
    f.add_argument("--checkpoint", required=True, help="the training checkpoint whose network gets the fit")
    f.add_argument("--out", required=True)
    f.add_argument("--steps", type=int, default=3000)
    f.add_argument("--batch", type=int, default=16384)
    f.add_argument("--history-logit-shift", type=float, default=0.0,
                   help="added to the head's bias of the history weight's logit (output ALPHA_LOGIT)")
    h = sub.add_parser("shift", help="a fitted checkpoint's history-weight logit raised")
    h.add_argument("checkpoint")
    h.add_argument("--by", type=float, required=True)
    h.add_argument("--out", required=True)
    args = ap.parse_args()
    {"record": record, "fit": fit, "shift": shift}[args.command](args)


if __name__ == "__main__":
    main()
