"""An experiment, not part of the network the backends run (docs/model-spec.md): a non-linear head.

The head is linear: head = linear(RMSNorm(y0)), y0 the 32 channels at render-pixel resolution.
scripts/oracle_head_fit.py measured on fence_2x (nineteenth session, docs/quality.md) that the best
linear per-pixel function of what the head reads plus the staged slots gets +0.16 dB of the
output-pass oracle's +2.73 over the network (first 8 frames), a ReLU MLP of the same 48 inputs
(48 -> 64 -> 64 -> 4) +0.86, in sample. HeadMLP is that MLP inside the network: it adds
relu(relu([RMSNorm(y0), slots] W1 + b1) W2 + b2) W3 + b3 to the head's outputs 0-7 (the recurrent
features and the output pass's kernel and history weight; 8-15 are reserved), quantised as the
network's linear layers are (e4m3 weights with a power-of-two scale per output channel, f32
biases; the hidden activations rounded to e4m3 like every GEMM input). Both variants have the
32-channel head input.

Trained (twentieth session, docs/quality.md, "A non-linear head, trained"), it lost to its
same-seed control wherever the targets are missed: lite on the general data -0.12 dB on fence_2x
and -0.06 on average, lite on fence alone -0.14 on fence_2x, full -0.31 on fence_2x and -0.23 on
average (more stable, less sharp). Fitted to the oracle's choices instead
(scripts/fit_head_mlp.py on 24 training-like sequences, twenty-first session, "The head MLP
fitted to the oracle"), it lifts every row scored, out of sample, and is the candidate change of
the network: checkpoints/candidates/lite_head_fit.pt, waiting for the backends to run it.

W3 and b3 start at zero, so a network with it starts as exactly the network without it. Its
parameters live in the training checkpoint under "head_mlp" (experiments.py); export refuses such
a checkpoint, since no backend implements it (scripts/score_python.py scores it). Cost: 7,680
multiply-adds a render pixel, about 14 GFLOP at 1280x736 against lite's 113.
"""
import torch
import torch.nn as nn

from .layers import linear_e4m3_ste, uniform_weight
from .quant import round_e4m3_ste
from .spec import SLOTS

HEAD_INPUT = 32  # the head's RMSNorm width (ModelConfig.channels[0], both variants)
HIDDEN = 64
OUTPUTS = 8  # head outputs 0-7; 8-15 are reserved


class HeadMLP(nn.Module):
    def __init__(self, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.w1 = nn.Parameter(uniform_weight(HIDDEN, HEAD_INPUT + SLOTS, g))
        self.b1 = nn.Parameter(torch.zeros(HIDDEN))
        self.w2 = nn.Parameter(uniform_weight(HIDDEN, HIDDEN, g))
        self.b2 = nn.Parameter(torch.zeros(HIDDEN))
        self.w3 = nn.Parameter(torch.zeros(OUTPUTS, HIDDEN))  # zero: starts as the linear head
        self.b3 = nn.Parameter(torch.zeros(OUTPUTS))

    def forward(self, normalised: torch.Tensor, slots: torch.Tensor) -> torch.Tensor:
        """normalised [B, H, W, 32] (the head's RMSNorm output, e4m3 values), slots [B, H, W, 16]
        (e4m3 values) -> what it adds to the head's outputs 0-7 [B, H, W, 8]."""
        x = torch.cat([normalised, slots], dim=-1)
        h1 = round_e4m3_ste(torch.relu(linear_e4m3_ste(x, self.w1, self.b1)))
        h2 = round_e4m3_ste(torch.relu(linear_e4m3_ste(h1, self.w2, self.b2)))
        return linear_e4m3_ste(h2, self.w3, self.b3)
