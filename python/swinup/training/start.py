"""The network a run starts from: its start checkpoint (the step count, the master weights and the
history continue from it) or, without one, a weights file (step 0, no history), with the head MLP
and the mask embedding when asked for or when the start already has them, and the experiments the
options attach."""

import numpy as np

from ..model import SwinUp
from ..research import experiments
from ..spec import ModelConfig
from ..weights_io import read_weights
from .checkpoint import load_checkpoint, read_checkpoint
from .options import attached_experiments
from .reserved_rows import keep_reserved_zero


def start_model(args, plan):
    """(model on the CPU, step, history, a line naming where it started) for a run planned by
    run_folder.plan. The start is read once, here."""
    record = read_checkpoint(plan.start_checkpoint, plan.variant) if plan.start_checkpoint else None
    init_weights = read_weights(plan.start_weights) if record is None else None
    head_mlp = args.head_mlp or (record["head_mlp"] if record is not None else init_weights[0].head_mlp)
    masks = args.masks or (record["masks"] if record is not None else has_mask_embed(init_weights[1]))
    # The still-pixel shift is not a weight: checkpoints do not hold it, export writes it; a run
    # trains with the one --still-history-shift names (0: without it).
    model = SwinUp(ModelConfig.make(plan.variant, head_mlp=head_mlp, masks=masks,
                                    still_history_shift=args.still_history_shift), exact=args.exact)
    if head_mlp:
        model.init_head_mlp(args.seed)
    for name in attached_experiments(args):
        experiments.attach(model, name, seed=args.seed)
    step, history = 0, []
    if record is not None:
        step, history = load_checkpoint(plan.start_checkpoint, model, record)
        origin = f"checkpoint {plan.start_checkpoint} at step {step}"
    else:
        _, tensors, desc = init_weights
        model.load_tensors(tensors, fix_scales=False)
        origin = f"{plan.start_weights} ({desc})"
    keep_reserved_zero(model)
    return model, step, history, origin


def has_mask_embed(tensors) -> bool:
    """Whether a weights file's tensors hold a mask embedding that does something: a zero one (the
    shipped files' since format 5) is the network without it (docs/masks.md), which a run keeps
    unless --masks asks for the layer."""
    return any(np.any(np.asarray(tensors[n]) != 0) for n in ("mask_embed.weight", "mask_embed.bias")
               if n in tensors)
