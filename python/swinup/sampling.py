"""Gather-based image sampling with the fixed operation order of src/frame/pixel_ops.h
(Catmull-Rom with its ringing clamp, bilinear), differentiable with respect to the image.

Images are [B, H, W, C]; positions are continuous coordinates (pixel i covers [i, i+1)), [B, h, w]
tensors. Positions far off the image are clamped before indexing (callers mask those results).
"""
import torch

from .exact_math import f32c

F32 = torch.float32


def gather(img: torch.Tensor, ix: torch.Tensor, iy: torch.Tensor) -> torch.Tensor:
    """img[b, iy, ix, :] for integer index tensors [B, h, w] (already in range) -> [B, h, w, C]."""
    b, hs, ws, c = img.shape
    flat = (iy * ws + ix).reshape(b, -1, 1).expand(-1, -1, c)
    return torch.gather(img.reshape(b, hs * ws, c), 1, flat).reshape(*ix.shape, c)


def _safe_floor(u: torch.Tensor, size: int) -> torch.Tensor:
    # Clamping first keeps the int conversion in range; it changes no on-screen position.
    return torch.floor(torch.clamp(u, -8.0, float(size + 8))).to(torch.int64)


def _sample_cell(px: torch.Tensor, py: torch.Tensor, w: int, h: int):
    """The pixel whose centre is at or left/above (px, py) and the fraction past it, per axis:
    (ix, iy, fx, fy), the start of every filter here (pixel_ops.h)."""
    ux = px - 0.5
    uy = py - 0.5
    ix = _safe_floor(ux, w)
    iy = _safe_floor(uy, h)
    return ix, iy, ux - ix.to(F32), uy - iy.to(F32)


def catmull_rom_weights(f: torch.Tensor):
    """pixel_ops.h's catmull_rom_weights, operation by operation."""
    f2 = f * f
    f3 = f2 * f
    w0 = ((-0.5) * f + f2) - 0.5 * f3
    w1 = (1.0 - 2.5 * f2) + 1.5 * f3
    w2 = (0.5 * f + 2.0 * f2) - 1.5 * f3
    w3 = (-0.5) * f2 + 0.5 * f3
    return [w0, w1, w2, w3]


def gather_taps(img: torch.Tensor, ix: torch.Tensor, iy: torch.Tensor) -> torch.Tensor:
    """gather() of several taps at once: index tensors [B, T, h, w] -> [B, T, h, w, C]."""
    b, t, hh, ww = ix.shape
    return gather(img, ix.reshape(b, t * hh, ww), iy.reshape(b, t * hh, ww)).view(b, t, hh, ww, -1)


def _separable_cell(img: torch.Tensor, px: torch.Tensor, py: torch.Tensor, weights, taps: int):
    """What both forms of clamped_separable_sample start from: the image's shape (B, H, W, C), the
    pixel at or left of / above each position (ix, iy), the `taps` weights per axis (wx, wy), the
    first tap's offset and the indices of the two central taps."""
    b, h, w, c = img.shape
    ix, iy, fx, fy = _sample_cell(px, py, w, h)
    return (b, h, w, c), ix, iy, weights(fx), weights(fy), 1 - taps // 2, (taps // 2 - 1, taps // 2)


def separable_taps_batched(img: torch.Tensor, px: torch.Tensor, py: torch.Tensor, weights, taps: int):
    """The unclamped separable sum of clamped_separable_sample's fast mode and the range of its 4
    central taps: (total, lo, hi), each [B, h, w, C]. All taps in one gather and one weighted sum
    (about 20 kernels instead of 130 for Catmull-Rom: training is bound by kernel launches)."""
    (b, h, w, c), ix, iy, wx, wy, first, central = _separable_cell(img, px, py, weights, taps)
    k = torch.arange(taps, device=img.device).view(1, taps, 1, 1) + first
    xs = torch.clamp(ix[:, None] + k, 0, w - 1)  # [B, taps, h, w]
    ys = torch.clamp(iy[:, None] + k, 0, h - 1)
    # Tap (j, i) at index taps * j + i.
    tx = xs[:, None].expand(b, taps, taps, *ix.shape[1:]).reshape(b, taps * taps, *ix.shape[1:])
    ty = ys[:, :, None].expand(b, taps, taps, *ix.shape[1:]).reshape(b, taps * taps, *ix.shape[1:])
    tap = gather_taps(img, tx, ty).view(b, taps, taps, *ix.shape[1:], c)
    wgt = (torch.stack(wy, 1)[:, :, None] * torch.stack(wx, 1)[:, None])[..., None]  # [B, taps, taps, h, w, 1]
    total = (wgt * tap).sum(dim=(1, 2))
    middle = tap[:, central[0]:central[1] + 1, central[0]:central[1] + 1].reshape(b, 4, *ix.shape[1:], c)
    return total, middle.amin(1), middle.amax(1)


