"""Rounding to the kernels' number formats, bit-exact with src/numeric/e4m3.h and half.h.

Every function works on float32 tensors with plain torch ops (torch 1.13 has no float8 dtype), so
the same code runs on the CPU and on CUDA. The `*_ste` forms round in the forward pass and pass the
gradient straight through (the straight-through estimator), which is how training sees rounding.
"""
import torch

E4M3_MAX = 448.0


def _i32(v):
    """A Python int as a signed int32 value (bit patterns above 2^31 wrap)."""
    return v - (1 << 32) if v >= (1 << 31) else v


def _round_float_bits(x: torch.Tensor, mantissa_bits: int, min_normal_bits: int, too_large_bits: int,
                      too_large_value: float) -> torch.Tensor:
    """Round float32 values to the nearest value of a narrower binary float format, kept as
    float32, with integer operations on the bits (any torch version; what torch.compile cannot
    drop): round to nearest even on the f32 mantissa's low 23 - mantissa_bits bits in the normal
    range; below the format's smallest normal (f32 bits min_normal_bits) multiples of its
    subnormal step, half to even (exact scalings); from f32 bits too_large_bits on, the signed
    too_large_value (the saturation or Inf). NaN stays NaN."""
    x = x.to(torch.float32).contiguous()
    bits = x.view(torch.int32)
    sign = bits & _i32(0x80000000)
    a = bits & 0x7FFFFFFF
    mag = a.view(torch.float32)
    drop = 23 - mantissa_bits
    q = a >> drop
    rem = a & ((1 << drop) - 1)
    half = 1 << (drop - 1)
    up = (rem > half) | ((rem == half) & ((q & 1) == 1))
    normal = ((q + up.to(torch.int32)) << drop).view(torch.float32)
    # The subnormal step: the smallest normal's exponent minus the mantissa bits.
    step = 2.0 ** (((min_normal_bits >> 23) - 127) - mantissa_bits)
    sub = torch.round(mag * (1.0 / step)) * step
    r = torch.where(a < min_normal_bits, sub, normal)
    r = torch.where(a >= too_large_bits, torch.full_like(r, too_large_value), r)
    out = (r.view(torch.int32) | sign).view(torch.float32)
    return torch.where(a > 0x7F800000, x, out)  # NaN


def round_e4m3_bits(x: torch.Tensor) -> torch.Tensor:
    """Round float32 values to the nearest e4m3 value (RNE, saturating to +-448; NaN stays NaN),
    as f32_to_e4m3 then e4m3_to_f32 of src/numeric/e4m3.h, with integer operations on the bits
    (about 20 elementwise kernels). Normal range [2^-6, 448], subnormals multiples of 2^-9; from
    448 on, 448 (every such value rounds to 448 or past it)."""
    return _round_float_bits(x, 3, 0x3C800000, 0x43E00000, E4M3_MAX)


def _round_e4m3_cast(x: torch.Tensor) -> torch.Tensor:
    """The same rounding with torch's float8_e4m3fn cast (torch >= 2.1): RNE like the bit version;
    the cast itself does not saturate (out of range -> NaN), so clamp first. NaN stays NaN. Two
    kernels instead of twenty, which is what makes training on small tiles fast."""
    return x.to(torch.float32).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn).to(torch.float32)


def rounding_probe(device) -> torch.Tensor:
    """float32 values that reach every rounding case of e4m3 and f16: every f16 value, every e4m3
    rounding tie and its float32 neighbours, 1M random bit patterns (NaN and Inf among them) and
    values beyond both ranges."""
    f16 = torch.arange(65536, dtype=torch.int32).to(torch.int16).view(torch.float16).to(torch.float32)
    codes = torch.arange(256, dtype=torch.int32)
    vals = e4m3_decode(codes)
    vals = vals[torch.isfinite(vals)].sort().values
    ties = (vals[1:] + vals[:-1]) * 0.5  # exact in float32: midpoints of neighbouring e4m3 values
    tb = ties.view(torch.int32)
    near = torch.cat([ties, (tb + 1).view(torch.float32), (tb - 1).view(torch.float32), -ties])
    g = torch.Generator().manual_seed(7)
    rnd = torch.randint(-(1 << 31), (1 << 31) - 1, (1 << 20,), generator=g, dtype=torch.int64)
    rnd = rnd.to(torch.int32).view(torch.float32)
    return torch.cat([f16, near, rnd, torch.tensor([float("inf"), -float("inf"), 1e30, -1e30])]).to(device)


def _cast_agrees(device) -> bool:
    """The cast is used only where it equals the bit version on every value of rounding_probe
    (checked once per device type)."""
    x = rounding_probe(device)
    a, b = round_e4m3_bits(x), _round_e4m3_cast(x)
    nan = torch.isnan(a)
    return bool(torch.equal(nan, torch.isnan(b)) and
                torch.equal(a[~nan].view(torch.int32), b[~nan].view(torch.int32)))


_CAST_OK = {}


