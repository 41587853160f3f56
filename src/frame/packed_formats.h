// The packed pixel formats engines render into, decoded and encoded once for every backend
// (host/device; the Vulkan shaders' twin is shaders/common/packed_formats.glsl):
//   B10G11R11F   unsigned floats, R 11 bits (bits 0-10), G 11 (11-21), B 10 (22-31): 5 exponent
//                bits (bias 15, as f16) and 6 / 5 mantissa bits, no sign. Every value is an f16.
//   R10G10B10A2  UNORM, R in bits 0-9, G 10-19, B 20-29, alpha 30-31.
//   D24_UNORM_S8 a depth word: UNORM24 depth in bits 0-23, stencil in 24-31 (not read).
// Decoding is exact where the format's value is an f32 (the floats) and correctly rounded where it
// is not (code / (2^n - 1) with one IEEE division). Encoding rounds to nearest, ties to even.
#pragma once

#include <cstdint>

#include "numeric/exact_math.h"
#include "numeric/float_bits.h"
#include "numeric/host_device.h"

namespace swinup::px {

// An unsigned small float's bits (5 exponent bits, bias 15, `mantissa_bits` mantissa bits) as an
// f32: exact. Exponent 31 is Inf (mantissa 0) or NaN, as in f16.
SWINUP_HD float ufloat_to_f32(uint32_t bits, int mantissa_bits) {
    const uint32_t e = bits >> mantissa_bits;
    const uint32_t m = bits & ((1u << mantissa_bits) - 1u);
    if (e == 31u) return bits_to_float(m == 0u ? 0x7f800000u : 0x7fc00000u);
    if (e == 0u) {
        // m * 2^(-14 - mantissa_bits): an integer below 2^6 times a power of two, exact.
        return static_cast<float>(m) * bits_to_float(static_cast<uint32_t>(127 - 14 - mantissa_bits) << 23);
    }
    return bits_to_float(((e + 127u - 15u) << 23) | (m << (23 - mantissa_bits)));
}

// The largest finite value's bits: exponent 30, every mantissa bit set (65024 for 6 mantissa bits,
// 64512 for 5).
SWINUP_HD uint32_t ufloat_max_finite(int mantissa_bits) {
    return (30u << mantissa_bits) | ((1u << mantissa_bits) - 1u);
}

// bits >> shift (1 <= shift <= 31), rounded to nearest, ties to even.
SWINUP_HD uint32_t shift_round_even(uint32_t bits, int shift) {
    const uint32_t q = bits >> shift;
    const uint32_t rem = bits & ((1u << shift) - 1u);
    const uint32_t half_unit = 1u << (shift - 1);
    return q + ((rem > half_unit || (rem == half_unit && (q & 1u) != 0u)) ? 1u : 0u);
}

// v as an unsigned small float (see ufloat_to_f32), to nearest even. NaN, zero and negative
// values are 0; values beyond the largest finite one (Inf too) are the largest finite one, so an
// encoded pixel never holds Inf or NaN.
SWINUP_HD uint32_t f32_to_ufloat(float v, int mantissa_bits) {
    if (!(v > 0.0f)) return 0u;
    const uint32_t b = float_to_bits(v);
    const uint32_t max_finite = ufloat_max_finite(mantissa_bits);
    if (b >= 0x7f800000u) return max_finite;
    const int e = static_cast<int>(b >> 23) - 127 + 15;  // the small format's biased exponent
    const uint32_t significand = (b & 0x7fffffu) | 0x800000u;
    if (e >= 31) return max_finite;
    if (e <= 0) {  // a subnormal of the small format: significand * 2^(e - 1 - 23 + mantissa_bits)
        const int shift = 23 - mantissa_bits + 1 - e;
        if (shift > 24) return 0u;  // below half the smallest subnormal
        return shift_round_even(significand, shift);  // 1 << mantissa_bits: the smallest normal
    }
    // A carry out of the mantissa moves into the exponent, as the encoding's order wants.
    const uint32_t r = (static_cast<uint32_t>(e) << mantissa_bits) +
                       shift_round_even(significand & 0x7fffffu, 23 - mantissa_bits);
    return r > max_finite ? max_finite : r;
}

SWINUP_HD uint32_t pack_b10g11r11f(float r, float g, float b) {
    return f32_to_ufloat(r, 6) | (f32_to_ufloat(g, 6) << 11) | (f32_to_ufloat(b, 5) << 22);
}

// Channel c (0 R, 1 G, 2 B; 3 is alpha: 1) of a B10G11R11F word.
SWINUP_HD float b10g11r11f_channel(uint32_t word, int c) {
    if (c == 0) return ufloat_to_f32(word & 0x7ffu, 6);
    if (c == 1) return ufloat_to_f32((word >> 11) & 0x7ffu, 6);
    if (c == 2) return ufloat_to_f32(word >> 22, 5);
    return 1.0f;
}

// code / max_code, one correctly rounded division (the code is exact in f32).
SWINUP_HD float unorm_decode(uint32_t code, float max_code) {
    return exact::div(static_cast<float>(code), max_code);
}

// Channel c (0 R, 1 G, 2 B, 3 alpha) of an R10G10B10A2 word.
SWINUP_HD float r10g10b10a2_channel(uint32_t word, int c) {
    if (c == 3) return unorm_decode(word >> 30, 3.0f);
    return unorm_decode((word >> (10 * c)) & 0x3ffu, 1023.0f);
}

// The depth of a D24_UNORM_S8 word (the stencil byte is not read).
SWINUP_HD float d24_depth(uint32_t word) { return unorm_decode(word & 0xffffffu, 16777215.0f); }

}  // namespace swinup::px