def clamped_separable_sample(img: torch.Tensor, px: torch.Tensor, py: torch.Tensor, weights, taps: int,
                             exact: bool = True) -> torch.Tensor:
    """pixel_ops.h's clamped_separable_sample: img [B, H, W, 3] sampled at (px, py) with `taps`
    taps per axis (1 - taps/2 .. taps/2 from the pixel at or left of / above the position), weighted
    by weights(fraction) -> a list of `taps` tensors per axis, taps clamped to the edges, the result
    clamped per channel to the min/max of the 4 central taps; rows summed in column order, then the
    rows in order. exact=False (training): the same value up to float summation order
    (separable_taps_batched)."""
    if not exact:
        total, lo, hi = separable_taps_batched(img, px, py, weights, taps)
        return torch.minimum(torch.maximum(total, lo), hi)
    (b, h, w, c), ix, iy, wx, wy, first, central = _separable_cell(img, px, py, weights, taps)
    total = None
    lo = hi = None
    for j in range(taps):
        y = torch.clamp(iy + first + j, 0, h - 1)
        row = None
        for i in range(taps):
            x = torch.clamp(ix + first + i, 0, w - 1)
            tap = gather(img, x, y)
            term = wx[i][..., None] * tap
            row = (torch.zeros_like(term) + term) if row is None else row + term
            if i in central and j in central:
                lo = tap if lo is None else torch.minimum(lo, tap)
                hi = tap if hi is None else torch.maximum(hi, tap)
        term = wy[j][..., None] * row
        total = (torch.zeros_like(term) + term) if total is None else total + term
    return torch.minimum(torch.maximum(total, lo), hi)


def catmull_rom_sample(img: torch.Tensor, px: torch.Tensor, py: torch.Tensor,
                       exact: bool = True) -> torch.Tensor:
    """Catmull-Rom sample (4 x 4 taps) clamped to its central taps: staging's history slots
    (pixel_ops.h catmull_rom_sample)."""
    return clamped_separable_sample(img, px, py, catmull_rom_weights, 4, exact)


# pixel_ops.h kLanczos3Poly (python/scripts/research/fit_lanczos3_weights.py): coefficients of
# u^7 .. u^0.
LANCZOS3_POLY = [[f32c(v) for v in row] for row in (
    (4.804119840e-02, 2.341418900e-02, -9.706742316e-02, -7.223858684e-02, 2.170617282e-01,
     3.880305216e-02, -2.556954920e-01, 9.782616794e-02),
    (-1.197173223e-01, 3.557077795e-02, 2.286744565e-01, -1.961341314e-02, -4.672587812e-01,
     1.091381162e-01, 7.246325016e-01, -5.434781313e-01),
    (2.345926762e-01, -5.915982649e-02, -4.555668831e-01, 9.189238399e-02, 7.939566374e-01,
     -1.479432732e-01, -1.346677065e+00, 4.456519783e-01))]


def lanczos3_weights(f: torch.Tensor):
    """pixel_ops.h's lanczos3_weights, operation by operation: the six Lanczos-3 weights of taps
    -2 .. +3 for fractions f in [0, 1) (a list of six tensors shaped like f), from the fitted
    polynomials in u = f - 1/2. The positions hold no gradient, so neither do the weights."""
    with torch.no_grad():
        u = f.to(F32) - 0.5
        u2 = u * u
        h = 0.25 - u2
        at_u, at_minus_u = [], []
        for c in LANCZOS3_POLY:
            even = torch.full_like(u, c[1])
            odd = torch.full_like(u, c[0])
            for i in range(1, 4):
                even = even * u2 + c[2 * i + 1]
                odd = odd * u2 + c[2 * i]
            u_odd = u * odd
            at_u.append(even + u_odd)
            at_minus_u.append(even - u_odd)
        return [h * at_u[0], h * at_u[1], (0.5 - u) + h * at_u[2],
                (0.5 + u) + h * at_minus_u[2], h * at_minus_u[1], h * at_minus_u[0]]


def lanczos3_sample(img: torch.Tensor, px: torch.Tensor, py: torch.Tensor,
                    exact: bool = True) -> torch.Tensor:
    """Lanczos-3 sample (6 x 6 taps) clamped to its central 2 x 2 taps: the output pass's history
    (pixel_ops.h lanczos3_sample)."""
    return clamped_separable_sample(img, px, py, lanczos3_weights, 6, exact)


def bilinear_sample(img: torch.Tensor, px: torch.Tensor, py: torch.Tensor) -> torch.Tensor:
    """Bilinear sample (pixel_ops.h bilinear_sample), taps clamped to the edges."""
    b, h, w, c = img.shape
    ix, iy, fx, fy = _sample_cell(px, py, w, h)
    fx = fx[..., None]
    fy = fy[..., None]
    x0 = torch.clamp(ix, 0, w - 1)
    x1 = torch.clamp(ix + 1, 0, w - 1)
    y0 = torch.clamp(iy, 0, h - 1)
    y1 = torch.clamp(iy + 1, 0, h - 1)
    a, bb = gather(img, x0, y0), gather(img, x1, y0)
    cc, d = gather(img, x0, y1), gather(img, x1, y1)
    gx = 1.0 - fx
    gy = 1.0 - fy
    top = gx * a + fx * bb
    bottom = gx * cc + fx * d
    return gy * top + fy * bottom


def on_screen(pos: torch.Tensor, size: int) -> torch.Tensor:
    return (pos >= 0.0) & (pos < float(size))
