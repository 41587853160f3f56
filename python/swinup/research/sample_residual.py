"""An experiment, not part of the network the backends run (docs/model-spec.md): a learned
correction of each render sample before the output pass gathers it.

The output pass of model.md can only weight this frame's samples (the kernel) and blend them with
the history (alpha). Its current estimate is therefore a weighted mean of point samples, whatever
the network knows: where the samples alias (moire's pattern, the fence's mesh, finer than a render
pixel), the truth, a box-filtered pixel, is not a mean of them, and the head can only soften or
reject. Every lever tried on the head's choices has moved the missed procedural rows by hundredths
(docs/journal/, 2026-12-02 and 2026-12-03). This experiment changes what the output pass can
represent: render pixel q's sample enters every tap as

    t'(c_q) = max(t(c_q) + gain * head[q, ROWS], 0)        (per channel, t-space)

and the nearest-sample fallback reads t' too. ROWS are head outputs reserved in model.md v1 (zero
there), trained with the experiment; display_refine.py reads rows 8-11 and history_clip.py row 12.
The rows start at zero, so a network with the experiment starts as exactly the network without it;
the gain (one scalar) starts at 1. The correction is per render pixel and moves with the jittered
sample, so it adds no pattern fixed to the display grid.

Its parameter lives in the training checkpoint under "sample_residual" (experiments.py); export
refuses such a checkpoint, since no backend implements it (scripts/research/score_python.py scores it).
"""
import torch
import torch.nn as nn

ROWS = (13, 16)  # head outputs 13, 14, 15: the R, G, B corrections


class SampleResidual(nn.Module):
    def __init__(self, seed: int = 0):  # seed: the experiments' common signature; nothing is random
        super().__init__()
        self.gain = nn.Parameter(torch.tensor(1.0))

    def forward(self, head: torch.Tensor, tc: torch.Tensor) -> torch.Tensor:
        """head [B, H, W, 16] raw head outputs, tc [B, H, W, 3] t(colour) at the real render size
        -> the corrected samples t'(c) [B, H, W, 3], never below 0 (t of a non-negative colour)."""
        return torch.clamp(tc + self.gain * head[..., ROWS[0]:ROWS[1]], min=0.0)
