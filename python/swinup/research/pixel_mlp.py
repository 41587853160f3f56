"""An experiment, not part of the network the backends run (docs/model-spec.md): a non-linear
pixel level for lite.

Lite's only path at render-pixel resolution is linear: the head reads RMSNorm(expand0(dec1) +
skip0(slots)), skip0 one linear layer 16 -> 32 of the staged slots. So a decision that needs a
non-linear function of one pixel's own inputs (drop the history where |t(history) - t(colour)| is
large, for one) can only be made in the 2x2-pixel tokens of the levels below (2026-12-01,
docs/journal/2026-12-01-four-more-levers-e78d0d8.md). PixelMLP adds to skip0's output relu(slots
W1 + b1) W2 + b2 (16 -> 32 -> 32), quantised as the network's linear layers are (e4m3 weights with a
power-of-two scale per output channel, f32 biases; the hidden activation rounded to e4m3 like every
GEMM input).

W2 and b2 start at zero, so a network with it starts as exactly the network without it, and a
continuation from trained weights learns what a pixel-level non-linearity adds. Its parameters
live in the training checkpoint under "pixel_mlp" (experiments.py); export refuses such a
checkpoint, since no backend implements it (scripts/research/score_python.py scores it). A shipped form
would be a change of model.md, all three backends and the golden data together.
"""
import torch
import torch.nn as nn

from ..layers import add_zero_start_mlp, linear_e4m3_ste
from ..quant import round_e4m3_ste
from ..spec import SLOTS

HIDDEN = 32
OUTPUTS = 32  # skip0's output channels (lite's level-0 width, ModelConfig.channels[0])


class PixelMLP(nn.Module):
    def __init__(self, seed: int = 0):
        super().__init__()
        add_zero_start_mlp(self, SLOTS, HIDDEN, (OUTPUTS,), seed)  # starts as the linear skip0

    def forward(self, slots: torch.Tensor) -> torch.Tensor:
        """slots [B, H, W, 16] (e4m3 values) -> what it adds to skip0's output [B, H, W, 32]."""
        hidden = round_e4m3_ste(torch.relu(linear_e4m3_ste(slots, self.w1, self.b1)))
        return linear_e4m3_ste(hidden, self.w2, self.b2)
