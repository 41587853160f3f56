// The fixed formulas of the `exact` precision mode (model.md): every backend evaluates these
// exact operation sequences, so CPU and GPU produce the same bits for the same input.
//
// Why explicit mul/add/fma: compilers contract a*b+c into an FMA when they like (nvcc by default),
// which changes the rounding. On the device we call the _rn intrinsics, which are never contracted;
// the host code is compiled with -ffp-contract=off. Where an FMA is wanted it is written as one.
#pragma once

#include <cmath>
#include <cstdint>

#include "numeric/float_bits.h"

namespace swinup::exact {

SWINUP_HD float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
SWINUP_HD float add(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
SWINUP_HD float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
SWINUP_HD float fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
SWINUP_HD float div(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}
SWINUP_HD float sqrt(float a) {
#if defined(__CUDA_ARCH__)
    return __fsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}
SWINUP_HD float rint(float a) {  // round half to even; exact
#if defined(__CUDA_ARCH__)
    return rintf(a);
#else
    return std::nearbyint(a);  // the default rounding mode is to-nearest-even
#endif
}

constexpr float kLog2e = 1.44269504088896340736f;
constexpr float kLn2 = 0.693147180559945309417f;

// 2^x: n = rint(x), f = x - n in [-0.5, 0.5], 2^f by its degree-6 Taylor polynomial in f*ln2
// (relative error < 2e-7 there), then n inserted into the exponent. x < -126 gives 0, x > 127
// gives 2^127 * p: callers never need more. NaN propagates.
SWINUP_HD float exp2(float x) {
    if (x != x) return x;
    if (x < -126.0f) return 0.0f;
    if (x > 127.0f) x = 127.0f;
    const float n = rint(x);
    const float f = sub(x, n);  // exact
    // Coefficients ln2^k / k!.
    float p = 1.5403530393381609e-4f;
    p = fma(p, f, 1.3333558146428443e-3f);
    p = fma(p, f, 9.6181291076284772e-3f);
    p = fma(p, f, 5.5504108664821580e-2f);
    p = fma(p, f, 2.4022650695910071e-1f);
    p = fma(p, f, 6.9314718055994531e-1f);
    p = fma(p, f, 1.0f);
    const int32_t ni = static_cast<int32_t>(n);
    if (ni < -125) {  // 2^n itself is subnormal: scale in two steps so that no step is subnormal
        return mul(mul(p, bits_to_float(static_cast<uint32_t>(ni + 127 + 64) << 23)),
                   5.42101086242752217e-20f /* 2^-64 */);
    }
    return mul(p, bits_to_float(static_cast<uint32_t>(ni + 127) << 23));
}

// log2(x) for x > 0 finite: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(u),
// u = (m-1)/(m+1), |u| < 0.172, by its odd series to u^11 (error < 3e-10 before rounding).
// x <= 0 gives -126 (callers pass 1 + non-negative values; the guard keeps NaN out).
SWINUP_HD float log2(float x) {
    if (x != x) return x;
    if (!(x > 0.0f)) return -126.0f;
    if (x > 3.4e38f) x = 3.4e38f;
    uint32_t bits = float_to_bits(x);
    int32_t e = static_cast<int32_t>(bits >> 23) - 127;
    if ((bits >> 23) == 0) return -126.0f;  // subnormal input: not a colour anyone renders
    float m = bits_to_float((bits & 0x7fffffu) | 0x3f800000u);  // [1, 2)
    if (m > 1.41421356237f) {
        m = mul(m, 0.5f);
        e += 1;
    }
    const float u = div(sub(m, 1.0f), add(m, 1.0f));
    const float u2 = mul(u, u);
    float s = 1.0f / 11.0f;
    s = fma(s, u2, 1.0f / 9.0f);
    s = fma(s, u2, 1.0f / 7.0f);
    s = fma(s, u2, 1.0f / 5.0f);
    s = fma(s, u2, 1.0f / 3.0f);
    s = fma(s, u2, 1.0f);
    const float ln_m = mul(mul(2.0f, u), s);
    return fma(ln_m, kLog2e, static_cast<float>(e));
}

// tanh(y) = 1 - 2 / (1 + e^(2y)); saturates cleanly to +-1.
SWINUP_HD float tanh(float y) {
    const float e = exp2(mul(mul(2.0f, y), kLog2e));
    return sub(1.0f, div(2.0f, add(1.0f, e)));
}

// sigmoid(x) = 1 / (1 + e^-x).
SWINUP_HD float sigmoid(float x) { return div(1.0f, add(1.0f, exp2(mul(-x, kLog2e)))); }

// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
SWINUP_HD float gelu(float x) {
    const float x3 = mul(mul(x, x), x);
    const float inner = mul(0.7978845608028654f, fma(0.044715f, x3, x));
    return mul(mul(0.5f, x), add(1.0f, tanh(inner)));
}

// The colour compression of model.md: t(x) = log2(1 + x), x >= 0, and its inverse.
SWINUP_HD float tonemap_t(float x) { return log2(add(1.0f, x > 0.0f ? x : 0.0f)); }
SWINUP_HD float tonemap_t_inverse(float y) { return sub(exp2(y), 1.0f); }

}  // namespace swinup::exact
