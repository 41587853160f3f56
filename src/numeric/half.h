// IEEE binary16 conversions, bit-exact round-to-nearest-even, host and device.
// The residual stream, attention operands, the history and the bias tables are f16 (model.md);
// every backend must round the same way, so the conversion is one shared definition.
#pragma once

#include <cstdint>

#include "numeric/float_bits.h"

namespace swinup {

// f32 -> f16 bits, round to nearest even, overflow to Inf, NaN stays NaN (quiet).
SWINUP_HD uint16_t f32_to_f16_bits(float f) {
    const uint32_t x = float_to_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // Inf or NaN
        return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to Inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
        if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25 rounds to 0
        // Value = m * 2^(e-150) with the implicit bit; a half subnormal unit is 2^-24.
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - e;  // bits to drop so that one unit = 2^-24
        const uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        const uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
        return static_cast<uint16_t>(sign | r);
    }
    // Normal: rebias the exponent and round the mantissa's low 13 bits to nearest even.
    const uint32_t base = abs - 0x38000000u;  // exponent bias 127 -> 15
    const uint32_t q = base >> 13;
    const uint32_t rem = base & 0x1fffu;
    const uint32_t r = q + ((rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | r);
}

// f16 bits -> f32, exact.
SWINUP_HD float f16_bits_to_f32(uint16_t h) {
    const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    const uint32_t m = h & 0x3ffu;
    if (e == 0x1fu) return bits_to_float(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        // Subnormal: m * 2^-24, exact in f32.
        const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return bits_to_float(sign | ((e + 112u) << 23) | (m << 13));
}

// Round a float to the nearest f16 value, kept as a float (the CPU's f16 storage points).
SWINUP_HD float round_to_f16(float f) { return f16_bits_to_f32(f32_to_f16_bits(f)); }

}  // namespace swinup
