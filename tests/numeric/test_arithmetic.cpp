// The shared number formats and exact-mode functions (numeric/e4m3.h, numeric/half.h,
// numeric/exact_math.h) against independent references computed in double, and the CPU's vectorised
// array versions (cpu/layers/elementwise.h) against the scalar definitions, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/float_bits.h"
#include "numeric/half.h"
#include "cpu/layers/elementwise.h"

namespace swinup {
namespace {

// e4m3 decoded from its definition (OCP E4M3FN): bias 7, 3 mantissa bits, subnormals at
// exponent 0, S.1111.111 is NaN, no infinities.
double e4m3_reference_decode(uint8_t code) {
    const int sign = code >> 7, e = (code >> 3) & 15, m = code & 7;
    if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
    const double magnitude = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
    return sign ? -magnitude : magnitude;
}

// f32 -> e4m3 by search: the nearest finite e4m3 magnitude (ties to the even code), saturating
// at 448; NaN -> 0x7f. Computed in double from the decoded table, no bit tricks.
uint8_t e4m3_reference_encode(float f) {
    if (std::isnan(f)) return 0x7f;
    const double a = std::fabs(double(f));
    const uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
    if (a >= 448.0) return sign | 0x7e;
    uint8_t best = 0;
    double best_distance = std::numeric_limits<double>::infinity();
    for (int code = 0; code <= 0x7e; ++code) {
        const double distance = std::fabs(e4m3_reference_decode(uint8_t(code)) - a);
        if (distance < best_distance || (distance == best_distance && (code & 1) == 0)) {
            best = uint8_t(code);
            best_distance = distance;
        }
    }
    return sign | best;
}

double f16_reference_decode(uint16_t h) {
    const int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double magnitude;
    if (e == 31) magnitude = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (e == 0) magnitude = std::ldexp(m, -24);
    else magnitude = std::ldexp(1024 + m, e - 25);
    return sign ? -magnitude : magnitude;
}

uint32_t bits(float f) { return float_to_bits(f); }

TEST(E4m3, DecodesAll256CodesLikeTheDefinition) {
    for (int code = 0; code < 256; ++code) {
        const float got = e4m3_to_f32(uint8_t(code));
        const double want = e4m3_reference_decode(uint8_t(code));
        if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got)) << "code " << code;
            EXPECT_TRUE((code & 0x7f) == 0x7f) << "code " << code;
        } else {
            EXPECT_EQ(double(got), want) << "code " << code;
            EXPECT_EQ(std::signbit(got), code >= 128) << "code " << code;
        }
    }
    EXPECT_EQ(e4m3_to_f32(0x7e), 448.0f);
    EXPECT_EQ(e4m3_to_f32(0x01), std::ldexp(1.0f, -9));
}

TEST(E4m3, EncodesEveryF16ValueLikeTheNearestEvenSearch) {
    std::vector<float> values;
    for (int h = 0; h < 65536; ++h) {
        const float f = f16_bits_to_f32(uint16_t(h));
        values.push_back(f);
        const uint8_t want = e4m3_reference_encode(f);
        ASSERT_EQ(f32_to_e4m3(f), want) << "f16 0x" << std::hex << h << " = " << f;
    }
    // The vectorised array rounding gives the same bits.
    std::vector<float> rounded = values;
    cpu::round_array_to_e4m3(rounded.data(), rounded.size());
    for (size_t i = 0; i < values.size(); ++i) {
        const float want = round_to_e4m3(values[i]);
        if (std::isnan(want)) ASSERT_TRUE(std::isnan(rounded[i])) << values[i];
        else ASSERT_EQ(bits(rounded[i]), bits(want)) << values[i];
    }
}

