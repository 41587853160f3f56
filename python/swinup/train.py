"""Training of the swinup network through its recurrence (python -m swinup.train --help).

Each step unrolls clips of --frames frames (8+) through staging, the network and the output pass
(all differentiable, straight-through rounding), so the recurrent features and the history learn
what the next frame needs. Loss per frame, in t-space (t = log2(1 + x), where the output pass
blends): L1 to the ground truth, plus a temporal term: the output's frame-to-frame change minus
the ground truth's (flicker the truth does not have costs), as a mean absolute value or, with
--temporal-norm rms, a root mean square (the statistic of `swinup eval`'s temporal error).
`swinup eval` scores display-encoded colour (sRGB after an LDR clamp or HDR Reinhard), steeper
than t in the darks: --display-weight W adds W times the L1 distance of display-encoded colour,
--temporal-space display makes the temporal term compare display-encoded changes
(display_encode.py); --display-norm rms makes the display term a root mean square per clip, the
statistic behind the evaluation's PSNR. The first frame of a clip (no history) counts like the
others. --burn-in N runs up to N frames before a clip's scored ones, without gradient or loss (the
count drawn per batch), so that the loss also sees the history's steady state that a long
sequence reaches (at 3x a display pixel gets a render sample only every ninth frame on average);
--reset-share P makes that share of batches start at a camera cut instead (the first frames weigh
more).

Data: --data DIR (repeatable) names sequence folders with ground truth (the renderer's output;
keep breakfast_room out: it is the held-out check) and/or --procedural P, the fraction of batches
drawn from the 2.5D-layer generator of data.py (random scale 1.5-3, HDR and LDR). --augment shows
each batch in one of the square's eight mirrors (data.mirror_clip: flips and a transpose, motion and
jitter mirrored with the images).

Resume: --checkpoint (default python/checkpoints/<variant>.pt) holds the step count, the master
weights in f16 (small enough for the repository) and the training history (one entry per chunk:
date, steps, minutes, GPUs, data, learning rate, temporal term), which export.py writes into the weights file's
description for `swinup info`. The optimiser's moments are not kept (a short warm-up after each
resume stands in for them; --optimizer-state keeps them, with float32 master weights, in a side
file for chunks chained on one machine). Without a checkpoint, training starts from
weights/<variant>.safetensors. Runs for --minutes, saving every --save-every steps and at the end,
so it runs in chunks and continues later; --decay lowers the learning rate along a cosine over the
chunk (for a last chunk).

Speed: tiles are small, so an unrolled step is thousands of small kernels; what pays is work per
kernel: large batches of crops (--batch, --crop), sequences held on the GPU (data.py), e4m3
rounding by torch's float8 cast (quant.py, checked against the bit version), TF32 matrix products
in fast mode (the linear layers' operands are e4m3 values, exact in TF32's 10-bit mantissa);
--compile runs the network's forward pass through torch.compile (SwinUp.compile_forward), which
fuses its elementwise kernels. A batch that does not fit in memory halves itself.

Several GPUs: torchrun --nproc_per_node N -m swinup.train ...: each rank draws its own batches,
gradients are averaged with one all_reduce a step (data parallel), rank 0 saves. Several ranks
can share one GPU (--dist-backend gloo; NCCL wants a GPU a rank): a step is launch-bound, so
ranks that launch side by side fill the GPU better than one larger batch does.
"""
import argparse
import contextlib
import datetime
import math
import os
import random
import re
import time

import torch
import torch.distributed as dist

from . import exact_math as xm
from . import experiments
from .display_encode import display_encode
from .data import ProceduralScenes, batch_from_folders, load_sequence_folders, random_mirror
from .model import HEAD_MLP_PREFIX, SwinUp
from .display_refine import FEATURE_ROWS
from .history_clip import ROW as CLIP_ROW
from .sample_residual import ROWS as RESIDUAL_ROWS
from .output_pass import HISTORY_FILTERS, output_pass, use_history_filter
from .spec import ModelConfig
from .staging import FrameInput, TemporalState, stage
from .temporal_loss import motion_compensated_change_error
from .weights_io import read_weights

HERE = os.path.dirname(os.path.abspath(__file__))
# 2 (2026-11-30): the network reads t(history) - t(colour) in staging slots 3-5 and the output
# pass blends jitter-aware (weights format_version 2); version-1 checkpoints convert with
# scripts/convert_weights_v1_to_v2.py.
CHECKPOINT_VERSION = 2
ROOT = os.path.dirname(os.path.dirname(HERE))


def t_space(x):
    return torch.log2(1.0 + torch.clamp(x, min=0.0))


