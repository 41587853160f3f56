"""An experiment, not part of the network the backends run (docs/model-spec.md): a learned,
per-render-pixel rectification of the reprojected history.

TAAU-class upscalers have two tools against a wrong history: they reject it (a lower history
weight) and they rectify it (clip it to the range of this frame's samples around the pixel). The
output pass of model.md has only the first: one history weight alpha per render pixel. Where the
history is wrong in colour but right in structure (the wall seen through the fence's mesh, which
the dilated motion moves with the mesh), rejecting it throws away the accumulated samples and
keeping it ghosts. Clipping keeps the history's detail inside the range the current frame
supports.

A fixed clip costs 1.2-2.0 dB on fence_2x when replayed through the shipped network: 2.0 for the
2026-12-02 oracle's box (docs/journal/2026-12-02-output-pass-or-network-oracles-3ebd04b.md), 1.16
for this module's at strength 1 (scripts/research/motion_choice_check.py). Thin features that this
frame's nine samples miss are clipped away. So here the network decides where to clip: at display pixel o, with n its render
pixel (the one whose head it reads) and [lo, hi] the per-channel t-space range of the 3x3 samples
around n (the kernel's taps),

    t(history) <- t(history) + g(n) * (clamp(t(history), lo, hi) - t(history)),
    g(n) = sigmoid(gain * head[n, ROW] + bias),

before the blend. ROW is a head output reserved in model.md v1 (zero there), which trains with the
experiment. bias starts at START_LOGIT (g = 0.018 everywhere), so a network with the experiment
starts close to the network without it; the gain starts at 1.

Its parameters live in the training checkpoint under "history_clip" (experiments.py); export
refuses such a checkpoint, since no backend implements it (scripts/research/score_python.py scores it).

Measured (2026-12-02, docs/journal/2026-12-02-head-mlp-fitted-to-the-oracle-03cf09f.md): trained
for 4 minutes from the shipped weights, it equals its same-seed controls within 0.013 dB on the
missed rows (lite and full), and the training barely moved it (bias -4 -> -3.93). On fence_2x the
truth's per-render-pixel pick between the clipped and the specified history gains no more than
the control's meaningless choice. It stays an experiment.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

ROW = 12  # the head output it reads: reserved in model.md v1; display_refine.py reads rows 8-11
START_LOGIT = -4.0


class HistoryClip(nn.Module):
    def __init__(self, seed: int = 0):  # seed: the experiments' common signature; nothing is random
        super().__init__()
        self.gain = nn.Parameter(torch.tensor(1.0))
        self.bias = nn.Parameter(torch.tensor(START_LOGIT))

    def forward(self, head_at_n: torch.Tensor) -> torch.Tensor:
        """head_at_n [B, Hd, Wd, 16] raw head outputs of each display pixel's render pixel -> the
        clip strength g [B, Hd, Wd] in (0, 1)."""
        return torch.sigmoid(self.gain * head_at_n[..., ROW] + self.bias)


def sample_range(tc: torch.Tensor):
    """Per render pixel, the per-channel minimum and maximum of t(colour) over its 3x3
    neighbourhood, reads clamped to the image (the output pass's taps): tc [B, H, W, 3] ->
    (lo, hi), each [B, H, W, 3]."""
    x = F.pad(tc.permute(0, 3, 1, 2), (1, 1, 1, 1), mode="replicate")
    hi = F.max_pool2d(x, 3, stride=1)
    lo = -F.max_pool2d(-x, 3, stride=1)
    return lo.permute(0, 2, 3, 1), hi.permute(0, 2, 3, 1)


def clip_toward_range(th: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor, g: torch.Tensor):
    """th, lo, hi [B, Hd, Wd, 3] (t-space), g [B, Hd, Wd] -> th moved by g toward its clamp."""
    clamped = torch.minimum(torch.maximum(th, lo), hi)
    return th + g[..., None] * (clamped - th)