TEST(E4m3, RandomF32ValuesMatchTheSearchAndTheVectorPath) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<uint32_t> any_bits;
    std::vector<float> values;
    for (int i = 0; i < 20000; ++i) {
        // Exponents around e4m3's range, any mantissa, either sign.
        const uint32_t exponent = 100u + any_bits(rng) % 40u;  // 2^-27 .. 2^12
        const uint32_t b = (any_bits(rng) & 0x807fffffu) | (exponent << 23);
        values.push_back(bits_to_float(b));
    }
    std::vector<float> rounded = values;
    cpu::round_array_to_e4m3(rounded.data(), rounded.size());
    for (size_t i = 0; i < values.size(); ++i) {
        ASSERT_EQ(f32_to_e4m3(values[i]), e4m3_reference_encode(values[i])) << values[i];
        ASSERT_EQ(bits(rounded[i]), bits(round_to_e4m3(values[i]))) << values[i];
    }
}

TEST(E4m3, EdgeCases) {
    const float sub = std::ldexp(1.0f, -9);  // the subnormal unit
    // Ties to even, normal range: 1 + 1/16 lies between 1 (even) and 1.125.
    EXPECT_EQ(round_to_e4m3(1.0625f), 1.0f);
    EXPECT_EQ(round_to_e4m3(1.1875f), 1.25f);   // between 1.125 (odd) and 1.25 (even)
    EXPECT_EQ(round_to_e4m3(std::nextafter(1.0625f, 2.0f)), 1.125f);
    // Subnormals: half a unit rounds to 0 (even), 1.5 units to 2 units, just above half to 1.
    EXPECT_EQ(f32_to_e4m3(0.5f * sub), 0x00);
    EXPECT_EQ(f32_to_e4m3(-0.5f * sub), 0x80);
    EXPECT_EQ(f32_to_e4m3(1.5f * sub), 0x02);
    EXPECT_EQ(f32_to_e4m3(std::nextafter(0.5f * sub, 1.0f)), 0x01);
    EXPECT_EQ(f32_to_e4m3(std::numeric_limits<float>::denorm_min()), 0x00);
    // The largest subnormal and the smallest normal: 7.5 units is a tie -> 8 units = 2^-6 (even).
    EXPECT_EQ(f32_to_e4m3(7.5f * sub), 0x08);
    EXPECT_EQ(f32_to_e4m3(7.0f * sub), 0x07);
    // Saturation: 448 is the largest; above it, even past the next binade's midpoint, stays 448.
    EXPECT_EQ(f32_to_e4m3(448.0f), 0x7e);
    EXPECT_EQ(f32_to_e4m3(std::nextafter(448.0f, 1000.0f)), 0x7e);
    EXPECT_EQ(f32_to_e4m3(464.0f), 0x7e);
    EXPECT_EQ(f32_to_e4m3(479.9f), 0x7e);
    EXPECT_EQ(f32_to_e4m3(1.0e30f), 0x7e);
    EXPECT_EQ(f32_to_e4m3(std::numeric_limits<float>::max()), 0x7e);
    EXPECT_EQ(f32_to_e4m3(-500.0f), 0xfe);
    EXPECT_EQ(f32_to_e4m3(std::numeric_limits<float>::infinity()), 0x7e);
    EXPECT_EQ(f32_to_e4m3(-std::numeric_limits<float>::infinity()), 0xfe);
    // 432 lies midway between 416 (mantissa 5, odd) and 448 (mantissa 6, even).
    EXPECT_EQ(round_to_e4m3(432.0f), 448.0f);
    EXPECT_EQ(round_to_e4m3(400.0f), 384.0f);  // between 384 (m=4, even) and 416
    // NaN of either sign encodes as 0x7f and decodes to NaN.
    EXPECT_EQ(f32_to_e4m3(std::numeric_limits<float>::quiet_NaN()), 0x7f);
    EXPECT_EQ(f32_to_e4m3(-std::numeric_limits<float>::quiet_NaN()), 0x7f);
    EXPECT_TRUE(std::isnan(e4m3_to_f32(0x7f)));
    EXPECT_TRUE(std::isnan(e4m3_to_f32(0xff)));

    // The same edge cases through the vector path.
    std::vector<float> edge = {1.0625f, 1.1875f, 0.5f * sub, -0.5f * sub, 1.5f * sub, 7.5f * sub,
                               448.0f, 464.0f, 479.9f, 1.0e30f, std::numeric_limits<float>::max(),
                               -500.0f, std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(), 432.0f, 400.0f, -0.0f};
    std::vector<float> vec = edge;
    cpu::round_array_to_e4m3(vec.data(), vec.size());
    for (size_t i = 0; i < edge.size(); ++i) EXPECT_EQ(bits(vec[i]), bits(round_to_e4m3(edge[i]))) << edge[i];
    std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()};
    cpu::round_array_to_e4m3(nan.data(), nan.size());
    EXPECT_TRUE(std::isnan(nan[0]) && std::isnan(nan[1]));
}