def unroll(model, clip, exact=False, heads=None, burn_in=0, temporal_norm="l1", temporal_alignment="motion",
           display_weight=0.0, temporal_space="t", display_norm="l1", first_frame_weight=1.0,
           refine=None):
    """Runs a clip through the recurrence; returns (outputs [B, T, Hd, Wd, 3], spatial term,
    temporal term). The spatial term is the L1 distance to the truth in t-space, plus
    display_weight times the L1 distance of the display-encoded colours (display_encode.py, what
    `swinup eval` scores).
    heads(k, staged) -> [B, H, W, 16], when given, stands in for the network's head outputs (the
    output-pass oracle, scripts/oracle_output_pass.py); model may then be None.
    refine: the output pass's display refinement (display_refine.py), when not the model's own
    (the oracle's free per-display-pixel history weights).
    burn_in: the clip's first burn_in frames run without gradient and without loss (they only
    build the history and recurrent state), so that the loss also sees frames deep into a
    sequence, as a game's frames are; outputs and losses cover the frames after them.
    temporal_norm: "l1", the mean absolute change error, or "rms", its root mean square over all
    pixels and frame pairs, the statistic `swinup eval` reports; RMS weighs the large, sparse
    changes (flicker on edges) more than L1 does.
    temporal_alignment: "motion", the change along the motion on the stable pixels
    (temporal_loss.py, as `swinup eval` measures it), or "pixel", each display pixel against
    itself in the previous frame (the term of the first chunks; under a moving camera it measures
    the reconstruction error again rather than flicker).
    temporal_space: "t", the change errors of t-space colour, or "display", of display-encoded
    colour (the space of `swinup eval`'s temporal error).
    display_norm: "l1", the display term is the mean absolute error, or "rms", per clip the root
    of the mean square over its scored frames, pixels and channels, averaged over the clips: the
    statistic of `swinup eval`'s PSNR (-20 log10 of a sequence's pooled RMS error), which L1
    under-weighs where the error is large and sparse (thin features, edges).
    first_frame_weight: the weight of a scored frame without history (the clip's first, when no
    burn-in precedes it, or a camera cut) in the spatial and display terms, which are means over
    the scored frames weighted so (1 is the plain mean). `swinup eval` pools squared errors over
    a sequence, and its first frame, one jittered frame and no history, has the largest
    (docs/quality.md, "Gentler continuations"); with the uniform burn-in a batch scores it once in
    17."""
    if temporal_norm not in ("l1", "rms"):
        raise ValueError(f"temporal_norm {temporal_norm!r}: expected 'l1' or 'rms'")
    if temporal_alignment not in ("motion", "pixel"):
        raise ValueError(f"temporal_alignment {temporal_alignment!r}: expected 'motion' or 'pixel'")
    if temporal_space not in ("t", "display"):
        raise ValueError(f"temporal_space {temporal_space!r}: expected 't' or 'display'")
    if not display_weight >= 0.0:
        raise ValueError(f"display_weight {display_weight!r}: expected a weight >= 0")
    if display_norm not in ("l1", "rms"):
        raise ValueError(f"display_norm {display_norm!r}: expected 'l1' or 'rms'")
    if not first_frame_weight > 0.0:
        raise ValueError(f"first_frame_weight {first_frame_weight!r}: expected a weight > 0")
    gt = clip["gt"]
    frames = clip["color"].shape[1]
    dh, dw = gt.shape[2], gt.shape[3]
    state = None
    outs = []
    spatial = gt.new_zeros(())
    display = gt.new_zeros(()) if display_norm == "l1" else gt.new_zeros(gt.shape[0])  # per clip for rms
    temporal = gt.new_zeros(())
    prev_out = prev_gt = None
    frame_weights = 0.0  # the sum of the scored frames' weights
    if not 0 <= burn_in < frames:
        raise ValueError(f"burn_in {burn_in} must leave at least one of the clip's {frames} frames")
    with model.weight_cache() if model is not None else contextlib.nullcontext():  # weights quantised once a clip
        for k in range(frames):
            if k < burn_in:
                with torch.no_grad():
                    state = _advance(model, clip, k, state, dw, dh, exact, heads, refine)[1]
                continue
            previous_z = None if state is None else state.z[:, :state.height, :state.width]
            w = first_frame_weight if state is None or clip["reset"][k] else 1.0
            frame_weights += w
            out, state, staged = _advance(model, clip, k, state, dw, dh, exact, heads, refine)
            t_out, t_gt = t_space(out), t_space(gt[:, k])
            spatial = spatial + w * (t_out - t_gt).abs().mean()
            if display_weight > 0.0 or temporal_space == "display":
                d_out, d_gt = display_encode(out, clip["hdr"]), display_encode(gt[:, k], clip["hdr"])
                if display_weight > 0.0:
                    display = display + w * ((d_out - d_gt).abs().mean() if display_norm == "l1"
                                             else (d_out - d_gt).square().mean(dim=(1, 2, 3)))
            # The colours whose frame-to-frame changes the temporal term compares.
            cur_out, cur_gt = (d_out, d_gt) if temporal_space == "display" else (t_out, t_gt)
            if prev_out is not None and not clip["reset"][k]:
                if temporal_alignment == "pixel":
                    change_error = (cur_out - prev_out) - (cur_gt - prev_gt)
                    stable = torch.ones_like(change_error[..., 0], dtype=torch.bool)
                elif previous_z.shape == staged.z.shape:
                    change_error, stable = motion_compensated_change_error(
                        cur_out, prev_out, cur_gt, prev_gt, staged.motion, staged.z, previous_z,
                        staged.scale_x, staged.scale_y)
                else:  # the render size changed: no pixels pair along the motion (nor in `swinup eval`)
                    change_error = None
                if change_error is not None:
                    weight = stable[..., None].to(change_error.dtype).expand_as(change_error)
                    size = torch.clamp(weight.sum(), min=1.0)
                    temporal = temporal + ((change_error.abs() * weight).sum() / size if temporal_norm == "l1"
                                           else (change_error.square() * weight).sum() / size)
            prev_out, prev_gt = cur_out, cur_gt
            outs.append(out)
    scored = frames - burn_in
    display = display / frame_weights
    if display_norm == "rms":  # per clip (a sequence's PSNR pools its frames), then the batch's mean
        display = torch.sqrt(display + 1e-12).mean()
    temporal = temporal / max(1, scored - 1)
    if temporal_norm == "rms":  # the root of the mean square; the epsilon keeps its gradient finite at 0
        temporal = torch.sqrt(temporal + 1e-12)
    return torch.stack(outs, 1), spatial / frame_weights + display_weight * display, temporal


