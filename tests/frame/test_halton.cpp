// The Halton sequence (frame/halton_jitter.h) is the float nearest the exact radical inverse: each
// element is compared with the exact fraction rounded to nearest even in integers alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "frame/halton_jitter.h"

namespace {

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

// The radical inverse of `index` in `base` as the exact fraction numerator / denominator.
void radical_inverse_fraction(uint32_t index, uint32_t base, uint64_t* numerator, uint64_t* denominator) {
    *numerator = 0;
    *denominator = 1;
    for (; index > 0; index /= base) {
        *numerator = *numerator * base + index % base;
        *denominator *= base;
    }
}

// The float nearest numerator / denominator (< 1), ties to even, by long division in integers:
// the quotient's binary digits one at a time until 24 significant ones, then the next digit and
// whether anything remains decide the rounding. No floating-point operation is involved except
// the final scaling of the 24-bit integer by a power of two, which is exact.
float nearest_float(uint64_t numerator, uint64_t denominator) {
    if (numerator == 0) return 0.0f;
    uint64_t remainder = numerator;  // < denominator < 2^34: doubling it cannot overflow
    uint32_t significand = 0;
    int fraction_bits = 0;  // significand * 2^-fraction_bits is the truncated quotient
    while (significand < (1u << 23)) {
        remainder *= 2;
        significand = significand * 2 + (remainder >= denominator ? 1u : 0u);
        if (remainder >= denominator) remainder -= denominator;
        ++fraction_bits;
    }
    remainder *= 2;
    const bool half_bit = remainder >= denominator;
    if (half_bit) remainder -= denominator;
    const bool sticky = remainder != 0;
    if (half_bit && (sticky || (significand & 1u))) ++significand;  // 2^24 is still exact
    return std::ldexp(static_cast<float>(significand), -fraction_bits);
}

TEST(Halton, ReferenceRoundsKnownFractions) {
    EXPECT_EQ(nearest_float(1, 2), 0.5f);
    EXPECT_EQ(bits_of(nearest_float(1, 3)), 0x3eaaaaabu);  // 1/3 = 0.0101...b rounds up
    EXPECT_EQ(bits_of(nearest_float(2, 3)), 0x3f2aaaabu);  // 2/3 rounds up too
    EXPECT_EQ(bits_of(nearest_float(1, 9)), 0x3de38e39u);
    // A tie: 1 + 2^-24 (25 significant bits, the last one a half) rounds to even, down to 1,
    // and 1 + 3 * 2^-24 up to 1 + 2^-22.
    EXPECT_EQ(nearest_float((1ull << 24) + 1, 1ull << 25), 0.5f);
    EXPECT_EQ(nearest_float((1ull << 24) + 3, 1ull << 25), 0.5f + 0x1p-23f);
}

TEST(Halton, IsTheNearestFloatOfTheExactRadicalInverse) {
    for (uint32_t base : {2u, 3u}) {
        for (uint32_t index = 0; index < 4096; ++index) {
            uint64_t numerator, denominator;
            radical_inverse_fraction(index, base, &numerator, &denominator);
            ASSERT_EQ(bits_of(swinup::halton(index, base)), bits_of(nearest_float(numerator, denominator)))
                << "base " << base << ", index " << index;
        }
    }
}

TEST(Halton, LargeIndicesStayExact) {
    // Long digit strings: 2^32 - 1 (32 binary ones, 21 ternary digits), 3^20 - 1 (twenty ternary
    // twos), 0xaaaaaaaa, 2^31 + 1.
    for (uint32_t index : {0xffffffffu, 3486784400u, 0xaaaaaaaau, 0x80000001u}) {
        for (uint32_t base : {2u, 3u}) {
            uint64_t numerator, denominator;
            radical_inverse_fraction(index, base, &numerator, &denominator);
            EXPECT_EQ(bits_of(swinup::halton(index, base)), bits_of(nearest_float(numerator, denominator)))
                << "base " << base << ", index " << index;
        }
    }
}

TEST(HaltonJitter, IsHaltonTwoThreeFromIndexOneMinusHalf) {
    const uint32_t count = 32;
    for (uint32_t phase = 0; phase < 100; ++phase) {
        float jx = 0.0f, jy = 0.0f;
        swinup::halton_jitter(phase, count, &jx, &jy);
        const uint32_t index = phase % count + 1;
        EXPECT_EQ(jx, swinup::halton(index, 2) - 0.5f) << phase;
        EXPECT_EQ(jy, swinup::halton(index, 3) - 0.5f) << phase;
        EXPECT_GE(jx, -0.5f);
        EXPECT_LT(jx, 0.5f);
        EXPECT_GE(jy, -0.5f);
        EXPECT_LT(jy, 0.5f);
    }
    float jx = 1.0f, jy = 1.0f;
    swinup::halton_jitter(7, 0, &jx, &jy);  // a count of 0 is one phase: index 1
    EXPECT_EQ(jx, 0.0f);
    EXPECT_EQ(jy, swinup::halton(1, 3) - 0.5f);
}

}  // namespace
