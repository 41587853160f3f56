"""Training checkpoints: the step count, the master weights (f16, small enough for the
repository), the training history (history.py) and the parameters of attached experiments, in one
torch.save'd record, written atomically and read back checked."""
import os

import torch

from ..model import HEAD_MLP_PREFIX, MASK_EMBED_PREFIX, SwinUp
from ..research import experiments
from ..shipped import refuse_shipped
from ..spec import ModelConfig

# 2 (2026-11-30): the network reads t(history) - t(colour) in staging slots 3-5 and the output
# pass blends jitter-aware (weights format_version 2). Every checkpoint since is version 2.
CHECKPOINT_VERSION = 2


def checkpoint_record(variant, step, history, params, head_mlp=False, masks=False):
    """What a checkpoint file holds (torch.save of this dict); read back by read_checkpoint.
    head_mlp: whether the network has the head MLP (its parameters are then among params);
    masks: whether it has the mask embedding (docs/masks.md; mask_embed's weight and bias are then
    among params). "masks" is written only when true, so that a checkpoint without the layer
    reads as the checkpoints before it."""
    record = {"format": "swinup-train-checkpoint", "version": CHECKPOINT_VERSION, "variant": variant,
              "step": step, "history": history, "params": params, "head_mlp": bool(head_mlp)}
    if masks:
        record["masks"] = True
    return record


def write_checkpoint(path, record):
    """Writes a checkpoint record atomically (a temporary file, then a rename): an interrupted
    write never leaves a half-written checkpoint where training resumes from. Never a shipped one
    (shipped.py: python -m swinup.promote replaces those)."""
    refuse_shipped(path, "checkpoint")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    torch.save(record, tmp)
    os.replace(tmp, path)


def save_checkpoint(path, model, step, history):
    tensors = {}
    for name, p in model.params.items():
        # Weights in f16 (they are re-quantised to e4m3 anyway); gains, biases, tables in f32. The
        # head MLP's weights stay f32: a fit (scripts/research/fit_head_mlp.py) is kept as it was
        # scored, and they are only 7,680 numbers.
        half = name.endswith("__weight") and not name.startswith(HEAD_MLP_PREFIX)
        tensors[name] = p.detach().cpu().to(torch.float16 if half else torch.float32)
    record = checkpoint_record(model.cfg.variant, step, history, tensors, model.cfg.head_mlp, model.cfg.masks)
    record.update(experiments.states(model))  # the experiments' parameters (experiments.py), f32
    write_checkpoint(path, record)


def read_checkpoint(path, variant=None):
    """A checkpoint record, checked: a swinup training checkpoint (of `variant` when given) of
    this CHECKPOINT_VERSION."""
    ck = torch.load(path, map_location="cpu")
    if ck.get("format") != "swinup-train-checkpoint" or (variant is not None and ck.get("variant") != variant):
        raise ValueError(f"{path}: not a {variant or 'swinup'} training checkpoint")
    if ck.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path}: checkpoint version {ck.get('version')}, expected {CHECKPOINT_VERSION}"
                         + ("; version 1 predates the difference slots and the jitter-aware blend "
                            "(2026-11-30) and is no longer read" if ck.get("version") == 1 else ""))
    if not isinstance(ck.get("head_mlp", False), bool):
        raise ValueError(f"{path}: 'head_mlp' is not true or false (the experiment form of "
                         "2026-12-02, w1..b3, was converted to the network's fc1..fc3)")
    ck["head_mlp"] = bool(ck.get("head_mlp", False))
    if ck.get("masks", False) not in (True, False):
        raise ValueError(f"{path}: 'masks' is {ck.get('masks')!r}, expected true or false")
    ck["masks"] = bool(ck.get("masks", False))
    return ck


def checkpoint_config(record):
    """The ModelConfig of the network a checkpoint record (read_checkpoint) holds: its variant,
    with or without the head MLP, with or without the mask embedding."""
    return ModelConfig.make(record["variant"], head_mlp=record["head_mlp"], masks=record["masks"])


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
    head MLP refuses a checkpoint that has one (its parameters would be dropped). The same for the
    mask embedding: a checkpoint without it leaves the model's at zero (the network without it,
    docs/masks.md), a model without it refuses a checkpoint that has it."""
    ck = record if record is not None else read_checkpoint(path)
    if ck["variant"] != model.cfg.variant:
        raise ValueError(f"{path}: not a {model.cfg.variant} training checkpoint")
    if ck["head_mlp"] and not model.cfg.head_mlp:
        raise ValueError(f"{path}: holds a network with the head MLP; build the model with "
                         "ModelConfig.make(variant, head_mlp=True) (train.py --head-mlp, "
                         "training.checkpoint.model_for_checkpoint)")
    if ck["masks"] and not model.cfg.masks:
        raise ValueError(f"{path}: holds a network with the mask embedding; build the model with "
                         "ModelConfig.make(variant, masks=True) (train.py --masks, "
                         "training.checkpoint.model_for_checkpoint)")
    with torch.no_grad():
        for name, p in model.params.items():
            if name.startswith(HEAD_MLP_PREFIX) and not ck["head_mlp"]:
                continue
            if name.startswith(MASK_EMBED_PREFIX) and not ck["masks"]:
                p.zero_()  # the layer's start: adds nothing
                continue
            p.copy_(ck["params"][name].to(torch.float32))
    experiments.load(path, ck, model)
    history = ck.get("history", [])
    if not history and ck.get("note"):
        history = [{"note": ck["note"]}]
    return int(ck["step"]), history
