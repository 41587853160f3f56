"""The `exact` precision mode's fixed formulas of src/numeric/exact_math.h, operation by operation
in float32 torch ops (IEEE add/sub/mul/div/sqrt, round-half-even rint).

fma(a, b, c) is emulated as float64 a*b (exact: 24 x 24 bits fit 53) plus c in float64, then
rounded to float32. That is the correctly rounded fma except where the float64 rounding of the
sum lands exactly on a float32 rounding tie that the exact sum would not (double rounding); for
these polynomials' operands it is never observed over the exhaustive f16 input check
(python/scripts/check_against_cpp.py), but it is not a proof for every float32 input.

The `*_ste` forms evaluate the exact formula in the forward pass and take the gradient of the
smooth function (torch's own), so training sees the kernels' values.
"""
import math

import torch

F32 = torch.float32
LOG2E = float(torch.tensor(1.44269504088896340736, dtype=F32))
LN2 = float(torch.tensor(0.693147180559945309417, dtype=F32))


def f32c(v: float) -> float:
    """A constant rounded to float32 (as the C++ literal with the f suffix), kept as a Python
    float, so that tensor (op) scalar computes with exactly that float32 value."""
    return float(torch.tensor(v, dtype=torch.float64).to(F32))


def fma(a, b, c):
    a64 = a.to(torch.float64) if torch.is_tensor(a) else torch.tensor(a, dtype=torch.float64)
    b64 = b.to(torch.float64) if torch.is_tensor(b) else b
    c64 = c.to(torch.float64) if torch.is_tensor(c) else c
    return (a64 * b64 + c64).to(F32)


_EXP2_C = [f32c(v) for v in (1.5403530393381609e-4, 1.3333558146428443e-3,
                             9.6181291076284772e-3, 5.5504108664821580e-2,
                             2.4022650695910071e-1, 6.9314718055994531e-1, 1.0)]


def _pow2_bits(e_field: torch.Tensor) -> torch.Tensor:
    return (e_field.to(torch.int32) << 23).view(F32)


def exp2(x: torch.Tensor) -> torch.Tensor:
    x = x.to(F32)
    nan = torch.isnan(x)
    xc = torch.clamp(x, max=127.0)
    xc = torch.where(nan, torch.zeros_like(xc), xc)
    n = torch.round(xc)  # half to even, like nearbyint
    f = xc - n
    p = torch.full_like(f, _EXP2_C[0])
    for c in _EXP2_C[1:]:
        p = fma(p, f, c)
    ni = n.to(torch.int32).clamp(min=-126)
    small = ni < -125
    normal = p * _pow2_bits(torch.where(small, torch.full_like(ni, 1), ni + 127))
    tiny = (p * _pow2_bits(torch.where(small, ni + 127 + 64, torch.full_like(ni, 1)))) * \
        f32c(5.42101086242752217e-20)
    r = torch.where(small, tiny, normal)
    r = torch.where(xc < -126.0, torch.zeros_like(r), r)
    return torch.where(nan, x, r)


_LOG2_S = [f32c(1.0 / 11.0), f32c(1.0 / 9.0), f32c(1.0 / 7.0), f32c(1.0 / 5.0), f32c(1.0 / 3.0), 1.0]


def log2(x: torch.Tensor) -> torch.Tensor:
    x = x.to(F32)
    nan = torch.isnan(x)
    bad = ~(x > 0.0)
    xc = torch.clamp(torch.where(bad | nan, torch.ones_like(x), x), max=f32c(3.4e38))
    bits = xc.contiguous().view(torch.int32)
    e = (bits >> 23) - 127
    subnormal = (bits >> 23) == 0
    m = ((bits & 0x7FFFFF) | 0x3F800000).view(F32)
    big = m > f32c(1.41421356237)
    m = torch.where(big, m * 0.5, m)
    e = torch.where(big, e + 1, e)
    u = (m - 1.0) / (m + 1.0)
    u2 = u * u
    s = torch.full_like(u, _LOG2_S[0])
    for c in _LOG2_S[1:]:
        s = fma(s, u2, c)
    ln_m = (2.0 * u) * s
    r = fma(ln_m, LOG2E, e.to(F32))
    r = torch.where(bad | subnormal, torch.full_like(r, -126.0), r)
    return torch.where(nan, x, r)


