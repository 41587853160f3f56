"""The evaluation's display encoding in torch (src/eval/display_encode.cpp), for the training's
display-space loss terms.

`swinup eval` scores PSNR, SSIM and the temporal error on display-encoded colour: exposed linear
colour, Reinhard x / (1 + x) for HDR or clamped to 1 for LDR, then the sRGB curve. The network
blends in t-space (t = log2(1 + x)), whose slope is nearly flat where sRGB's is steep: at linear
0.05 an error costs sRGB about 1.8x what it costs t, at 0.5 about 0.7x. A loss in t-space alone
therefore spends the network's effort on bright pixels that the scores weigh less, and none on
the difference between clipped and unclipped LDR highlights, which the scores do not see at all.
"""
import torch

SRGB_LINEAR_LIMIT = 0.0031308


def srgb_encode(v: torch.Tensor) -> torch.Tensor:
    """sRGB transfer of linear values already in [0, 1] (the piecewise curve, not a gamma of 2.2)."""
    # The power's argument is clamped to the curve's own range so that its gradient stays finite
    # below the limit, where torch.where takes the linear branch anyway.
    curve = 1.055 * torch.pow(torch.clamp(v, min=SRGB_LINEAR_LIMIT), 1.0 / 2.4) - 0.055
    return torch.where(v <= SRGB_LINEAR_LIMIT, 12.92 * v, curve)


def display_encode(x: torch.Tensor, hdr: bool) -> torch.Tensor:
    """Display encoding of exposed linear colour (the training clips are already multiplied by
    the sequence's exposure): negative and non-finite values as 0 (as the C++ does), HDR through
    Reinhard, LDR clamped to 1."""
    v = torch.clamp(torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0), min=0.0)
    v = v / (1.0 + v) if hdr else torch.clamp(v, max=1.0)
    return srgb_encode(v)
