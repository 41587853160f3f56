"""The loss terms of an unrolled clip (recurrence.unroll), accumulated frame by frame.

Spatial: the L1 distance to the truth in t-space (t = log2(1 + x), where the output pass blends),
plus display_weight times the distance of display-encoded colour (display_encode.py, what
`swinup eval` scores; "l1" its mean absolute error, "rms" per clip the root of its mean square, the
statistic behind the evaluation's PSNR). Frames without history weigh first_frame_weight.
Disocclusion: disocclusion_weight times the t-space L1 over the display pixels uncovered within the
last four frames alone (the clip's "disoccluded" plane, from the renderer's motion masks), a mean
over those pixels, so that the few pixels where a moving object leaves a trail weigh as much as
the whole frame does in the spatial term, whatever share of it they are
(docs/journal/2026-12-07-ghost-trails-cause.md).
Temporal: the output's frame-to-frame change minus the truth's (flicker the truth does not have
costs), along the motion on stable pixels (temporal_loss.py, as `swinup eval` measures it) or
pixel by pixel, in t-space or display space, as a mean absolute value or a root mean square."""
import torch

from ..display_encode import display_encode
from ..temporal_loss import motion_compensated_change_error


def t_space(x):
    return torch.log2(1.0 + torch.clamp(x, min=0.0))


def check_loss_options(temporal_norm, temporal_alignment, temporal_space, display_weight, display_norm,
                       first_frame_weight, disocclusion_weight=0.0):
    """Raises ValueError naming the first option that is not one ClipLoss knows."""
    if not disocclusion_weight >= 0.0:
        raise ValueError(f"disocclusion_weight {disocclusion_weight!r}: expected a weight >= 0")
    if temporal_norm not in ("l1", "rms"):
        raise ValueError(f"temporal_norm {temporal_norm!r}: expected 'l1' or 'rms'")
    if temporal_alignment not in ("motion", "pixel"):
        raise ValueError(f"temporal_alignment {temporal_alignment!r}: expected 'motion' or 'pixel'")
    if temporal_space not in ("t", "display"):
        raise ValueError(f"temporal_space {temporal_space!r}: expected 't' or 'display'")
    if not display_weight >= 0.0:
        raise ValueError(f"display_weight {display_weight!r}: expected a weight >= 0")
    if display_norm not in ("l1", "rms"):
        raise ValueError(f"display_norm {display_norm!r}: expected 'l1' or 'rms'")
    if not first_frame_weight > 0.0:
        raise ValueError(f"first_frame_weight {first_frame_weight!r}: expected a weight > 0")


def change_error(cur_out, prev_out, cur_gt, prev_gt, alignment, staged, previous_z):
    """The output's change minus the truth's between two frames and the pixels it counts on:
    (error [B, Hd, Wd, 3], stable [B, Hd, Wd] bool), or None when no pixels pair (the render size
    changed: no pixels pair along the motion, nor in `swinup eval`)."""
    if alignment == "pixel":
        error = (cur_out - prev_out) - (cur_gt - prev_gt)
        return error, torch.ones_like(error[..., 0], dtype=torch.bool)
    if previous_z.shape != staged.z.shape:
        return None
    return motion_compensated_change_error(cur_out, prev_out, cur_gt, prev_gt, staged.motion, staged.z,
                                           previous_z, staged.scale_x, staged.scale_y)


class ClipLoss:
    """The spatial and temporal terms of one clip's scored frames, added frame by frame."""

    def __init__(self, gt, temporal_norm="l1", temporal_alignment="motion", display_weight=0.0,
                 temporal_space="t", display_norm="l1", disocclusion_weight=0.0):
        self.temporal_norm, self.temporal_alignment = temporal_norm, temporal_alignment
        self.disocclusion_weight = disocclusion_weight
        self.disocclusion = gt.new_zeros(())
        self.display_weight, self.temporal_space, self.display_norm = display_weight, temporal_space, display_norm
        self.spatial = gt.new_zeros(())
        self.display = gt.new_zeros(()) if display_norm == "l1" else gt.new_zeros(gt.shape[0])  # per clip for rms
        self.temporal = gt.new_zeros(())
        self.prev_out = self.prev_gt = None
        self.frame_weights = 0.0  # the sum of the scored frames' weights

    def add_frame(self, out, gt, hdr, weight, reset, staged, previous_z, disoccluded=None):
        """A scored frame: out and gt [B, Hd, Wd, 3] linear colour, weight its weight in the
        spatial and display terms, reset whether it starts anew (a camera cut: no temporal term
        across it), staged and previous_z the staging of this frame and the last one's depth,
        disoccluded [B, Hd, Wd] (1 on the uncovered pixels) or None."""
        self.frame_weights += weight
        t_out, t_gt = t_space(out), t_space(gt)
        self.spatial = self.spatial + weight * (t_out - t_gt).abs().mean()
        if self.disocclusion_weight > 0.0 and disoccluded is not None:
            m = disoccluded[..., None].to(t_out.dtype)
            count = torch.clamp(m.sum() * t_out.shape[-1], min=1.0)
            self.disocclusion = self.disocclusion + weight * ((t_out - t_gt).abs() * m).sum() / count
        if self.display_weight > 0.0 or self.temporal_space == "display":
            d_out, d_gt = display_encode(out, hdr), display_encode(gt, hdr)
            if self.display_weight > 0.0:
                self.display = self.display + weight * ((d_out - d_gt).abs().mean() if self.display_norm == "l1"
                                                        else (d_out - d_gt).square().mean(dim=(1, 2, 3)))
        # The colours whose frame-to-frame changes the temporal term compares.
        cur_out, cur_gt = (d_out, d_gt) if self.temporal_space == "display" else (t_out, t_gt)
        if self.prev_out is not None and not reset:
            paired = change_error(cur_out, self.prev_out, cur_gt, self.prev_gt, self.temporal_alignment,
                                  staged, previous_z)
            if paired is not None:
                error, stable = paired
                w = stable[..., None].to(error.dtype).expand_as(error)
                size = torch.clamp(w.sum(), min=1.0)
                self.temporal = self.temporal + ((error.abs() * w).sum() / size if self.temporal_norm == "l1"
                                                 else (error.square() * w).sum() / size)
        self.prev_out, self.prev_gt = cur_out, cur_gt

    def terms(self, scored):
        """(spatial term, temporal term) over the clip's `scored` frames."""
        display = self.display / self.frame_weights
        if self.display_norm == "rms":  # per clip (a sequence's PSNR pools its frames), then the batch's mean
            display = torch.sqrt(display + 1e-12).mean()
        temporal = self.temporal / max(1, scored - 1)
        if self.temporal_norm == "rms":  # the root of the mean square; the epsilon keeps its gradient finite at 0
            temporal = torch.sqrt(temporal + 1e-12)
        spatial = self.spatial / self.frame_weights + self.display_weight * display
        if self.disocclusion_weight > 0.0:
            spatial = spatial + self.disocclusion_weight * self.disocclusion / self.frame_weights
        return spatial, temporal