def clip_frame(clip, k):
    """Frame k of a clip (data.py's dict) as staging's input."""
    return FrameInput(color=clip["color"][:, k], depth=clip["depth"][:, k], motion=clip["motion"][:, k],
                      jitter=clip["jitter"][:, k], hdr=clip["hdr"], depth_inverted=clip["depth_inverted"],
                      reset=clip["reset"][k])


def _advance(model, clip, k, state, dw, dh, exact, heads, refine=None):
    """Frame k of the clip through staging, the network (or heads) and the output pass: returns
    (output [B, Hd, Wd, 3], the temporal state for frame k + 1, the staged frame)."""
    h, w = clip["color"].shape[2], clip["color"].shape[3]
    frame = clip_frame(clip, k)
    reset = frame.reset
    st = stage(frame, None if reset else state, dw, dh, exact)
    head = heads(k, st) if heads is not None else model.run(st.slots, k)
    valid = state is not None and not reset
    extra = {}  # only when attached, so that scripts' stand-ins for output_pass need not know it
    if getattr(model, "history_clip", None) is not None:
        extra["clip"] = model.history_clip
    if getattr(model, "sample_residual", None) is not None:
        extra["residual"] = model.sample_residual
    out, hist, rec = output_pass(head[:, :h, :w], st.tc, st.motion, frame.jitter,
                                 state.history if valid else None, dw, dh, st.scale_x,
                                 st.scale_y, valid, exact,
                                 refine=refine if refine is not None else getattr(model, "display_refine", None),
                                 still_shift=getattr(getattr(model, "cfg", None), "still_history_shift", 0.0),
                                 **extra)
    return out, TemporalState(history=hist, recurrent=rec, z=st.z, width=w, height=h), st


def checkpoint_record(variant, step, history, params, head_mlp=False):
    """What a checkpoint file holds (torch.save of this dict); read back by read_checkpoint.
    head_mlp: whether the network has the head MLP (its parameters are then among params)."""
    return {"format": "swinup-train-checkpoint", "version": CHECKPOINT_VERSION, "variant": variant,
            "step": step, "history": history, "params": params, "head_mlp": bool(head_mlp)}


def write_checkpoint(path, record):
    """Writes a checkpoint record atomically (a temporary file, then a rename): an interrupted
    write never leaves a half-written checkpoint where training resumes from."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    torch.save(record, tmp)
    os.replace(tmp, path)


def save_checkpoint(path, model, step, history):
    tensors = {}
    for name, p in model.params.items():
        # Weights in f16 (they are re-quantised to e4m3 anyway); gains, biases, tables in f32. The
        # head MLP's weights stay f32: a fit (scripts/fit_head_mlp.py) is kept as it was scored,
        # and they are only 7,680 numbers.
        half = name.endswith("__weight") and not name.startswith(HEAD_MLP_PREFIX)
        tensors[name] = p.detach().cpu().to(torch.float16 if half else torch.float32)
    record = checkpoint_record(model.cfg.variant, step, history, tensors, model.cfg.head_mlp)
    record.update(experiments.states(model))  # the experiments' parameters (experiments.py), f32
    write_checkpoint(path, record)


def read_checkpoint(path, variant=None):
    """A checkpoint record, checked: a swinup training checkpoint (of `variant` when given) of
    this CHECKPOINT_VERSION."""
    ck = torch.load(path, map_location="cpu")
    if ck.get("format") != "swinup-train-checkpoint" or (variant is not None and ck.get("variant") != variant):
        raise ValueError(f"{path}: not a {variant or 'swinup'} training checkpoint")
    if ck.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path}: checkpoint version {ck.get('version')}, expected "
                         f"{CHECKPOINT_VERSION}" + ("; version 1 predates the difference slots and "
                         "the jitter-aware blend, convert it with python/scripts/convert_weights_v1_to_v2.py"
                                                     if ck.get("version") == 1 else ""))
    if not isinstance(ck.get("head_mlp", False), bool):
        raise ValueError(f"{path}: 'head_mlp' is not true or false (the twenty-first session's "
                         "experiment form, w1..b3, was converted to the network's fc1..fc3)")
    ck["head_mlp"] = bool(ck.get("head_mlp", False))
    return ck


def checkpoint_config(record):
    """The ModelConfig of the network a checkpoint record (read_checkpoint) holds: its variant,
    with or without the head MLP."""
    return ModelConfig.make(record["variant"], head_mlp=record["head_mlp"])


def model_for_checkpoint(path, exact=False):
    """The network a checkpoint holds, built to its config (the head MLP when it has one) with the
    experiments it holds attached, loaded, frozen, on the CPU."""
    ck = read_checkpoint(path)
    model = SwinUp(checkpoint_config(ck), exact=exact)
    for name in experiments.held(ck):
        experiments.attach(model, name)
    load_checkpoint(path, model, ck)
    model.requires_grad_(False)
    return model


def load_checkpoint(path, model, record=None):
    """Loads a checkpoint into the model (record: what read_checkpoint(path) returned, when the
    caller has read it already). A model with the head MLP loads a checkpoint without one (its MLP
    keeps its initialisation, fc3 zero: it starts as the network without it); a model without the
    head MLP refuses a checkpoint that has one (its parameters would be dropped)."""
    ck = record if record is not None else read_checkpoint(path)
    if ck["variant"] != model.cfg.variant:
        raise ValueError(f"{path}: not a {model.cfg.variant} training checkpoint")
    if ck["head_mlp"] and not model.cfg.head_mlp:
        raise ValueError(f"{path}: holds a network with the head MLP; build the model with "
                         "ModelConfig.make(variant, head_mlp=True) (train.py --head-mlp, "
                         "train.model_for_checkpoint)")
    with torch.no_grad():
        for name, p in model.params.items():
            if name.startswith(HEAD_MLP_PREFIX) and not ck["head_mlp"]:
                continue
            p.copy_(ck["params"][name].to(torch.float32))
    experiments.load(path, ck, model)
    history = ck.get("history", [])
    if not history and ck.get("note"):
        history = [{"note": ck["note"]}]
    return int(ck["step"]), history


def trained_extras(model) -> list:
    """What a run trains besides the network without the head MLP: the attached experiments and the
    head MLP (the names its chunk records and its optimiser state file checks)."""
    return (["head_mlp"] if model.cfg.head_mlp else []) + experiments.attached(model)


def parameter_groups(model, experiment_lr_scale=1.0):
    """AdamW's parameter groups: the network's, then (when attached) the experiments', each with the
    multiple of the learning rate it trains at ("lr_scale", read by the schedule every step)."""
    extra = [p for name in experiments.attached(model) for p in getattr(model, name).parameters()]
    extra += [p for name, p in model.params.items() if name.startswith(HEAD_MLP_PREFIX)]
    ids = {id(p) for p in extra}
    groups = [{"params": [p for p in model.parameters() if id(p) not in ids], "lr_scale": 1.0}]
    if extra:
        groups.append({"params": extra, "lr_scale": experiment_lr_scale})
    return groups


def save_optimizer_state(path, model, opt, step):
    """The optimiser's moments and the float32 master weights at `step` (the checkpoint keeps
    f16 weights and no moments, to stay small enough for the repository; this side file lets
    chunks chained on one machine continue exactly where the last one stopped)."""
    write_checkpoint(path, {"format": "swinup-optimizer-state", "variant": model.cfg.variant,
                            "step": step, "optimizer": opt.state_dict(),
                            "experiments": trained_extras(model),
                            "params": {n: p.detach().cpu().clone() for n, p in model.params.items()}})


def load_optimizer_state(path, model, opt, step):
    """Loads a save_optimizer_state file into the model and optimiser if it was written at
    `step` for this variant and these experiments (the checkpoint just loaded, the run's
    options); returns whether it was. The learning-rate multiples stay this run's."""
    side = torch.load(path, map_location="cpu")
    if side.get("format") != "swinup-optimizer-state":
        raise ValueError(f"{path}: not a swinup optimiser-state file")
    if (side.get("variant") != model.cfg.variant or side.get("step") != step
            or side.get("experiments", []) != trained_extras(model)):
        return False
    with torch.no_grad():
        for name, p in model.params.items():
            p.copy_(side["params"][name].to(p.device))
    scales = [g["lr_scale"] for g in opt.param_groups]
    opt.load_state_dict(side["optimizer"])
    for g, scale in zip(opt.param_groups, scales):
        g["lr_scale"] = scale
    return True


