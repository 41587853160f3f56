// FP8 e4m3 (OCP "E4M3FN": bias 7, no infinities, 0x7f/0xff are NaN, largest finite +-448).
// model.md's rules: f32 -> e4m3 rounds to nearest even and saturates to +-448 (Inf too); NaN
// encodes as 0x7f and decodes to NaN. e4m3 -> f32 is exact. One definition for CPU and GPU.
#pragma once

#include <cstdint>

#include "numeric/float_bits.h"

namespace swinup {

constexpr float kE4m3Max = 448.0f;
constexpr uint8_t kE4m3NaN = 0x7f;

SWINUP_HD uint8_t f32_to_e4m3(float f) {
    const uint32_t x = float_to_bits(f);
    const uint32_t sign = (x >> 24) & 0x80u;
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u) return kE4m3NaN;                              // NaN
    if (abs >= 0x43e00000u) return static_cast<uint8_t>(sign | 0x7eu);  // |f| >= 448 (and Inf)
    if (abs < 0x3c800000u) {  // |f| < 2^-6: e4m3 subnormal range, unit 2^-9
        if (abs <= 0x3a800000u) return static_cast<uint8_t>(sign);       // <= 2^-10 rounds to 0
        const uint32_t e = abs >> 23;                                   // 117..120
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 141u - e;                                // one unit = 2^-9
        const uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        const uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
        return static_cast<uint8_t>(sign | r);  // r may carry into the smallest normal: fine
    }
    // Normal: rebias 127 -> 7 and round the mantissa's low 20 bits to nearest even.
    const uint32_t base = abs - (120u << 23);
    const uint32_t q = base >> 20;
    const uint32_t rem = base & 0xfffffu;
    uint32_t r = q + ((rem > 0x80000u || (rem == 0x80000u && (q & 1u))) ? 1u : 0u);
    if (r > 0x7eu) r = 0x7eu;  // rounding up past 448 saturates (0x7f is NaN)
    return static_cast<uint8_t>(sign | r);
}

SWINUP_HD float e4m3_to_f32(uint8_t code) {
    const uint32_t sign = (static_cast<uint32_t>(code) & 0x80u) << 24;
    const uint32_t e = (code >> 3) & 0xfu;
    const uint32_t m = code & 0x7u;
    if (e == 0xfu && m == 0x7u) return bits_to_float(sign | 0x7fc00000u);  // NaN
    if (e == 0) {
        const float v = static_cast<float>(m) * 0.001953125f;  // m * 2^-9, exact
        return sign ? -v : v;
    }
    return bits_to_float(sign | ((e + 120u) << 23) | (m << 20));
}

// Round a float to the nearest e4m3 value, kept as a float (the CPU's e4m3 storage points).
SWINUP_HD float round_to_e4m3(float f) { return e4m3_to_f32(f32_to_e4m3(f)); }

}  // namespace swinup
