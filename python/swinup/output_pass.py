"""The output pass (docs/model-spec.md "Output pass", src/frame/pixel_ops.h): the head's kernel
resamples the jittered render samples at display resolution, alpha blends the reprojected history
in t-space. Batched torch with the C++ operation order; differentiable with respect to the head
outputs, the samples and the history (straight-through rounding).
"""
import torch

from . import exact_math as xm
from .exact_math import kernel_sincos_exact
from .research.display_refine import refine_inputs
from .research.history_clip import clip_toward_range, sample_range
from .quant import round_f16, round_f16_ste
from .sampling import catmull_rom_sample, gather, gather_taps, lanczos3_sample, on_screen

F32 = torch.float32
HALF_MAX = 65504.0
ALPHA_LOGIT = 7  # the head output whose sigmoid is the history weight alpha (docs/model-spec.md)

# The filters the output pass can read its history with: Lanczos-3 is the network's
# (docs/model-spec.md, "Output pass"); Catmull-Rom is the one every checkpoint before 2026-12-03
# was trained with, kept so that a training arm can be its control
# (train.py --experiment-history-filter) and a replay can compare the two.
HISTORY_FILTERS = {"lanczos3": lanczos3_sample, "catmull-rom": catmull_rom_sample}
history_sample = HISTORY_FILTERS["lanczos3"]


def use_history_filter(name: str):
    """Makes the output pass read its history with HISTORY_FILTERS[name] (an experiment: only
    "lanczos3" matches the backends)."""
    global history_sample
    history_sample = HISTORY_FILTERS[name]


def kernel_sincos(theta: torch.Tensor, exact: bool):
    if not exact:
        return torch.sin(theta), torch.cos(theta)
    smooth_s, smooth_c = torch.sin(theta), torch.cos(theta)
    with torch.no_grad():
        s, c = kernel_sincos_exact(theta.detach())
    if not theta.requires_grad:
        return s, c
    return _replace(smooth_s, s), _replace(smooth_c, c)


class _Replace(torch.autograd.Function):
    """Forward: `value` (exact bits); backward: the gradient of `smooth`."""

    @staticmethod
    def forward(ctx, smooth, value):
        return value

    @staticmethod
    def backward(ctx, g):
        return g, None


def _replace(smooth, value):
    return _Replace.apply(smooth, value)


def kernel_sigma(h: torch.Tensor, exact: bool) -> torch.Tensor:
    h = torch.where(torch.isnan(h), torch.zeros_like(h), h)
    return xm.fn("exp2", torch.clamp(h, -4.0, 2.0), exact)


_NEG_HALF_LOG2E = float(torch.tensor(-0.5, dtype=F32) * xm.LOG2E)  # mul(-0.5f, kLog2e) in f32


def kernel_weight(dx, dy, sin_t, cos_t, s_major, s_minor, exact: bool):
    u = cos_t * dx + sin_t * dy
    v = cos_t * dy - sin_t * dx
    a = u / s_major
    b = v / s_minor
    e = a * a + b * b
    return xm.fn("exp2", _NEG_HALF_LOG2E * e, exact)


def _kernel_sums_in_order(tc, nx, ny, jx, jy, cx, cy, sin_t, cos_t, s_major, s_minor, h, w):
    """sum w * t(c_q) and sum w over the 3x3 taps in the C++ order (dy, then dx), for exact mode."""
    num = None
    den = None
    for dyi in (-1, 0, 1):
        qy = torch.clamp(ny + dyi, 0, h - 1)
        for dxi in (-1, 0, 1):
            qx = torch.clamp(nx + dxi, 0, w - 1)
            ddx = ((qx.to(F32) + 0.5) + jx) - cx
            ddy = ((qy.to(F32) + 0.5) + jy) - cy
            wgt = kernel_weight(ddx, ddy, sin_t, cos_t, s_major, s_minor, True)
            term = wgt[..., None] * gather(tc, qx, qy)
            num = (torch.zeros_like(term) + term) if num is None else num + term
            den = (torch.zeros_like(wgt) + wgt) if den is None else den + wgt
    return num, den


