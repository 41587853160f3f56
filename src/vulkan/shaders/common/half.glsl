// IEEE binary16 conversions in GLSL, the same integer steps as src/numeric/half.h (round to
// nearest even, overflow to Inf, NaN stays a quiet NaN). packHalf2x16 is not used for rounding:
// Vulkan leaves its rounding mode to the implementation unless RoundingModeRTE is declared, and
// the f16 storage points must round identically on every backend.
#ifndef SWINUP_HALF_GLSL
#define SWINUP_HALF_GLSL

#include "minifloat.glsl"

uint f32_to_f16_bits(float f) {
    const uint x = floatBitsToUint(f);
    const uint sign = (x >> 16) & 0x8000u;
    const uint abs_bits = x & 0x7fffffffu;
    if (abs_bits >= 0x7f800000u) {                         // Inf or NaN
        return sign | 0x7c00u | (abs_bits > 0x7f800000u ? 0x200u : 0u);
    }
    if (abs_bits >= 0x477ff000u) return sign | 0x7c00u;    // rounds to >= 65520: Inf
    if (abs_bits < 0x38800000u) {                          // below 2^-14: subnormal or zero
        if (abs_bits < 0x33000000u) return sign;           // < 2^-25 rounds to 0
        const uint e = abs_bits >> 23;
        const uint m = (abs_bits & 0x7fffffu) | 0x800000u;
        return sign | shift_round_even(m, 126u - e);       // one unit = 2^-24
    }
    const uint base = abs_bits - 0x38000000u;              // exponent bias 127 -> 15
    return sign | shift_round_even(base, 13u);
}

float f16_bits_to_f32(uint h) {
    const uint sign = (h & 0x8000u) << 16;
    const uint e = (h >> 10) & 0x1fu;
    const uint m = h & 0x3ffu;
    if (e == 0x1fu) return uintBitsToFloat(sign | 0x7f800000u | (m << 13));
    return minifloat_to_f32(sign, e, m, 10u, 15u);  // subnormals: m * 2^-24
}

float round_to_f16(float f) { return f16_bits_to_f32(f32_to_f16_bits(f)); }

// Two f16 values in one uint, the first in the low half (the host's uint16_t array order).
uint f16_pack2(float lo, float hi) { return f32_to_f16_bits(lo) | (f32_to_f16_bits(hi) << 16); }
float f16_unpack(uint word, uint k) { return f16_bits_to_f32((word >> (16u * k)) & 0xffffu); }

#endif
