"""Makes a run's network the shipped one (python -m swinup.promote RUN_DIR [--variant V]): copies
RUN_DIR/<variant>.pt over python/checkpoints/<variant>.pt and RUN_DIR/<variant>.safetensors over
weights/<variant>.safetensors. Nothing else writes those files (training and export write into run
folders), so replacing them is this one explicit step.

It first checks that the weights file is the export of the checkpoint beside it (the same variant,
config and tensors, bit for bit; the description and the still-pixel shift are export's choices),
so that the shipped pair stays one network; export the run again (--force) if it is not. Each file
is replaced atomically. After it: regenerate the golden data (python/scripts/make_golden.py), run
the tests, commit.

To ship a checkpoint that is not in a run folder (re-exporting the shipped one after a weights
format change, for one): copy it into a new folder as <variant>.pt, export that folder, promote it."""
import argparse
import os
import shutil

import numpy as np

from . import shipped
from .model import SwinUp
from .training.checkpoint import checkpoint_config, load_checkpoint, read_checkpoint
from .training.reserved_rows import keep_reserved_zero
from .training.run_folder import run_checkpoint
from .usage_errors import value_errors_as_usage
from .weights_io import read_weights, zero_mask_embed


def check_exported_from(checkpoint: str, weights: str, variant: str):
    """Raises ValueError unless `weights` holds exactly what exporting `checkpoint` writes."""
    record = read_checkpoint(checkpoint, variant)
    model = SwinUp(checkpoint_config(record))
    load_checkpoint(checkpoint, model, record)  # refuses a checkpoint holding an experiment
    keep_reserved_zero(model)
    cfg, tensors, _ = read_weights(weights)
    expected = model.export_tensors()
    if cfg.variant != variant or cfg.head_mlp != model.cfg.head_mlp:
        raise ValueError(f"{weights}: a {cfg.variant} network{' with' if cfg.head_mlp else ' without'} the head MLP, "
                         f"{checkpoint} holds {variant}{' with' if model.cfg.head_mlp else ' without'} it")
    if not model.cfg.masks:  # export gives such a network a zero mask_embed (weights format 5)
        expected.update(zero_mask_embed(cfg))
    differ = sorted(name for name in expected
                    if name not in tensors or not np.array_equal(tensors[name], expected[name]))
    if differ:
        raise ValueError(f"{weights} is not the export of {checkpoint} ({len(differ)} tensors differ, "
                         f"{', '.join(differ[:3])}): export the run again with --force")


def replace_file(source: str, target: str):
    """target becomes a copy of source; an interrupted copy leaves target as it was."""
    tmp = target + ".tmp"
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def promote(run_dir: str, variant=None, root: str = shipped.ROOT):
    """Replaces root's shipped checkpoint and weights file of the run's variant with the run's;
    returns [(source, shipped file)]."""
    variant, checkpoint = run_checkpoint(run_dir, variant)
    weights = os.path.join(run_dir, f"{variant}.safetensors")
    if not os.path.exists(weights):
        raise ValueError(f"{weights}: no weights file; export the run first (python -m swinup.export {run_dir})")
    check_exported_from(checkpoint, weights, variant)
    pairs = [(checkpoint, shipped.checkpoint(variant, root)), (weights, shipped.weights(variant, root))]
    for _, target in pairs:
        if not os.path.isdir(os.path.dirname(target)):
            raise ValueError(f"{root} is not a swinup repository: no {os.path.dirname(target)}")
    for source, target in pairs:
        replace_file(source, target)
    return pairs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir", metavar="RUN_DIR", help="a run folder holding <variant>.pt and its export")
    ap.add_argument("--variant", default=None, choices=list(shipped.VARIANTS),
                    help="the run folder's network (needed only when it holds both)")
    ap.add_argument("--repo", default=shipped.ROOT,
                    help="the repository whose shipped files are replaced (default this one)")
    args = ap.parse_args(argv)
    with value_errors_as_usage(ap):
        pairs = promote(args.run_dir, args.variant, args.repo)
    for source, target in pairs:
        print(f"replaced {target} with {source}")
    print("next: python/scripts/make_golden.py, then the tests")


if __name__ == "__main__":
    main()