def round_e4m3(x: torch.Tensor) -> torch.Tensor:
    """Round float32 values to the nearest e4m3 value (RNE, saturating to +-448; NaN stays NaN),
    as f32_to_e4m3 then e4m3_to_f32 of src/numeric/e4m3.h: the float8 cast where torch has it and it
    agrees with the bit version, else the bit version."""
    if not hasattr(torch, "float8_e4m3fn"):
        return round_e4m3_bits(x)
    ok = _CAST_OK.get(x.device.type)
    if ok is None:
        ok = _CAST_OK[x.device.type] = _cast_agrees(x.device)
        if not ok:
            print(f"swinup.quant: torch's float8 cast differs from e4m3.h on {x.device.type}; "
                  "using the bit version", flush=True)
    return _round_e4m3_cast(x) if ok else round_e4m3_bits(x)


def e4m3_codes(x: torch.Tensor) -> torch.Tensor:
    """The e4m3 byte codes (uint8) of float32 values, as f32_to_e4m3."""
    r = round_e4m3(x)
    bits = r.view(torch.int32)
    sign = ((bits >> 24) & 0x80)
    a = bits & 0x7FFFFFFF
    exp = (a >> 23) - 120  # e4m3 exponent field for normals
    normal_code = (exp << 3) | ((a >> 20) & 7)
    sub_code = torch.round(r.abs() * 512.0).to(torch.int32)  # m * 2^-9, m in 0..7 (8 = 2^-6)
    code = torch.where(a < 0x3C800000, sub_code, normal_code)
    code = torch.where(a > 0x7F800000, torch.full_like(code, 0x7F), code | sign)
    return code.to(torch.uint8)


def e4m3_decode(codes: torch.Tensor) -> torch.Tensor:
    """float32 values of e4m3 codes (exact), as e4m3_to_f32."""
    c = codes.to(torch.int32)
    sign = (c & 0x80) << 24
    e = (c >> 3) & 0xF
    m = c & 7
    normal = (sign | ((e + 120) << 23) | (m << 20)).view(torch.float32)
    sub = m.to(torch.float32) * 0.001953125
    sub = torch.where((c & 0x80) != 0, -sub, sub)
    out = torch.where(e == 0, sub, normal)
    return torch.where((e == 15) & (m == 7), torch.full_like(out, float("nan")), out)


def round_f16_bits(x: torch.Tensor) -> torch.Tensor:
    """Round float32 values to the nearest f16 value (RNE, overflow to Inf, NaN stays NaN), kept as
    float32, with integer operations on the bits: what torch.compile must be given instead of the
    cast round trip, which Inductor drops inside a fused kernel (check_compile.py --ops on the H200,
    2026-12-02: 93.7% of rounding_probe's values unrounded, finite values past 65504 not
    turned into Inf, with emulate_precision_casts set). Normal range [2^-14, 65504], subnormals
    multiples of 2^-24; from 65520 (halfway between 65504 and 2^16, a tie that rounds to the even
    2^16) on, Inf."""
    return _round_float_bits(x, 10, 0x38800000, 0x477FF000, float("inf"))


# Whether torch.compile is tracing (torch >= 2.1; older torch has no compiler to trace), looked up
# once: round_f16 asks on every call, on training's hot path.
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)


def round_f16(x: torch.Tensor) -> torch.Tensor:
    """Round to the nearest f16 value (RNE, overflow to Inf), kept as float32: half.h's
    round_to_f16. Eager: torch's float->half conversion (IEEE round-to-nearest-even on CPU and
    CUDA), one kernel each way; under torch.compile the bit version, which gives the same bits
    (tests/test_quant_cast.py) and which the compiler cannot drop."""
    if _compiling():
        return round_f16_bits(x)
    return x.to(torch.float32).to(torch.float16).to(torch.float32)


def to_f32(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.float32)


class _StraightThrough(torch.autograd.Function):
    """Forward: the rounded value; backward: the identity (straight-through estimator)."""

    @staticmethod
    def forward(ctx, x, fn):
        return fn(x)

    @staticmethod
    def backward(ctx, g):
        return g, None


def round_e4m3_ste(x: torch.Tensor) -> torch.Tensor:
    return _StraightThrough.apply(x, round_e4m3) if x.requires_grad else round_e4m3(x)


def round_f16_ste(x: torch.Tensor) -> torch.Tensor:
    return _StraightThrough.apply(x, round_f16) if x.requires_grad else round_f16(x)


def round_f32_ste(x: torch.Tensor) -> torch.Tensor:
    return _StraightThrough.apply(x, to_f32) if x.requires_grad else to_f32(x)


def pow2_scale_for(w: torch.Tensor) -> torch.Tensor:
    """Per-output-channel power-of-two scale so that w / scale fits e4m3: the smallest 2^k with
    max|w[o,:]| / 2^k <= 448 (rows of zeros get scale 1). w: [out, in]."""
    amax = w.detach().abs().amax(dim=1)
    k = torch.ceil(torch.log2(torch.clamp(amax, min=1e-30) / E4M3_MAX))
    k = torch.where(amax > 0, k, torch.zeros_like(k))
    return torch.exp2(k.clamp(-60, 60)).to(torch.float32)


def quantize_weight_ste(w: torch.Tensor):
    """A float master weight [out, in] -> (e4m3 values of w/scale with a straight-through
    gradient, scale [out]). w_q[o,k] * scale[o] is the weight the kernels use."""
    scale = pow2_scale_for(w)
    return round_e4m3_ste(w / scale[:, None]), scale
