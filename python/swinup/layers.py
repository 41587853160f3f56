"""The pieces of a linear layer that the network's initialisation and the experiments' layers
(pixel_mlp.py, display_refine.py) share: the seeded uniform start, the experiments' zero-start
MLP and the fast-mode e4m3 layer with a straight-through gradient."""
import math

import torch
from torch import nn

from .quant import quantize_weight_ste


def uniform_weight(rows: int, cols: int, generator: torch.Generator) -> torch.Tensor:
    """[rows, cols] uniform in +-sqrt(3 / cols): unit variance out for unit variance in."""
    return (torch.rand(rows, cols, generator=generator) * 2 - 1) * math.sqrt(3.0 / cols)


def add_zero_start_mlp(module: nn.Module, inputs: int, hidden: int, outputs: tuple, seed: int) -> None:
    """Gives module the parameters w1, b1, w2, b2 of a one-hidden-layer MLP inputs -> hidden ->
    outputs (() for one value): w1 seeded uniform_weight, the rest zero, so that the MLP's output
    starts at zero and the experiment starts as the network without it."""
    g = torch.Generator().manual_seed(seed)
    module.w1 = nn.Parameter(uniform_weight(hidden, inputs, g))
    module.b1 = nn.Parameter(torch.zeros(hidden))
    module.w2 = nn.Parameter(torch.zeros(*outputs, hidden))
    module.b2 = nn.Parameter(torch.zeros(outputs))


def linear_e4m3_ste(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """x [..., in] (e4m3 values) -> [..., out]: w as e4m3 with a power-of-two scale per output
    channel (straight-through), f32 bias, as the network's linear layers in fast mode."""
    q, s = quantize_weight_ste(w)
    return torch.addcmul(b, x @ q.t(), s)