# The C API keeps 255 characters of the weights' description, and `swinup info` puts
# "embedded full: " (15) before it: what a description may take.
DESCRIPTION_ROOM = 255 - len("embedded full: ")


def describe_training(variant, step, history, still_history_shift=0.0):
    """One short line for the weights file's description (`swinup info` shows it after the origin,
    "embedded full: ", and the C API keeps 255 characters of both). The checkpoint keeps the whole
    history. still_history_shift: the exported network's (export.py), named with the fits, early
    enough to survive the 255 characters."""
    if not history:
        return f"{variant}: {step} training steps (python/swinup/train.py)"
    minutes = sum(float(h.get("minutes", 0)) for h in history)
    # The GPUs of the chunks (notes have no device), without device_label's ", N ranks".
    gpus = sorted({h["device"].replace("NVIDIA ", "").split(",")[0] for h in history if "device" in h})
    # Names through _data_name again: chunks recorded before it knew the scale suffix kept them.
    data = {_data_name(d) for h in history for d in h.get("data", [])}
    builtin = {"showcase", "fence", "moire", "text", "spinner"}  # the renderer's own scenes
    if data & builtin:
        data = (data - builtin) | {f"{len(data & builtin)} procedural scenes"}
    data = sorted(data)
    dates = sorted(h["date"] for h in history if "date" in h)
    when = dates[-1] if dates else "?"
    frames = max(int(h.get("frames", 8)) for h in history)
    burn = max(int(h.get("burn_in", 0)) for h in history)
    chunks = [h for h in history if "device" in h]  # chunks, not notes
    norms = sorted({h.get("temporal_norm", "l1").upper() for h in chunks})
    notes = ([] if norms in ([], ["L1"]) else ["/".join(norms)]) + \
        (["display"] if any(h.get("temporal_space", "t") == "display" for h in chunks) else [])
    temporal = "temporal" + (f" ({', '.join(notes)})" if notes else "")
    if any(h.get("temporal_alignment", "pixel") == "motion" for h in chunks):
        temporal += " along the motion"
    display_norms = sorted({h.get("display_norm", "l1").upper() for h in chunks if h.get("display_weight", 0)})
    if display_norms in ([], ["L1"]):
        spatial = "t-space" + (" + display" if display_norms else "") + " L1"
    else:  # "t-space L1 + display L1/RMS": the chunks' display terms differ from the t-space one
        spatial = "t-space L1 + display " + "/".join(display_norms)
    averaged = [h for h in history if "averaged" in h]  # average_checkpoints.py
    fitted = " + first-frame fit" if any("first_frame_fit" in h for h in history) else ""  # fit_first_frame.py
    if any("head_mlp_fit" in h for h in history):  # scripts/fit_head_mlp.py
        fitted += " + head MLP fit"
    if still_history_shift:
        fitted += f" + still shift {still_history_shift:g}"

    def compose(mean):
        return (f"{variant} trained {step} steps" + mean + fitted +
                f", {minutes:.0f} min on {'/'.join(gpus)} ({when}); data {' + '.join(data)}, {HELD_OUT_SCENE} "
                f"held out; {spatial} + {temporal}")
    long_mean = short_mean = ""
    if averaged:  # the last mean made these weights; "shares" marks a weighted one (an interpolation)
        n = averaged[-1]["averaged"]
        weighted = "shares" in averaged[-1]
        long_mean = f" (interpolated between {n} checkpoints)" if weighted else f" (mean of {n} checkpoints)"
        short_mean = f" (weighted mean of {n})" if weighted else f" (mean of {n})"
    text = compose(long_mean)
    if len(text) > DESCRIPTION_ROOM and short_mean:  # the short form, rather than lose the end of the line
        text = compose(short_mean)
    if len(text) > DESCRIPTION_ROOM:  # what the C API would cut anyway, cut visibly
        text = text[:DESCRIPTION_ROOM - 3] + "..."
    crops = sorted({int(h.get("crop", 96)) for h in chunks}) or [96]
    crop_sides = "-".join(str(c) for c in sorted({crops[0], crops[-1]}))  # "128" or "96-128"
    # What the clips were, most telling first: whether any chunk saw the scenes mirrored
    # (--augment), the clip lengths, render crop sides other than the default 96. Each part is
    # added only while the C API's 255 characters (with "embedded full: " before the description)
    # keep all of it.
    parts = [", mirrored" if any(h.get("augment") for h in chunks) else "",
             f", {frames}-frame clips" + (f", <={burn} burn-in" if burn else ""),
             f", {crop_sides} px crops" if crop_sides != "96" else ""]
    kept = ""
    for part in parts:
        if part and len(text + kept + part) <= DESCRIPTION_ROOM:
            kept += part
    return text + kept


