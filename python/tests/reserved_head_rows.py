"""Shared check for experiments that read reserved head rows: without the experiment attached,
training zeroes every reserved row; with it attached, the rows it reads survive."""
import torch

from swinup.model import SwinUp
from swinup.spec import ModelConfig
from swinup.training.reserved_rows import keep_reserved_zero


def head_weight_kept_with(case, attach):
    """Fills the lite model's head weight with ones, asserts keep_reserved_zero clears every row
    from 8 on, fills it again, calls attach(model) and returns the head weight that
    keep_reserved_zero leaves."""
    model = SwinUp(ModelConfig.make("lite"))
    with torch.no_grad():
        model.p("head.linear.weight").fill_(1.0)
    keep_reserved_zero(model)
    case.assertTrue(bool((model.p("head.linear.weight")[8:] == 0.0).all()))
    with torch.no_grad():
        model.p("head.linear.weight").fill_(1.0)
    attach(model)
    keep_reserved_zero(model)
    return model.p("head.linear.weight")
