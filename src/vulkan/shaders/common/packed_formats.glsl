// GLSL twin of src/frame/packed_formats.h: the unsigned small floats of B10G11R11F (5 exponent
// bits, bias 15, 6 or 5 mantissa bits), in integer steps, so the output pass writes the CPU's bits.
#ifndef SWINUP_PACKED_FORMATS_GLSL
#define SWINUP_PACKED_FORMATS_GLSL

#include "minifloat.glsl"

uint ufloat_max_finite(uint mantissa_bits) { return (30u << mantissa_bits) | ((1u << mantissa_bits) - 1u); }

// packed_formats.h f32_to_ufloat: to nearest even; NaN, zero and negative 0; past the largest
// finite value (Inf too) that value.
uint f32_to_ufloat(float v, uint mantissa_bits) {
    const uint b = floatBitsToUint(v);
    if ((b & 0x80000000u) != 0u || b == 0u || (b & 0x7fffffffu) > 0x7f800000u) return 0u;  // negative, 0, NaN
    const uint max_finite = ufloat_max_finite(mantissa_bits);
    if (b >= 0x7f800000u) return max_finite;
    const int e = int(b >> 23) - 127 + 15;
    const uint significand = (b & 0x7fffffu) | 0x800000u;
    if (e >= 31) return max_finite;
    if (e <= 0) {
        const int shift = 23 - int(mantissa_bits) + 1 - e;
        if (shift > 24) return 0u;
        return shift_round_even(significand, uint(shift));
    }
    const uint r = (uint(e) << mantissa_bits) + shift_round_even(significand & 0x7fffffu, 23u - mantissa_bits);
    return min(r, max_finite);
}

// packed_formats.h ufloat_to_f32 for a finite value (exact).
float ufloat_to_f32(uint bits, uint mantissa_bits) {
    return minifloat_to_f32(0u, bits >> mantissa_bits, bits & ((1u << mantissa_bits) - 1u), mantissa_bits, 15u);
}

#endif