def draw_burn_in(rng, burn_in, reset_share):
    """The unscored frames before a batch's scored ones: 0 (the clip starts at a camera cut, its
    first scored frame has no history) with probability reset_share, else uniform in 0..burn_in.
    Why a share of cuts: `swinup eval` pools every frame of a sequence into its PSNR, and the first
    frames, whose history is still building, have 2-3x the error of later ones (breakfast_room 2x:
    frames 0-3 hold 18% of the pooled squared error), while uniform burn-in scores frame 0 in one
    clip of burn_in + 1. Measured (docs/quality.md, "Four more levers"): a share of 0.3 gained
    0.08 dB on frame 0 and lost 0.16 dB on the later frames."""
    if not 0.0 <= reset_share <= 1.0:
        raise ValueError(f"reset_share {reset_share!r}: expected a share in [0, 1]")
    if reset_share > 0.0 and rng.random() < reset_share:
        return 0
    return rng.randint(0, burn_in)


def device_label(device, world):
    """The chunk's device for the history: "NVIDIA H200", "NVIDIA H200 x2" for ranks on two GPUs,
    "NVIDIA H200, 3 ranks" for ranks sharing one (gloo)."""
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    if world == 1:
        return name
    gpus = min(world, torch.cuda.device_count()) if device.type == "cuda" else 1
    if gpus == world:
        return f"{name} x{world}"
    return f"{name}" + (f" x{gpus}" if gpus > 1 else "") + f", {world} ranks"


def average_gradients(params, world):
    """Data parallel: every rank's gradients become the mean over the ranks, in one all_reduce of
    one flat buffer (one collective a step instead of one for each of the network's 150 or so
    parameter tensors, most of them small; the two were not timed against each other). The buffer
    covers every parameter. A rank whose batch left one unused (its gradient None) would otherwise
    send a shorter buffer than the others: on the H200 (2026-12-01) a 3-rank run stopped when gloo
    found one rank's buffer shorter than its neighbour's, which only None gradients can make; with
    every parameter in the buffer the next run trained to the end."""
    params = list(params)
    for p in params:  # a parameter a rank's batch left unused: zeros, so that every rank's buffer matches
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    grads = [p.grad for p in params]
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat /= world
    offset = 0
    for g in grads:
        g.copy_(flat[offset:offset + g.numel()].view_as(g))
        offset += g.numel()


def keep_reserved_zero(model):
    """Head outputs 8..15 are reserved: zero weights and biases in v1 (model.md). The experiments
    that read some of them train those rows: the display refinement (display_refine.py) rows 8-11,
    the history clip (history_clip.py) its ROW, the sample residual (sample_residual.py) its ROWS."""
    trained = set()
    if getattr(model, "display_refine", None) is not None:
        trained.update(range(*FEATURE_ROWS))
    if getattr(model, "history_clip", None) is not None:
        trained.add(CLIP_ROW)
    if getattr(model, "sample_residual", None) is not None:
        trained.update(range(*RESIDUAL_ROWS))
    with torch.no_grad():
        for row in range(8, 16):
            if row not in trained:
                model.p("head.linear.weight")[row].zero_()
                model.p("head.linear.bias")[row].zero_()


HELD_OUT_SCENE = "breakfast_room"  # the held-out check (docs/quality.md): never trained or fitted on


def holds_held_out_scene(paths):
    """Whether any of the data folders is a sequence of the held-out scene (its name in the path,
    as the renderer's and device_eval.sh's folders are named)."""
    return any(HELD_OUT_SCENE in p for p in paths)


