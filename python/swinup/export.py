"""Export a training checkpoint to the library's weights file (python -m swinup.export RUN_DIR):
e4m3 codes with power-of-two per-channel scales, f32 biases and gains, f16 bias tables, in the
layout src/model/weights.cpp loads (weights_io.py).

Where: `export RUN_DIR` writes the run folder's checkpoint to RUN_DIR/<variant>.safetensors;
`export --checkpoint CKPT --out FILE` any checkpoint to FILE (without --checkpoint, the shipped
one). It never writes over an existing file unless --force, and never over the shipped weights:
python -m swinup.promote RUN_DIR replaces those."""
import argparse
import dataclasses
import os

import numpy as np

from . import shipped
from .model import SwinUp
from .training.checkpoint import checkpoint_config, load_checkpoint, read_checkpoint
from .training.history import describe_training
from .training.reserved_rows import keep_reserved_zero
from .training.run_folder import run_checkpoint
from .usage_errors import value_errors_as_usage
from .weights_io import write_weights, zero_mask_embed


# The still-pixel shift of the shipped networks (2026-12-04,
# docs/journal/2026-12-04-still-pixel-history-shift-9cbcbcb.md): training never sees it, so an
# export adds it, and a re-export keeps it.
SHIPPED_STILL_HISTORY_SHIFT = {"lite": 0.75, "full": 0.75}


def export_paths(run_dir, variant, checkpoint, out, root=shipped.ROOT):
    """(variant, checkpoint to read, weights file to write) for the command line's choices; raises
    ValueError when they do not name both or name a shipped file as the output."""
    if run_dir is not None:
        if checkpoint is not None:
            raise ValueError("a run folder or --checkpoint: give one")
        variant, checkpoint = run_checkpoint(run_dir, variant)
        out = out or os.path.join(run_dir, f"{variant}.safetensors")
    variant = variant or "lite"
    checkpoint = checkpoint or shipped.checkpoint(variant, root)
    if out is None:
        raise ValueError("where to? give a run folder (export RUN_DIR) or --out FILE")
    shipped.refuse_shipped(out, "--out", root)
    return variant, checkpoint, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir", nargs="?", default=None, metavar="RUN_DIR",
                    help="a run folder (train.py's): its <variant>.pt is exported beside it")
    ap.add_argument("--variant", default=None, choices=list(shipped.VARIANTS),
                    help="default lite, or the run folder's")
    ap.add_argument("--checkpoint", default=None,
                    help="the checkpoint to export (default the run folder's, else the shipped one)")
    ap.add_argument("--out", default=None, help="the weights file (default RUN_DIR/<variant>.safetensors)")
    ap.add_argument("--force", action="store_true", help="write over an existing --out")
    ap.add_argument("--description", default=None)
    ap.add_argument("--still-history-shift", type=float, default=None,
                    help="added to the history weight's logit at still render pixels (weights format "
                         "4; docs/model-spec.md); default: the shipped network's, SHIPPED_STILL_HISTORY_SHIFT")
    args = ap.parse_args(argv)
    # Usage errors: the paths, another variant's, another version's, or an experiment's checkpoint.
    with value_errors_as_usage(ap):
        variant, ckpt, out = export_paths(args.run_dir, args.variant, args.checkpoint, args.out)
        if os.path.exists(out) and not args.force:
            raise ValueError(f"{out} exists: give --force to write over it, or another --out")
        record = read_checkpoint(ckpt, variant)
        model = SwinUp(checkpoint_config(record))  # with the head MLP when the checkpoint has it
        step, history = load_checkpoint(ckpt, model, record)
    keep_reserved_zero(model)
    shift = SHIPPED_STILL_HISTORY_SHIFT[variant] if args.still_history_shift is None else args.still_history_shift
    desc = args.description or describe_training(variant, step, history, shift)
    # Weights format 5 reads the masks; a network trained without them gets a zero mask_embed,
    # which computes exactly what the network computes without the layer (docs/masks.md). A
    # network trained with them keeps its mask_embed, whose bias must be zero: the GPU backends
    # refuse another (training never trains it: training/trained_parameters.py).
    cfg = dataclasses.replace(model.cfg, still_history_shift=float(shift), masks=True)
    tensors = model.export_tensors()
    if not model.cfg.masks:
        tensors.update(zero_mask_embed(cfg))
    elif np.any(tensors["mask_embed.bias"] != 0):
        ap.error(f"{ckpt}: mask_embed.bias is not zero (max |bias| {np.abs(tensors['mask_embed.bias']).max():g}); "
                 "the backends need it zero, and train.py never trains it")
    write_weights(out, cfg, tensors, desc)
    print(f"wrote {out} ({desc})")


if __name__ == "__main__":
    main()