TEST(F16, DecodesAndRoundTripsAll65536Codes) {
    for (int h = 0; h < 65536; ++h) {
        const float f = f16_bits_to_f32(uint16_t(h));
        const double want = f16_reference_decode(uint16_t(h));
        if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(f)) << h;
            ASSERT_TRUE(std::isnan(f16_bits_to_f32(f32_to_f16_bits(f)))) << h;
        } else {
            ASSERT_EQ(double(f), want) << h;
            ASSERT_EQ(f32_to_f16_bits(f), uint16_t(h)) << h;
        }
    }
}

TEST(F16, RoundsToNearestEven) {
    const float ulp1 = std::ldexp(1.0f, -10);  // f16 ulp at 1
    EXPECT_EQ(f32_to_f16_bits(1.0f + 0.5f * ulp1), 0x3c00);  // tie -> even (1.0)
    EXPECT_EQ(f32_to_f16_bits(1.0f + 1.5f * ulp1), 0x3c02);  // tie -> even (1 + 2 ulp)
    EXPECT_EQ(f32_to_f16_bits(std::nextafter(1.0f + 0.5f * ulp1, 2.0f)), 0x3c01);
    EXPECT_EQ(f32_to_f16_bits(65504.0f), 0x7bff);
    EXPECT_EQ(f32_to_f16_bits(65519.99f), 0x7bff);
    EXPECT_EQ(f32_to_f16_bits(65520.0f), 0x7c00);  // the tie with 65536 rounds to even: Inf
    EXPECT_EQ(f32_to_f16_bits(-1.0e9f), 0xfc00);
    const float sub = std::ldexp(1.0f, -24);
    EXPECT_EQ(f32_to_f16_bits(0.5f * sub), 0x0000);
    EXPECT_EQ(f32_to_f16_bits(1.5f * sub), 0x0002);
    EXPECT_EQ(f32_to_f16_bits(2.5f * sub), 0x0002);
    EXPECT_EQ(f32_to_f16_bits(-0.0f), 0x8000);
}

TEST(F16, VectorPathMatchesScalarOnRandomValues) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<uint32_t> any_bits;
    std::vector<float> a, b;
    for (int i = 0; i < 20001; ++i) {
        const uint32_t exponent = 95u + any_bits(rng) % 60u;  // f16 subnormals .. overflow
        a.push_back(bits_to_float((any_bits(rng) & 0x807fffffu) | (exponent << 23)));
        b.push_back(bits_to_float((any_bits(rng) & 0x807fffffu) | (exponent << 23)));
    }
    std::vector<float> r = a;
    cpu::round_array_to_f16(r.data(), r.size());
    std::vector<float> s(a.size());
    cpu::add_round_f16(a.data(), b.data(), s.data(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(bits(r[i]), bits(round_to_f16(a[i]))) << a[i];
        ASSERT_EQ(bits(s[i]), bits(round_to_f16(a[i] + b[i]))) << a[i] << " + " << b[i];
    }
}