def _data_name(path):
    """A training sequence's scene: its folder name without the camera and scale suffixes that
    render_training_data.sh adds (gas_station_orbit -> gas_station, fence_pan_3x -> fence), for
    the history and the description built from it."""
    name = os.path.basename(os.path.normpath(path))
    head, _, tail = name.rpartition("_")
    if head and re.fullmatch(r"\d+(\.\d+)?x", tail):  # the extra large-scale sequences' suffix
        name = head
        head, _, tail = name.rpartition("_")
    return head if head and tail in ("own", "pan", "orbit", "shake", "dolly", "static") else name


def main(argv=None):
    ap = argparse.ArgumentParser(description="Train swinup through its recurrence.")
    ap.add_argument("--variant", default="lite", choices=["lite", "full"])
    ap.add_argument("--data", action="append", default=[],
                    help="sequence folder (repeatable; a folder named n times is drawn n times as often)")
    ap.add_argument("--procedural", type=float, default=None,
                    help="fraction of batches from data.py's 2.5D-layer generator (default 1 without "
                         "--data, else 0.3)")
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--init-weights", default=None, help="weights file to start from (no checkpoint)")
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--frames", type=int, default=8, help="scored frames per clip")
    ap.add_argument("--burn-in", type=int, default=0,
                    help="most frames a clip runs before its scored ones, without gradient or loss "
                         "(per batch uniformly 0..N), so that the loss sees steady-state history")
    ap.add_argument("--reset-share", type=float, default=0.0,
                    help="share of batches whose clips start at a camera cut (no burn-in): the first "
                         "frames, which the evaluation scores too, weigh more")
    ap.add_argument("--first-frame-weight", type=float, default=1.0,
                    help="weight of a scored frame without history (a clip's first after no burn-in, or "
                         "a camera cut) in the spatial and display terms: the evaluation's first frame "
                         "has the largest squared error of a sequence")
    ap.add_argument("--crop", type=int, default=96, help="render crop side (multiple of 32)")
    ap.add_argument("--augment", action="store_true",
                    help="show each batch in one of the square's eight mirrors (flips, transpose; "
                         "data.mirror_clip), so that the network sees every orientation of the scenes")
    ap.add_argument("--lr", type=float, default=4e-4)
    ap.add_argument("--decay", action="store_true",
                    help="cosine decay of the learning rate to lr/20 over this chunk's --minutes")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--temporal-weight", type=float, default=0.5)
    ap.add_argument("--temporal-norm", default="l1", choices=["l1", "rms"],
                    help="the temporal term: mean absolute or root-mean-square change error "
                         "(rms: the statistic of `swinup eval`'s temporal error)")
    ap.add_argument("--temporal-alignment", default="motion", choices=["motion", "pixel"],
                    help="compare each display pixel's change along the motion on stable pixels "
                         "(motion, as `swinup eval` does) or with the same pixel of the last frame "
                         "(pixel, the term of the format-1 and early format-2 chunks)")
    ap.add_argument("--display-weight", type=float, default=0.0,
                    help="add this times the L1 distance of display-encoded colour (sRGB after the "
                         "evaluation's LDR clamp or HDR Reinhard: the space `swinup eval` scores) to "
                         "the t-space L1")
    ap.add_argument("--display-norm", default="l1", choices=["l1", "rms"],
                    help="the display term as a mean absolute error or, per clip, a root mean square "
                         "(the statistic of `swinup eval`'s PSNR)")
    ap.add_argument("--temporal-space", default="t", choices=["t", "display"],
                    help="the colours whose changes the temporal term compares: t-space or "
                         "display-encoded (the space of `swinup eval`'s temporal error)")
    ap.add_argument("--save-every", type=int, default=200)
    ap.add_argument("--optimizer-state", default=None,
                    help="a side file (keep it out of the repository) for the optimiser's moments and "
                         "the float32 master weights: written with every save, read at the start when it "
                         "belongs to the checkpoint's step, so that chunks chained on one machine continue "
                         "as one run (give the later ones --warmup 0)")
    ap.add_argument("--display-refine", action="store_true",
                    help="an experiment no backend runs: refine the history weight per display pixel "
                         "(display_refine.py); the checkpoint then holds its parameters")
    ap.add_argument("--pixel-mlp", action="store_true",
                    help="an experiment no backend runs: lite's skip0 plus a ReLU layer of the staged "
                         "slots, zero-initialised (pixel_mlp.py); the checkpoint then holds its parameters")
    ap.add_argument("--head-mlp", action="store_true",
                    help="the network with the head MLP (docs/model-spec.md, \"The head MLP\"): a ReLU "
                         "MLP of the head's normalised input and the staged slots added to head outputs "
                         "0-7, zero-initialised when the checkpoint has none; a checkpoint that has it "
                         "keeps it without this option")
    ap.add_argument("--history-clip", action="store_true",
                    help="an experiment no backend runs: move the reprojected history toward the range "
                         "of this frame's 3x3 samples by a learned per-render-pixel strength "
                         "(history_clip.py); the checkpoint then holds its parameters")
    ap.add_argument("--sample-residual", action="store_true",
                    help="an experiment no backend runs: add a learned t-space correction (head rows "
                         "13-15) to each render sample before the output pass gathers it "
                         "(sample_residual.py); the checkpoint then holds its parameters")
    ap.add_argument("--experiment-lr-scale", type=float, default=1.0,
                    help="learning rate of the attached experiments' and the head MLP's parameters, as a "
                         "multiple of --lr: "
                         "a zero-initialised module continued from trained weights needs many steps at "
                         "the network's rate before it contributes; 0 holds them fixed (a fitted start, "
                         "scripts/fit_head_mlp.py, which training at the recipe's rate undoes)")
    ap.add_argument("--experiment-history-filter", choices=sorted(HISTORY_FILTERS), default="lanczos3",
                    help="the filter the output pass reads its history with while training: lanczos3, "
                         "the network's; catmull-rom, the one every checkpoint before the twenty-eighth "
                         "session was trained with (a control arm: the backends read with Lanczos-3, "
                         "so its export is scored with the filter it was not trained with)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exact", action="store_true", help="exact-mode forward (slower)")
    ap.add_argument("--compile", action="store_true",
                    help="run the network's forward pass through torch.compile (torch >= 2, fast mode; "
                         "fewer, fused kernels a frame)")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--profile", type=int, default=0,
                    help="measure N steps (after 3 unmeasured ones) with torch.profiler, print "
                         "where the time goes, save nothing")
    ap.add_argument("--dist-backend", default=None,
                    help="torch.distributed backend (default nccl on GPUs, gloo on CPU)")
    args = ap.parse_args(argv)
    if args.crop % 32:
        ap.error("--crop must be a multiple of 32")
    if not 0.0 <= args.reset_share <= 1.0:
        ap.error(f"--reset-share must be in [0, 1], got {args.reset_share}")
    if not args.display_weight >= 0.0:
        ap.error(f"--display-weight must be >= 0, got {args.display_weight}")
    if not args.first_frame_weight > 0.0:
        ap.error(f"--first-frame-weight must be > 0, got {args.first_frame_weight}")
    if not args.experiment_lr_scale >= 0.0:
        ap.error(f"--experiment-lr-scale must be >= 0, got {args.experiment_lr_scale}")
    if args.pixel_mlp and args.variant != "lite":
        ap.error("--pixel-mlp is lite's (its skip0); full's pixel level is embed0 and enc0/dec0")
    if holds_held_out_scene(args.data):
        ap.error(f"{HELD_OUT_SCENE} is the held-out check: do not train on it")

    use_history_filter(args.experiment_history_filter)

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if torch.cuda.is_available():
        index = local % torch.cuda.device_count()  # ranks share GPUs only when told to (gloo)
        torch.cuda.set_device(index)
        device = torch.device("cuda", index)
        # Fast mode: TF32 products (linear layers multiply e4m3 values, exact in TF32; attention's
        # f16 operands lose their last bit, training does not need it). Exact mode: true f32/f64.
        torch.backends.cuda.matmul.allow_tf32 = not args.exact
    else:
        device = torch.device("cpu")
    if world > 1:
        dist.init_process_group(args.dist_backend or ("nccl" if device.type == "cuda" else "gloo"))

    ckpt = args.checkpoint or os.path.join(ROOT, "python", "checkpoints", f"{args.variant}.pt")
    # The network with the head MLP when asked for or when the checkpoint already has it.
    init = args.init_weights or os.path.join(ROOT, "weights", f"{args.variant}.safetensors")
    # The checkpoint (or, without one, the weights file) is read once, here.
    record = read_checkpoint(ckpt, args.variant) if os.path.exists(ckpt) else None
    init_weights = read_weights(init) if record is None else None
    head_mlp = args.head_mlp or (record["head_mlp"] if record is not None else init_weights[0].head_mlp)
    cfg = ModelConfig.make(args.variant, head_mlp=head_mlp)
    model = SwinUp(cfg, exact=args.exact)
    if head_mlp:
        model.init_head_mlp(args.seed)
    for name in experiments.EXPERIMENTS:
        if getattr(args, name):  # each experiment's option (--display-refine, --pixel-mlp) sets args.<name>
            experiments.attach(model, name, seed=args.seed)
    if args.optimizer_state and os.path.abspath(args.optimizer_state) == os.path.abspath(ckpt):
        ap.error("--optimizer-state must not be the checkpoint: the side file would overwrite it")
    step, history = 0, []
    if record is not None:
        step, history = load_checkpoint(ckpt, model, record)
        origin = f"checkpoint {ckpt} at step {step}"
    else:
        _, tensors, desc = init_weights
        model.load_tensors(tensors, fix_scales=False)
        origin = f"{init} ({desc})"
    keep_reserved_zero(model)
    model.to(device)
    if args.compile:
        try:
            model.compile_forward()
        except (ValueError, RuntimeError) as e:  # exact mode, or a torch without torch.compile
            ap.error(f"--compile: {e}")
    if world > 1:
        for p in model.parameters():
            dist.broadcast(p.data, 0)
    if rank == 0:
        print(f"swinup train: {args.variant}, from {origin}, {world} rank(s) on {device}", flush=True)

    t_load = time.time()
    seqs = load_sequence_folders(args.data, device)
    if rank == 0 and seqs:
        print(f"loaded {len(seqs)} sequence(s) in {time.time() - t_load:.1f} s", flush=True)
    frac = args.procedural if args.procedural is not None else (0.3 if seqs else 1.0)
    procedural = ProceduralScenes(device, seed=args.seed * 1000 + rank + step)
    rng = random.Random(args.seed * 1000 + rank + step)
    opt = torch.optim.AdamW(parameter_groups(model, args.experiment_lr_scale), lr=args.lr, weight_decay=0.0)
    if args.optimizer_state and os.path.exists(args.optimizer_state):
        resumed = load_optimizer_state(args.optimizer_state, model, opt, step)
        if rank == 0:
            print(f"optimiser state {args.optimizer_state}: " + ("continued" if resumed else
                  "not this checkpoint's (another variant, step or set of experiments), starting with fresh moments"), flush=True)
    start_step = step
    t0 = time.time()
    last_save = step

    def save():
        save_checkpoint(ckpt, model, step, history)
        if args.optimizer_state:
            save_optimizer_state(args.optimizer_state, model, opt, step)
    chunk = {"date": datetime.date.today().isoformat(), "start_step": step, "steps": 0,
             "minutes": 0.0, "device": device_label(device, world),
             "data": sorted({_data_name(d) for d in args.data} |
                            ({"2.5D layers"} if frac > 0 else set())),
             "batch": args.batch * world, "crop": args.crop, "frames": args.frames, "lr": args.lr,
             "temporal_weight": args.temporal_weight, "temporal_norm": args.temporal_norm,
             "temporal_alignment": args.temporal_alignment}
    if args.display_weight > 0.0:
        chunk["display_weight"] = args.display_weight
        if args.display_norm != "l1":
            chunk["display_norm"] = args.display_norm
    if args.temporal_space != "t":
        chunk["temporal_space"] = args.temporal_space
    if args.burn_in:
        chunk["burn_in"] = args.burn_in
    if args.reset_share:
        chunk["reset_share"] = args.reset_share
    if args.experiment_lr_scale != 1.0:
        chunk["experiment_lr_scale"] = args.experiment_lr_scale
    if args.experiment_history_filter != "lanczos3":
        chunk["history_filter"] = args.experiment_history_filter
    if args.first_frame_weight != 1.0:
        chunk["first_frame_weight"] = args.first_frame_weight
    if args.compile:
        chunk["compiled"] = True
    if args.augment:
        chunk["augment"] = "mirrors"
    for name in trained_extras(model):
        chunk[name] = True
    history = history + [chunk]
    pixels = 0
    batch = args.batch
    profiler = None
    while True:
        stop = bool(args.max_steps and step - start_step >= args.max_steps) or \
            time.time() - t0 > args.minutes * 60
        if args.profile:
            if step - start_step == 3:
                profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU] + (
                    [torch.profiler.ProfilerActivity.CUDA] if device.type == "cuda" else []))
                profiler.__enter__()
            stop = step - start_step >= 3 + args.profile
        if world > 1:  # every rank must leave at the same step, or the others wait in all_reduce
            flag = torch.tensor([1.0 if stop else 0.0], device=device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            stop = bool(flag.item() > 0)
        if stop:
            break
        warm = min(1.0, (step - start_step + 1) / max(1, args.warmup))
        lr = args.lr * warm
        if args.decay:
            progress = min(1.0, (time.time() - t0) / (args.minutes * 60))
            lr *= 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress))
        for g in opt.param_groups:
            g["lr"] = lr * g["lr_scale"]
        burn = draw_burn_in(rng, args.burn_in, args.reset_share)
        if seqs and rng.random() >= frac:
            clip = batch_from_folders(seqs, batch, burn + args.frames, args.crop, rng, device)
        else:
            clip = procedural.batch(batch, burn + args.frames, args.crop, hdr=rng.random() < 0.5)
        if args.augment:
            clip = random_mirror(clip, rng)
        opt.zero_grad(set_to_none=True)
        try:
            _, spatial, temporal = unroll(model, clip, exact=args.exact, burn_in=burn,
                                          temporal_norm=args.temporal_norm,
                                          temporal_alignment=args.temporal_alignment,
                                          display_weight=args.display_weight,
                                          display_norm=args.display_norm,
                                          temporal_space=args.temporal_space,
                                          first_frame_weight=args.first_frame_weight)
            loss = spatial + args.temporal_weight * temporal
            loss.backward()
        except torch.cuda.OutOfMemoryError:
            if batch == 1 or world > 1:
                raise
            del clip
            opt.zero_grad(set_to_none=True)
            torch.cuda.empty_cache()
            batch //= 2
            print(f"out of GPU memory: batch now {batch}", flush=True)
            chunk["batch"] = batch
            continue
        pixels += clip["gt"].shape[0] * clip["gt"].shape[1] * clip["gt"].shape[2] * clip["gt"].shape[3]
        if world > 1:
            average_gradients(model.parameters(), world)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if not torch.isfinite(loss.detach()):
            raise FloatingPointError(f"step {step}: loss is {loss.item()}")
        opt.step()
        keep_reserved_zero(model)
        step += 1
        if rank == 0 and step % args.log_every == 0:
            took = time.time() - t0
            print(f"step {step} loss {loss.item():.5f} (spatial {spatial.item():.5f}, temporal "
                  f"{temporal.item():.5f}) grad {grad_norm.item():.3f} lr {lr:.2e} "
                  f"{took / max(1, step - start_step):.3f} s/step, "
                  f"{pixels * world / took / 1e6:.1f} M display px-frames/s" +
                  (f", {torch.cuda.max_memory_allocated(device) / 2**30:.0f} GiB peak"
                   if device.type == "cuda" else ""), flush=True)
        chunk["steps"] = step - start_step
        chunk["minutes"] = round((time.time() - t0) / 60, 2)
        if rank == 0 and step - last_save >= args.save_every and not args.profile:
            save()
            last_save = step
    if profiler is not None:
        profiler.__exit__(None, None, None)
        sort = "self_cuda_time_total" if device.type == "cuda" else "self_cpu_time_total"
        print(profiler.key_averages().table(sort_by=sort, row_limit=30), flush=True)
        return
    if rank == 0:
        save()
        print(f"saved {ckpt} at step {step}", flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
