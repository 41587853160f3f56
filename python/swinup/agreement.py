"""How close a fast forward pass must stay to the reference one, and the frame both are fed.

Fast mode (training's forward: torch's smooth functions, fused kernels, float32 sums in any order)
and its compiled form (SwinUp.compile_forward) compute the network of exact mode only up to the
roundings: a value that moves across an e4m3 or f16 rounding boundary jumps by a whole step, which
is rare. A formula that is slightly off, or a graph that drops a rounding, moves the outputs
everywhere. tests/test_fast_mode.py (fast against exact, CPU) and scripts/check_compile.py
(compiled against eager, GPU) hold their head outputs to the same bounds."""
import torch

from .data import ProceduralScenes
from .staging import stage
from .training.recurrence import clip_frame

MAX_SHARE_APART = 0.05       # share of head outputs more than 1e-3 apart
MAX_MEAN_DIFFERENCE = 3e-4   # mean absolute difference of the head outputs


def head_difference(a: torch.Tensor, b: torch.Tensor):
    """(share of outputs more than 1e-3 apart, mean difference, largest difference)."""
    difference = (a - b).abs()
    return ((difference > 1e-3).float().mean().item(), difference.mean().item(), difference.max().item())


def staged_procedural_frame(batch: int, crop: int, device):
    """Staging's slots for the first frame of a fixed 2.5D-layer clip (seed 5, LDR), no history."""
    clip = ProceduralScenes(device, seed=5).batch(batch, 1, crop, hdr=False)
    return stage(clip_frame(clip, 0), None, clip["gt"].shape[3], clip["gt"].shape[2], False).slots
