"""Feature staging (docs/model-spec.md "Staging", src/frame/stage_pixel.h): this frame's inputs and
the previous frame's state -> the 16 e4m3 slots per render pixel, in torch, batched, with the
fixed operation order of the C++ code. Differentiable with respect to the temporal state (history
and recurrent features), with straight-through rounding, so training runs through the recurrence.

Shapes: render images [B, H, W, C], display images [B, Hd, Wd, C]. All samples of a batch share
the render and display size. Motion vectors are given at render resolution (the renderer's
sequences), in render pixels after mv_scale, pointing from the current pixel to the previous.
"""
from dataclasses import dataclass
from typing import Optional

import torch

from . import exact_math as xm
from .quant import round_e4m3_ste, round_f16
from .sampling import bilinear_sample, catmull_rom_sample, gather, on_screen
from .spec import pad_to_grid

F32 = torch.float32


@dataclass
class FrameInput:
    color: torch.Tensor           # [B, H, W, 3] linear colour as the engine gives it
    depth: torch.Tensor           # [B, H, W] device depth
    motion: torch.Tensor          # [B, H, W, 2] render pixels (after mv_scale), current -> previous
    jitter: torch.Tensor          # [B, 2] sample offset from the pixel centre, render pixels
    exposure: float = 1.0
    pre_exposure: float = 1.0
    hdr: bool = True
    depth_inverted: bool = False
    reset: bool = False
    # The masks (docs/masks.md), [B, H, W] each, values in [0, 1]; None: absent (zero).
    reactive: Optional[torch.Tensor] = None
    transparency: Optional[torch.Tensor] = None


@dataclass
class TemporalState:
    history: torch.Tensor    # [B, Hd, Wd, 3] previous output, f16 values, linear colour
    recurrent: torch.Tensor  # [B, Hp, Wp, 4] tanh(head 0..3) of the previous frame, f16 values
    z: torch.Tensor          # [B, Hp, Wp] previous reverse-Z depth
    width: int               # previous render size
    height: int


@dataclass
class Staged:
    slots: torch.Tensor   # [B, Hp, Wp, 16] e4m3 values on the padded grid
    tc: torch.Tensor      # [B, H, W, 3] t(colour) in f32 (the output pass's samples)
    motion: torch.Tensor  # [B, H, W, 2] dilated motion, render pixels
    z: torch.Tensor       # [B, H, W] reverse-Z depth
    scale_x: float
    scale_y: float
    # When the frame has a mask: [B, H, W, 2] staged (reactive, transparency) in f32 (the output
    # pass's) and [B, Hp, Wp, 2] of them rounded to e4m3 on the padded grid (the network's).
    masks: Optional[torch.Tensor] = None
    mask_slots: Optional[torch.Tensor] = None


def scale_of(display: int, render: int) -> float:
    """display / render as the f32 division the C++ code does."""
    return float(torch.tensor(float(display), dtype=F32) / torch.tensor(float(render), dtype=F32))


def sanitize(frame: FrameInput):
    """Colour max(c * exposure / pre_exposure, 0) (NaN/Inf -> 0, LDR clamped to 1), depth to
    reverse-Z (NaN/Inf -> far = 0), motion NaN/Inf -> 0 (px::stage_color/depth/motion)."""
    c = (frame.color.to(F32) * frame.exposure) / frame.pre_exposure
    c = torch.where(torch.isfinite(c), c, torch.zeros_like(c))
    c = torch.clamp(c, min=0.0)
    if not frame.hdr:
        c = torch.clamp(c, max=1.0)
    d = frame.depth.to(F32)
    z = d if frame.depth_inverted else 1.0 - d
    z = torch.where(torch.isfinite(d), z, torch.zeros_like(z))
    m = frame.motion.to(F32)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    return c, z, m


def stage_mask(m: torch.Tensor) -> torch.Tensor:
    """clamp(m, 0, 1), NaN/Inf -> 0 (src/frame/mask_pixel.h stage_mask)."""
    m = m.to(F32)
    return torch.where(torch.isfinite(m), torch.clamp(m, 0.0, 1.0), torch.zeros_like(m))


def stage_masks(frame: FrameInput, like: torch.Tensor):
    """The frame's two masks as [B, H, W, 2] staged values (an absent one is 0), or None when the
    frame has neither. `like`: a [B, H, W] tensor for the shape and device."""
    if frame.reactive is None and frame.transparency is None:
        return None
    pair = [stage_mask(m) if m is not None else torch.zeros_like(like)
            for m in (frame.reactive, frame.transparency)]
    return torch.stack(pair, dim=-1)


def dilate_motion(z: torch.Tensor, motion: torch.Tensor) -> torch.Tensor:
    """The motion of the largest reverse-Z pixel of each 3x3 neighbourhood (reads clamped; ties
    to the first in row-major order)."""
    b, h, w = z.shape
    ys = torch.arange(h, device=z.device).view(1, h, 1).expand(b, h, w)
    xs = torch.arange(w, device=z.device).view(1, 1, w).expand(b, h, w)
    best_z = None
    best_x = best_y = None
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            qx = torch.clamp(xs + dx, 0, w - 1)
            qy = torch.clamp(ys + dy, 0, h - 1)
            zq = gather(z[..., None], qx, qy)[..., 0]
            if best_z is None:
                best_z, best_x, best_y = zq, qx, qy
            else:
                better = zq > best_z  # strict: ties keep the earlier pixel
                best_z = torch.where(better, zq, best_z)
                best_x = torch.where(better, qx, best_x)
                best_y = torch.where(better, qy, best_y)
    return gather(motion, best_x, best_y)


