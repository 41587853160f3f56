"""Export a training checkpoint to the library's weights file (python -m swinup.export):
e4m3 codes with power-of-two per-channel scales, f32 biases and gains, f16 bias tables, in the
layout src/core/weights.cpp loads (weights_io.py)."""
import argparse
import dataclasses
import os

from .model import SwinUp
from .train import ROOT, checkpoint_config, describe_training, keep_reserved_zero, load_checkpoint, read_checkpoint
from .weights_io import write_weights


# The still-pixel shift of the shipped networks (docs/quality.md, "The history weight on still
# pixels"): training never sees it, so an export adds it, and a re-export keeps it.
SHIPPED_STILL_HISTORY_SHIFT = {"lite": 0.75, "full": 0.75}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="lite", choices=["lite", "full"])
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--out", default=None, help="default weights/<variant>.safetensors")
    ap.add_argument("--description", default=None)
    ap.add_argument("--still-history-shift", type=float, default=None,
                    help="added to the history weight's logit at still render pixels (weights format "
                         "4; docs/model-spec.md); default: the shipped network's, SHIPPED_STILL_HISTORY_SHIFT")
    args = ap.parse_args(argv)
    ckpt = args.checkpoint or os.path.join(ROOT, "python", "checkpoints", f"{args.variant}.pt")
    try:
        record = read_checkpoint(ckpt, args.variant)
        model = SwinUp(checkpoint_config(record))  # with the head MLP when the checkpoint has it
        step, history = load_checkpoint(ckpt, model, record)
    except ValueError as e:  # another variant's, another version's, or the display refinement's
        ap.error(str(e))
    keep_reserved_zero(model)
    out = args.out or os.path.join(ROOT, "weights", f"{args.variant}.safetensors")
    shift = SHIPPED_STILL_HISTORY_SHIFT[args.variant] if args.still_history_shift is None else args.still_history_shift
    desc = args.description or describe_training(args.variant, step, history, shift)
    cfg = dataclasses.replace(model.cfg, still_history_shift=float(shift))
    write_weights(out, cfg, model.export_tensors(), desc)
    print(f"wrote {out} ({desc})")


if __name__ == "__main__":
    main()
