"""The shipped network files: the training checkpoints python/checkpoints/<variant>.pt and the
weights files weights/<variant>.safetensors exported from them. Training and export read them and
never write them (a run writes into its own folder, training/run_folder.py); replacing them is one
explicit step, python -m swinup.promote RUN_DIR."""
import os

VARIANTS = ("lite", "full")


def is_repository(path: str) -> bool:
    """Whether path is a swinup checkout: the shipped weights and the Python package beside them."""
    return (os.path.isfile(os.path.join(path, "weights", "lite.safetensors"))
            and os.path.isdir(os.path.join(path, "python", "swinup")))


def find_root(environ=os.environ, cwd=None) -> str:
    """The repository whose shipped files the commands read and refuse to write.

    SWINUP_REPO when set; else the checkout this package is in (python/swinup/shipped.py is three
    levels below its root: a plain or editable checkout, PYTHONPATH=python); else, for a copy
    installed by `pip install ./python`, the checkout holding the current directory (the commands
    run from the repository root). Without any, the package's grandparent, as before: the
    shipped files are then simply not found."""
    if environ.get("SWINUP_REPO"):
        return os.path.abspath(environ["SWINUP_REPO"])
    package_checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if is_repository(package_checkout):
        return package_checkout
    here = os.path.abspath(cwd or os.getcwd())
    while True:
        if is_repository(here):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return package_checkout
        here = parent


ROOT = find_root()


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
