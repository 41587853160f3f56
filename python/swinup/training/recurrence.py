"""A clip unrolled through the recurrence: each frame through staging, the network (or given head
outputs) and the output pass, the history and recurrent features carried to the next frame, all
differentiable (straight-through rounding), so that the recurrent features and the history learn
what the next frame needs.

advance() calls stage and output_pass through this module's namespace: replay scripts
(scripts/research/*_replay.py, motion_choice_check.py, head_sampling_check.py) and
scripts/research/count_kernels.py put their own in place of them here."""
import contextlib

import torch

from ..output_pass import output_pass
from ..staging import FrameInput, TemporalState, stage
from .losses import ClipLoss, check_loss_options


def unroll(model, clip, exact=False, heads=None, burn_in=0, temporal_norm="l1", temporal_alignment="motion",
           display_weight=0.0, temporal_space="t", display_norm="l1", first_frame_weight=1.0,
           refine=None, disocclusion_weight=0.0):
    """Runs a clip through the recurrence; returns (outputs [B, T, Hd, Wd, 3], spatial term,
    temporal term), the terms of losses.ClipLoss.
    heads(k, staged) -> [B, H, W, 16], when given, stands in for the network's head outputs (the
    output-pass oracle, scripts/research/oracle_output_pass.py); model may then be None.
    refine: the output pass's display refinement (research/display_refine.py), when not the
    model's own (the oracle's free per-display-pixel history weights).
    burn_in: the clip's first burn_in frames run without gradient and without loss (they only
    build the history and recurrent state), so that the loss also sees frames deep into a
    sequence, as a game's frames are; outputs and losses cover the frames after them.
    temporal_norm: "l1", the mean absolute change error, or "rms", its root mean square over all
    pixels and frame pairs, the statistic `swinup eval` reports; RMS weighs the large, sparse
    changes (flicker on edges) more than L1 does.
    temporal_alignment: "motion", the change along the motion on the stable pixels
    (temporal_loss.py, as `swinup eval` measures it), or "pixel", each display pixel against
    itself in the previous frame (the term of the first chunks; under a moving camera it measures
    the reconstruction error again rather than flicker).
    temporal_space: "t", the change errors of t-space colour, or "display", of display-encoded
    colour (the space of `swinup eval`'s temporal error).
    display_weight: the weight of the L1 distance of display-encoded colours (display_encode.py,
    what `swinup eval` scores) in the spatial term, added to the t-space L1.
    display_norm: "l1", the display term is the mean absolute error, or "rms", per clip the root
    of the mean square over its scored frames, pixels and channels, averaged over the clips: the
    statistic of `swinup eval`'s PSNR (-20 log10 of a sequence's pooled RMS error), which L1
    under-weighs where the error is large and sparse (thin features, edges).
    first_frame_weight: the weight of a scored frame without history (the clip's first, when no
    burn-in precedes it, or a camera cut) in the spatial and display terms, which are means over the
    scored frames weighted so (1 is the plain mean). `swinup eval` pools squared errors over a
    sequence, and its first frame, one jittered frame and no history, has the largest
    (docs/journal/2026-12-01-gentler-continuations-9aa140b.md); with the uniform burn-in a batch
    scores it once in 17.
    disocclusion_weight: the weight of the t-space L1 over the clip's disoccluded display pixels
    (clip["disoccluded"], uncovered within the last four frames), a mean over those pixels, added
    to the spatial term (losses.py); 0 leaves the spatial term exactly as without it."""
    check_loss_options(temporal_norm, temporal_alignment, temporal_space, display_weight, display_norm,
                       first_frame_weight, disocclusion_weight)
    gt = clip["gt"]
    frames = clip["color"].shape[1]
    dh, dw = gt.shape[2], gt.shape[3]
    if not 0 <= burn_in < frames:
        raise ValueError(f"burn_in {burn_in} must leave at least one of the clip's {frames} frames")
    loss = ClipLoss(gt, temporal_norm, temporal_alignment, display_weight, temporal_space, display_norm,
                    disocclusion_weight)
    disoccluded = clip.get("disoccluded")
    state = None
    outs = []
    with model.weight_cache() if model is not None else contextlib.nullcontext():  # weights quantised once a clip
        for k in range(frames):
            if k < burn_in:
                with torch.no_grad():
                    state = advance(model, clip, k, state, dw, dh, exact, heads, refine)[1]
                continue
            previous_z = None if state is None else state.z[:, :state.height, :state.width]
            weight = first_frame_weight if state is None or clip["reset"][k] else 1.0
            out, state, staged = advance(model, clip, k, state, dw, dh, exact, heads, refine)
            loss.add_frame(out, gt[:, k], clip["hdr"], weight, clip["reset"][k], staged, previous_z,
                           None if disoccluded is None else disoccluded[:, k])
            outs.append(out)
    spatial, temporal = loss.terms(frames - burn_in)
    return torch.stack(outs, 1), spatial, temporal


def clip_frame(clip, k):
    """Frame k of a clip (data.py's dict) as staging's input, with the clip's masks as the
    frame's reactive and transparency masks (docs/masks.md; a clip without "masks" has none)."""
    masks = clip.get("masks")
    return FrameInput(color=clip["color"][:, k], depth=clip["depth"][:, k], motion=clip["motion"][:, k],
                      jitter=clip["jitter"][:, k], hdr=clip["hdr"], depth_inverted=clip["depth_inverted"],
                      reset=clip["reset"][k],
                      reactive=None if masks is None else masks[:, k, ..., 0],
                      transparency=None if masks is None else masks[:, k, ..., 1])


def advance(model, clip, k, state, dw, dh, exact, heads, refine=None):
    """Frame k of the clip through staging, the network (or heads) and the output pass: returns
    (output [B, Hd, Wd, 3], the temporal state for frame k + 1, the staged frame). The frame's
    masks go where the backends take them (docs/masks.md): their e4m3 copy on the padded grid
    into a network that has mask_embed, their staged values into the output pass, whatever the
    network (the output pass honours the masks with any weights)."""
    h, w = clip["color"].shape[2], clip["color"].shape[3]
    frame = clip_frame(clip, k)
    reset = frame.reset
    st = stage(frame, None if reset else state, dw, dh, exact)
    if heads is not None:
        head = heads(k, st)
    elif model.cfg.masks:
        head = model.run(st.slots, k, masks=st.mask_slots)
    else:
        head = model.run(st.slots, k)
    valid = state is not None and not reset
    extra = {}  # only when attached, so that scripts' stand-ins for output_pass need not know it
    if getattr(model, "history_clip", None) is not None:
        extra["clip"] = model.history_clip
    if getattr(model, "sample_residual", None) is not None:
        extra["residual"] = model.sample_residual
    out, hist, rec = output_pass(head[:, :h, :w], st.tc, st.motion, frame.jitter,
                                 state.history if valid else None, dw, dh, st.scale_x,
                                 st.scale_y, valid, exact,
                                 refine=refine if refine is not None else getattr(model, "display_refine", None),
                                 still_shift=getattr(getattr(model, "cfg", None), "still_history_shift", 0.0),
                                 masks=st.masks, **extra)
    return out, TemporalState(history=hist, recurrent=rec, z=st.z, width=w, height=h), st