def display_grid(b: int, display_w: int, display_h: int, w: int, h: int, scale_x: float,
                 scale_y: float, device):
    """Each display pixel o's position in render pixels and the render pixel whose head it reads
    (docs/model-spec.md, "Output pass": r = (o + 0.5) / s - 0.5, n = clamp(floor(r + 0.5))):
    (ox, oy, rx, ry, nx, ny), each [B, Hd, Wd]."""
    ox = torch.arange(display_w, device=device, dtype=F32).view(1, 1, display_w).expand(b, display_h, display_w)
    oy = torch.arange(display_h, device=device, dtype=F32).view(1, display_h, 1).expand(b, display_h, display_w)
    rx = (ox + 0.5) / scale_x - 0.5
    ry = (oy + 0.5) / scale_y - 0.5
    nx = torch.clamp(torch.floor(rx + 0.5), 0, w - 1).long()
    ny = torch.clamp(torch.floor(ry + 0.5), 0, h - 1).long()
    return ox, oy, rx, ry, nx, ny


def history_position(ox, oy, nx, ny, motion: torch.Tensor, scale_x: float, scale_y: float):
    """Where display pixel o reads the previous output: o + 0.5 + mv(n) * s, mv the dilated motion
    [B, H, W, 2] of its nearest render pixel n. -> (hx, hy), each [B, Hd, Wd]."""
    mv = gather(motion, nx, ny)
    return (ox + 0.5) + mv[..., 0] * scale_x, (oy + 0.5) + mv[..., 1] * scale_y