// exp2: degree-6 Taylor polynomial on [-0.5, 0.5] (truncation < 2e-7 relative) evaluated with 6
// fmas (a few f32 roundings, < 1.5 ulp) and an exact exponent insertion: < 4e-7 relative.
TEST(ExactMath, Exp2IsWithinItsBound) {
    double worst = 0;
    for (int i = 0; i <= 200000; ++i) {
        const float x = -126.0f + 253.0f * float(i) / 200000.0f;
        const double want = std::exp2(double(x));
        worst = std::max(worst, std::fabs(double(exact::exp2(x)) - want) / want);
    }
    EXPECT_LT(worst, 4e-7);
    EXPECT_EQ(exact::exp2(0.0f), 1.0f);
    EXPECT_EQ(exact::exp2(-127.0f), 0.0f);
    EXPECT_EQ(exact::exp2(10.0f), 1024.0f);
    EXPECT_TRUE(std::isnan(exact::exp2(std::numeric_limits<float>::quiet_NaN())));
}

// log2: for x = m 2^e, ln m by the atanh series (< 3e-10) then a few roundings: the error is a
// couple of ulp of the result, absolute < 4e-7 * max(1, |log2 x|).
TEST(ExactMath, Log2IsWithinItsBound) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> exponent(-100, 100);
    for (int i = 0; i < 100000; ++i) {
        const float x = float(std::exp2(exponent(rng)));
        const double want = std::log2(double(x));
        ASSERT_LT(std::fabs(double(exact::log2(x)) - want), 4e-7 * std::max(1.0, std::fabs(want))) << x;
    }
    EXPECT_EQ(exact::log2(1.0f), 0.0f);
    EXPECT_EQ(exact::log2(0.0f), -126.0f);
}

// tanh = 1 - 2 / (1 + e^(2y)): the subtraction from 1 makes the error absolute, a few ulp of 1.
// sigmoid = 1 / (1 + e^-x): relative error of exp2 plus two roundings, absolute < 3e-7.
// GELU: x/2 (1 + tanh(.)): absolute error < 5e-7 * max(1, |x|).
TEST(ExactMath, TanhSigmoidGeluAreWithinTheirBounds) {
    for (int i = -200000; i <= 200000; ++i) {
        const float x = float(i) * 1e-4f;  // [-20, 20]
        const double xd = double(x);
        ASSERT_LT(std::fabs(double(exact::tanh(x)) - std::tanh(xd)), 5e-7) << x;
        ASSERT_LT(std::fabs(double(exact::sigmoid(x)) - 1.0 / (1.0 + std::exp(-xd))), 3e-7) << x;
        const double gelu = 0.5 * xd * (1.0 + std::tanh(0.7978845608028654 * (xd + 0.044715 * xd * xd * xd)));
        ASSERT_LT(std::fabs(double(exact::gelu(x)) - gelu), 5e-7 * std::max(1.0, std::fabs(xd))) << x;
    }
    EXPECT_EQ(exact::tanh(100.0f), 1.0f);
    EXPECT_EQ(exact::tanh(-100.0f), -1.0f);
}

TEST(ExactMath, VectorGeluAndReluMatchScalar) {
    std::vector<float> x;
    for (int i = -300000; i <= 300000; i += 7) x.push_back(float(i) * 1e-4f);
    x.push_back(200.0f);
    x.push_back(-200.0f);
    x.push_back(std::numeric_limits<float>::infinity());
    x.push_back(-0.0f);
    std::vector<float> g = x, r = x;
    cpu::gelu_to_e4m3(g.data(), g.size());
    cpu::relu_to_e4m3(r.data(), r.size());
    for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(bits(g[i]), bits(round_to_e4m3(exact::gelu(x[i])))) << x[i];
        ASSERT_EQ(bits(r[i]), bits(round_to_e4m3(x[i] > 0.0f ? x[i] : 0.0f))) << x[i];
    }
}

}  // namespace
}  // namespace swinup
