"""The change error that the training's temporal term measures: how the output's frame-to-frame
change differs from the ground truth's, along the motion, on the pixels where a change is
well defined. The same construction as `swinup eval`'s temporal error
(src/eval/temporal_stability.cpp), on the colours the caller passes: t-space, or the
evaluation's display encoding itself (train.py --temporal-space display):

    e(o) = (out_k(o) - out_{k-1}(o + mv)) - (gt_k(o) - gt_{k-1}(o + mv)),

previous frames sampled bilinearly at the display position o + mv(n) * s that the output pass
reprojects its history from (n: o's nearest render pixel, mv: the dilated motion of staging).

Why along the motion: the first temporal term compared each display pixel with itself in the
previous frame. Under a moving camera that pixel showed another point of the scene, so the term
measured the reconstruction error twice rather than flicker; it could even favour flicker over
a stable, slightly soft history (docs/journal/2026-12-01-temporal-term-along-the-motion-1c70162.md).

Stable pixels, as the evaluation's: on screen after the motion (inside the half-pixel border),
and the nearest render pixel neither disoccluded nor at a motion edge within its 3x3
neighbourhood (disoccluded: the previous depth at p + mv is farther by more than 5% of the
larger depth; motion edge: a neighbour's motion differs by more than half a render pixel in a
component).
"""
import torch
import torch.nn.functional as F

from .output_pass import display_grid, history_position
from .sampling import bilinear_sample, gather

MOTION_EDGE_TOLERANCE = 0.5  # render pixels (kMotionEdgeTolerance)
DISOCCLUSION_TOLERANCE = 0.05  # relative reverse-Z (kDisocclusionTolerance)


def _any_in_3x3(mask: torch.Tensor) -> torch.Tensor:
    """[B, H, W] bool -> bool: some pixel of the 3x3 neighbourhood (clamped at the edges) is set."""
    return F.max_pool2d(mask[:, None].float(), 3, stride=1, padding=1)[:, 0] > 0


def unsteady_render_pixels(motion: torch.Tensor, z: torch.Tensor, previous_z: torch.Tensor) -> torch.Tensor:
    """[B, H, W] bool: disoccluded somewhere in the 3x3 neighbourhood, or a neighbour's motion
    differs by more than MOTION_EDGE_TOLERANCE. motion [B, H, W, 2] (current -> previous, render
    pixels), z and previous_z [B, H, W] reverse-Z (larger is nearer) of this and the last frame."""
    b, h, w, _ = motion.shape
    xs = torch.arange(w, device=motion.device, dtype=motion.dtype).view(1, 1, w)
    ys = torch.arange(h, device=motion.device, dtype=motion.dtype).view(1, h, 1)
    px = xs + 0.5 + motion[..., 0]
    py = ys + 0.5 + motion[..., 1]
    inside = (px >= 0.0) & (py >= 0.0) & (px < float(w)) & (py < float(h))
    ix = torch.clamp(torch.floor(torch.clamp(px, 0.0, float(w - 1))), 0, w - 1).long()
    iy = torch.clamp(torch.floor(torch.clamp(py, 0.0, float(h - 1))), 0, h - 1).long()
    z_prev = gather(previous_z[..., None], ix, iy)[..., 0]
    relative = (z_prev - z) / torch.clamp(torch.maximum(z_prev, z), min=1e-6)
    disoccluded = inside & (relative > DISOCCLUSION_TOLERANCE)
    # Motion edge: max over the 3x3 neighbours of |mv_q - mv_p| per component (edges replicated).
    padded = F.pad(motion.permute(0, 3, 1, 2), (1, 1, 1, 1), mode="replicate").permute(0, 2, 3, 1)
    edge = torch.zeros_like(disoccluded)
    for dy in range(3):
        for dx in range(3):
            diff = (padded[:, dy:dy + h, dx:dx + w] - motion).abs()
            edge |= (diff > MOTION_EDGE_TOLERANCE).any(-1)
    return _any_in_3x3(disoccluded) | edge


def motion_compensated_change_error(out, out_previous, gt, gt_previous, motion, z, previous_z,
                                    scale_x: float, scale_y: float):
    """(e [B, Hd, Wd, 3], stable [B, Hd, Wd] bool) for display-sized images (t-space or
    display-encoded) and the render-sized dilated motion and reverse-Z of this frame (previous_z:
    the last frame's, same render size)."""
    b, dh, dw, _ = out.shape
    h, w = motion.shape[1], motion.shape[2]
    ox, oy, _, _, nx, ny = display_grid(b, dw, dh, w, h, scale_x, scale_y, out.device)
    hx, hy = history_position(ox, oy, nx, ny, motion, scale_x, scale_y)
    inside = (hx >= 0.5) & (hy >= 0.5) & (hx <= dw - 0.5) & (hy <= dh - 0.5)
    unsteady = gather(unsteady_render_pixels(motion, z, previous_z)[..., None].float(), nx, ny)[..., 0] > 0
    stable = inside & ~unsteady
    error = (out - bilinear_sample(out_previous, hx, hy)) - (gt - bilinear_sample(gt_previous, hx, hy))
    return error, stable
