"""AdamW's parameter groups (the network's, and the experiments' and head MLP's at their own
multiple of the learning rate) and the optimiser-state side file that lets chunks chained on one
machine continue the optimiser where the last one stopped."""
import os

import torch

from ..model import HEAD_MLP_PREFIX
from ..research import experiments
from .checkpoint import write_checkpoint
from .trained_parameters import NEVER_TRAINED, network_parameter_names, trained_names


def trained_extras(model) -> list:
    """What a run trains besides the network without the head MLP: the attached experiments and the
    head MLP (the names its chunk records and its optimiser state file checks)."""
    return (["head_mlp"] if model.cfg.head_mlp else []) + experiments.attached(model)


def parameter_groups(model, experiment_lr_scale=1.0):
    """AdamW's parameter groups: the network's, then (when attached) the experiments', each with the
    multiple of the learning rate it trains at ("lr_scale", read by the schedule every step). Only
    parameters that train (requires_grad: trained_parameters.freeze_untrained); a group left
    without any is left out."""
    extra = [p for name in experiments.attached(model) for p in getattr(model, name).parameters()]
    extra += [p for name, p in model.params.items() if name.startswith(HEAD_MLP_PREFIX)]
    ids = {id(p) for p in extra}
    network = [p for p in model.parameters() if id(p) not in ids and p.requires_grad]
    extra = [p for p in extra if p.requires_grad]
    groups = [{"params": network, "lr_scale": 1.0}] if network else []
    if extra:
        groups.append({"params": extra, "lr_scale": experiment_lr_scale})
    return groups


def save_optimizer_state(path, model, opt, step):
    """The optimiser's moments and the float32 master weights at `step` (the checkpoint keeps
    f16 weights and no moments, to stay small enough for the repository; this side file lets
    chunks chained on one machine continue exactly where the last one stopped)."""
    write_checkpoint(path, {"format": "swinup-optimizer-state", "variant": model.cfg.variant,
                            "step": step, "optimizer": opt.state_dict(),
                            "experiments": trained_extras(model), "trained": trained_names(model),
                            "params": {n: p.detach().cpu().clone() for n, p in model.params.items()}})


def load_optimizer_state(path, model, opt, step):
    """Loads a save_optimizer_state file into the model and optimiser if it was written at
    `step` for this variant and these experiments (the checkpoint just loaded, the run's
    options); returns whether it was. The learning-rate multiples stay this run's."""
    side = torch.load(path, map_location="cpu")
    if side.get("format") != "swinup-optimizer-state":
        raise ValueError(f"{path}: not a swinup optimiser-state file")
    # Files from before --train-only trained every parameter of a network without mask_embed.
    everything = [n for n in network_parameter_names(model) if n not in NEVER_TRAINED]
    if (side.get("variant") != model.cfg.variant or side.get("step") != step
            or side.get("experiments", []) != trained_extras(model)
            or side.get("trained", everything) != trained_names(model)):
        return False
    with torch.no_grad():
        for name, p in model.params.items():
            p.copy_(side["params"][name].to(p.device))
    scales = [g["lr_scale"] for g in opt.param_groups]
    opt.load_state_dict(side["optimizer"])
    for g, scale in zip(opt.param_groups, scales):
        g["lr_scale"] = scale
    return True


def make_optimizer(model, args, step, verbose):
    """The run's AdamW (no weight decay), continued from --optimizer-state when that file belongs
    to this start (step, variant and experiments); verbose: say which."""
    opt = torch.optim.AdamW(parameter_groups(model, args.experiment_lr_scale), lr=args.lr, weight_decay=0.0)
    if args.optimizer_state and os.path.exists(args.optimizer_state):
        resumed = load_optimizer_state(args.optimizer_state, model, opt, step)
        if verbose:
            print(f"optimiser state {args.optimizer_state}: " + ("continued" if resumed else
                  "not this checkpoint's (another variant, step, set of experiments or of trained "
                  "parameters), starting with fresh moments"), flush=True)
    return opt
