"""Head outputs 8..15 are reserved (docs/model-spec.md): zero weights and biases, kept so after
every optimiser step, except the rows an attached experiment reads."""
import torch

from ..research.display_refine import FEATURE_ROWS
from ..research.history_clip import ROW as CLIP_ROW
from ..research.sample_residual import ROWS as RESIDUAL_ROWS


def keep_reserved_zero(model):
    """Head outputs 8..15 are reserved: zero weights and biases in v1 (model.md). The experiments
    that read some of them train those rows: the display refinement (display_refine.py) rows 8-11,
    the history clip (history_clip.py) its ROW, the sample residual (sample_residual.py) its ROWS."""
    trained = set()
    if getattr(model, "display_refine", None) is not None:
        trained.update(range(*FEATURE_ROWS))
    if getattr(model, "history_clip", None) is not None:
        trained.add(CLIP_ROW)
    if getattr(model, "sample_residual", None) is not None:
        trained.update(range(*RESIDUAL_ROWS))
    with torch.no_grad():
        for row in range(8, 16):
            if row not in trained:
                model.p("head.linear.weight")[row].zero_()
                model.p("head.linear.bias")[row].zero_()

