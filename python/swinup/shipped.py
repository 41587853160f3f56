"""The shipped network files: the training checkpoints python/checkpoints/<variant>.pt and the
weights files weights/<variant>.safetensors exported from them. Training and export read them and
never write them (a run writes into its own folder, training/run_folder.py); replacing them is one
explicit step, python -m swinup.promote RUN_DIR."""
import os

# The repository's root: python/swinup/shipped.py is three levels below it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VARIANTS = ("lite", "full")


def checkpoint(variant: str, root: str = ROOT) -> str:
    return os.path.join(root, "python", "checkpoints", f"{variant}.pt")


def weights(variant: str, root: str = ROOT) -> str:
    return os.path.join(root, "weights", f"{variant}.safetensors")


def is_shipped(path: str, root: str = ROOT) -> bool:
    """Whether path names a shipped checkpoint or weights file (through links too)."""
    target = os.path.realpath(path)
    return any(target == os.path.realpath(p) for v in VARIANTS for p in (checkpoint(v, root), weights(v, root)))


def refuse_shipped(path: str, what: str, root: str = ROOT):
    """Raises ValueError when `what` (the file a command would write) is a shipped file."""
    if is_shipped(path, root):
        raise ValueError(f"{what} {path} is a shipped file: training and export never write it; write into a "
                         "run folder and replace the shipped files with python -m swinup.promote RUN_DIR")
