"""The experiments that no backend runs (the backends run docs/model-spec.md): modules that a
training run attaches to the network, each under its own name, the same as the model attribute
and the training checkpoint's key that hold it. No weights file can hold them, so export and
checkpoint means refuse a checkpoint that holds one. A model without the experiment refuses to
load one too, since its parameters would otherwise be dropped without a word."""
from .display_refine import DisplayRefine
from .history_clip import HistoryClip
from .pixel_mlp import PixelMLP
from .sample_residual import SampleResidual

EXPERIMENTS = {  # name: (module, what it is, the train.py option that attaches it)
    "display_refine": (DisplayRefine, "the display refinement experiment (display_refine.py)",
                       "--display-refine"),
    "pixel_mlp": (PixelMLP, "the pixel-level MLP experiment (pixel_mlp.py)", "--pixel-mlp"),
    "history_clip": (HistoryClip, "the learned history clip experiment (history_clip.py)",
                     "--history-clip"),
    "sample_residual": (SampleResidual, "the sample residual experiment (sample_residual.py)",
                        "--sample-residual"),
}


def describe(name: str) -> str:
    return EXPERIMENTS[name][1]


def held(record) -> list:
    """The experiments whose parameters a checkpoint record holds."""
    return [name for name in EXPERIMENTS if name in record]


def attach(model, name: str, seed: int = 0):
    setattr(model, name, EXPERIMENTS[name][0](seed=seed))


def attached(model) -> list:
    return [name for name in EXPERIMENTS if getattr(model, name, None) is not None]


def states(model) -> dict:
    """{name: the experiment's parameters (f32, CPU)} for every experiment the model carries."""
    return {name: {k: v.detach().cpu().clone() for k, v in getattr(model, name).state_dict().items()}
            for name in attached(model)}


def load(path, record, model):
    """Loads the experiments a checkpoint record holds into the model, which must carry each."""
    for name in held(record):
        if getattr(model, name, None) is None:
            raise ValueError(f"{path}: holds {describe(name)}, which this model lacks: train it with "
                             f"{EXPERIMENTS[name][2]}, score it with scripts/research/score_python.py; no backend "
                             "runs it and no weights file holds it")
        getattr(model, name).load_state_dict(record[name])
