// The integer steps that half.glsl (binary16) and e4m3.glsl (FP8 e4m3) share: rounding a shifted
// significand to nearest even, and building an f32 from a small format's sign, exponent and
// mantissa fields. Integer arithmetic only, so no step depends on the device's float rounding or
// denormal handling.
#ifndef SWINUP_MINIFLOAT_GLSL
#define SWINUP_MINIFLOAT_GLSL

// bits >> shift (shift >= 1), rounded to nearest, ties to even.
uint shift_round_even(uint bits, uint shift) {
    const uint q = bits >> shift;
    const uint rem = bits & ((1u << shift) - 1u);
    const uint half_unit = 1u << (shift - 1u);
    return q + ((rem > half_unit || (rem == half_unit && (q & 1u) != 0u)) ? 1u : 0u);
}

// The f32 of a finite small float: sign already at bit 31, exponent field e, mantissa field m of
// mantissa_bits bits, exponent bias `bias`. Subnormals (e == 0) are built from bits: exact.
float minifloat_to_f32(uint sign, uint e, uint m, uint mantissa_bits, uint bias) {
    if (e == 0u) {
        if (m == 0u) return uintBitsToFloat(sign);
        const uint lead = uint(findMSB(m));
        const uint frac = (m << (23u - lead)) & 0x7fffffu;
        return uintBitsToFloat(sign | ((128u - bias - mantissa_bits + lead) << 23) | frac);
    }
    return uintBitsToFloat(sign | ((e + 127u - bias) << 23) | (m << (23u - mantissa_bits)));
}

#endif