def output_pass(head: torch.Tensor, tc: torch.Tensor, motion: torch.Tensor, jitter: torch.Tensor,
                history, display_w: int, display_h: int, scale_x: float, scale_y: float,
                history_valid: bool, exact: bool, refine=None, clip=None, residual=None,
                still_shift: float = 0.0, masks=None):
    """head: [B, H, W, 16] raw outputs at the real render size; tc: [B, H, W, 3] t(colour);
    motion: [B, H, W, 2] dilated; jitter [B, 2]; history [B, Hd, Wd, 3] (f16 values) or None.
    refine: a display_refine.DisplayRefine (an experiment no backend runs) or None.
    clip: a history_clip.HistoryClip (an experiment no backend runs), any callable of the same
    signature (head rows at each display pixel -> clip strength), or None.
    residual: a sample_residual.SampleResidual (an experiment no backend runs), any callable
    (head, tc) -> corrected tc, or None: the output pass then gathers the corrected samples.
    still_shift: the network's still_history_shift (ModelConfig): added to the history weight's
    logit where n's dilated motion is exactly zero (src/frame/output_pixel.h history_weight).
    masks: [B, H, W, 2] staged (reactive, transparency) (staging.Staged.masks) or None (zero): at
    n, transparency t scales the still shift to shift * (1 - t) and reactive r raises the current
    frame's share of the displayed colour to share + r * (1 - share) and lowers its share of the
    colour kept as history to share * (1 - r) (docs/masks.md, "The output pass").
    Returns (out [B, Hd, Wd, 3] linear colour, new_history f16 values, recurrent f16 values);
    new_history differs from out only where r != 0 and there is history."""
    b, h, w, _ = head.shape
    dev = head.device
    if residual is not None:
        tc = residual(head, tc)
    ox, oy, rx, ry, nx, ny = display_grid(b, display_w, display_h, w, h, scale_x, scale_y, dev)
    hn = gather(head, nx, ny)  # [B, Hd, Wd, 16]
    s_major = kernel_sigma(hn[..., 4], exact)
    s_minor = kernel_sigma(hn[..., 5], exact)
    sin_t, cos_t = kernel_sincos(hn[..., 6], exact)
    jx = jitter[:, 0].to(F32).view(b, 1, 1)
    jy = jitter[:, 1].to(F32).view(b, 1, 1)
    cx = rx + 0.5
    cy = ry + 0.5
    if not exact:
        # Training: the nine taps in one batch of tensors [B, 9, Hd, Wd] (tap 3(dy+1) + dx+1),
        # summed in any order, instead of nine rounds of ~25 kernels each.
        k = torch.arange(-1, 2, device=dev)
        qy = torch.clamp(ny[:, None] + k.repeat_interleave(3).view(1, 9, 1, 1), 0, h - 1)
        qx = torch.clamp(nx[:, None] + k.repeat(3).view(1, 9, 1, 1), 0, w - 1)
        ddx = ((qx.to(F32) + 0.5) + jx[:, None]) - cx[:, None]
        ddy = ((qy.to(F32) + 0.5) + jy[:, None]) - cy[:, None]
        wgt = kernel_weight(ddx, ddy, sin_t[:, None], cos_t[:, None], s_major[:, None],
                            s_minor[:, None], exact)
        num = (wgt[..., None] * gather_taps(tc, qx, qy)).sum(1)
        den = wgt.sum(1)
    else:
        num, den = _kernel_sums_in_order(tc, nx, ny, jx, jy, cx, cy, sin_t, cos_t, s_major,
                                         s_minor, h, w)
    nearest = gather(tc, nx, ny)
    ok = (den >= 1e-20)[..., None]
    current = torch.where(ok, num / torch.where(ok, den[..., None], torch.ones_like(den[..., None])), nearest)

    alpha_logit = hn[..., ALPHA_LOGIT]
    mn = gather(masks, nx, ny) if masks is not None else None  # [B, Hd, Wd, 2] at n
    if still_shift != 0.0:
        still = (gather(motion, nx, ny) == 0).all(dim=-1)
        shift = torch.full_like(alpha_logit, still_shift)
        if mn is not None:  # shift * (1 - t), formed only where t != 0 (history_weight)
            t = mn[..., 1]
            shift = torch.where(t != 0, still_shift * (1.0 - t), shift)
        alpha_logit = torch.where(still & (shift != 0), alpha_logit + shift, alpha_logit)
    alpha = xm.fn("sigmoid", alpha_logit, exact)
    if history_valid and history is not None:
        hx, hy = history_position(ox, oy, nx, ny, motion, scale_x, scale_y)
        valid = on_screen(hx, display_w) & on_screen(hy, display_h)
        th = xm.fn("tonemap_t", history_sample(history, hx, hy, exact), exact)
        if clip is not None:
            lo, hi = sample_range(tc)
            th = clip_toward_range(th, gather(lo, nx, ny), gather(hi, nx, ny), clip(hn))
        # current_share (src/frame/output_pixel.h): (1 - alpha) * min(1, sum of the kernel's
        # weights), so display pixels that no sample of this frame came near keep their history.
        coverage = torch.clamp(den, max=1.0)
        if refine is not None:
            logit = alpha_logit + refine(refine_inputs(th, current, coverage, rx - nx.to(F32),
                                                      ry - ny.to(F32), hn))
            alpha = xm.fn("sigmoid", logit, exact)
        share = (1.0 - alpha) * coverage
        d = current - th
        kept = None
        if mn is not None:
            # reactive_share / reactive_history_share, each only where r != 0: the display takes
            # share + r * (1 - share), the history keeps share * (1 - r).
            r = mn[..., 0]
            share_kept = torch.where(r != 0, share * (1.0 - r), share)[..., None]
            share = torch.where(r != 0, share + r * (1.0 - share), share)
            kept = torch.where(valid[..., None], th + share_kept * d, current)
        blended = torch.where(valid[..., None], th + share[..., None] * d, current)
    else:
        blended = current
        kept = None
    out = xm.fn("tonemap_t_inverse", blended, exact)
    kept_out = out if kept is None else xm.fn("tonemap_t_inverse", kept, exact)
    new_history = round_f16_ste(torch.clamp(kept_out, 0.0, HALF_MAX))
    recurrent = round_f16_ste(xm.fn("tanh", head[..., 0:4], exact))
    return out, new_history, recurrent