def tanh(y: torch.Tensor) -> torch.Tensor:
    e = exp2((2.0 * y.to(F32)) * LOG2E)
    return 1.0 - 2.0 / (1.0 + e)


def sigmoid(x: torch.Tensor) -> torch.Tensor:
    return 1.0 / (1.0 + exp2((-x.to(F32)) * LOG2E))


_GELU_A = f32c(0.7978845608028654)
_GELU_B = f32c(0.044715)


def gelu(x: torch.Tensor) -> torch.Tensor:
    x = x.to(F32)
    x3 = (x * x) * x
    inner = _GELU_A * fma(_GELU_B, x3, x)
    return (0.5 * x) * (1.0 + tanh(inner))


def tonemap_t(x: torch.Tensor) -> torch.Tensor:
    x = x.to(F32)
    return log2(1.0 + torch.where(x > 0.0, x, torch.zeros_like(x)))


def tonemap_t_inverse(y: torch.Tensor) -> torch.Tensor:
    return exp2(y.to(F32)) - 1.0


# ---- smooth twins (training) and straight-through forms ------------------------------------------

def _smooth_gelu(x):
    """GELU's tanh form, the formula of `gelu` above, as one torch kernel (and one backward)."""
    return torch.nn.functional.gelu(x, approximate="tanh")


SMOOTH = {
    "exp2": torch.exp2,
    "log2": lambda x: torch.log2(torch.clamp(x, min=1e-30)),
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "gelu": _smooth_gelu,
    "tonemap_t": lambda x: torch.log2(1.0 + torch.clamp(x, min=0.0)),
    "tonemap_t_inverse": lambda y: torch.exp2(y) - 1.0,
}
EXACT = {"exp2": exp2, "log2": log2, "tanh": tanh, "sigmoid": sigmoid, "gelu": gelu,
         "tonemap_t": tonemap_t, "tonemap_t_inverse": tonemap_t_inverse}


class _ExactForwardSmoothGrad(torch.autograd.Function):
    """Forward: the exact formula's bits; backward: the gradient of the smooth function."""

    @staticmethod
    def forward(ctx, x, name):
        ctx.save_for_backward(x)
        ctx.name = name
        return EXACT[name](x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            xx = x.detach().requires_grad_(True)
            (gx,) = torch.autograd.grad(SMOOTH[ctx.name](xx), xx, g)
        return gx, None


def fn(name: str, x: torch.Tensor, exact: bool) -> torch.Tensor:
    """The function `name`: the exact formula forward with the smooth gradient when `exact`,
    else the smooth (torch) function alone, which is faster for training."""
    if not exact:
        return SMOOTH[name](x)
    if not x.requires_grad:
        return EXACT[name](x)
    return _ExactForwardSmoothGrad.apply(x, name)


_SIN = [f32c(v) for v in (2.75573192239858906e-6, -1.98412698412698413e-4,
                          8.33333333333333322e-3, -1.66666666666666657e-1)]
_COS = [f32c(v) for v in (2.48015873015873016e-5, -1.38888888888888894e-3,
                          4.16666666666666644e-2, -0.5, 1.0)]


def kernel_sincos_exact(theta: torch.Tensor):
    """px::kernel_sincos (pixel_ops.h): Cody-Waite reduction by pi/2 and Taylor polynomials, fma
    emulated as above. The output pass's kernel angle uses it."""
    theta = torch.where(torch.isnan(theta), torch.zeros_like(theta), theta)
    theta = torch.clamp(theta, -1024.0, 1024.0)
    k = torch.round(theta * f32c(0.636619772367581343))
    f = fma(-k, f32c(1.57079625129699707031), theta)
    f = fma(-k, f32c(7.54978995489188216e-8), f)
    f2 = f * f
    s = torch.full_like(f, _SIN[0])
    for c in _SIN[1:]:
        s = fma(s, f2, c)
    s = fma(s * f2, f, f)
    c = torch.full_like(f, _COS[0])
    for v in _COS[1:]:
        c = fma(c, f2, v)
    q = k.to(torch.int64) & 3
    sin = torch.where(q == 0, s, torch.where(q == 1, c, torch.where(q == 2, -s, -c)))
    cos = torch.where(q == 0, c, torch.where(q == 1, -s, torch.where(q == 2, -c, s)))
    return sin, cos
