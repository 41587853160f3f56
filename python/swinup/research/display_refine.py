"""An experiment, not part of the network the backends run (docs/model-spec.md): a per-display-pixel
refinement of the output pass's history weight.

The output pass takes one history weight alpha per render pixel: at 2x four display pixels share
it, at 3x nine, and the network sees the history at only one display position per render pixel
(staging's slots 3-5, where the sample landed). The refinement adds to alpha's logit, at every
display pixel o with history, a small MLP of what the output pass knows there and the network does
not: the disagreement of o's reprojected history with this frame's kernel estimate at o
(t-space, per channel and its mean magnitude), how well this frame's samples cover o, o's offset
from its render pixel's centre, and the render pixel's own logit and four more head outputs
(reserved rows 8-11, which the network learns to fill for it).

The last layer starts at zero, so a network with the refinement starts as exactly the network
without it, and a continuation from trained weights learns what the refinement adds. Its
parameters live in the training checkpoint under "display_refine"; export refuses such a
checkpoint, since no backend implements the refinement (scripts/research/score_python.py scores it).
"""
import torch
import torch.nn as nn

from ..layers import add_zero_start_mlp

INPUTS = 12
HIDDEN = 16
FEATURE_ROWS = (8, 12)  # head rows the refinement reads (reserved in model.md v1)


class DisplayRefine(nn.Module):
    def __init__(self, seed: int = 0):
        super().__init__()
        add_zero_start_mlp(self, INPUTS, HIDDEN, (), seed)  # starts as the unrefined output pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x [..., INPUTS] -> the logit change [...]."""
        hidden = torch.relu(x @ self.w1.t() + self.b1)
        return hidden @ self.w2 + self.b2


def refine_inputs(th, current, coverage, off_x, off_y, head_at_n):
    """th, current [B, Hd, Wd, 3] t-space; coverage, off_x, off_y [B, Hd, Wd]; head_at_n
    [B, Hd, Wd, 16] raw head outputs of each display pixel's render pixel -> [B, Hd, Wd, INPUTS]."""
    d = th - current
    return torch.cat([d, d.abs().mean(-1, keepdim=True), coverage[..., None], off_x[..., None],
                      off_y[..., None], torch.clamp(head_at_n[..., 7:8], -8.0, 8.0),
                      torch.tanh(head_at_n[..., FEATURE_ROWS[0]:FEATURE_ROWS[1]])], dim=-1)
