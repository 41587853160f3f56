"""The pieces of a linear layer that the network's initialisation and the experiments' layers
(pixel_mlp.py, display_refine.py) share: the seeded uniform start and the fast-mode
e4m3 layer with a straight-through gradient."""
import math

import torch

from .quant import quantize_weight_ste


def uniform_weight(rows: int, cols: int, generator: torch.Generator) -> torch.Tensor:
    """[rows, cols] uniform in +-sqrt(3 / cols): unit variance out for unit variance in."""
    return (torch.rand(rows, cols, generator=generator) * 2 - 1) * math.sqrt(3.0 / cols)


def linear_e4m3_ste(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """x [..., in] (e4m3 values) -> [..., out]: w as e4m3 with a power-of-two scale per output
    channel (straight-through), f32 bias, as the network's linear layers in fast mode."""
    q, s = quantize_weight_ste(w)
    return torch.addcmul(b, x @ q.t(), s)
