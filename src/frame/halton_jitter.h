// The sub-pixel jitter sequence: Halton(2, 3), one definition for the C API's swinup_get_jitter,
// the renderer's frames (render/jitter.h) and the tests, on host and device.
#pragma once

#include <cstdint>

#include "numeric/host_device.h"

namespace swinup {

// Radical inverse of `index` in `base` (the Halton sequence's element `index`), correctly rounded:
// the digits are reversed in integers (numerator < denominator = base^digits, both exact in a
// double: base^digits <= 3^21 < 2^53 for base 3 and a 32-bit index) and divided once. The double
// quotient rounded to float is the float nearest the exact fraction (tests/frame/test_halton.cpp
// checks it against integer rounding); summing digit / base^k in floats instead rounds at every
// step and misses it in the last bit for some indices.
SWINUP_HD float halton(uint32_t index, uint32_t base) {
    uint64_t numerator = 0;
    uint64_t denominator = 1;
    while (index > 0) {
        numerator = numerator * base + index % base;
        denominator *= base;
        index /= base;
    }
    return static_cast<float>(static_cast<double>(numerator) / static_cast<double>(denominator));
}

// The jitter of phase `phase` of a sequence of `count` phases, in render pixels in [-0.5, 0.5):
// Halton(2, 3) at index (phase mod count) + 1, minus 0.5 (index 0 would be the pixel's corner; FSR 2
// starts at 1 too). A count of 0 is read as 1.
SWINUP_HD void halton_jitter(uint32_t phase, uint32_t count, float* jitter_x, float* jitter_y) {
    const uint32_t index = (count == 0 ? 0u : phase % count) + 1u;
    *jitter_x = halton(index, 2) - 0.5f;
    *jitter_y = halton(index, 3) - 0.5f;
}

}  // namespace swinup
