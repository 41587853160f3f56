// FP8 e4m3 in GLSL: the same integer steps as src/numeric/e4m3.h (OCP "E4M3FN": bias 7, no
// infinities, 0x7f/0xff NaN, saturation to +-448, round to nearest even). Integer arithmetic
// only, so the result does not depend on the device's float rounding or denormal handling.
// Codes travel in the low 8 bits of a uint; e4m3_pack4/e4m3_unpack keep 4 codes per uint.
#ifndef SWINUP_E4M3_GLSL
#define SWINUP_E4M3_GLSL

#include "minifloat.glsl"

const uint kE4m3NaN = 0x7fu;

uint f32_to_e4m3(float f) {
    const uint x = floatBitsToUint(f);
    const uint sign = (x >> 24) & 0x80u;
    const uint abs_bits = x & 0x7fffffffu;
    if (abs_bits > 0x7f800000u) return kE4m3NaN;           // NaN
    if (abs_bits >= 0x43e00000u) return sign | 0x7eu;      // |f| >= 448 (and Inf)
    if (abs_bits < 0x3c800000u) {                          // e4m3 subnormal range, unit 2^-9
        if (abs_bits <= 0x3a800000u) return sign;          // <= 2^-10 rounds to 0
        const uint e = abs_bits >> 23;                    // 117..120
        const uint m = (abs_bits & 0x7fffffu) | 0x800000u;
        return sign | shift_round_even(m, 141u - e);       // may carry into the smallest normal
    }
    const uint base = abs_bits - (120u << 23);             // rebias 127 -> 7
    uint r = shift_round_even(base, 20u);
    if (r > 0x7eu) r = 0x7eu;                              // past 448 saturates (0x7f is NaN)
    return sign | r;
}

float e4m3_to_f32(uint code) {
    const uint sign = (code & 0x80u) << 24;
    const uint e = (code >> 3) & 0xfu;
    const uint m = code & 0x7u;
    if (e == 0xfu && m == 0x7u) return uintBitsToFloat(sign | 0x7fc00000u);  // NaN
    return minifloat_to_f32(sign, e, m, 3u, 7u);  // subnormals: m * 2^-9
}

// Round a float to the nearest e4m3 value, kept as a float (the e4m3 storage points).
float round_to_e4m3(float f) { return e4m3_to_f32(f32_to_e4m3(f)); }

// Four codes in one uint, code k in bits 8k..8k+7 (little-endian byte order, as the host writes
// a uint8_t array into a buffer).
uint e4m3_pack4(uint c0, uint c1, uint c2, uint c3) {
    return (c0 & 0xffu) | ((c1 & 0xffu) << 8) | ((c2 & 0xffu) << 16) | ((c3 & 0xffu) << 24);
}
uint e4m3_unpack(uint word, uint k) { return (word >> (8u * k)) & 0xffu; }

#endif
