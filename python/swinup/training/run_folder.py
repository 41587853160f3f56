"""Where a training run reads and writes. A run writes into its own folder, never over the shipped
files (shipped.py): a new run starts from the shipped checkpoint (read only; --start CHECKPOINT or
--init-weights FILE for another start) and saves RUN_DIR/<variant>.pt, RUN_DIR a new
python/runs/<variant>-<UTC time> unless --run-dir names one; --resume RUN_DIR continues that run
from its checkpoint and saves back there. `python -m swinup.export RUN_DIR` writes the run's
weights file beside its checkpoint; `python -m swinup.promote RUN_DIR` makes both the shipped ones."""
import datetime
import os
from dataclasses import dataclass
from typing import Optional

from .. import shipped

RUNS = os.path.join(shipped.ROOT, "python", "runs")  # new run folders' parent (ignored by git)


@dataclass
class RunPlan:
    variant: str
    run_dir: str
    checkpoint: str  # what the run saves: RUN_DIR/<variant>.pt
    start_checkpoint: Optional[str]  # the checkpoint it starts from (read only unless resumed), or None
    start_weights: Optional[str]  # the weights file it starts from when there is no start checkpoint
    resumed: bool


def new_run_folder(variant: str, runs: Optional[str] = None, now: Optional[datetime.datetime] = None) -> str:
    """python/runs/<variant>-<UTC time, to the second>, with -2, -3... when that folder exists."""
    runs = runs or RUNS
    now = now or datetime.datetime.now(datetime.timezone.utc)
    base = os.path.join(runs, f"{variant}-{now.strftime('%Y%m%dT%H%M%SZ')}")
    path, n = base, 1
    while os.path.exists(path):
        n += 1
        path = f"{base}-{n}"
    return path


def run_checkpoint(run_dir: str, variant: Optional[str] = None):
    """(variant, RUN_DIR/<variant>.pt) of a run folder: the variant given, or the one whose
    checkpoint the folder holds. Raises ValueError when there is none, or two without a variant."""
    if not os.path.isdir(run_dir):
        raise ValueError(f"{run_dir}: no such run folder")
    variants = [variant] if variant else [v for v in shipped.VARIANTS
                                          if os.path.exists(os.path.join(run_dir, f"{v}.pt"))]
    if len(variants) > 1:
        raise ValueError(f"{run_dir} holds checkpoints of {' and '.join(variants)}: say which with --variant")
    if not variants or not os.path.exists(os.path.join(run_dir, f"{variants[0]}.pt")):
        raise ValueError(f"{run_dir}: no {variant or 'lite or full'} checkpoint (<variant>.pt) in this run folder")
    return variants[0], os.path.join(run_dir, f"{variants[0]}.pt")


def plan(args, runs: Optional[str] = None, root: str = shipped.ROOT) -> RunPlan:
    """The run the options ask for (train.py's --variant, --run-dir, --resume, --start,
    --init-weights, --optimizer-state). Raises ValueError naming what is wrong; never plans a write
    to a shipped file."""
    if args.resume:
        if args.run_dir or args.start or args.init_weights:
            raise ValueError("--resume continues a run from its own checkpoint: --run-dir, --start and "
                             "--init-weights are a new run's")
        variant, ckpt = run_checkpoint(args.resume, args.variant)
        result = RunPlan(variant, args.resume, ckpt, ckpt, None, resumed=True)
    else:
        variant = args.variant or "lite"
        run_dir = args.run_dir or new_run_folder(variant, runs)
        ckpt = os.path.join(run_dir, f"{variant}.pt")
        shipped.refuse_shipped(ckpt, "the run's checkpoint", root)
        if os.path.exists(ckpt):
            raise ValueError(f"{ckpt} exists: continue that run with --resume {run_dir}, or give another --run-dir")
        if args.start and args.init_weights:
            raise ValueError("--start and --init-weights: give one start")
        for given in (args.start, args.init_weights):
            if given and not os.path.isfile(given):
                raise ValueError(f"{given}: no such start file")
        if args.init_weights:
            start_ckpt, start_weights = None, args.init_weights
        elif args.start:
            start_ckpt, start_weights = args.start, None
        elif os.path.exists(shipped.checkpoint(variant, root)):
            start_ckpt, start_weights = shipped.checkpoint(variant, root), None
        else:  # a checkout without the shipped checkpoint: its weights file
            start_ckpt, start_weights = None, shipped.weights(variant, root)
        result = RunPlan(variant, run_dir, ckpt, start_ckpt, start_weights, resumed=False)
    shipped.refuse_shipped(result.checkpoint, "the run's checkpoint", root)
    if args.optimizer_state:
        if os.path.abspath(args.optimizer_state) == os.path.abspath(result.checkpoint):
            raise ValueError("--optimizer-state must not be the checkpoint: the side file would overwrite it")
        shipped.refuse_shipped(args.optimizer_state, "--optimizer-state", root)
    return result