def slot_value(x: torch.Tensor) -> torch.Tensor:
    return round_e4m3_ste(torch.clamp(x, -448.0, 448.0))


def pad_edges(x: torch.Tensor, hp: int, wp: int) -> torch.Tensor:
    """[B, H, W, C] -> [B, Hp, Wp, C]: padded pixels repeat the nearest real pixel."""
    b, h, w, c = x.shape
    if h == hp and w == wp:
        return x
    iy = torch.clamp(torch.arange(hp, device=x.device), max=h - 1)
    ix = torch.clamp(torch.arange(wp, device=x.device), max=w - 1)
    return x[:, iy][:, :, ix]


def stage(frame: FrameInput, state: Optional[TemporalState], display_w: int, display_h: int,
          exact: bool) -> Staged:
    c, z, m = sanitize(frame)
    b, h, w, _ = c.shape
    hp, wp = pad_to_grid(h), pad_to_grid(w)
    sx, sy = scale_of(display_w, w), scale_of(display_h, h)
    mv = dilate_motion(z, m)
    mvx, mvy = mv[..., 0], mv[..., 1]
    dev = c.device
    xs = torch.arange(w, device=dev, dtype=F32).view(1, 1, w).expand(b, h, w)
    ys = torch.arange(h, device=dev, dtype=F32).view(1, h, 1).expand(b, h, w)
    jx = frame.jitter[:, 0].to(F32).view(b, 1, 1)
    jy = frame.jitter[:, 1].to(F32).view(b, 1, 1)

    tc = xm.fn("tonemap_t", c, exact)
    slots = [None] * 16
    for k in range(3):
        slots[k] = slot_value(tc[..., k])

    # 3-5, 7: display history at the sample's display position plus its motion, as t(history) -
    # t(colour), rounded after the subtraction (small differences keep e4m3's relative precision).
    dpx = ((xs + 0.5) + jx) * sx
    dpy = ((ys + 0.5) + jy) * sy
    hx = dpx + mvx * sx
    hy = dpy + mvy * sy
    valid_state = state is not None and not frame.reset
    zeros = torch.zeros_like(xs)
    if valid_state:
        hv = on_screen(hx, display_w) & on_screen(hy, display_h)
        hist = catmull_rom_sample(state.history, hx, hy, exact)
        th = xm.fn("tonemap_t", hist, exact)
        for k in range(3):
            slots[3 + k] = torch.where(hv, slot_value(th[..., k] - tc[..., k]), zeros)
        slots[7] = torch.where(hv, zeros, torch.ones_like(xs))
    else:
        for k in range(3):
            slots[3 + k] = zeros
        slots[7] = torch.ones_like(xs)

    # 6, 12-15: the previous render grid at p + mv, scaled when the render size changed.
    if valid_state:
        ratio_x = scale_of(state.width, w)
        ratio_y = scale_of(state.height, h)
        rx = (xs + 0.5 + mvx) * ratio_x
        ry = (ys + 0.5 + mvy) * ratio_y
        pv = on_screen(rx, state.width) & on_screen(ry, state.height)
        nx = torch.clamp(torch.floor(torch.clamp(rx, -8.0, state.width + 8.0)), 0, state.width - 1).long()
        ny = torch.clamp(torch.floor(torch.clamp(ry, -8.0, state.height + 8.0)), 0, state.height - 1).long()
        prev_z = state.z[:, :state.height, :state.width]
        z_prev = gather(prev_z[..., None], nx, ny)[..., 0]
        cue = (z_prev - z) / torch.maximum(torch.maximum(z_prev, z), torch.full_like(z, 1e-6))
        slots[6] = torch.where(pv, slot_value(torch.clamp(cue, -1.0, 1.0)), zeros)
        feats = bilinear_sample(state.recurrent[:, :state.height, :state.width], rx, ry)
        for k in range(4):
            slots[12 + k] = torch.where(pv, slot_value(feats[..., k]), zeros)
    else:
        slots[6] = zeros
        for k in range(4):
            slots[12 + k] = zeros

    # 8-9: the sample's position inside its display pixel; 10-11: motion / 32 clamped.
    slots[8] = slot_value((dpx - torch.floor(dpx)) - 0.5)
    slots[9] = slot_value((dpy - torch.floor(dpy)) - 0.5)
    slots[10] = slot_value(torch.clamp(mvx * 0.03125, -1.0, 1.0))
    slots[11] = slot_value(torch.clamp(mvy * 0.03125, -1.0, 1.0))
    s = torch.stack(slots, dim=-1)
    masks = stage_masks(frame, z)
    mask_slots = pad_edges(round_e4m3_ste(masks), hp, wp) if masks is not None else None
    return Staged(slots=pad_edges(s, hp, wp), tc=tc, motion=mv, z=z, scale_x=sx, scale_y=sy,
                  masks=masks, mask_slots=mask_slots)
